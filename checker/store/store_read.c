/*
 * store_read.c: reading a profile's manifest, policy and history from the
 * store's objects, and the list of its profiles.  Every object is sized from its header before it is
 * read: a store is input, and a small compressed object can inflate to
 * gigabytes.
 */
#include "store_int.h"

#include "policy.h"
#include "storeopt.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

int
ep_store_check_size(size_t n, const char *what, struct ep_err *err)
{
	if (n <= EP_STORE_MAX_BLOB)
		return 0;
	return ep_err_set(err, EP_E_INPUT, "%s is too large for the store "
	    "(%zu bytes; the limit is %u)", what, n, EP_STORE_MAX_BLOB);
}

/*
 * Whether object id may be read: its size comes from the object's header,
 * which costs a few bytes, before anything inflates it, so a small
 * compressed object that inflates to gigabytes is refused, not allocated.
 * what names it in the error ("default/manifest.json at 3f1c2ab9e0d4").
 */
static int
object_fits(git_repository *repo, const git_oid *id, const char *what,
    struct ep_store *s, struct ep_err *err)
{
	git_odb *odb = NULL;
	git_object_t type;
	size_t n;
	int rc = 0;

	if (git_repository_odb(&odb, repo) < 0 ||
	    git_odb_read_header(&n, &type, odb, id) < 0)
		rc = ep_store_git_err(err, EP_E_IO, s, what);
	else if (n > EP_STORE_MAX_BLOB)
		rc = ep_err_set(err, EP_E_INPUT, "store %s: %s is too large "
		    "(%zu bytes; the limit is %u)", s->display, what, n,
		    EP_STORE_MAX_BLOB);
	git_odb_free(odb);
	return rc;
}

/* The tree entry at path (a/b) in commit's tree; 1 when absent.  Every
 * object on the way is sized before it is read. */
static int
lookup_entry(git_tree_entry **out, git_repository *repo,
    const git_oid *commit, const char *path, struct ep_store *s,
    struct ep_err *err)
{
	git_commit *c = NULL;
	git_tree *t = NULL;
	const git_tree_entry *e;
	git_oid id;
	char hex[13], *what, *name = NULL;
	const char *p, *slash;
	int rc = -1;

	*out = NULL;
	git_oid_tostr(hex, sizeof hex, commit);
	what = xasprintf("commit %s", hex);
	if (object_fits(repo, commit, what, s, err) < 0)
		goto done;
	if (git_commit_lookup(&c, repo, commit) < 0) {
		ep_store_git_err(err, EP_E_IO, s, "cannot read commit");
		goto done;
	}
	git_oid_cpy(&id, git_commit_tree_id(c));
	for (p = path;; p = slash + 1) {
		free(what);
		what = p == path ? xasprintf("the tree of commit %s", hex) :
		    xasprintf("the tree %.*s at %s", (int)(p - path - 1), path,
		    hex);
		git_tree_free(t);
		t = NULL;
		if (object_fits(repo, &id, what, s, err) < 0)
			goto done;
		if (git_tree_lookup(&t, repo, &id) < 0) {
			ep_store_git_err(err, EP_E_IO, s, path);
			goto done;
		}
		slash = strchr(p, '/');
		free(name);
		name = slash ? xstrndup(p, (size_t)(slash - p)) : xstrdup(p);
		if ((e = git_tree_entry_byname(t, name)) == NULL) {
			rc = 1;
			goto done;
		}
		if (slash == NULL)
			break;
		if (git_tree_entry_type(e) != GIT_OBJECT_TREE) {
			rc = 1;
			goto done;
		}
		git_oid_cpy(&id, git_tree_entry_id(e));
	}
	if (git_tree_entry_dup(out, e) < 0) {
		ep_store_git_err(err, EP_E_IO, s, path);
		goto done;
	}
	rc = 0;
done:
	free(name);
	free(what);
	git_tree_free(t);
	git_commit_free(c);
	return rc;
}

