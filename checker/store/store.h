/*
 * store.h: the golden store, a git repository (the only module that
 * includes <git2.h>).  A profile's golden manifest is
 * <profile>/manifest.json and its policy <profile>/policy.json; a profile
 * may be nested ("train/h100").  policy.json at the store's root is
 * shared by every profile, and a folder's policy.json by every profile
 * under it; the nearest file wins (ep_store_policy).
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

#include "policy.h"
#include "errors.h"
#include "strv.h"

struct ep_store;

/* A profile has at most this many folders ("a/b/c" has 3). */
#define EP_PROFILE_MAX_DEPTH	8

/* The largest object the store reads or a bless writes: a manifest larger
 * than this is not one we wrote, and one bless committed could not be
 * checked. */
#define EP_STORE_MAX_BLOB	(64u << 20)

/* 0 when n bytes fit in the store; else EP_E_INPUT "WHAT is too large
 * for the store (N bytes; the limit is 67108864)". */
int ep_store_check_size(size_t n, const char *what, struct ep_err *err);

/* Called once by main(), before a command runs or anything reads the
 * environment: the variables the store reads its credentials from
 * (ENVPARITY_GIT_TOKEN, CI_JOB_TOKEN, ENVPARITY_SSH_KEY, and
 * ENVPARITY_STORE, whose URL may carry user:password@) move out of the
 * environment into the store's own memory (secret.h): no child inherits
 * them, and /proc/PID/environ shows zeros where their values were.
 * Until it runs (the unit tests), the store reads the environment
 * itself.  Never fails. */
void ep_store_cred_take(void);

/* The store is done with the network: wipe the token, the job token and
 * the key's path (ENVPARITY_STORE's URL stays: a command's spec points to
 * it).  check and fleet call it once the golden is read, before the work;
 * a store opened after it is offered no credential.  Harmless to call
 * again. */
void ep_store_cred_forget(void);

/* $ENVPARITY_STORE as taken (before ep_store_cred_take, the
 * environment's), or NULL when unset or empty; borrowed, and valid to
 * the end of the run. */
const char *ep_store_env_spec(void);

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
	/* With rewritten: the profile's policy as it stood at that commit,
	 * the last history trusted here, parsed and merged (owned; NULL
	 * otherwise, or when it does not parse: seen_policy_error then says
	 * why, owned).  Only it decides what store.history is: the rewritten
	 * branch's own policy could say anything (ep_storeopt_history). */
	struct ep_policy *seen_policy;
	char *seen_policy_error;
	/* A branch that does not exist in a store that has others (a typo
	 * of --ref): the store's branches, sorted; empty otherwise (a tag,
	 * a commit, an empty store, a branch that exists).  Filled by
	 * ep_store_describe (and so ep_store_read). */
	struct ep_strv branches;
};
void ep_store_info_clear(struct ep_store_info *i);

/* Whether info names a branch that the store lacks while it has others
 * (info->branches): then EP_E_INPUT "store S: --ref B: no such branch
 * (its branches: a, b); ..." in err and -1, else 0.  For the commands'
 * "no golden manifest" messages, which a typo must not reach. */
int ep_store_no_branch(const struct ep_store_info *info,
    struct ep_err *err);

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

/* The policy files that apply to a profile, the NEAREST first: the
 * profile's own <profile>/policy.json, each folder's above it
 * (train/policy.json for train/h100), the store root's policy.json.
 * After ep_store_read only those present are listed. */
struct ep_store_policy_file {
	char *path;		/* "train/h100/policy.json" */
	char *text;		/* NUL-terminated */
	int scope;		/* enum ep_policy_scope */
};
struct ep_store_policies {
	size_t n;
	struct ep_store_policy_file v[EP_PROFILE_MAX_DEPTH + 1];
};
void ep_store_policies_clear(struct ep_store_policies *p);

/* The text of the profile's own policy.json, or NULL. */
const char *ep_store_policies_own(const struct ep_store_policies *p);

/* The paths of every policy file that could apply to profile (a valid
 * name), nearest first, with their scopes, texts NULL: *out is filled
 * and must be cleared. */
void ep_store_policy_paths(struct ep_store_policies *out,
    const char *profile);

/* Read <profile>/manifest.json and every policy file that applies to the
 * profile at the ref's head, all from one commit.  *manifest is NULL
 * when the profile has none (not an error: the caller says how to bless
 * one); pol->n 0 when no policy file exists.  Texts are NUL-terminated
 * and owned by the caller (ep_store_policies_clear).  A file larger than
 * EP_STORE_MAX_BLOB is EP_E_INPUT naming it, found from the object's
 * header before it is inflated.  info->rewritten says whether the branch
 * was rewritten since the cache saw it last, and info->seen_policy then
 * holds the profile's policy at the commit it saw last (read from the
 * cache, which keeps that commit while the marker stands). */
int ep_store_read(char **manifest, struct ep_store_policies *pol,
    struct ep_store_info *info, struct ep_store *s, const char *profile,
    struct ep_err *err);

struct ep_policy;

