/* test_colour.c: colour on a terminal only (colour.c): the mode's words,
 * NO_COLOR, TERM=dumb, CI and a file or pipe turning it off, a
 * pseudo-terminal turning it on, and the escapes put only around the
 * word, after the line is cleaned. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "colour.h"
#include "xalloc.h"

static int
reset(void **state)
{
	(void)state;
	ep_colour_mode(EP_COLOUR_AUTO);
	unsetenv("NO_COLOR");
	unsetenv("CI");
	unsetenv("GITHUB_ACTIONS");
	unsetenv("GITLAB_CI");
	setenv("TERM", "xterm", 1);
	return 0;
}

static void
test_parse(void **state)
{
	struct ep_err err = { 0 };
	int mode = -1;

	(void)state;
	assert_int_equal(ep_colour_parse(&mode, "always", &err), 0);
	assert_int_equal(mode, EP_COLOUR_ALWAYS);
	assert_int_equal(ep_colour_parse(&mode, "never", &err), 0);
	assert_int_equal(mode, EP_COLOUR_NEVER);
	assert_int_equal(ep_colour_parse(&mode, "auto", &err), 0);
	assert_int_equal(mode, EP_COLOUR_AUTO);
	assert_int_equal(ep_colour_parse(&mode, "yes", &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_string_equal(err.msg, "--color 'yes': expected auto, always or "
	    "never");
}

/* A pseudo-terminal is a terminal; a file is not; each setting that
 * turns auto off does, and always and never override them. */
static void
test_when(void **state)
{
	int mfd, sfd;
	FILE *tty, *file = tmpfile();

	(void)state;
	assert_int_equal(openpty(&mfd, &sfd, NULL, NULL, NULL), 0);
	tty = fdopen(sfd, "w");
	assert_non_null(tty);
	assert_non_null(file);
	assert_int_equal(ep_colour_on(tty), 1);
	assert_int_equal(ep_colour_on(file), 0);
	setenv("NO_COLOR", "", 1);		/* empty: no effect */
	assert_int_equal(ep_colour_on(tty), 1);
	setenv("NO_COLOR", "1", 1);
	assert_int_equal(ep_colour_on(tty), 0);
	ep_colour_mode(EP_COLOUR_ALWAYS);	/* forced: the user's word */
	assert_int_equal(ep_colour_on(tty), 1);
	assert_int_equal(ep_colour_on(file), 1);
	ep_colour_mode(EP_COLOUR_AUTO);
	unsetenv("NO_COLOR");
	setenv("TERM", "dumb", 1);
	assert_int_equal(ep_colour_on(tty), 0);
	setenv("TERM", "xterm", 1);
	setenv("GITHUB_ACTIONS", "true", 1);
	assert_int_equal(ep_colour_on(tty), 0);
	unsetenv("GITHUB_ACTIONS");
	ep_colour_mode(EP_COLOUR_NEVER);
	assert_int_equal(ep_colour_on(tty), 0);
	fclose(tty);
	fclose(file);
	close(mfd);
}

static char *
said(int mode, const char *head, const char *word, const char *rest)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	ep_colour_mode(mode);
	ep_colour_say(f, head, EP_PAINT_BAD, word, "%s", rest);
	fclose(f);
	return buf;
}

static void
test_paint(void **state)
{
	char *s;

	(void)state;
	s = said(EP_COLOUR_ALWAYS, "envparity check: ", "DRIFT",
	    ": \x1b[32mx against https://tok@h/g.git");
	/* The word painted and reset; the input's ESC shown, not obeyed;
	 * a URL's token scrubbed, as ep_say does. */
	assert_string_equal(s, "envparity check: \x1b[1;31mDRIFT\x1b[0m: "
	    "\xe2\x90\x9b[32mx against https://***@h/g.git\n");
	free(s);
	s = said(EP_COLOUR_NEVER, "  ", "FAIL", "    a: 1 -> 2");
	assert_string_equal(s, "  FAIL    a: 1 -> 2\n");
	free(s);
	/* A head a runner would read as a command is cleaned, unpainted. */
	s = said(EP_COLOUR_ALWAYS, "::", "FAIL", "x");
	assert_null(strchr(s, '\x1b'));
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_parse, reset),
		cmocka_unit_test_setup(test_when, reset),
		cmocka_unit_test_setup(test_paint, reset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
