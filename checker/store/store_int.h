/*
 * store_int.h: what the store's files share, private to them and the only
 * header outside libgit2 that includes <git2.h>:
 *   store.c          opening and creating a store, messages
 *   store_spec.c     specs, and the credentials they carry
 *   store_read.c     a profile's manifest, policy and history; the profiles
 *   store_remote.c   the cache clone, fetch, push
 *   store_cred.c     which credentials go where
 *   store_history.c  telling a rewritten branch
 *   store_bless.c    commits and the compare-and-swap
 *   store_tree.c     the commit that puts one file into a tree
 */
#ifndef EP_STORE_INT_H
#define EP_STORE_INT_H

#include <git2.h>

#include "store.h"

enum ep_store_kind {
	EP_STORE_LOCAL,		/* a path: read and written in place */
	EP_STORE_FILE,		/* file://: read through the cache,
				   written in place (store_bless.c) */
	EP_STORE_NET,		/* git, http(s), ssh, scp-like: the cache,
				   fetch and push */
};

/* What --ref names.  A name that is no branch but a tag of the store is
 * taken as the tag (found when the store is read). */
enum ep_store_pin {
	EP_PIN_BRANCH,
	EP_PIN_TAG,		/* refs/tags/<name>; annotated tags peeled */
	EP_PIN_COMMIT,		/* a full 40-hex commit id */
};

struct ep_store {
	int kind;		/* enum ep_store_kind */
	git_repository *repo;	/* what is read: the repository, or the
				   cache clone; NULL while the default store
				   does not exist */
	char *display;		/* the spec with credentials removed */
	char *url;		/* remote URL as given (secrets included:
				   never shown); NULL for a local path */
	char *path;		/* local path, or the cache clone's path */
	char *direct;		/* file://: the repository's path */
	char *branch;		/* "main"; for --ref of a tag or a commit,
				   the tag's name or the commit's id */
	char *refname;		/* "refs/heads/main", "refs/tags/v1", or
				   for a commit refs/envparity/pin/<id>
				   (never created: the id is read) */
	int pinned;		/* enum ep_store_pin: a tag or a commit is
				   read, never blessed to */
	git_oid pin;		/* EP_PIN_COMMIT: the commit */
	int is_default;		/* .envparity/store, created on bless */
	struct ep_strv secrets;	/* strings scrubbed from every message */
	struct ep_strv heads;	/* a remote's branches as its last fetch
				   saw them advertised (names without
				   refs/heads/); unused for a local path */
	int lockfd;		/* the cache's lock while held, else -1 */
	unsigned cred_tried;	/* credential kinds offered so far */
	char took_seen[41];	/* the last bless or commit took the branch's
				   rewritten history: the commit the cache
				   had seen last, and the rewritten head it */
	char took_head[41];	/* built on ("" for none); else both "" */
};

/* Fill err (kind) with "store DISPLAY: what: <libgit2's last error>",
 * with every secret scrubbed; returns -1. */
int ep_store_git_err(struct ep_err *err, int kind, struct ep_store *s,
    const char *what);

/* err->msg with every secret of s replaced by "***", in place. */
void ep_store_scrub(struct ep_store *s, struct ep_err *err);
void ep_store_scrub_secrets(const struct ep_strv *secrets,
    struct ep_err *err);

/* Every needle in err->msg replaced by with, in place (cut to fit). */
void ep_store_replace(struct ep_err *err, const char *needle,
    const char *with);

/* The payload of every libgit2 callback of a remote (store_remote.c,
 * store_cred.c). */
struct ep_store_cbctx {
	struct ep_store *s;
	char *url;		/* the URL connected to (after insteadOf):
				   the only origin credentials go to */
	char *rejected;		/* why the server refused the push */
};

/* store_cred.c */

/* Apply GIT_SSL_CAINFO and GIT_SSL_CAPATH (a CA file or directory that
 * cannot be loaded: EP_E_INPUT). */
int ep_store_tls_init(struct ep_store *s, struct ep_err *err);

/* The credentials callback: the token over https, an ssh key or the
 * agent over ssh, each only to the scheme, host and port of the URL
 * connected to (ctx->url), never to where a redirect leads; a refusal
 * leaves libgit2's error saying why. */
int ep_store_cred_cb(git_credential **out, const char *url,
    const char *user, unsigned int allowed, void *payload);

/* store_history.c */

/* Before the cache's branch moves from seen to now (NULL: the remote's
 * branch is gone): when now does not descend from seen, leave the marker
 * naming seen, unless one stands already. */
int ep_store_history_note(struct ep_store *s, const git_oid *seen,
    const git_oid *now, struct ep_err *err);

/* Read the marker (the cache's lock held): seen_out gets the commit it
 * names when tip does not descend from it (the marker stays), else ""
 * (and a marker that no longer applies goes). */