/* The policy files as the store holds them (pol, from ep_store_read;
 * none: the defaults), parsed, every rule and waiver validated, and
 * merged nearest first (ep_policy_parse_layers) into *out; where is
 * "<store>#<ref>" for messages.  EP_E_INPUT naming <where>:<path> and
 * the rule or waiver when one is malformed: check, bless and log all
 * refuse to go on with such a policy. */
int ep_store_policy(struct ep_policy **out,
    const struct ep_store_policies *pol, const char *where,
    struct ep_err *err);

/* Read the profile's policy files from s and validate them as above,
 * for the commands that do not use them (bless, log): 0 when they are
 * well formed or absent. */
int ep_store_policy_valid(struct ep_store *s, const char *profile,
    struct ep_err *err);

struct ep_author {
	const char *name;
	const char *email;
};

/* Commit manifest (text) as <profile>/manifest.json on the ref, moving the
 * ref by compare-and-swap; for a remote store, push.  A race with a commit
 * that changed other files (another profile) is retried on top; one that
 * changed this profile's manifest fails (EP_E_IO) saying so.  commit_out
 * gets the new commit's id (or the current one when the profile's
 * manifest is already byte-identical).  author NULL: git config's
 * user.name and user.email, else "envparity <envparity@HOST>"; the
 * committer is the author.  Objects are written before the ref moves, so
 * a failure leaves the store as it was.  A missing default store is
 * created here. */
int ep_store_bless(char commit_out[41], struct ep_store *s,
    const char *profile, const char *manifest, const char *message,
    const struct ep_author *author, struct ep_err *err);

/* How a commit changes one file: given its text at the commit the new
 * one builds on (cur, NULL when absent), give the new text in *out (new;
 * NULL removes the file).  Return 0, 1 when nothing is to change (no
 * commit is made), or -1 with err (the store untouched). */
typedef int (*ep_store_edit_fn)(char **out, const char *cur, void *arg,
    struct ep_err *err);

/* Change the file at path ("policy.json", "train/policy.json") as edit
 * says, committed and pushed as ep_store_bless commits a manifest (the
 * same lock, compare-and-swap, retries, push and credentials).  edit is
 * called once, with the file as the branch holds it under the lock; a
 * commit landing meanwhile that changed the same file fails (EP_E_IO)
 * rather than replace what nobody here has seen.  *changed gets 1 when a
 * commit was made, 0 when edit said nothing changes (commit_out then
 * names the current head). */
int ep_store_commit_file(char commit_out[41], int *changed,
    struct ep_store *s, const char *path, ep_store_edit_fn edit, void *arg,
    const char *message, const struct ep_author *author,
    struct ep_err *err);

/* After ep_store_bless or ep_store_commit_file: 1 when it took the
 * rewritten history of the branch (store.history stood, and the head it
 * built on, or found already holding the file, does not descend from the
 * commit the cache saw last; the marker is gone now), with seen_out that
 * commit and head_out that head ("" when the branch had none); else 0,
 * both "".  A command that takes it says so: no one else is told. */
int ep_store_history_taken(char seen_out[41], char head_out[41],
    const struct ep_store *s);

/* One commit that changed <profile>/manifest.json or a policy file that
 * applies to the profile, newest first; the manifest text at that commit
 * (NULL when the commit removed it or has none) and at its parent (NULL
 * when it added it), for counting changed facts. */
struct ep_store_commit {
	char id[41];
	time_t when;
	char *author;		/* "Name <email>" */
	char *message;		/* first line */
	int manifest_changed;	/* it changed <profile>/manifest.json */
	struct ep_strv policies;	/* the policy files it changed,
					   nearest first */
	int policy_scopes[EP_PROFILE_MAX_DEPTH + 1];	/* theirs */
	char *manifest;
	char *parent_manifest;
};

/* Along first parents from the ref's head; at most max commits (0: all).
 * *n is 0 when the profile has no history (or the store is empty). */
int ep_store_log(struct ep_store_commit **out, size_t *n, struct ep_store *s,
    const char *profile, size_t max, struct ep_err *err);
void ep_store_log_free(struct ep_store_commit *v, size_t n);

/* The store's profiles at the ref's head: the folder of every
 * manifest.json (a file) whose name is a valid profile (ep_profile_check),
 * nested ones included ("train/h100"), sorted, into *names.  What is
 * passed over goes to *skipped, sorted, as "PATH: why": a manifest.json
 * at the root or in a folder whose name the rule refuses, and a folder
 * deeper than EP_PROFILE_MAX_DEPTH (not descended into).  Both empty for
 * an empty store or a branch with no commit (ep_store_no_branch tells a
 * --ref typo).  The caller clears both, also on failure: -1 with EP_E_IO
 * when the tree cannot be read, EP_E_INPUT for a tag or commit the
 * store lacks. */
int ep_store_profiles(struct ep_strv *names, struct ep_strv *skipped,
    struct ep_store *s, struct ep_err *err);

/* Test seam: when set, called once per attempt after the new commit is
 * written and before the ref is moved, so a test can make another bless
 * win the race deterministically.  NULL outside tests. */
extern void (*ep_store_before_update)(void *arg);
extern void *ep_store_before_update_arg;

/* "libgit2 1.5.1", for `envparity version`. */
const char *ep_store_library_version(void);

#endif
