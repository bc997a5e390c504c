/*
 * store.h: the golden store, a git repository (the only module that
 * includes <git2.h>).  A profile's golden manifest is
 * <profile>/manifest.json and its policy <profile>/policy.json.
 *
 * A store is a local path (bare, or with a work tree) or a remote URL
 * (file://, git://, https://, ssh://, scp-like user@host:path).  A remote
 * is fetched into a cache clone under $XDG_CACHE_HOME/envparity/stores/;
 * an up-to-date cache costs one negotiation.  With no store named, the
 * store is .envparity/store, created on first use.
 */
#ifndef EP_STORE_H
#define EP_STORE_H

#include <stddef.h>
#include <time.h>

#include "util.h"

struct ep_store;

/* The largest object the store reads or a bless writes: a manifest larger
 * than this is not one we wrote, and one bless committed could not be
 * checked. */
#define EP_STORE_MAX_BLOB	(64u << 20)

/* 0 when n bytes fit in the store; else EP_E_INPUT "WHAT is too large
 * for the store (N bytes; the limit is 67108864)". */
int ep_store_check_size(size_t n, const char *what, struct ep_err *err);

struct ep_store_opts {
	const char *spec;	/* --store, else $ENVPARITY_STORE, else NULL
				   for the local default */
	const char *ref;	/* --ref branch, or NULL: the remote's HEAD
				   branch (or the local HEAD's) */
	int create;		/* create the default store if missing */
};

/* Open (and for a remote, fetch) a store.  Unreachable or unreadable:
 * EP_E_IO naming the store with credentials removed; a malformed spec:
 * EP_E_INPUT. */
int ep_store_open(struct ep_store **out, const struct ep_store_opts *o,
    struct ep_err *err);
void ep_store_free(struct ep_store *s);	/* accepts NULL */

/* Where the golden came from, for reports: the store as the user named
 * it with any credentials removed, the branch, and the commit read. */
struct ep_store_info {
	char *store;
	char *ref;
	char commit[41];
	/* A remote store whose branch was rewritten since the cache last
	 * saw it (commit does not descend from this one): the commit it saw
	 * last; "" otherwise.  Filled by ep_store_read, once. */
	char rewritten[41];
};
void ep_store_info_clear(struct ep_store_info *i);

/* Fill info with the store's name (credentials removed), its branch, and
 * the branch's current commit ("" when it has none), without reading any
 * profile: for messages such as bless's "blessed P at C on STORE REF" and
 * check's "no golden manifest in STORE REF".  The strings belong to info
 * (ep_store_info_clear). */
void ep_store_describe(struct ep_store_info *info, const struct ep_store *s);

/* A store spec as it may be shown: https user names and tokens and any
 * URL password removed ("https://tok@host/x" -> "https://host/x",
 * "ssh://u:pw@h/x" -> "ssh://u@h/x").  The credentials end at the last
 * '@' that a host and a path follow, so a password may hold '/', '?',
 * '#' or '@'.  A new string; a spec that is not a URL comes back
 * unchanged. */
char *ep_store_redact(const char *spec);

/* Replace every credential that spec (a store spec, or a diff argument
 * holding one) carries by "***" in err->msg. */
void ep_store_spec_scrub(const char *spec, struct ep_err *err);

/* The '#' that splits a diff argument STORE#REF:PROFILE: its last '#'
 * outside a URL's credentials (a password may hold one); NULL when it
 * has none. */
const char *ep_store_spec_ref(const char *arg);

/* Read <profile>/manifest.json and <profile>/policy.json at the ref's
 * head.  *manifest is NULL when the profile has none (not an error: the
 * caller says how to bless one); *policy NULL when there is no policy.
 * Both are NUL-terminated and owned by the caller.  A file larger than
 * EP_STORE_MAX_BLOB is EP_E_INPUT naming it, found from the object's
 * header before it is inflated.  info->rewritten says whether the branch
 * was rewritten since the cache saw it last (reported once). */
int ep_store_read(char **manifest, char **policy, struct ep_store_info *info,
    struct ep_store *s, const char *profile, struct ep_err *err);

struct ep_policy;

/* The profile's policy as the store holds it (ptext, from ep_store_read;
 * NULL: none, the defaults), parsed and every rule and waiver validated,
 * into *out; name is "<store>#<ref>:<profile>" for messages.  EP_E_INPUT
 * naming <name>/policy.json and the rule or waiver when it is malformed:
 * check, bless and log all refuse to go on with such a policy. */
int ep_store_policy(struct ep_policy **out, const char *ptext,
    const char *name, struct ep_err *err);

/* Read the profile's policy from s and validate it as above, for the
 * commands that do not use it (bless, log): 0 when it is well formed or
 * absent. */
int ep_store_policy_valid(struct ep_store *s, const char *profile,
    struct ep_err *err);

struct ep_author {
	const char *name;
	const char *email;
};

/* Commit manifest (text) as <profile>/manifest.json on the ref, moving the
 * ref by compare-and-swap; for a remote store, push.  A race with a bless
 * of another profile is retried on top; with the same profile it fails
 * (EP_E_IO) saying so.  commit_out gets the new commit's id (or the
 * current one when the profile's manifest is already byte-identical).
 * author NULL: git config's user.name and user.email, else
 * "envparity <envparity@HOST>"; the committer is the author.  Objects are
 * written before the ref moves, so a failure leaves the store as it was.
 * A missing default store is created here. */
int ep_store_bless(char commit_out[41], struct ep_store *s,
    const char *profile, const char *manifest, const char *message,
    const struct ep_author *author, struct ep_err *err);

/* One commit that changed <profile>/manifest.json, newest first; the
 * manifest text at that commit (NULL when the commit removed it) and at
 * its parent (NULL when it added it), for counting changed facts. */
struct ep_store_commit {
	char id[41];
	time_t when;
	char *author;		/* "Name <email>" */
	char *message;		/* first line */
	char *manifest;
	char *parent_manifest;
};

/* Along first parents from the ref's head; at most max commits (0: all).
 * *n is 0 when the profile has no history (or the store is empty). */
int ep_store_log(struct ep_store_commit **out, size_t *n, struct ep_store *s,
    const char *profile, size_t max, struct ep_err *err);
void ep_store_log_free(struct ep_store_commit *v, size_t n);

/* Test seam: when set, called once per attempt after the new commit is
 * written and before the ref is moved, so a test can make another bless
 * win the race deterministically.  NULL outside tests. */
extern void (*ep_store_before_update)(void *arg);
extern void *ep_store_before_update_arg;

/* "libgit2 1.5.1", for `envparity version`. */
const char *ep_store_library_version(void);

#endif
