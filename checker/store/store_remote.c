/*
 * store_remote.c: a remote store through a cache clone.  The clone is a
 * bare repository under $XDG_CACHE_HOME/envparity/stores/, named by the
 * SHA-256 of the URL without credentials, holding only the branch in use.
 * Opening it costs one connection: the ref advertisement says whether the
 * branch moved, and only then are objects downloaded.  Pushing sends one
 * commit with the remote's current value as the expected old one, so the
 * server refuses it if anyone pushed in between.
 *
 * Credentials come from the URL, ENVPARITY_GIT_TOKEN (https),
 * ENVPARITY_SSH_KEY or the ssh agent (store_cred.c: each only to the
 * store's own host and port); they are never written to disk and are
 * scrubbed from every message (ep_store_scrub).
 *
 * The cache is the user's alone (0700), and its own config is never
 * read: the clone is opened with the user's and the system's git config
 * only, so whoever could write <clone>/config cannot send the fetch
 * elsewhere (url.*.insteadOf, http.proxy, ...).
 */
#include "store_int.h"

#include <git2/sys/repository.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "cachedir.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "xalloc.h"

static int
push_status_cb(const char *ref, const char *status, void *payload)
{
	struct ep_store_cbctx *c = payload;

	(void)ref;
	if (status != NULL && c->rejected == NULL)
		c->rejected = xstrdup(status);
	return 0;
}

static void
callbacks_init(git_remote_callbacks *cb, struct ep_store_cbctx *c)
{
	git_remote_init_callbacks(cb, GIT_REMOTE_CALLBACKS_VERSION);
	cb->credentials = ep_store_cred_cb;
	cb->push_update_reference = push_status_cb;
	cb->payload = c;
	c->s->cred_tried = 0;
}

