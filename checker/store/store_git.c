/*
 * store_git.c: what the store's files share beneath them: libgit2's
 * errors as one message with every credential taken out, the branch a
 * store works on, making a bare repository, a ref's commit, removing a
 * tree.  It calls nothing else in store/.
 */
#include "store_int.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

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

static int
is_commit_id(const char *ref)
{
	size_t n = strlen(ref);

	if (n != GIT_OID_HEXSZ)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((ref[i] >= '0' && ref[i] <= '9') ||
		    (ref[i] >= 'a' && ref[i] <= 'f') ||
		    (ref[i] >= 'A' && ref[i] <= 'F')))
			return 0;
	return 1;
}

/* Whether FULL (refs/...) is a valid reference name.  libgit2 1.1 (the
 * relocatable build's, tools/reloc.sh) has only the older call. */
static int
ref_name_valid(const char *full)
{
#if LIBGIT2_VER_MAJOR > 1 || LIBGIT2_VER_MINOR >= 2
	int valid = 0;

	return git_reference_name_is_valid(&valid, full) == 0 && valid;
#else
	return git_reference_is_valid_name(full);
#endif
}

int
ep_store_set_ref(struct ep_store *s, const char *ref, struct ep_err *err)
{
	char *full, *lower;

	if (is_commit_id(ref)) {
		lower = xstrdup(ref);
		for (char *p = lower; *p != '\0'; p++)
			if (*p >= 'A' && *p <= 'F')
				*p = (char)(*p - 'A' + 'a');
		if (git_oid_fromstr(&s->pin, lower) < 0) {
			free(lower);
			return ep_err_set(err, EP_E_INPUT, "--ref %s: not a "
			    "commit id", ref);
		}
		free(s->branch);
		free(s->refname);
		s->branch = lower;
		s->refname = xasprintf("refs/envparity/pin/%s", lower);
		s->pinned = EP_PIN_COMMIT;
		return 0;
	}
	if (ep_startswith(ref, "refs/tags/") || ep_startswith(ref, "tags/")) {
		ref = strchr(ref, '/') + 1;
		if (ep_startswith(ref, "tags/"))
			ref += strlen("tags/");
		full = xasprintf("refs/tags/%s", ref);
		if (ref[0] == '\0' || !ref_name_valid(full)) {
			free(full);
			return ep_err_set(err, EP_E_INPUT, "--ref '%s': not a "
			    "valid tag name", ref);
		}
		free(s->branch);
		free(s->refname);
		s->branch = xstrdup(ref);
		s->refname = full;
		s->pinned = EP_PIN_TAG;
		return 0;
	}
	return ep_store_set_branch(s, ref, err);
}

int
ep_store_prefer_tag(struct ep_store *s, git_repository *repo)
{
	char *tag;
	git_oid id;

	if (s->pinned != EP_PIN_BRANCH || repo == NULL ||
	    git_reference_name_to_id(&id, repo, s->refname) == 0) {
		git_error_clear();
		return 0;
	}
	tag = xasprintf("refs/tags/%s", s->branch);
	if (git_reference_name_to_id(&id, repo, tag) != 0) {
		git_error_clear();
		free(tag);
		return 0;
	}
	free(s->refname);
	s->refname = tag;
	s->pinned = EP_PIN_TAG;
	return 1;
}

/* The branch named by ref ("main" or "refs/heads/main"); EP_E_INPUT if it
 * cannot be one. */
int
ep_store_set_branch(struct ep_store *s, const char *ref, struct ep_err *err)
{
	char *full;

	if (ep_startswith(ref, "refs/heads/"))
		ref += strlen("refs/heads/");
	else if (ep_startswith(ref, "refs/"))
		return ep_err_set(err, EP_E_INPUT, "--ref %s: give a branch, "
		    "a tag (refs/tags/NAME) or a full commit id", ref);
	full = xasprintf("refs/heads/%s", ref);
	if (ref[0] == '\0' || !ref_name_valid(full)) {
		free(full);
		return ep_err_set(err, EP_E_INPUT, "--ref '%s': not a valid "
		    "branch name", ref);
	}
	free(s->branch);
	free(s->refname);
	s->branch = xstrdup(ref);
	s->refname = full;
	s->pinned = EP_PIN_BRANCH;
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
	git_object *o = NULL, *c = NULL;
	git_odb *odb = NULL;
	int e, have;

	if (repo == NULL)
		return s->pinned == EP_PIN_BRANCH ? 1 : ep_err_set(err,
		    EP_E_INPUT, "store %s: --ref %s: no such %s (the store is "
		    "empty)", s->display, s->branch, s->pinned == EP_PIN_TAG ?
		    "tag" : "commit");
	if (s->pinned == EP_PIN_COMMIT && strcmp(refname, s->refname) == 0) {
		if (git_repository_odb(&odb, repo) < 0)
			return ep_store_git_err(err, EP_E_IO, s, "cannot read");
		have = git_odb_exists(odb, &s->pin);
		git_odb_free(odb);
		if (!have || git_object_lookup(&o, repo, &s->pin,
		    GIT_OBJECT_COMMIT) < 0) {
			git_error_clear();
			return ep_err_set(err, EP_E_INPUT, "store %s: --ref %s: "
			    "no such commit in the store", s->display,
			    s->branch);
		}
		git_object_free(o);
		git_oid_cpy(id, &s->pin);
		return 0;
	}
	if ((e = git_reference_name_to_id(id, repo, refname)) == 0) {
		if (!ep_startswith(refname, "refs/tags/"))
			return 0;
		/* An annotated tag names a tag object: its commit. */
		if (git_object_lookup(&o, repo, id, GIT_OBJECT_ANY) < 0 ||
		    git_object_peel(&c, o, GIT_OBJECT_COMMIT) < 0) {
			git_object_free(o);
			return ep_store_git_err(err, EP_E_INPUT, s, refname);
		}
		git_oid_cpy(id, git_object_id(c));
		git_object_free(c);
		git_object_free(o);
		return 0;
	}
	if (e == GIT_ENOTFOUND && s->pinned == EP_PIN_TAG) {
		git_error_clear();
		return ep_err_set(err, EP_E_INPUT, "store %s: --ref %s: no such "
		    "tag", s->display, s->branch);
	}
	if (e == GIT_ENOTFOUND)
		return 1;
	return ep_store_git_err(err, EP_E_IO, s, refname);
}