int
ep_store_entry(git_oid *id, git_repository *repo, const git_oid *commit,
    const char *path, struct ep_store *s, struct ep_err *err)
{
	git_tree_entry *e = NULL;
	int rc;

	if (commit == NULL)
		return 1;
	if ((rc = lookup_entry(&e, repo, commit, path, s, err)) == 0) {
		/* A folder where a file belongs is no file. */
		if (git_tree_entry_type(e) != GIT_OBJECT_BLOB)
			rc = 1;
		else
			git_oid_cpy(id, git_tree_entry_id(e));
	}
	git_tree_entry_free(e);
	return rc;
}

int
ep_store_read_text(char **out, git_repository *repo, const git_oid *commit,
    const char *path, struct ep_store *s, struct ep_err *err)
{
	git_tree_entry *e = NULL;
	git_blob *b = NULL;
	char hex[13], *what = NULL;
	size_t n;
	int rc;

	*out = NULL;
	if (commit == NULL)
		return 1;
	if ((rc = lookup_entry(&e, repo, commit, path, s, err)) != 0)
		return rc;
	rc = -1;
	git_oid_tostr(hex, sizeof hex, commit);
	what = xasprintf("%s at %s", path, hex);
	if (git_tree_entry_filemode(e) != GIT_FILEMODE_BLOB &&
	    git_tree_entry_filemode(e) != GIT_FILEMODE_BLOB_EXECUTABLE) {
		ep_err_set(err, EP_E_INPUT, "store %s: %s is not a regular "
		    "file", s->display, what);
		goto done;
	}
	if (object_fits(repo, git_tree_entry_id(e), what, s, err) < 0)
		goto done;
	if (git_blob_lookup(&b, repo, git_tree_entry_id(e)) < 0) {
		ep_store_git_err(err, EP_E_IO, s, path);
		goto done;
	}
	n = (size_t)git_blob_rawsize(b);
	*out = xmalloc(n + 1);
	memcpy(*out, git_blob_rawcontent(b), n);
	(*out)[n] = '\0';
	rc = 0;
done:
	free(what);
	git_blob_free(b);
	git_tree_entry_free(e);
	return rc;
}

void
ep_store_policies_clear(struct ep_store_policies *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].path);
		free(p->v[i].text);
	}
	memset(p, 0, sizeof *p);
}

const char *
ep_store_policies_own(const struct ep_store_policies *p)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].scope == EP_SCOPE_PROFILE)
			return p->v[i].text;
	return NULL;
}

void
ep_store_policy_paths(struct ep_store_policies *out, const char *profile)
{
	size_t len = strlen(profile);

	memset(out, 0, sizeof *out);
	/* The profile's own, then each folder up to the root's. */
	for (;;) {
		struct ep_store_policy_file *f = &out->v[out->n++];

		if (len == 0) {
			f->path = xstrdup("policy.json");
			f->scope = EP_SCOPE_SHARED;
			break;
		}
		f->path = xasprintf("%.*s/policy.json", (int)len, profile);
		f->scope = out->n == 1 ? EP_SCOPE_PROFILE : EP_SCOPE_INHERITED;
		while (len > 0 && profile[len - 1] != '/')
			len--;
		if (len > 0)
			len--;	/* the '/' */
		if (out->n == EP_PROFILE_MAX_DEPTH) {
			/* ep_profile_check bounds the depth: the root's
			 * comes last whatever. */
			len = 0;
		}
	}
}

/* Every policy file that applies to profile, as it is at commit. */
static int
read_policies(struct ep_store_policies *pol, git_repository *repo,
    const git_oid *commit, const char *profile, struct ep_store *s,
    struct ep_err *err)
{
	struct ep_store_policies all;
	int rc = 0;