int
ep_store_lock(struct ep_store *s, struct ep_err *err)
{
	char *path;

	if (s->lockfd >= 0)
		return 0;
	path = xasprintf("%s.lock", s->path);
	s->lockfd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (s->lockfd < 0) {
		ep_err_set(err, EP_E_IO, "%s: cannot lock: %s", path,
		    strerror(errno));
		free(path);
		return -1;
	}
	while (flock(s->lockfd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		ep_err_set(err, EP_E_IO, "%s: cannot lock: %s", path,
		    strerror(errno));
		close(s->lockfd);
		s->lockfd = -1;
		free(path);
		return -1;
	}
	free(path);
	return 0;
}

void
ep_store_unlock(struct ep_store *s)
{
	if (s->lockfd >= 0) {
		close(s->lockfd);	/* releases the flock */
		s->lockfd = -1;
	}
}

/* The URL after git config's url.<base>.insteadOf (and, for a push,
 * pushInsteadOf, which wins): the longest matching prefix is replaced by
 * its base, as git does.  Done here because libgit2 1.5's own rewriting
 * leaks on every remote it creates.  A rewritten URL may carry a token:
 * its credentials join the secrets.  A new string. */
static char *
rewrite_url(struct ep_store *s, int push)
{
	git_config *cfg = NULL;
	git_config_iterator *it = NULL;
	git_config_entry *e;
	char *base[2] = { NULL, NULL }, *out, *shown;
	size_t best[2] = { 0, 0 };

	if (git_repository_config_snapshot(&cfg, s->repo) < 0 ||
	    git_config_iterator_new(&it, cfg) < 0) {
		git_error_clear();
		goto done;
	}
	while (git_config_next(&e, it) == 0) {
		const char *n = e->name, *suffix;
		size_t vlen;
		int k;

		if (!ep_startswith(n, "url.") || e->value == NULL)
			continue;
		if (ep_endswith(n, ".pushinsteadof")) {
			k = 1;
			suffix = ".pushinsteadof";
		} else if (ep_endswith(n, ".insteadof")) {
			k = 0;
			suffix = ".insteadof";
		} else
			continue;
		vlen = strlen(e->value);
		if ((k == 1 && !push) || vlen == 0 || vlen <= best[k] ||
		    strncmp(s->url, e->value, vlen) != 0)
			continue;
		free(base[k]);
		base[k] = xasprintf("%.*s%s", (int)(strlen(n) - 4 -
		    strlen(suffix)), n + 4, s->url + vlen);
		best[k] = vlen;
	}
	git_error_clear();
done:
	git_config_iterator_free(it);
	git_config_free(cfg);
	out = base[1] != NULL ? base[1] : base[0];
	free(out == base[1] ? base[0] : base[1]);
	if (out == NULL)
		return xstrdup(s->url);
	shown = ep_store_redact_into(out, &s->secrets);
	free(shown);
	return out;
}

/* Connect r for direction, or fail naming the store.  c->url gets the
 * URL connected to (freed by the caller). */
static int
connect_remote(git_remote **r, struct ep_store *s, git_direction dir,
    const git_remote_callbacks *cb, struct ep_store_cbctx *c,
    struct ep_err *err)
{
	git_remote_create_options co;
	git_proxy_options po;
	int e;

	git_remote_create_options_init(&co, GIT_REMOTE_CREATE_OPTIONS_VERSION);
	co.repository = s->repo;
	co.flags = GIT_REMOTE_CREATE_SKIP_INSTEADOF |
	    GIT_REMOTE_CREATE_SKIP_DEFAULT_FETCHSPEC;
	c->url = rewrite_url(s, dir == GIT_DIRECTION_PUSH);
	e = git_remote_create_with_opts(r, c->url, &co);
	if (e < 0)
		return ep_store_git_err(err, EP_E_INPUT, s, "bad URL");
	git_proxy_options_init(&po, GIT_PROXY_OPTIONS_VERSION);
	/* http.proxy from git config or the *_proxy variables, as git. */
	po.type = GIT_PROXY_AUTO;
	if (git_remote_connect(*r, dir, cb, &po, NULL) < 0)
		return ep_store_git_err(err, EP_E_IO, s, dir ==
		    GIT_DIRECTION_FETCH ? "cannot fetch" : "cannot push");
	return 0;
}

/* The remote's value of s->refname from the advertisement: 0 and *id, or
 * 1 when the remote has no such branch. */
static int
remote_value(git_oid *id, git_remote *r, struct ep_store *s,
    struct ep_err *err)
{
	const git_remote_head **heads;
	size_t n;

	if (git_remote_ls(&heads, &n, r) < 0)
		return ep_store_git_err(err, EP_E_IO, s, "cannot list refs");
	for (size_t i = 0; i < n; i++)
		if (strcmp(heads[i]->name, s->refname) == 0) {
			git_oid_cpy(id, &heads[i]->oid);
			return 0;
		}
	return 1;
}

static int
have_object(git_repository *repo, const git_oid *id)
{
	git_odb *odb = NULL;
	int yes;

	if (git_repository_odb(&odb, repo) < 0)
		return 0;
	yes = git_odb_exists(odb, id);
	git_odb_free(odb);
	return yes;
}

/* The remote's branches as it advertises them, into s->heads (replaced),
 * for the message of a --ref that names none of them. */
static void
remote_heads(struct ep_store *s, git_remote *r)
{
	const git_remote_head **heads;
	size_t n;

	ep_strv_clear(&s->heads);
	if (git_remote_ls(&heads, &n, r) == 0) {
		for (size_t i = 0; i < n; i++)
			if (ep_startswith(heads[i]->name, "refs/heads/"))
				ep_strv_push(&s->heads, heads[i]->name +
				    strlen("refs/heads/"));
	}
	git_error_clear();
}

/* Whether the remote advertises refs/tags/name. */
static int
remote_has_tag(git_remote *r, const char *name)
{
	const git_remote_head **heads;
	char *want = xasprintf("refs/tags/%s", name);
	size_t n;
	int yes = 0;

	if (git_remote_ls(&heads, &n, r) == 0)
		for (size_t i = 0; i < n && !yes; i++)
			yes = strcmp(heads[i]->name, want) == 0;
	git_error_clear();
	free(want);
	return yes;
}

/* Download what specs name from r into the cache: no tags, no FETCH_HEAD,
 * the system's proxy. */
static int
download(struct ep_store *s, git_remote *r, const git_remote_callbacks *cb,
    const git_strarray *specs, struct ep_err *err)
{
	git_fetch_options fo;

	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.callbacks = *cb;
	fo.proxy_opts.type = GIT_PROXY_AUTO;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	fo.update_fetchhead = 0;
	if (git_remote_download(r, specs, &fo) < 0)
		return ep_store_git_err(err, EP_E_IO, s, "cannot fetch");
	return 0;
}

/* The branch the remote's HEAD names, or main where it names none. */
static int
resolve_branch(struct ep_store *s, git_remote *r, struct ep_err *err)
{
	git_buf def = { 0 };
	int e;

	if (git_remote_default_branch(&def, r) == 0 &&
	    ep_startswith(def.ptr, "refs/heads/"))
		e = ep_store_set_branch(s, def.ptr, err);
	else {
		git_error_clear();
		e = ep_store_set_branch(s, "main", err);
	}
	git_buf_dispose(&def);
	return e;
}

/* want into the cache under s->refname's name, unless it is there. */
static int
download_ref(struct ep_store *s, git_remote *r, const git_remote_callbacks *cb,
    const git_oid *want, struct ep_err *err)
{
	char *spec;
	git_strarray specs;
	int rc;

	if (have_object(s->repo, want))
		return 0;
	spec = xasprintf("+%s:%s", s->refname, s->refname);
	specs.strings = &spec;
	specs.count = 1;
	rc = download(s, r, cb, &specs, err);
	free(spec);
	if (rc == 0 && !have_object(s->repo, want))
		rc = ep_err_set(err, EP_E_IO, "store %s: cannot fetch: the "
		    "remote did not send %s", s->display, s->refname);
	return rc;
}

/* A pinned commit: fetched with every branch and tag when the cache does
 * not have it (servers need not serve a commit by id), then looked for. */
static int
fetch_commit(struct ep_store *s, git_remote *r, git_remote_callbacks *cb,
    struct ep_err *err)
{
	char *all[] = { "+refs/heads/*:refs/envparity/all/heads/*",
	    "+refs/tags/*:refs/envparity/all/tags/*" };
	git_strarray specs = { all, 2 };

	if (have_object(s->repo, &s->pin))
		return 0;
	if (download(s, r, cb, &specs, err) < 0)
		return -1;
	if (!have_object(s->repo, &s->pin))
		return ep_err_set(err, EP_E_INPUT, "store %s: --ref %s: no such "
		    "commit in the store (no branch or tag holds it)",
		    s->display, s->branch);
	return 0;
}

/* Fetch s->branch (resolving it from the remote's HEAD first when
 * resolve is set) into the cache and point the cache's ref at it. */
static int
fetch(struct ep_store *s, int resolve, struct ep_err *err)
{
	git_remote_callbacks cb;
	struct ep_store_cbctx c = { s, NULL, NULL };
	git_remote *r = NULL;
	git_oid want, seen;
	int e, had, rc = -1;

	callbacks_init(&cb, &c);
	if (connect_remote(&r, s, GIT_DIRECTION_FETCH, &cb, &c, err) < 0)
		goto done;
	if (resolve && resolve_branch(s, r, err) < 0)
		goto done;
	if (s->pinned == EP_PIN_COMMIT) {
		rc = fetch_commit(s, r, &cb, err);
		goto done;
	}
	remote_heads(s, r);
	/* A name that is no branch of the remote but a tag: the tag. */
	if (s->pinned == EP_PIN_BRANCH && (e = remote_value(&want, r, s,
	    err)) == 1 && remote_has_tag(r, s->branch)) {
		free(s->refname);
		s->refname = xasprintf("refs/tags/%s", s->branch);
		s->pinned = EP_PIN_TAG;
	}
	/* What the cache saw last, to tell a rewritten branch. */
	if ((had = s->pinned != EP_PIN_BRANCH ? 1 : ep_store_tip(&seen,
	    s->repo, s->refname, s, err)) < 0 ||
	    (e = remote_value(&want, r, s, err)) < 0)
		goto done;
	had = had == 0 && s->pinned == EP_PIN_BRANCH;
	if (e == 1 && s->pinned == EP_PIN_TAG) {
		ep_err_set(err, EP_E_INPUT, "store %s: --ref %s: no such tag",
		    s->display, s->branch);
		goto done;
	}
	if (e == 1) {
		/* Gone (or never there): so is our copy. */
		if (had && ep_store_history_note(s, &seen, NULL, err) < 0)
			goto done;
		(void)git_reference_remove(s->repo, s->refname);
		git_error_clear();
		rc = 0;
		goto done;
	}
	if (download_ref(s, r, &cb, &want, err) < 0)
		goto done;
	if (had && ep_store_history_note(s, &seen, &want, err) < 0)
		goto done;
	if (git_reference_create(NULL, s->repo, s->refname, &want, 1,
	    "envparity: fetch") < 0) {
		ep_store_git_err(err, EP_E_IO, s, "cannot update the cache");
		goto done;
	}
	rc = 0;
done:
	if (r != NULL)
		git_remote_disconnect(r);
	git_remote_free(r);
	free(c.url);
	return rc;
}

int
ep_store_remote_sync(struct ep_store *s, struct ep_err *err)
{
	return fetch(s, 0, err);
}

/* path as a directory of the user's alone: made 0700, or made so. */
static int
private_dir(const char *path, struct ep_store *s, struct ep_err *err)
{
	struct stat st;

	if (mkdir(path, 0700) < 0 && errno != EEXIST)
		return ep_err_set(err, EP_E_IO, "%s: cannot create: %s", path,
		    strerror(errno));
	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid())
		return ep_err_set(err, EP_E_IO, "store %s: the cache %s is not "
		    "a directory of this user's", s->display, path);
	if ((st.st_mode & 077) != 0 && chmod(path, 0700) < 0)
		return ep_err_set(err, EP_E_IO, "%s: cannot make private: %s",
		    path, strerror(errno));
	return 0;
}

