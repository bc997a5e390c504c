/*
 * opt.h: the command line declared, not repeated (after libgit2's
 * cli_opt_spec and tmux's cmd_entry).  Each command declares one table
 * of options; an option says once its long name, short letter, the kind
 * of value it takes, the name of that value and its help, and what it
 * does: a field it sets in the command's option struct, or a handler.
 * The option groups that several commands take (store, report,
 * collector, registry, probe, attestation, progress: optgroups.c) are
 * tables of their own, spliced into a command's table by one entry.
 *
 * One parser (opt.c, over getopt_long) reads a table, allocating the
 * getopt codes itself (a short letter is its own code, a long-only
 * option gets 0x100 plus its place in the table), so that no two
 * options of a command can share one; `--help` and `envparity
 * __options VERB` are rendered from the same table.
 */
#ifndef EP_OPT_H
#define EP_OPT_H

#include <stddef.h>
#include <stdio.h>

#include "errors.h"

struct ep_cmd;

/* What an option does with its value. */
enum ep_optkind {
	EP_OPTK_END = 0,	/* the table's end */
	EP_OPTK_FLAG,		/* no value: the int at off becomes set */
	EP_OPTK_STR,		/* a value: the const char * at off points
				   at it (borrowed from argv) */
	EP_OPTK_STRV,		/* a value, repeatable: pushed to the
				   struct ep_strv at off */
	EP_OPTK_FN,		/* fn(struct + off, value, err) */
	EP_OPTK_HELP,		/* -h, --help: print the help, exit 0 */
	EP_OPTK_GROUP,		/* group's options, their struct at off */
	EP_OPTK_TEXT,		/* no option: help lines shown as they are */
};

/* The value an option takes: none, a required one, or an optional one
 * (only as --name=VALUE). */
enum ep_optarg { EP_ARG_NONE, EP_ARG_REQUIRED, EP_ARG_OPTIONAL };

struct ep_optgroup;

struct ep_opt {
	enum ep_optkind kind;
	const char *name;	/* long name, without "--"; NULL for a group */
	char letter;		/* short letter, or 0 */
	enum ep_optarg arg;
	const char *value;	/* the value's name in the help ("FILE") */
	const char *help;	/* its help, lines joined by '\n', no '\n' at
				   the end; for a group, lines shown after
				   the group's own (or NULL) */
	size_t off;		/* the field (or a group's struct) in the
				   struct the option fills */
	int set;		/* EP_OPTK_FLAG: the value stored */
	/* EP_OPTK_FN: apply the value to the field at off; 0, or -1 with
	 * err (the usage error's text, naming the option). */
	int (*fn)(void *field, const char *arg, struct ep_err *err);
	const struct ep_optgroup *group;	/* EP_OPTK_GROUP */
	int hidden;		/* parsed, never shown in the help */
};

/* A group of options several commands take, declared once. */
struct ep_optgroup {
	const char *name;	/* "store", for bits and __options */
	unsigned bit;		/* set in ep_cmd_args.groups when one of
				   its options was given */
	const char *heading;	/* "Store options:"; NULL: shown among the
				   command's own options */
	const struct ep_opt *opts;	/* ends with EP_OPTK_END */
	const char *footer;	/* lines after the options, or NULL */
};

/* Declaring entries.  T is the struct the option fills, F its field. */
#define EP_OPT_FLAG(N, L, T, F, H)					\
	{ .kind = EP_OPTK_FLAG, .name = (N), .letter = (L),		\
	  .arg = EP_ARG_NONE, .help = (H), .off = offsetof(T, F),	\
	  .set = 1 }
#define EP_OPT_STR(N, L, V, T, F, H)					\
	{ .kind = EP_OPTK_STR, .name = (N), .letter = (L),		\
	  .arg = EP_ARG_REQUIRED, .value = (V), .help = (H),		\
	  .off = offsetof(T, F) }
#define EP_OPT_STRV(N, L, V, T, F, H)					\
	{ .kind = EP_OPTK_STRV, .name = (N), .letter = (L),		\
	  .arg = EP_ARG_REQUIRED, .value = (V), .help = (H),		\
	  .off = offsetof(T, F) }
#define EP_OPT_FN(N, L, V, T, F, FN, H)				\
	{ .kind = EP_OPTK_FN, .name = (N), .letter = (L),		\
	  .arg = EP_ARG_REQUIRED, .value = (V), .help = (H),		\
	  .off = offsetof(T, F), .fn = (FN) }
/* A handler that takes no value (called with arg NULL). */
#define EP_OPT_FN0(N, L, T, F, FN, H)					\
	{ .kind = EP_OPTK_FN, .name = (N), .letter = (L),		\
	  .arg = EP_ARG_NONE, .help = (H), .off = offsetof(T, F),	\
	  .fn = (FN) }
/* A handler given the whole struct the option fills (off 0). */
#define EP_OPT_CALL(N, L, V, FN, H)					\
	{ .kind = EP_OPTK_FN, .name = (N), .letter = (L),		\
	  .arg = EP_ARG_REQUIRED, .value = (V), .help = (H), .fn = (FN) }