	memset(pol, 0, sizeof *pol);
	ep_store_policy_paths(&all, profile);
	for (size_t i = 0; i < all.n && rc >= 0; i++) {
		if ((rc = ep_store_read_text(&all.v[i].text, repo, commit,
		    all.v[i].path, s, err)) != 0)
			continue;
		pol->v[pol->n++] = all.v[i];
		all.v[i].path = all.v[i].text = NULL;
	}
	ep_store_policies_clear(&all);
	if (rc < 0) {
		ep_store_policies_clear(pol);
		return -1;
	}
	return 0;
}

/* The policy of profile at info->rewritten, the commit the cache saw
 * last, into info->seen_policy: what may still decide store.history.  One
 * that no longer parses is not an error here (info->seen_policy_error):
 * it then decides nothing. */
static int
read_trusted(struct ep_store_info *info, struct ep_store *s,
    const char *profile, struct ep_err *err)
{
	struct ep_store_policies pol = { 0 };
	struct ep_err perr = { 0 };
	git_oid seen;
	char *where;

	if (git_oid_fromstr(&seen, info->rewritten) < 0)
		return ep_store_git_err(err, EP_E_IO, s, "the commit the cache "
		    "saw last");
	if (read_policies(&pol, s->repo, &seen, profile, s, err) < 0)
		return -1;
	where = xasprintf("%s#%.12s", info->store, info->rewritten);
	if (ep_store_policy(&info->seen_policy, &pol, where, &perr) < 0)
		info->seen_policy_error = xstrdup(perr.msg);
	free(where);
	ep_store_policies_clear(&pol);
	return 0;
}

int
ep_store_read(char **manifest, struct ep_store_policies *pol,
    struct ep_store_info *info, struct ep_store *s, const char *profile,
    struct ep_err *err)
{
	char *path = NULL;
	git_oid tip;
	int rc;

	*manifest = NULL;
	memset(pol, 0, sizeof *pol);
	ep_store_describe(info, s);
	if (ep_profile_check(profile, err) < 0)
		return -1;
	if ((rc = ep_store_tip(&tip, s->repo, s->refname, s, err)) != 0)
		return rc < 0 ? -1 : 0;
	git_oid_tostr(info->commit, sizeof info->commit, &tip);
	/* A tag or a commit is what it is: no history to have rewritten. */
	if (s->kind != EP_STORE_LOCAL && s->pinned == EP_PIN_BRANCH) {
		rc = ep_store_lock(s, err) < 0 ? -1 :
		    ep_store_history_take(info->rewritten, s, &tip, err);
		ep_store_unlock(s);
		if (rc < 0 || (info->rewritten[0] != '\0' &&
		    read_trusted(info, s, profile, err) < 0))
			return -1;
	}
	path = xasprintf("%s/manifest.json", profile);
	rc = ep_store_read_text(manifest, s->repo, &tip, path, s, err);
	free(path);
	if (rc < 0)
		return -1;
	if (read_policies(pol, s->repo, &tip, profile, s, err) < 0) {
		free(*manifest);
		*manifest = NULL;
		return -1;
	}
	return 0;
}

void
ep_store_log_free(struct ep_store_commit *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].author);
		free(v[i].message);
		free(v[i].manifest);
		free(v[i].parent_manifest);
		ep_strv_clear(&v[i].policies);
	}
	free(v);
}

/* Whether the file at path differs between commit and parent: 1 yes, 0
 * no, -1 error; *here whether commit has it. */
static int
file_changed(int *here, git_repository *repo, const git_oid *commit,
    const git_oid *parent, const char *path, struct ep_store *s,
    struct ep_err *err)
{
	git_oid a, b;
	int r1, r2;

	if ((r1 = ep_store_entry(&a, repo, commit, path, s, err)) < 0 ||
	    (r2 = ep_store_entry(&b, repo, parent, path, s, err)) < 0)
		return -1;
	*here = r1 == 0;
	return !(r1 == r2 && (r1 == 1 || git_oid_equal(&a, &b)));
}