int ep_store_history_take(char seen_out[41], struct ep_store *s,
    const git_oid *tip, struct ep_err *err);

/* A bless or a commit landed on head (NULL: the branch had no commit),
 * or a bless found the branch already holding its manifest: whoever did
 * it took the branch's history as it is, so the marker goes (the cache's
 * lock held).  When it stood and head does not descend from the commit
 * it named, s->took_seen and s->took_head say so (for
 * ep_store_history_taken); otherwise they are "".  Never fails. */
void ep_store_history_clear(struct ep_store *s, const git_oid *head);

/* store_spec.c */

/* ep_store_redact(), adding what was removed to secrets (if not NULL). */
char *ep_store_redact_into(const char *spec, struct ep_strv *secrets);

/* Classify spec into s->kind and fill s->display, s->secrets and s->url,
 * s->path or s->direct.  Malformed: EP_E_INPUT, secrets never shown. */
int ep_store_parse_spec(struct ep_store *s, const char *spec,
    struct ep_err *err);

/* store.c, store_read.c */

/* The ref's commit in repo: 0 and *id, or 1 when the branch (or the
 * repository) is absent; -1 on error.  A tag is peeled to its commit; a
 * pinned commit (s->pinned) is read by its id.  A tag or commit that is
 * not there is an error (EP_E_INPUT) naming it, never "no golden". */
int ep_store_tip(git_oid *id, git_repository *repo, const char *refname,
    struct ep_store *s, struct ep_err *err);

/* The id of the file at path ("gpu/manifest.json") in commit (NULL
 * commit: the empty store): 0 with *id, 1 when absent, -1 on error. */
int ep_store_entry(git_oid *id, git_repository *repo, const git_oid *commit,
    const char *path, struct ep_store *s, struct ep_err *err);

/* The text of the file at path in commit, each object sized before it is
 * read: 0 and *out (NUL-terminated, new), 1 when absent, -1 on error. */
int ep_store_read_text(char **out, git_repository *repo,
    const git_oid *commit, const char *path, struct ep_store *s,
    struct ep_err *err);

/* Set s->branch and s->refname from "main" or "refs/heads/main";
 * EP_E_INPUT if that cannot be a branch. */
/* What --ref names: a full commit id, a tag (refs/tags/NAME or
 * tags/NAME), else a branch (ep_store_set_branch).  EP_E_INPUT for a
 * name that can be none of them. */
int ep_store_set_ref(struct ep_store *s, const char *ref,
    struct ep_err *err);

/* A branch name that repo has no such branch of but a tag: s becomes
 * the tag (read-only).  1 when it did. */
int ep_store_prefer_tag(struct ep_store *s, git_repository *repo);

int ep_store_set_branch(struct ep_store *s, const char *ref,
    struct ep_err *err);

/* Create a bare repository at path whose HEAD names branch: made beside
 * and renamed into place, so a racing process sees all of it or none. */
int ep_store_init_bare(const char *path, const char *branch,
    struct ep_store *s, struct ep_err *err);

/* Remove a directory tree this module made; best effort. */
void ep_store_rm_rf(const char *path);

/* Create the missing default store (s->path) and open it as s->repo. */
int ep_store_create_default(struct ep_store *s, struct ep_err *err);

/* store_remote.c */

/* Open (creating on first use) the cache clone for s->url, fetch s's
 * branch into it (resolving s->branch from the remote's HEAD when ref is
 * NULL), and set s->repo. */
int ep_store_remote_open(struct ep_store *s, const char *ref,
    struct ep_err *err);

/* Fetch s->branch again into the cache (the lock held by the caller). */
int ep_store_remote_sync(struct ep_store *s, struct ep_err *err);

/* Take and release the cache's lock (an flock on <cache>.lock), which
 * serializes processes that share one cache. */
int ep_store_lock(struct ep_store *s, struct ep_err *err);
void ep_store_unlock(struct ep_store *s);

/* The commit (its id in *out) that puts blob (NULL: nothing, the file
 * removed) at path on top of commit base (NULL: the first commit), every
 * other file kept, with message by sig; only objects are written, no
 * ref moves.  -1 with err: EP_E_INPUT when path crosses a file or ends
 * on a folder, EP_E_IO when git cannot read or write. */
int ep_store_make_commit(git_oid *out, git_repository *w,
    const git_oid *base, const char *path, const git_oid *blob,
    const char *message, const git_signature *sig, struct ep_store *s,
    struct ep_err *err);

/* Push commit to s->branch on the remote, expecting the remote to be at
 * old (zero: the branch does not exist yet).  0 pushed; 1 the remote
 * moved or refused for a reason worth a retry (a race); -1 otherwise. */
int ep_store_remote_push(struct ep_store *s, const git_oid *commit,
    const git_oid *old, struct ep_err *err);

#endif
