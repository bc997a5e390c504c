/*
 * capture.c: run the collectors in order, hash the files they queued in
 * one parallel pass through the cache, and fill in meta.
 */
#include "capture.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "policy.h"
#include "hash.h"
#include "hostlist.h"
#include "version.h"
#include "cachedir.h"
#include "clock.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"
#include "hostname.h"

void
ep_capture_opts_clear(struct ep_capture_opts *o)
{
	ep_strv_clear(&o->site_dirs);
	ep_strv_clear(&o->lockfiles);
	ep_strv_clear(&o->lock_groups);
	ep_strv_clear(&o->lib_paths);
	ep_strv_clear(&o->images);
	ep_strv_clear(&o->artifacts);
	ep_strv_clear(&o->servings);
	ep_extra_clear(&o->extra);
	ep_imgopt_clear(&o->img);
}

static int
hash_queued(struct ep_collect *c, struct ep_err *err)
{
	size_t n = c->hash_paths.n;
	struct ep_hash_job *jobs = xcalloc(n, sizeof *jobs);
	struct ep_hash_stats st = { 0 };
	json_t *h;
	int rc;

	for (size_t i = 0; i < n; i++)
		jobs[i].path = c->hash_paths.v[i];
	rc = ep_hash_files(jobs, n, c->cache, 0, &st, err);
	if (rc == 0) {
		for (size_t i = 0; i < n; i++) {
			if (c->hash_keys.v[i][0] == '\0')
				continue;	/* an artifact's part */
			if (jobs[i].error != NULL)
				ep_manifest_warn(c->m, "%s", jobs[i].error);
			else
				ep_manifest_set(c->m, c->hash_keys.v[i],
				    jobs[i].hex);
		}
		h = json_object();
		json_object_set_new(h, "files", json_integer((json_int_t)st.files));
		json_object_set_new(h, "cached",
		    json_integer((json_int_t)st.cached));
		json_object_set_new(h, "bytes_hashed",
		    json_integer((json_int_t)st.bytes));
		json_object_set_new(c->m->meta, "hashing", h);
		rc = ep_collect_artifacts_finish(c, jobs, err);
	}
	ep_hash_jobs_clear(jobs, n);
	free(jobs);
	return rc;
}

int
ep_capture_node(char **out, const char *node, struct ep_err *err)
{
	char host[256] = "";
	const char *slurm;

	*out = NULL;
	if (node != NULL) {
		if (!ep_hostlist_name_ok(node))
			return ep_err_set(err, EP_E_INPUT, "--node: '%.255s' is "
			    "not a node name (letters, digits, '.', '_' and "
			    "'-', at most 255 bytes, not '.' or '..')", node);
		*out = xstrdup(node);
		return 0;
	}
	/* Slurm's name for the node: host names can repeat across a
	 * cluster (and do when several slurmd share a host). */
	slurm = getenv("SLURMD_NODENAME");
	if (slurm != NULL && ep_hostlist_name_ok(slurm)) {
		*out = xstrdup(slurm);
		return 0;
	}
	if (ep_hostname(host, sizeof host) < 0 || !ep_hostlist_name_ok(host))
		strcpy(host, EP_HOSTNAME_UNKNOWN);
	*out = xstrdup(host);
	return 0;
}

void
ep_capture_meta(struct ep_manifest *m, const char *node)
{
	char host[256] = "", when[32], *name = NULL;
	time_t now = time(NULL);
	struct tm tm;

	ep_hostname(host, sizeof host);
	ep_manifest_meta_set(m, "host", host);
	if (ep_capture_node(&name, node, NULL) == 0) {
		ep_manifest_meta_set(m, "node", name);
		free(name);
	}
	gmtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	ep_manifest_meta_set(m, "captured_at", when);
	ep_manifest_meta_set(m, "tool", "envparity " EP_VERSION);
}

/* meta.confinement: how the helpers that ran code of this machine were
 * confined (child.h), said even when weaker than it could be. */
static void
confinement_meta(struct ep_manifest *m)
{
	static const struct {
		enum ep_child_kind kind;
		const char *key;
	} kinds[] = {
		{ EP_CHILD_PYTHON, "python" },
		{ EP_CHILD_LOADER, "libraries" },
	};
	json_t *o = json_object_get(m->meta, "confinement");
	const char *said;

	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		if ((said = ep_child_confinement(kinds[i].kind)) == NULL)
			continue;
		if (o == NULL) {
			o = json_object();
			json_object_set_new(m->meta, "confinement", o);
		}
		json_object_set_new(o, kinds[i].key, json_string(said));
	}
}

