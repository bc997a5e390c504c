/*
 * errors.h: the error every fallible function fills, and the exit codes
 * its kinds map onto.
 *
 * Conventions: functions that can fail return int (0 ok, negative on
 * failure) and fill a caller-supplied struct ep_err with one message that
 * names the input and the problem.  Only main.c and the cmd_*.c exec
 * functions print errors and choose exit codes.  util.c implements it.
 */
#ifndef EP_ERRORS_H
#define EP_ERRORS_H

/* Exit codes: the command-line contract (DESIGN.md). */
enum ep_exit {
	EP_EXIT_OK = 0,		/* parity (waived findings included) */
	EP_EXIT_DRIFT = 1,	/* drift or a failed check */
	EP_EXIT_USAGE = 2,	/* usage or malformed input */
	EP_EXIT_NORUN = 3,	/* could not run: I/O error, store unreachable */
};

/* What an error means for the caller; maps one to one onto exit codes. */
enum ep_errkind {
	EP_E_DENIED = EP_EXIT_DRIFT,	/* well-formed input that does not
					   prove what was asked (verify: no
					   signature holds, a verdict or a
					   subject that does not match) */
	EP_E_INPUT = EP_EXIT_USAGE,	/* bad input the user gave us */
	EP_E_IO = EP_EXIT_NORUN,	/* the environment failed us */
};

struct ep_err {
	int kind;		/* enum ep_errkind; 0 while unset */
	char msg[1024];
};

/* Fill err (when err is not NULL) and return -1, so callers can write
 * "return ep_err_set(err, EP_E_INPUT, "%s: ...", path);". */
int ep_err_set(struct ep_err *err, int kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
