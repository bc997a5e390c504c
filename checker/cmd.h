/*
 * cmd.h: the subcommands (cmdtable.c holds their table, after tmux's
 * cmd_table[]) and what they share (cmd.c).  Each cmd_<verb>.c exports
 * one struct ep_cmd declaring its options (opt.h); its exec has them
 * parsed (ep_opt_parse), orchestrates the modules, prints, and returns
 * the exit code (enum ep_exit).
 */
#ifndef EP_CMD_H
#define EP_CMD_H

#include <stddef.h>

#include "errors.h"
#include "opt.h"

struct ep_cmd {
	const char *name;
	const char *summary;	/* one line, for `envparity --help` */
	const char *usage;	/* --help's head: the synopsis and what the
				   command does, up to the options */
	const struct ep_opt *opts;	/* its options and groups, in the
				   order --help shows them (opt.h) */
	const char *footer;	/* --help's tail, after a blank line */
	int in_order;		/* options stop at the first operand */
	int max_operands;	/* -1: any number */
	int (*exec)(const struct ep_cmd *self, int argc, char **argv);
};

/* Every command, in the order `envparity --help` lists them; NULL
 * ends it. */
extern const struct ep_cmd *const ep_cmd_table[];

extern const struct ep_cmd ep_cmd_attest;
extern const struct ep_cmd ep_cmd_capture;
extern const struct ep_cmd ep_cmd_check;
extern const struct ep_cmd ep_cmd_diff;
extern const struct ep_cmd ep_cmd_fleet;
extern const struct ep_cmd ep_cmd_digest;
extern const struct ep_cmd ep_cmd_bless;
extern const struct ep_cmd ep_cmd_log;
extern const struct ep_cmd ep_cmd_profiles;
extern const struct ep_cmd ep_cmd_waive;
extern const struct ep_cmd ep_cmd_unwaive;
extern const struct ep_cmd ep_cmd_policy;
extern const struct ep_cmd ep_cmd_probe;
extern const struct ep_cmd ep_cmd_verify;
extern const struct ep_cmd ep_cmd_version;

/* The examples that end cmd's --help (cmdexamples.c): lines "  envparity
 * VERB ...", each ending in '\n'; static; NULL for a command with none. */
const char *ep_cmd_examples(const struct ep_cmd *cmd);

/* Print "envparity VERB: message" and the --help hint to stderr, each
 * line cleaned (clean.h: every printed line is); returns
 * EP_EXIT_USAGE. */
int ep_cmd_usage_error(const struct ep_cmd *self, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* -m MESSAGE: 0 when NULL or not blank, else the usage error "the message
 * is empty" (EP_EXIT_USAGE). */
int ep_cmd_message_check(const struct ep_cmd *self, const char *message);

struct option;
struct ep_err;
typedef struct json_t json_t;

/* A command's --json document on standard output: root (taken, freed)
 * serialized with sorted keys, indented, cleaned (ep_json_clean), a
 * newline after it, flushed.  0, or -1 with EP_E_IO in err. */
int ep_cmd_print_json(json_t *root, struct ep_err *err);

/* What a command's getopt_long loop does with anything it does not know
 * (c is '?' or ':'; optstrings begin with ':' after any '+', so that a
 * missing value is ':'): print one line naming the option, "option
 * '--json' needs a value", "option '--quiet' takes no value", "option
 * '--re' is ambiguous: '--ref', '--registry-ca', ...", or "unknown
 * option '--jsn'; did you mean '--json'?" when a long option in longopts
 * is close, then the --help hint; returns EP_EXIT_USAGE.  Reads optind and optopt. */
int ep_cmd_bad_option(const struct ep_cmd *self, int c,
    const struct option *longopts, char **argv);

/* The name in names[0..n) closest to word, for "did you mean": within an
 * optimal-string-alignment distance of 2 (1 for a word of 3 characters
 * or fewer), else the one name word is a prefix of; NULL when none is. */
const char *ep_cmd_suggest(const char *word, const char *const *names,
    size_t n);

/* Print "envparity VERB: <err->msg>" to stderr; returns the exit code the
 * error's kind maps to. */
int ep_cmd_fail(const struct ep_cmd *self, const struct ep_err *err);

struct ep_manifest;
struct ep_reportopt;

/* The outputs of a command besides its reports (check -o, --attest),
 * what[i] naming each for messages and paths[i] NULL when not asked
 * for: each can take a file (outfile.h's rule, "-" allowed), and none
 * names the same output as another or as a report (EP_E_INPUT).  The
 * reports among themselves: ep_reports_check, called first.
 * *stdout_taken gets 1 when one of them is standard output. */
int ep_cmd_outputs_check(int *stdout_taken, const struct ep_reportopt *ro,
    const char *const *paths, const char *const *what, size_t n,
    struct ep_err *err);

/* Print a capture's meta.warnings and meta.unavailable to stderr, one
 * "envparity: warning: ..." line each. */
void ep_cmd_echo_meta(const struct ep_manifest *m);

/* Print "envparity: warning: ..." to stderr. */
void ep_cmd_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
