/*
 * store.c: the golden store, a git repository read through libgit2:
 * opening or creating the repository, keeping credentials out of every
 * message.  Specs live in store_spec.c, reading a profile's manifest,
 * policy and history in store_read.c, remote fetch and push in
 * store_remote.c, commits in store_bless.c.
 *
 * Reads and writes go through git objects and refs only: a store with a
 * work tree has its branch read and moved directly, and its work tree and
 * index are never touched.
 */
#include "store_int.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_STORE	".envparity/store"
#define DEFAULT_BRANCH	"main"

void (*ep_store_before_update)(void *arg);
void *ep_store_before_update_arg;

const char *
ep_store_library_version(void)
{
	static char buf[64];
	int maj, min, rev;

	if (buf[0] == '\0') {
		git_libgit2_version(&maj, &min, &rev);
		snprintf(buf, sizeof buf, "libgit2 %d.%d.%d", maj, min, rev);
	}
	return buf;
}

void
ep_store_scrub(struct ep_store *s, struct ep_err *err)
{
	ep_store_scrub_secrets(&s->secrets, err);
}

void
ep_store_replace(struct ep_err *err, const char *needle, const char *with)
{
	char out[sizeof err->msg];
	const char *p, *q;
	size_t n = strlen(needle), o;

	if (n == 0 || strstr(err->msg, needle) == NULL)
		return;
	/* Copied out, so a replacement never meets itself and a short
	 * needle cannot grow the message past its end. */
	o = 0;
	for (p = err->msg; (q = strstr(p, needle)) != NULL &&
	    o < sizeof out; p = q + n)
		o += (size_t)snprintf(out + o, sizeof out - o, "%.*s%s",
		    (int)(q - p), p, with);
	if (o < sizeof out)
		snprintf(out + o, sizeof out - o, "%s", p);
	memcpy(err->msg, out, sizeof out);
	err->msg[sizeof err->msg - 1] = '\0';
}

void
ep_store_scrub_secrets(const struct ep_strv *secrets, struct ep_err *err)
{
	for (size_t i = 0; i < secrets->n; i++)
		ep_store_replace(err, secrets->v[i], "***");
}

int
ep_store_git_err(struct ep_err *err, int kind, struct ep_store *s,
    const char *what)
{
	const git_error *e = git_error_last();

	ep_err_set(err, kind, "store %s: %s: %s", s->display, what,
	    e != NULL && e->message != NULL ? e->message : "unknown error");
	ep_store_scrub(s, err);
	return -1;
}

/* The branch named by ref ("main" or "refs/heads/main"); EP_E_INPUT if it
 * cannot be one. */
int
ep_store_set_branch(struct ep_store *s, const char *ref, struct ep_err *err)
{
	int valid = 0;
	char *full;

	if (ep_startswith(ref, "refs/heads/"))
		ref += strlen("refs/heads/");
	else if (ep_startswith(ref, "refs/"))
		return ep_err_set(err, EP_E_INPUT, "--ref %s: give a branch "
		    "name", ref);
	full = xasprintf("refs/heads/%s", ref);
	if (ref[0] == '\0' || git_reference_name_is_valid(&valid, full) < 0 ||
	    !valid) {
		free(full);
		return ep_err_set(err, EP_E_INPUT, "--ref '%s': not a valid "
		    "branch name", ref);
	}
	free(s->branch);
	free(s->refname);
	s->branch = xstrdup(ref);
	s->refname = full;
	return 0;
}

/* The branch HEAD names (even unborn), else DEFAULT_BRANCH. */
static int
head_branch(struct ep_store *s, struct ep_err *err)
{
	git_reference *head = NULL;
	const char *t;
	int rc;

	if (git_reference_lookup(&head, s->repo, "HEAD") == 0 &&
	    git_reference_type(head) == GIT_REFERENCE_SYMBOLIC &&
	    (t = git_reference_symbolic_target(head)) != NULL &&
	    ep_startswith(t, "refs/heads/"))
		rc = ep_store_set_branch(s, t, err);
	else {
		git_error_clear();
		rc = ep_store_set_branch(s, DEFAULT_BRANCH, err);
	}
	git_reference_free(head);
	return rc;
}