/* Read the clone with the user's and the system's git config, never its
 * own. */
static int
isolate_config(struct ep_store *s, struct ep_err *err)
{
	git_config *cfg = NULL;
	int rc = 0;

	if (git_config_open_default(&cfg) < 0 ||
	    git_repository_set_config(s->repo, cfg) < 0)
		rc = ep_store_git_err(err, EP_E_IO, s, "cannot read git "
		    "config");
	git_config_free(cfg);
	return rc;
}

int
ep_store_remote_open(struct ep_store *s, const char *ref,
    struct ep_err *err)
{
	char hex[EP_SHA256_HEX], *dir, *stores = NULL;
	struct stat st;
	int created = 0, rc = -1;

	if ((dir = ep_cache_dir()) == NULL)
		return ep_err_set(err, EP_E_IO, "store %s: no cache "
		    "directory (set XDG_CACHE_HOME or HOME)", s->display);
	if ((ref != NULL && ep_store_set_ref(s, ref, err) < 0) ||
	    ep_store_tls_init(s, err) < 0)
		goto done;
	ep_hash_buf(hex, s->display, strlen(s->display));
	stores = xasprintf("%s/stores", dir);
	if (ep_mkdirs(dir, err) < 0 || private_dir(stores, s, err) < 0)
		goto done;
	s->path = xasprintf("%s/%s", stores, hex);
	if (ep_store_lock(s, err) < 0)
		goto done;
	if (stat(s->path, &st) < 0) {
		if (ep_store_init_bare(s->path, "main", s, err) < 0)
			goto done;
		created = 1;
	}
	if (private_dir(s->path, s, err) < 0)
		goto done;
	if (git_repository_open_ext(&s->repo, s->path,
	    GIT_REPOSITORY_OPEN_NO_SEARCH | GIT_REPOSITORY_OPEN_BARE,
	    NULL) < 0) {
		ep_store_git_err(err, EP_E_IO, s, "cannot open the cache");
		goto done;
	}
	if (isolate_config(s, err) < 0)
		goto done;
	rc = fetch(s, ref == NULL, err);
	if (rc < 0 && created) {
		/* A store never reached leaves no empty clone behind. */
		git_repository_free(s->repo);
		s->repo = NULL;
		ep_store_rm_rf(s->path);
	}
done:
	ep_store_unlock(s);
	free(stores);
	free(dir);
	return rc;
}

