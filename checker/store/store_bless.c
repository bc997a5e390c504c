/*
 * store_bless.c: commit a profile's golden manifest (bless) or a policy
 * file (waive, unwaive) and move the branch by compare-and-swap.
 *
 * The blob, trees and commit are written first; the ref moves last, and
 * only if it still names the commit the new one was built on (a local
 * ref update with the expected old value, or a push whose old value the
 * server checks under its ref lock).  When another bless got there first
 * the new head is read back: if it changed other files (a different
 * profile), the commit is rebuilt on top of it and tried again; if it
 * changed the same file (this profile's manifest, the same policy.json),
 * this commit fails rather than silently replace what nobody here has
 * seen.
 *
 * file:// stores are written in place like local paths: libgit2's local
 * transport moves the remote ref without checking its old value.
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clean.h"
#include "storeopt.h"
#include "errors.h"
#include "xalloc.h"
#include "hostname.h"

#define MAX_ATTEMPTS	16

/* Wait a little, longer each time and never in step with a rival. */
static void
backoff(unsigned attempt)
{
	static unsigned seed;
	struct timespec ts;
	long ms;

	if (seed == 0)
		seed = (unsigned)getpid() ^ (unsigned)time(NULL);
	ms = 5 + (long)(rand_r(&seed) % 20) * (long)(attempt + 1);
	ts.tv_sec = 0;
	ts.tv_nsec = (ms > 500 ? 500 : ms) * 1000000L;
	nanosleep(&ts, NULL);
}

static int
make_sig(git_signature **sig, git_repository *repo,
    const struct ep_author *a, struct ep_store *s, struct ep_err *err)
{
	char host[256] = "", *email;
	int rc;

	if (a != NULL) {
		if (git_signature_now(sig, a->name, a->email) < 0)
			return ep_err_set(err, EP_E_INPUT, "author '%s <%s>': "
			    "not a valid name and email", a->name, a->email);
		return 0;
	}
	if (git_signature_default(sig, repo) == 0)
		return 0;
	git_error_clear();
	if (ep_hostname(host, sizeof host) < 0)
		strcpy(host, "localhost");
	email = xasprintf("envparity@%s", host);
	rc = git_signature_now(sig, "envparity", email);
	free(email);
	if (rc < 0)
		return ep_store_git_err(err, EP_E_IO, s, "no author");
	return 0;
}