static int
rm_entry(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

void
ep_store_rm_rf(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int
ep_store_init_bare(const char *path, const char *branch, struct ep_store *s,
    struct ep_err *err)
{
	git_repository_init_options o;
	git_repository *r = NULL;
	char *tmp = xasprintf("%s.tmp.%ld", path, (long)getpid());
	int rc = -1;

	/* Made beside and renamed into place, so that a process racing us
	 * to create it finds either nothing or a whole repository. */
	git_repository_init_options_init(&o,
	    GIT_REPOSITORY_INIT_OPTIONS_VERSION);
	o.flags = GIT_REPOSITORY_INIT_BARE | GIT_REPOSITORY_INIT_MKPATH |
	    GIT_REPOSITORY_INIT_NO_REINIT;
	o.initial_head = branch;
	ep_store_rm_rf(tmp);
	if (git_repository_init_ext(&r, tmp, &o) < 0) {
		ep_store_git_err(err, EP_E_IO, s, "cannot create");
		goto done;
	}
	git_repository_free(r);
	if (rename(tmp, path) < 0 && errno != EEXIST && errno != ENOTEMPTY) {
		ep_err_set(err, EP_E_IO, "store %s: cannot create: %s",
		    s->display, strerror(errno));
		goto done;
	}
	rc = 0;
done:
	ep_store_rm_rf(tmp);
	free(tmp);
	return rc;
}

static int
open_local(struct ep_store *s, const struct ep_store_opts *o,
    struct ep_err *err)
{
	struct stat st;

	if (stat(s->path, &st) < 0) {
		if (errno != ENOENT || !s->is_default)
			return ep_err_set(err, EP_E_IO, "store %s: %s",
			    s->display, errno == ENOENT ? "no such repository"
			    : strerror(errno));
		/* The default store is made by the first bless; before
		 * that it is an empty store, not an error. */
		if (ep_store_set_branch(s, o->ref ? o->ref : DEFAULT_BRANCH,
		    err) < 0)
			return -1;
		if (!o->create)
			return 0;
		return ep_store_create_default(s, err);
	}
	if (git_repository_open_ext(&s->repo, s->path,
	    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0)
		return ep_store_git_err(err, EP_E_IO, s,
		    "not a git repository");
	return o->ref ? ep_store_set_branch(s, o->ref, err) :
	    head_branch(s, err);
}

int
ep_store_create_default(struct ep_store *s, struct ep_err *err)
{
	char *parent = xstrdup(s->path), *slash = strrchr(parent, '/');
	int rc = -1;

	if (slash != NULL) {
		*slash = '\0';
		if (ep_mkdirs(parent, err) < 0)
			goto done;
	}
	if (ep_store_init_bare(s->path, s->branch, s, err) < 0)
		goto done;
	if (git_repository_open_ext(&s->repo, s->path,
	    GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		ep_store_git_err(err, EP_E_IO, s, "not a git repository");
		goto done;
	}
	rc = 0;
done:
	free(parent);
	return rc;
}

int
ep_store_open(struct ep_store **out, const struct ep_store_opts *o,
    struct ep_err *err)
{
	struct ep_store *s = xcalloc(1, sizeof *s);
	int rc = -1;

	*out = NULL;
	s->lockfd = -1;
	git_libgit2_init();
	/* Objects and refs reach the disk before a bless says it is done. */
	git_libgit2_opts(GIT_OPT_ENABLE_FSYNC_GITDIR, 1);

	if (o->spec == NULL) {
		s->is_default = 1;
		s->kind = EP_STORE_LOCAL;
		s->display = xstrdup(DEFAULT_STORE);
		s->path = xstrdup(DEFAULT_STORE);
	} else if (ep_store_parse_spec(s, o->spec, err) < 0)
		goto done;

	if (s->kind == EP_STORE_LOCAL)
		rc = open_local(s, o, err);
	else
		rc = ep_store_remote_open(s, o->ref, err);
	if (rc == 0) {
		*out = s;
		s = NULL;
	}
done:
	ep_store_free(s);
	return rc;
}

void
ep_store_free(struct ep_store *s)
{
	if (s == NULL)
		return;
	ep_store_unlock(s);
	git_repository_free(s->repo);
	free(s->display);
	free(s->url);
	free(s->path);
	free(s->direct);
	free(s->branch);
	free(s->refname);
	ep_strv_clear(&s->secrets);
	free(s);
	git_libgit2_shutdown();
}

void
ep_store_info_clear(struct ep_store_info *i)
{
	free(i->store);
	free(i->ref);
	memset(i, 0, sizeof *i);
}

int
ep_store_tip(git_oid *id, git_repository *repo, const char *refname,
    struct ep_store *s, struct ep_err *err)
{
	int e;

	if (repo == NULL)
		return 1;
	if ((e = git_reference_name_to_id(id, repo, refname)) == 0)
		return 0;
	if (e == GIT_ENOTFOUND)
		return 1;
	return ep_store_git_err(err, EP_E_IO, s, refname);
}

void
ep_store_describe(struct ep_store_info *info, const struct ep_store *s)
{
	git_oid id;

	memset(info, 0, sizeof *info);
	info->store = xstrdup(s->display);
	info->ref = xstrdup(s->branch);
	if (s->repo != NULL &&
	    git_reference_name_to_id(&id, s->repo, s->refname) == 0)
		git_oid_tostr(info->commit, sizeof info->commit, &id);
}