/* Is the server's reason for refusing a push one that a retry after a
 * fetch can cure (someone else moved or held the ref)? */
static int
rejection_is_race(const char *why)
{
	static const char *const race[] = { "fetch first", "non-fast-forward",
	    "lock", "stale", "failed to update ref", NULL };

	for (size_t i = 0; race[i] != NULL; i++)
		if (strstr(why, race[i]) != NULL)
			return 1;
	return 0;
}

int
ep_store_remote_push(struct ep_store *s, const git_oid *commit,
    const git_oid *old, struct ep_err *err)
{
	git_remote_callbacks cb;
	git_push_options po;
	struct ep_store_cbctx c = { s, NULL, NULL };
	git_remote *r = NULL;
	git_oid now;
	git_strarray specs;
	char *tmpref, *spec;
	int e, rc = -1;

	tmpref = xasprintf("refs/envparity/bless-%ld", (long)getpid());
	spec = xasprintf("%s:%s", tmpref, s->refname);
	git_push_options_init(&po, GIT_PUSH_OPTIONS_VERSION);
	callbacks_init(&cb, &c);
	if (connect_remote(&r, s, GIT_DIRECTION_PUSH, &cb, &c, err) < 0)
		goto done;
	if ((e = remote_value(&now, r, s, err)) < 0)
		goto done;
	/* The remote moved since we last fetched: a race, decided by the
	 * caller after a fetch. */
	if ((e == 1) != git_oid_is_zero(old) ||
	    (e == 0 && !git_oid_equal(&now, old))) {
		rc = 1;
		goto done;
	}
	/* libgit2 pushes from a ref: a private one, removed afterwards. */
	if (git_reference_create(NULL, s->repo, tmpref, commit, 1,
	    NULL) < 0) {
		ep_store_git_err(err, EP_E_IO, s, "cannot push");
		goto done;
	}
	specs.strings = &spec;
	specs.count = 1;
	po.callbacks = cb;
	po.proxy_opts.type = GIT_PROXY_AUTO;
	e = git_remote_upload(r, &specs, &po);
	if (e == GIT_ENONFASTFORWARD) {
		git_error_clear();
		rc = 1;
	} else if (e < 0)
		ep_store_git_err(err, EP_E_IO, s, "cannot push");
	else if (c.rejected != NULL && rejection_is_race(c.rejected))
		rc = 1;
	else if (c.rejected != NULL) {
		ep_err_set(err, EP_E_IO, "store %s: the remote refused the "
		    "push to %s: %s", s->display, s->branch, c.rejected);
		ep_store_scrub(s, err);
	} else
		rc = 0;
	git_reference_remove(s->repo, tmpref);
	git_error_clear();
done:
	if (r != NULL)
		git_remote_disconnect(r);
	git_remote_free(r);
	free(c.rejected);
	free(c.url);
	free(tmpref);
	free(spec);
	return rc;
}