int
ep_store_log(struct ep_store_commit **out, size_t *n, struct ep_store *s,
    const char *profile, size_t max, struct ep_err *err)
{
	git_revwalk *w = NULL;
	git_commit *c = NULL;
	struct ep_store_commit *v = NULL, *e;
	struct ep_store_policies paths = { 0 };
	size_t cap = 0;
	git_oid tip, id;
	const git_signature *a;
	char *path = NULL;
	int mchanged, mhere, r, here, rc = -1;
	int pchanged[EP_PROFILE_MAX_DEPTH + 1];

	*out = NULL;
	*n = 0;
	if (ep_profile_check(profile, err) < 0)
		return -1;
	if ((rc = ep_store_tip(&tip, s->repo, s->refname, s, err)) != 0)
		return rc < 0 ? -1 : 0;
	rc = -1;
	path = xasprintf("%s/manifest.json", profile);
	ep_store_policy_paths(&paths, profile);
	if (git_revwalk_new(&w, s->repo) < 0 ||
	    git_revwalk_sorting(w, GIT_SORT_TOPOLOGICAL | GIT_SORT_TIME) < 0 ||
	    git_revwalk_simplify_first_parent(w) < 0 ||
	    git_revwalk_push(w, &tip) < 0) {
		ep_store_git_err(err, EP_E_IO, s, "cannot walk history");
		goto done;
	}
	while ((max == 0 || *n < max) && git_revwalk_next(&id, w) == 0) {
		const git_oid *parent;
		int any;

		git_commit_free(c);
		c = NULL;
		if (git_commit_lookup(&c, s->repo, &id) < 0) {
			ep_store_git_err(err, EP_E_IO, s, "cannot read commit");
			goto done;
		}
		parent = git_commit_parentcount(c) > 0 ?
		    git_commit_parent_id(c, 0) : NULL;
		if ((mchanged = file_changed(&mhere, s->repo, &id, parent,
		    path, s, err)) < 0)
			goto done;
		any = mchanged;
		for (size_t i = 0; i < paths.n; i++) {
			if ((r = file_changed(&here, s->repo, &id, parent,
			    paths.v[i].path, s, err)) < 0)
				goto done;
			pchanged[i] = r;
			any |= r;
		}
		if (!any)
			continue;	/* touched nothing of this profile */
		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			v = xreallocarray(v, cap, sizeof *v);
		}
		e = &v[(*n)++];
		memset(e, 0, sizeof *e);
		git_oid_tostr(e->id, sizeof e->id, &id);
		a = git_commit_author(c);
		e->when = (time_t)a->when.time;
		e->author = xasprintf("%s <%s>", a->name, a->email);
		e->message = xstrdup(git_commit_summary(c) ?
		    git_commit_summary(c) : "");
		e->manifest_changed = mchanged;
		for (size_t i = 0; i < paths.n; i++)
			if (pchanged[i]) {
				e->policy_scopes[e->policies.n] =
				    paths.v[i].scope;
				ep_strv_push(&e->policies, paths.v[i].path);
			}
		/* The manifest as it stands at the commit and before, for
		 * the counts (a policy commit shows none). */
		if (mchanged && ((mhere && ep_store_read_text(&e->manifest,
		    s->repo, &id, path, s, err) < 0) ||
		    ep_store_read_text(&e->parent_manifest, s->repo, parent,
		    path, s, err) < 0))
			goto done;
	}
	*out = v;
	v = NULL;
	rc = 0;
done:
	if (rc < 0) {
		ep_store_log_free(v, *n);
		*n = 0;
	}
	ep_store_policies_clear(&paths);
	git_commit_free(c);
	git_revwalk_free(w);
	free(path);
	return rc;
}

/* What the walk of the head's tree collects (ep_store_profiles). */
struct profile_walk {
	struct ep_strv *names;
	struct ep_strv *skipped;
};

