/*
 * colour.h: colour on a terminal only.  The verdict words of the summary
 * (PARITY, DRIFT, FAIL, ERROR, warn) may be painted, so that a reader at
 * a terminal finds them at a glance; nothing else is, and never the
 * input's text.  Colour goes only to a terminal, never to a file, a pipe
 * or a CI log, unless forced: the mode (--color=auto|always|never, auto
 * by default) decides, and in auto NO_COLOR (set and not empty, as
 * https://no-color.org asks), TERM=dumb and CI (ci.h) turn it off.  A
 * line is cleaned as ep_say cleans it (clean.h) before the escapes are
 * put around the word, so that the escapes are the only ones it holds.
 */
#ifndef EP_COLOUR_H
#define EP_COLOUR_H

#include <stdio.h>

#include "errors.h"

enum { EP_COLOUR_AUTO, EP_COLOUR_ALWAYS, EP_COLOUR_NEVER };

/* What a word is painted with. */
enum ep_paint {
	EP_PAINT_GOOD,		/* green: PARITY */
	EP_PAINT_BAD,		/* red: DRIFT, FAIL, ERROR */
	EP_PAINT_WARN,		/* yellow: warn */
};

/* Set the mode (EP_COLOUR_*) for the whole process. */
void ep_colour_mode(int mode);

/* "auto", "always" or "never" into *mode; else EP_E_INPUT naming the
 * value and the three words, -1. */
int ep_colour_parse(int *mode, const char *arg, struct ep_err *err);

/* Whether what is written to f is painted: always, never, or in auto
 * when f is a terminal, NO_COLOR is unset or empty, TERM is not "dumb"
 * and this is not CI. */
int ep_colour_on(FILE *f);

/* Print head, word and the formatted rest to f as one line, cleaned as
 * ep_say cleans it, with word (a literal of envparity's, ASCII) painted
 * when ep_colour_on(f).  Returns what fputs returns. */
int ep_colour_say(FILE *f, const char *head, enum ep_paint paint,
    const char *word, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#endif
