/*
 * store_git.c: what the store's files share beneath them: libgit2's
 * errors as one message with every credential taken out, the branch a
 * store works on, making a bare repository, a ref's commit, removing a
 * tree.  It calls nothing else in store/.
 */
#include "store_int.h"

#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