/* The work tree of r when HEAD there names refname, else NULL. */
static const char *
head_is(git_repository *r, const char *refname)
{
	git_reference *head = NULL;
	const char *t, *wd = NULL;

	if (!git_repository_is_bare(r) &&
	    git_reference_lookup(&head, r, "HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC &&
	    (t = git_reference_symbolic_target(head)) != NULL &&
	    strcmp(t, refname) == 0)
		wd = git_repository_workdir(r);
	git_reference_free(head);
	git_error_clear();
	return wd;
}

/*
 * Refuse to move a branch that a work tree of w has checked out (the
 * main one, or one added by git worktree), as git's
 * receive.denyCurrentBranch refuses such a push: the next "git commit -a"
 * there would commit the work tree's files over the new golden.
 */
static int
refuse_checked_out(git_repository *w, struct ep_store *s, struct ep_err *err)
{
	git_repository *r = NULL;
	git_worktree *wt = NULL;
	git_strarray names = { 0 };
	const char *wd = NULL;
	char *where = NULL;
	int rc = 0;

	if (!git_repository_is_worktree(w))
		wd = head_is(w, s->refname);
	else if (git_repository_open_ext(&r, git_repository_commondir(w),
	    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) == 0)
		wd = head_is(r, s->refname);
	if (wd != NULL)
		where = xstrdup(wd);
	if (git_worktree_list(&names, w) == 0)
		for (size_t i = 0; where == NULL && i < names.count; i++) {
			git_repository_free(r);
			r = NULL;
			git_worktree_free(wt);
			wt = NULL;
			if (git_worktree_lookup(&wt, w, names.strings[i]) == 0 &&
			    git_repository_open_from_worktree(&r, wt) == 0 &&
			    (wd = head_is(r, s->refname)) != NULL)
				where = xstrdup(wd);
		}
	git_error_clear();
	if (where != NULL && strlen(where) > 1 &&
	    where[strlen(where) - 1] == '/')
		where[strlen(where) - 1] = '\0';
	if (where != NULL)
		rc = ep_err_set(err, EP_E_INPUT, "store %s: branch %s is "
		    "checked out in the work tree %s, where the next commit "
		    "would undo a bless; bless a bare repository (git clone "
		    "--bare), or check out another branch there", s->display,
		    s->branch, where);
	git_strarray_dispose(&names);
	git_worktree_free(wt);
	git_repository_free(r);
	free(where);
	return rc;
}

/* Move the ref from base (NULL: absent) to commit: 0 done, 1 someone
 * else moved or holds it, -1 error. */
static int
update_ref(struct ep_store *s, git_repository *w, const git_oid *commit,
    const git_oid *base, const char *path, struct ep_err *err)
{
	git_reference *ref = NULL;
	git_oid zero;
	char *msg;
	int e;

	memset(&zero, 0, sizeof zero);
	if (s->kind == EP_STORE_NET) {
		e = ep_store_remote_push(s, commit, base ? base : &zero, err);
		if (e != 0)
			return e;
		/* The remote has it; the cache follows. */
		if (git_reference_create(NULL, s->repo, s->refname, commit, 1,
		    "envparity: bless") < 0)
			git_error_clear();
		return 0;
	}
	/* No base: the branch must not exist yet (not force), which every
	 * libgit2 says so; a zero expected value says it only from 1.2 on,
	 * and the relocatable build's is 1.1 (tools/reloc.sh). */
	msg = xasprintf("envparity: commit %s", path);
	if (base == NULL)
		e = git_reference_create(&ref, w, s->refname, commit, 0, msg);
	else
		e = git_reference_create_matching(&ref, w, s->refname, commit,
		    1, base, msg);
	free(msg);
	git_reference_free(ref);
	if (e == 0)
		return 0;
	if (e == GIT_EMODIFIED || e == GIT_ELOCKED || e == GIT_EEXISTS ||
	    e == GIT_ENOTFOUND) {
		git_error_clear();
		return 1;
	}
	return ep_store_git_err(err, EP_E_IO, s, "cannot move the branch");
}

/* The newest commit after base up to tip that changed the file at path,
 * for the message; tip when none is found. */
static void
who_changed(char hex[13], git_repository *w, const git_oid *tip,
    const git_oid *base, const char *path, struct ep_store *s)
{
	git_revwalk *rw = NULL;
	git_commit *c = NULL;
	struct ep_err ignore = { 0 };
	git_oid id, a, b;
	int r1, r2;

	git_oid_tostr(hex, 13, tip);
	if (git_revwalk_new(&rw, w) < 0 || git_revwalk_push(rw, tip) < 0 ||
	    (base != NULL && git_revwalk_hide(rw, base) < 0))
		goto done;
	git_revwalk_simplify_first_parent(rw);
	while (git_revwalk_next(&id, rw) == 0) {
		git_commit_free(c);
		c = NULL;
		if (git_commit_lookup(&c, w, &id) < 0)
			break;
		r1 = ep_store_entry(&a, w, &id, path, s, &ignore);
		r2 = ep_store_entry(&b, w, git_commit_parentcount(c) ?
		    git_commit_parent_id(c, 0) : NULL, path, s, &ignore);
		if (r1 < 0 || r2 < 0)
			break;
		if (r1 != r2 || (r1 == 0 && !git_oid_equal(&a, &b))) {
			git_oid_tostr(hex, 13, &id);
			break;
		}
	}
done:
	git_error_clear();
	git_commit_free(c);
	git_revwalk_free(rw);
}

/* Read the head again (for a remote, fetch it): 0, or 1 when absent. */
static int
reread(git_oid *tip, struct ep_store *s, git_repository *w,
    struct ep_err *err)
{
	if (s->kind == EP_STORE_NET && ep_store_remote_sync(s, err) < 0)
		return -1;
	return ep_store_tip(tip, w, s->refname, s, err);
}

/* 1 if the file at path differs between commits a and b (NULL: none). */
static int
file_moved(git_repository *w, const git_oid *a, const git_oid *b,
    const char *path, struct ep_store *s, struct ep_err *err)
{
	git_oid x, y;
	int r1, r2;

	if ((r1 = ep_store_entry(&x, w, a, path, s, err)) < 0 ||
	    (r2 = ep_store_entry(&y, w, b, path, s, err)) < 0)
		return -1;
	return r1 != r2 || (r1 == 0 && !git_oid_equal(&x, &y));
}

/* What one commit_file builds and moves: the file at path set to blob
 * (NULL: removed) with msg by sig, on top of base (when hasbase). */
struct commit_ctx {
	struct ep_store *s;
	git_repository *w;	/* where it is written */
	const char *path;
	const char *bless_profile;	/* see commit_file */
	const git_oid *blob;
	const char *msg;
	const git_signature *sig;
	git_oid base;
	int hasbase;
};

static const git_oid *
base_of(const struct commit_ctx *c)
{
	return c->hasbase ? &c->base : NULL;
}

/* The repository of s to write in, *w (for a file:// store, *direct,
 * opened here, which the caller frees); -1 with err when s names a tag
 * or a commit, or the store cannot be made or opened. */
static int
open_writer(git_repository **direct, git_repository **w, struct ep_store *s,
    const char *bless_profile, struct ep_err *err)
{
	*direct = NULL;
	/* A golden is reviewed on a branch; a tag or a commit names what
	 * was reviewed, and never moves. */
	if (s->pinned != EP_PIN_BRANCH)
		return ep_err_set(err, EP_E_INPUT, "store %s: --ref %s is a "
		    "%s, which is read-only: %s to a branch, then tag the "
		    "reviewed commit", s->display, s->branch, s->pinned ==
		    EP_PIN_TAG ? "tag" : "commit", bless_profile != NULL ?
		    "bless" : "commit");
	if (s->repo == NULL && ep_store_create_default(s, err) < 0)
		return -1;
	*w = s->repo;
	if (s->kind == EP_STORE_FILE) {
		if (git_repository_open_ext(direct, s->direct,
		    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
			return ep_store_git_err(err, EP_E_IO, s,
			    "cannot open for writing");
		*w = *direct;
	}
	return 0;
}

/* The branch's head in c->base (c->hasbase 0 when it has none) and the
 * file's text there in *cur (NULL: none); a remote store is locked and
 * read afresh first.  -1 with err. */
static int
read_base(char **cur, struct commit_ctx *c, struct ep_err *err)
{
	struct ep_store *s = c->s;
	int r;

	if (s->kind != EP_STORE_NET && refuse_checked_out(c->w, s, err) < 0)
		return -1;
	/* Read the remote afresh under the cache's lock, so that what the
	 * file holds and the base of the first attempt are what it holds
	 * now, not what it held when the store was opened. */
	if (s->kind == EP_STORE_NET && (ep_store_lock(s, err) < 0 ||
	    ep_store_remote_sync(s, err) < 0))
		return -1;
	if ((r = ep_store_tip(&c->base, c->w, s->refname, s, err)) < 0)
		return -1;
	c->hasbase = r == 0;
	if (ep_store_read_text(cur, c->w, base_of(c), c->path, s, err) < 0)
		return -1;
	return 0;
}

/* The commit message: shown by git log on terminals and in CI logs, so
 * its lines kept, no terminal escape or invisible character, and ending
 * in a newline.  The caller frees it. */
static char *
commit_message(const char *message)
{
	char *clean = ep_text_clean(message, 1), *msg;
	size_t mlen = strlen(clean);

	msg = xasprintf("%s%s", clean,
	    mlen > 0 && clean[mlen - 1] == '\n' ? "" : "\n");
	free(clean);
	return msg;
}

/* The branch did not move to the commit of this attempt: 0 to try again
 * (it was held: after a pause; another file moved: on top of the new
 * head, in c->base), -1 with err when the branch was deleted, the file
 * itself was changed, or it kept moving. */
static int
race_lost(struct commit_ctx *c, unsigned attempt, struct ep_err *err)
{
	struct ep_store *s = c->s;
	git_oid tip;
	char hex[13];
	int r;

	if (attempt + 1 >= MAX_ATTEMPTS)
		return ep_err_set(err, EP_E_IO, "store %s: %s kept moving; "
		    "gave up after %d attempts", s->display, s->branch,
		    MAX_ATTEMPTS);
	if ((r = reread(&tip, s, c->w, err)) < 0)
		return -1;
	if ((r == 1 && !c->hasbase) ||
	    (r == 0 && c->hasbase && git_oid_equal(&tip, &c->base))) {
		/* Held, not moved: the holder is still writing. */
		backoff(attempt);
		return 0;
	}
	if (r == 1)
		return ep_err_set(err, EP_E_IO, "store %s: branch %s was "
		    "deleted while this %s ran; check again and %s",
		    s->display, s->branch, c->bless_profile != NULL ?
		    "bless" : "commit", c->bless_profile != NULL ?
		    "re-bless" : "retry");
	if ((r = file_moved(c->w, base_of(c), &tip, c->path, s, err)) < 0)
		return -1;
	if (r == 1) {
		who_changed(hex, c->w, &tip, base_of(c), c->path, s);
		if (c->bless_profile != NULL)
			return ep_err_set(err, EP_E_IO, "profile %s was "
			    "blessed by someone else (commit %s) while "
			    "this bless ran; check again and re-bless",
			    c->bless_profile, hex);
		return ep_err_set(err, EP_E_IO, "%s was changed by "
		    "someone else (commit %s) while this ran; "
		    "nothing was committed: look at it again "
		    "and retry", c->path, hex);
	}
	/* Another file moved: build on top of it. */
	git_oid_cpy(&c->base, &tip);
	c->hasbase = 1;
	return 0;
}

/* Build the commit on c->base and move the branch to it, again on top
 * of a new head while another file moved (MAX_ATTEMPTS at most): 0 with
 * its id in commit_out, or -1 with err. */
static int
commit_and_move(char commit_out[41], struct commit_ctx *c,
    struct ep_err *err)
{
	git_oid commit;
	int r;

	for (unsigned attempt = 0;; attempt++) {
		if (ep_store_make_commit(&commit, c->w, base_of(c), c->path, c->blob,
		    c->msg, c->sig, c->s, err) < 0)
			return -1;
		if (ep_store_before_update != NULL)
			ep_store_before_update(ep_store_before_update_arg);
		if ((r = update_ref(c->s, c->w, &commit, base_of(c), c->path,
		    err)) < 0)
			return -1;
		if (r == 0) {
			git_oid_tostr(commit_out, 41, &commit);
			return 0;
		}
		if (race_lost(c, attempt, err) < 0)
			return -1;
	}
}

/*
 * Commit what edit makes of the file at path.  bless_profile names the
 * profile when path is its manifest, for bless's own messages; NULL for
 * any other file.
 */
static int
commit_file(char commit_out[41], int *changed, struct ep_store *s,
    const char *path, const char *bless_profile, ep_store_edit_fn edit,
    void *arg, const char *message, const struct ep_author *author,
    struct ep_err *err)
{
	struct commit_ctx c = { .s = s, .path = path,
	    .bless_profile = bless_profile };
	git_repository *direct = NULL;
	git_signature *sig = NULL;
	git_oid blob;
	char *msg = NULL, *cur = NULL, *text = NULL;
	int r, rc = -1;

	commit_out[0] = '\0';
	*changed = 0;
	s->took_seen[0] = s->took_head[0] = '\0';
	if (open_writer(&direct, &c.w, s, bless_profile, err) < 0)
		return -1;
	if (read_base(&cur, &c, err) < 0 ||
	    (r = edit(&text, cur, arg, err)) < 0)
		goto done;
	/* Nothing to change, or already what the branch holds. */
	if (r == 1 || (text == NULL && cur == NULL) || (text != NULL &&
	    cur != NULL && strcmp(text, cur) == 0)) {
		if (c.hasbase)
			git_oid_tostr(commit_out, 41, &c.base);
		/* Already what the branch holds: the person took the
		 * branch's history as it is. */
		ep_store_history_clear(s, base_of(&c));
		rc = 0;
		goto done;
	}
	if (text != NULL && ep_store_check_size(strlen(text), path, err) < 0)
		goto done;
	msg = commit_message(message);
	if (text != NULL && git_blob_create_from_buffer(&blob, c.w, text,
	    strlen(text)) < 0) {
		ep_store_git_err(err, EP_E_IO, s, bless_profile != NULL ?
		    "cannot write the manifest" : "cannot write the file");
		goto done;
	}
	if (make_sig(&sig, c.w, author, s, err) < 0)
		goto done;
	c.blob = text != NULL ? &blob : NULL;
	c.msg = msg;
	c.sig = sig;
	if (commit_and_move(commit_out, &c, err) < 0)
		goto done;
	*changed = 1;
	rc = 0;
	if (s->kind == EP_STORE_FILE) {
		/* Keep the cache in step for reads through this handle. */
		struct ep_err ignore = { 0 };

		if (ep_store_lock(s, &ignore) == 0)
			(void)ep_store_remote_sync(s, &ignore);
		git_error_clear();
	}
	/* A commit on top of a rewritten branch: acted on. */
	ep_store_history_clear(s, base_of(&c));
done:
	ep_store_unlock(s);
	git_signature_free(sig);
	git_repository_free(direct);
	free(msg);
	free(cur);
	free(text);
	return rc;
}

static int
put_manifest(char **out, const char *cur, void *arg, struct ep_err *err)
{
	(void)cur;
	(void)err;
	*out = xstrdup(arg);
	return 0;
}

int
ep_store_bless(char commit_out[41], struct ep_store *s,
    const char *profile, const char *manifest, const char *message,
    const struct ep_author *author, struct ep_err *err)
{
	char *path;
	int changed, rc;

	commit_out[0] = '\0';
	if (ep_profile_check(profile, err) < 0)
		return -1;
	path = xasprintf("%s/manifest.json", profile);
	if (ep_store_check_size(strlen(manifest), path, err) < 0)
		rc = -1;
	else
		rc = commit_file(commit_out, &changed, s, path, profile,
		    put_manifest, (void *)manifest, message, author, err);
	free(path);
	return rc;
}

int
ep_store_commit_file(char commit_out[41], int *changed, struct ep_store *s,
    const char *path, ep_store_edit_fn edit, void *arg, const char *message,
    const struct ep_author *author, struct ep_err *err)
{
	return commit_file(commit_out, changed, s, path, NULL, edit, arg,
	    message, author, err);
}
