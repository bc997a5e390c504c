/*
 * store.c: the golden store, a git repository read through libgit2:
 * opening or creating the repository, keeping credentials out of every
 * message.  Specs live in store_spec.c, reading a profile's manifest,
 * policy and history in store_read.c, remote fetch and push in
 * store_remote.c, commits in store_bless.c; what they all share (git
 * errors without secrets, branches, bare repositories) in store_git.c.
 *
 * Reads and writes go through git objects and refs only: a store with a
 * work tree has its branch read and moved directly, and its work tree and
 * index are never touched.
 */
#include "store_int.h"
#include "errors.h"
#include "files.h"
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
		if (ep_store_set_ref(s, o->ref ? o->ref : DEFAULT_BRANCH,
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
	if (o->ref == NULL)
		return head_branch(s, err);
	if (ep_store_set_ref(s, o->ref, err) < 0)
		return -1;
	(void)ep_store_prefer_tag(s, s->repo);
	return 0;
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
	ep_strv_clear(&s->heads);
	free(s);
	git_libgit2_shutdown();
}

void
ep_store_info_clear(struct ep_store_info *i)
{
	free(i->store);
	free(i->ref);
	ep_policy_free(i->seen_policy);
	free(i->seen_policy_error);
	ep_strv_clear(&i->branches);
	memset(i, 0, sizeof *i);
}

int
ep_store_no_branch(const struct ep_store_info *info, struct ep_err *err)
{
	size_t len = 0;
	char *list;

	if (info->branches.n == 0)
		return 0;
	for (size_t i = 0; i < info->branches.n; i++)
		len += strlen(info->branches.v[i]) + 2;
	list = xmalloc(len + 1);
	list[0] = '\0';
	for (size_t i = 0; i < info->branches.n; i++) {
		if (i > 0)
			strcat(list, ", ");
		strcat(list, info->branches.v[i]);
	}
	ep_err_set(err, EP_E_INPUT, "store %s: --ref %s: no such branch (its "
	    "branches: %s); name one of them, or bless to --ref %s to "
	    "start it", info->store, info->ref, list, info->ref);
	free(list);
	return -1;
}

/* The branches of s other than its own, into out, sorted: a local
 * repository's own, or what a remote advertised at the last fetch (its
 * cache holds only the branch in use). */
static void
list_branches(struct ep_strv *out, const struct ep_store *s)
{
	git_branch_iterator *it = NULL;
	git_reference *ref;
	git_branch_t type;
	const char *name;

	if (s->kind != EP_STORE_LOCAL) {
		for (size_t i = 0; i < s->heads.n; i++)
			if (strcmp(s->heads.v[i], s->branch) != 0)
				ep_strv_push(out, s->heads.v[i]);
	} else if (s->repo != NULL && git_branch_iterator_new(&it, s->repo,
	    GIT_BRANCH_LOCAL) == 0) {
		while (git_branch_next(&ref, &type, it) == 0) {
			if (git_branch_name(&name, ref) == 0 &&
			    strcmp(name, s->branch) != 0)
				ep_strv_push(out, name);
			git_reference_free(ref);
		}
		git_branch_iterator_free(it);
	}
	git_error_clear();
	ep_strv_sort(out);
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
	else if (s->pinned == EP_PIN_BRANCH)
		list_branches(&info->branches, s);
	git_error_clear();
}