/* What the policy adds to the capture (its "capture"), when its store
 * was named; the implicit store in the current directory, which the
 * checkout can write, names no file to read: said, not used. */
static void
policy_capture(struct ep_collect *c, const struct ep_capture_opts *o)
{
	const struct ep_extra *x;

	if (o->policy == NULL)
		return;
	x = ep_policy_capture(o->policy);
	if (o->policy_capture)
		ep_extra_merge(&c->extra, x);
	else if (x->env.n + x->sha256.n + x->line.n > 0)
		ep_manifest_warn(c->m, "the policy's capture additions are not "
		    "used: the implicit store (.envparity/store in the current "
		    "directory, which the checkout can write) adds nothing to "
		    "a capture; name the store (--store, ENVPARITY_STORE) or "
		    "give --env, --file-sha256, --file-line");
}

int
ep_capture(struct ep_manifest **out, const struct ep_capture_opts *o,
    struct ep_err *err)
{
	static int (*const collectors[])(struct ep_collect *,
	    struct ep_err *) = {
		ep_collect_image,	/* first: a registry that fails
					   fails the capture early */
		ep_collect_artifacts,	/* a missing one too */
		ep_collect_fingerprints, /* or its fingerprint.pb */
		ep_collect_serving,	/* and a malformed configuration */
		ep_collect_os,
		ep_collect_node,
		ep_collect_env,
		ep_collect_files,
		ep_collect_conda,
		ep_collect_python,	/* before cudastack: site dirs */
		ep_collect_framework,	/* after python: its dirs, pkgs */
		ep_collect_lockfiles,
		ep_collect_cudastack,
	};
	struct ep_collect c = { 0 };
	struct ep_err cerr = { 0 };
	char *dir = NULL, *path = NULL, *why = NULL, *node = NULL;
	const char *where = "off";	/* meta.hashing.cache */
	uint64_t t0 = ep_now_ns();
	int rc = -1;

	*out = NULL;
	if (ep_capture_node(&node, o->node, err) < 0 ||
	    ep_extra_check(&o->extra, "the command line", err) < 0)
		return -1;
	free(node);
	c.opts = o;
	ep_extra_merge(&c.extra, &o->extra);
	c.m = ep_manifest_new();
	ep_capture_meta(c.m, o->node);
	policy_capture(&c, o);
	if (!o->no_cache) {
		if ((dir = ep_cache_dir_trusted(&why)) != NULL) {
			path = xasprintf("%s/cache-v1", dir);
			c.cache = ep_cache_open(path);
			where = "kept";
		} else if (why != NULL)
			ep_manifest_warn(c.m, "cache not used: %s (everything "
			    "is hashed again)", why);
		else {
			/* In CI with none named: this run's own, in memory,
			 * which nothing another job wrote can answer. */
			c.cache = ep_cache_open(NULL);
			where = "run";
		}
	}

	for (size_t i = 0; i < sizeof collectors / sizeof collectors[0]; i++)
		if (collectors[i](&c, err) < 0)
			goto done;
	if (hash_queued(&c, err) < 0)
		goto done;
	json_object_set_new(json_object_get(c.m->meta, "hashing"), "cache",
	    json_string(where));

	if (c.cache != NULL) {
		if (ep_cache_save(c.cache, &cerr) < 0)
			ep_manifest_warn(c.m, "cache not saved: %s", cerr.msg);
	}
	confinement_meta(c.m);
	json_object_set_new(c.m->meta, "duration_ms",
	    json_integer((json_int_t)((ep_now_ns() - t0) / 1000000)));
	*out = c.m;
	c.m = NULL;
	rc = 0;
done:
	ep_manifest_free(c.m);
	ep_cache_free(c.cache);
	ep_strv_clear(&c.site_dirs);
	ep_strv_clear(&c.hash_keys);
	ep_strv_clear(&c.hash_paths);
	ep_collect_artifacts_clear(&c);
	ep_extra_clear(&c.extra);
	free(dir);
	free(path);
	free(why);
	return rc;
}