static int
profile_entry(const char *root, const git_tree_entry *entry, void *payload)
{
	struct profile_walk *pw = payload;
	struct ep_err perr = { 0 };
	const char *name = git_tree_entry_name(entry);
	size_t depth = 0, len = strlen(root);
	char *dir;

	for (const char *p = root; *p != '\0'; p++)
		depth += *p == '/';
	if (git_tree_entry_type(entry) == GIT_OBJECT_TREE) {
		if (depth < EP_PROFILE_MAX_DEPTH)
			return 0;
		ep_strv_push_owned(pw->skipped, xasprintf("%s%s/: deeper "
		    "than %d folders", root, name, EP_PROFILE_MAX_DEPTH));
		return 1;	/* not descended into */
	}
	if (strcmp(name, "manifest.json") != 0 ||
	    git_tree_entry_type(entry) != GIT_OBJECT_BLOB)
		return 0;
	if (len == 0) {
		ep_strv_push(pw->skipped, "manifest.json: at the store's "
		    "root, no profile's");
		return 0;
	}
	dir = xasprintf("%.*s", (int)(len - 1), root);
	if (ep_profile_check(dir, &perr) < 0)
		ep_strv_push_owned(pw->skipped, xasprintf("%smanifest.json: "
		    "%s", root, perr.msg));
	else
		ep_strv_push(pw->names, dir);
	free(dir);
	return 0;
}

int
ep_store_profiles(struct ep_strv *names, struct ep_strv *skipped,
    struct ep_store *s, struct ep_err *err)
{
	struct profile_walk pw = { names, skipped };
	git_commit *c = NULL;
	git_tree *t = NULL;
	git_oid tip;
	int rc;

	if ((rc = ep_store_tip(&tip, s->repo, s->refname, s, err)) != 0)
		return rc < 0 ? -1 : 0;
	rc = -1;
	if (git_commit_lookup(&c, s->repo, &tip) < 0 ||
	    git_commit_tree(&t, c) < 0 ||
	    git_tree_walk(t, GIT_TREEWALK_PRE, profile_entry, &pw) < 0) {
		ep_store_git_err(err, EP_E_IO, s, "cannot read the tree");
		goto done;
	}
	ep_strv_sort(names);
	ep_strv_sort(skipped);
	rc = 0;
done:
	git_tree_free(t);
	git_commit_free(c);
	return rc;
}

int
ep_store_policy(struct ep_policy **out, const struct ep_store_policies *pol,
    const char *where, struct ep_err *err)
{
	struct ep_policy_layer l[EP_PROFILE_MAX_DEPTH + 1];
	char *names[EP_PROFILE_MAX_DEPTH + 1];
	int rc;

	*out = NULL;
	for (size_t i = 0; i < pol->n; i++) {
		names[i] = xasprintf("%s:%s", where, pol->v[i].path);
		l[i].text = pol->v[i].text;
		l[i].len = strlen(pol->v[i].text);
		l[i].name = names[i];
		l[i].origin = pol->v[i].path;
		l[i].scope = pol->v[i].scope;
	}
	rc = ep_policy_parse_layers(out, l, pol->n, err);
	for (size_t i = 0; i < pol->n; i++)
		free(names[i]);
	return rc;
}

int
ep_store_policy_valid(struct ep_store *s, const char *profile,
    struct ep_err *err)
{
	struct ep_store_info info = { 0 };
	struct ep_store_policies pol = { 0 };
	struct ep_policy *policy = NULL;
	char *mtext = NULL, *where;
	int rc;

	if (ep_store_read(&mtext, &pol, &info, s, profile, err) < 0) {
		ep_store_info_clear(&info);
		return -1;
	}
	where = xasprintf("%s#%s", info.store, info.ref);
	rc = ep_store_policy(&policy, &pol, where, err);
	ep_policy_free(policy);
	ep_store_info_clear(&info);
	ep_store_policies_clear(&pol);
	free(where);
	free(mtext);
	return rc;
}