#define EP_OPT_CALL0(N, L, FN, H)					\
	{ .kind = EP_OPTK_FN, .name = (N), .letter = (L),		\
	  .arg = EP_ARG_NONE, .help = (H), .fn = (FN) }
#define EP_OPT_HELP							\
	{ .kind = EP_OPTK_HELP, .name = "help", .letter = 'h',		\
	  .arg = EP_ARG_NONE, .help = "show this help" }
/* A group whose struct is the field F of T (no struct: off 0); H, lines
 * the command shows after the group's. */
#define EP_OPT_GROUP(G, T, F, H)					\
	{ .kind = EP_OPTK_GROUP, .group = &(G), .off = offsetof(T, F),	\
	  .help = (H) }
#define EP_OPT_GROUP_NOSTRUCT(G)					\
	{ .kind = EP_OPTK_GROUP, .group = &(G) }
/* Lines of help that are no option's first (a second form of one). */
#define EP_OPT_TEXT(H)	{ .kind = EP_OPTK_TEXT, .help = (H) }
#define EP_OPT_END	{ .kind = EP_OPTK_END }

/* The groups (optgroups.c), and their bits. */
enum {
	EP_OG_STORE = 1u << 0,
	EP_OG_REPORT = 1u << 1,
	EP_OG_CAPTURE = 1u << 2,
	EP_OG_IMAGE = 1u << 3,
	EP_OG_PROBE = 1u << 4,
	EP_OG_ATTEST = 1u << 5,
	EP_OG_SIGNKEY = 1u << 6,
	EP_OG_PROGRESS = 1u << 7,
};
extern const struct ep_optgroup ep_og_store;	/* struct ep_storeopt */
extern const struct ep_optgroup ep_og_store_where; /* the same: --store,
						   --ref */
extern const struct ep_optgroup ep_og_report;	/* struct ep_reportopt */
extern const struct ep_optgroup ep_og_capture;	/* ep_capture_opts */
extern const struct ep_optgroup ep_og_image;	/* struct ep_imgopt */
extern const struct ep_optgroup ep_og_probe;	/* struct ep_probeopt */
extern const struct ep_optgroup ep_og_probe_gpus; /* the same: --gpus,
						   --jobs */
extern const struct ep_optgroup ep_og_attest;	/* struct ep_attestopt */
extern const struct ep_optgroup ep_og_signkey;	/* the same: the key */
extern const struct ep_optgroup ep_og_progress;	/* none: the process's */

/* The probe group's handlers, for a command that words them its own way
 * (`envparity probe`); the field is a struct ep_probeopt. */
int ep_og_probe_runs(void *field, const char *arg, struct ep_err *err);
int ep_og_probe_backend(void *field, const char *arg, struct ep_err *err);
int ep_og_probe_timeout(void *field, const char *arg, struct ep_err *err);
int ep_og_probe_require_gpu(void *field, const char *arg,
    struct ep_err *err);
/* --expiry-warning DAYS into an int. */
int ep_og_expiry(void *field, const char *arg, struct ep_err *err);

/* What the parser leaves for exec: the operands, and the groups used. */
struct ep_cmd_args {
	char **v;		/* argv's operands, in order */
	int n;
	unsigned groups;	/* EP_OG_* of the options given */
};

/* Parse argv[1..argc) (argv[0] the verb) by self's table into st (the
 * command's option struct, its defaults already set), in argv's order:
 * the first unknown option, missing or refused value, or bad value ends
 * it.  Options may follow operands unless self->in_order.  Then at most
 * self->max_operands operands (-1: any).  0 to go on, with *args
 * (and *exit_code EP_EXIT_OK);
 * -1 when the command ends here with *exit_code: EP_EXIT_OK after
 * --help, EP_EXIT_USAGE after a usage error (printed, cmd.h's
 * messages). */
int ep_opt_parse(struct ep_cmd_args *args, int *exit_code,
    const struct ep_cmd *self, void *st, int argc, char **argv);

/* Write self's --help: its usage text, its options and groups as the
 * table orders them, its footer. */
void ep_opt_help(FILE *f, const struct ep_cmd *self);

/* Write one line per option of self that its help shows, for the
 * documents' check (tests/cli/docsync.sh): "--name" or "-x --name",
 * then " VALUE" when it takes one, then " (group)" when from a group. */
void ep_opt_list(FILE *f, const struct ep_cmd *self);

/* Every option self's table holds, groups expanded: *out (new, the
 * caller frees it) gets n entries, each with the offset of the struct
 * its field lives in (st + base[i] + opt->off).  For the unit test of
 * the tables, and the parser. */
void ep_opt_flatten(const struct ep_opt ***out, size_t **base,
    const struct ep_optgroup ***from, size_t *n, const struct ep_cmd *self);

/* The getopt code of the i-th flattened option. */
int ep_opt_code(const struct ep_opt *o, size_t i);

#endif
