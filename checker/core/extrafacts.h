/*
 * extrafacts.h: what a profile's policy ("capture") or the command line
 * (--env, --env-not-secret, --file-sha256, --file-line) adds to a capture
 * beyond the defaults: environment variables by exact name or by prefix,
 * never one whose name looks like a credential's unless named exactly as
 * not a secret, and files whose SHA-256 or first line is a fact.  Only
 * names and paths are judged here; collect_env.c and collect_files.c
 * read the values.
 */
#ifndef EP_EXTRAFACTS_H
#define EP_EXTRAFACTS_H

#include "errors.h"
#include "strv.h"

/* What a capture adds (each vector owns its strings). */
struct ep_extra {
	struct ep_strv env;		/* "NAME" or "PREFIX*" */
	struct ep_strv not_secret;	/* exact names that only look like
					   a credential's */
	struct ep_strv sha256;		/* absolute paths: file.PATH.sha256 */
	struct ep_strv line;		/* absolute paths: file.PATH.line */
};

void ep_extra_clear(struct ep_extra *x);

/* Add every entry of from to into, leaving out those it has. */
void ep_extra_merge(struct ep_extra *into, const struct ep_extra *from);

/* The word that makes an environment variable's name look like a
 * credential's ("TOKEN" of "HF_TOKEN", "KEY" of "WANDB_API_KEY"), or NULL.
 * Static. */
const char *ep_extra_secret_word(const char *name);

/* 1 if name is never recorded, whoever calls it not secret: ENVPARITY_*
 * and the credentials CI systems and clouds hand every job (GITHUB_TOKEN,
 * CI_JOB_JWT, AWS_SECRET_ACCESS_KEY, HF_TOKEN, ...). */
int ep_extra_never(const char *name);

/* The word that makes name a credential's for certain (SECRET, PASSWORD,
 * PRIVATE, API_KEY, ...), which a store's policy may not excuse; NULL if
 * none. */
const char *ep_extra_strong_word(const char *name);

/* Whether pattern may stand: NAME or PREFIX* ([A-Za-z_][A-Za-z0-9_]*, a
 * '*' only at the end, a prefix of 3 characters or more); never one that
 * looks like a credential's name (ep_extra_secret_word), unless it is an
 * exact NAME that not_secret holds.  EP_E_INPUT naming the pattern and
 * the problem. */
int ep_extra_env_check(const char *pattern, const struct ep_strv *not_secret,
    struct ep_err *err);

/* An exact name for not_secret: [A-Za-z_][A-Za-z0-9_]*.  EP_E_INPUT. */
int ep_extra_name_check(const char *name, struct ep_err *err);

/* Whether a path may name a file fact: absolute, no "." or ".." part, no
 * blank or control byte, at most 4096 bytes.  EP_E_INPUT. */
int ep_extra_path_check(const char *path, struct ep_err *err);

/* Whether a path may name a first-line fact: a file that holds a
 * credential by its name (a word of ep_extra_secret_word's in any part,
 * .netrc, an SSH key, .docker/config.json, /run/secrets/...) is refused,
 * since its first line would reach the manifest; its SHA-256 reveals
 * nothing and stays allowed.  EP_E_INPUT naming the path. */
int ep_extra_line_path_check(const char *path, struct ep_err *err);

/* What becomes of the variable name under x: */
enum ep_extra_pick {
	EP_EXTRA_NO,		/* no pattern takes it */
	EP_EXTRA_YES,		/* captured as env.NAME */
	EP_EXTRA_SECRET,	/* a prefix takes it, but it looks like a
				   credential's: left out, and said */
};
int ep_extra_env_pick(const struct ep_extra *x, const char *name);

/* Every entry of x checked as above: EP_E_INPUT naming the first bad
 * one, where says where x comes from ("--env", "FILE: capture"). */
int ep_extra_check(const struct ep_extra *x, const char *where,
    struct ep_err *err);

#endif
