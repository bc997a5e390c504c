/*
 * clean.h: making untrusted text safe to show.  Keys, values and messages
 * carry what a machine, a manifest, a registry or a pull request put
 * there: invalid UTF-8, terminal escapes, bidirectional overrides,
 * invisible characters, and text that a CI runner reads as a command
 * (GitHub's "::error::" at the start of a line, its legacy "##[command]"
 * anywhere in one).  Every line envparity prints goes through
 * ep_line_clean (ep_say does it), every report cell through
 * ep_text_clean, every text a report's reader decodes and may print
 * into the log (JUnit's attributes and messages) through ep_text_nocmd,
 * and every JSON and XML document through ep_json_clean and
 * ep_xml_clean.
 */
#ifndef EP_CLEAN_H
#define EP_CLEAN_H

#include <stdarg.h>
#include <stdio.h>

/* A copy of s (NULL for NULL) that is valid UTF-8 (invalid bytes become
 * U+FFFD), has no character XML 1.0 forbids and nothing a terminal or a
 * reader's eye would be fooled by: C0 controls become their Control
 * Pictures (ESC shows as U+241B), DEL U+2421; C1 controls, U+FFFE and
 * U+FFFF, bidirectional controls (U+202A-U+202E, U+2066-U+2069, ...) and
 * invisible or default-ignorable characters (U+200B, U+00AD, U+FEFF, ...)
 * are written out as "<U+202E>".  keep_lines keeps tab, LF and CR.
 * Two different valid UTF-8 strings never give the same text (two keys
 * stay two testcases): a Control Picture the input holds itself is
 * written out ("<U+2401>"), and so is the '<' of a literal "<U+", so that
 * every "<U+" in the result is one of these. */
char *ep_text_clean(const char *s, int keep_lines);

/* s (NULL as "") as one line safe for a terminal and a CI log:
 * ep_text_clean without keep_lines (a newline shows as U+240A), and no
 * workflow command: "::" at the start of the line (after white space, as
 * GitHub's runner trims it) becomes "\::", and "##[" anywhere "##\[".  A
 * new string. */
char *ep_line_clean(const char *s);

/* s (NULL as "") as text that a report's reader decodes and may print
 * into a CI log, whole, line by line, or in pieces it cuts out (action-
 * junit-report prints the last '.'-separated part of a classname at the
 * start of a line): ep_text_clean with keep_lines, and neither "::" nor
 * "##[" anywhere in it, so that no piece of it starts a workflow
 * command.  The second ':' of "::" is written "<U+003A>" and the '[' of
 * "##[" "<U+005B>", as ep_text_clean writes out what may not be shown,
 * so that two values still never give one text.  A character past ASCII
 * or a CR between them does not keep them apart (a reader may drop it:
 * "#<emoji>#[" is "#<emoji>#<U+005B>").  XML's own escapes would not do:
 * a reader decodes "&#58;" back to ':'.  A new string. */
char *ep_text_nocmd(const char *s);

/* Print the formatted text to f as one line, its URLs' userinfo scrubbed
 * (ep_scrub_userinfo) and cleaned (ep_line_clean), then a newline.
 * Returns what fputs returns. */
int ep_say(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int ep_vsay(FILE *f, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

/* A copy of the JSON text json (as jansson writes it) that means the same
 * but cannot be read as a workflow command when shown in a log line by
 * line: "##[" (only ever inside a string) becomes "##\u005b", and the
 * characters ep_text_clean writes out as "<U+...>" become \u escapes.
 * A new string. */
char *ep_json_clean(const char *json);

/* A copy of the n bytes of XML text x (as libxml2's writer makes it: no
 * CDATA, newlines in attributes written as &#10;) that is the same
 * document but holds no workflow command when shown line by line: a
 * line of text content that starts with "::" starts with "&#58;:", and
 * "##[" is "##&#91;".  That is for the file shown as it is; a reader
 * decodes those back, so the text inside is ep_text_nocmd's.  A new
 * string. */
char *ep_xml_clean(const char *x, size_t n);

/* A copy of s with the userinfo of every URL in it ("https://user:pass@
 * host", "https://TOKEN@host") replaced by "***": the text up to the last
 * '@' of the URL's token (white space, quotes and angle brackets end it),
 * since a password may hold '/', '#', '?' or '@' unencoded.  An ssh
 * account name without a password ("ssh://git@host") is no secret and
 * stays.  For messages that quote what a file or a server said.  A new
 * string. */
char *ep_scrub_userinfo(const char *s);

#endif
