/*
 * colour.c: colour on a terminal only (colour.h): the mode, the rule that
 * keeps escapes out of files, pipes and CI logs, and the one way a
 * painted word is printed, after the line is cleaned.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ci.h"
#include "clean.h"
#include "colour.h"
#include "xalloc.h"

static int colour_mode = EP_COLOUR_AUTO;

void
ep_colour_mode(int mode)
{
	colour_mode = mode;
}

int
ep_colour_parse(int *mode, const char *arg, struct ep_err *err)
{
	if (strcmp(arg, "auto") == 0)
		*mode = EP_COLOUR_AUTO;
	else if (strcmp(arg, "always") == 0)
		*mode = EP_COLOUR_ALWAYS;
	else if (strcmp(arg, "never") == 0)
		*mode = EP_COLOUR_NEVER;
	else
		return ep_err_set(err, EP_E_INPUT, "--color '%s': expected "
		    "auto, always or never", arg);
	return 0;
}

int
ep_colour_on(FILE *f)
{
	const char *no = getenv("NO_COLOR"), *term = getenv("TERM");

	if (colour_mode != EP_COLOUR_AUTO)
		return colour_mode == EP_COLOUR_ALWAYS;
	if (no != NULL && no[0] != '\0')
		return 0;
	if (term != NULL && strcmp(term, "dumb") == 0)
		return 0;
	if (ep_ci_var() != NULL)
		return 0;
	return isatty(fileno(f));
}

int
ep_colour_say(FILE *f, const char *head, enum ep_paint paint,
    const char *word, const char *fmt, ...)
{
	static const char *const sgr[] = {
		[EP_PAINT_GOOD] = "\033[1;32m",
		[EP_PAINT_BAD] = "\033[1;31m",
		[EP_PAINT_WARN] = "\033[33m",
	};
	size_t hl = strlen(head), wl = strlen(word);
	va_list ap;
	char *rest, *line, *u, *c;
	int rc;

	va_start(ap, fmt);
	rest = xvasprintf(fmt, ap);
	va_end(ap);
	line = xasprintf("%s%s%s", head, word, rest);
	u = ep_scrub_userinfo(line);
	c = ep_line_clean(u);
	/* head and word are envparity's own ASCII: cleaning leaves them as
	 * they are, unless head starts with what a runner reads as a
	 * command, which is then printed cleaned and unpainted. */
	if (ep_colour_on(f) && strncmp(c, head, hl) == 0 &&
	    strncmp(c + hl, word, wl) == 0)
		rc = fprintf(f, "%.*s%s%s\033[0m%s\n", (int)hl, c, sgr[paint],
		    word, c + hl + wl) < 0 ? EOF : 0;
	else if ((rc = fputs(c, f)) != EOF)
		rc = fputc('\n', f);
	free(c);
	free(u);
	free(line);
	free(rest);
	return rc;
}
