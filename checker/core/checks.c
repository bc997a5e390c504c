/*
 * checks.c: the checks that need no golden manifest (ep_checks_run in
 * compare.h), read from the current manifest's facts alone.  Each check
 * gives results keyed "stack.<check>": pass (so reports show what was
 * checked), fail, or skip with the reason it could not apply.  A policy
 * rule "ignore" on a check's key turns it off; waivers apply as to any
 * other result.
 *
 * Each fails only where the stack would break or silently compute
 * otherwise, and warns where NVIDIA supports what it sees (README, "Checks
 * that need no golden", gives each its source):
 *
 *   stack.driver_min        fail: the CUDA runtime's major version needs
 *                           at least NVIDIA's minimum driver (below); an
 *                           older one does not initialize CUDA at all.
 *   stack.cuda_driver       fail: the runtime is of a newer major release
 *                           than the driver supports; warn: a newer minor
 *                           of the same major, which runs under CUDA's
 *                           minor-version compatibility (without PTX JIT
 *                           of code newer than the driver).
 *   stack.cudart.<lib>      fail: a library was built for another major
 *                           release than the runtime it runs with.
 *   stack.cudart_minor.<lib>  warn: built for a newer minor of the same
 *                           major (cuDNN 9.19's wheels for 13.1 on runtime
 *                           13.0, as PyTorch's cu130 wheels ship it), a mix
 *                           NVIDIA's cuDNN support matrix lists as
 *                           supported (cuDNN for CUDA 13.x: 13.0 and 13.1).
 *   stack.cudnn_sublibs     fail: cuDNN's sub-libraries are of mixed
 *                           versions (cuDNN refuses to run them:
 *                           CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH).
 *   stack.determinism.tf_autotune, stack.determinism.cublas_workspace:
 *                           fail: determinism was asked for, and another
 *                           setting silently defeats it.
 *   stack.requires.<dist>   fail: what `pip check` finds, as the capture
 *                           judged it (requires.h, meta.python.requires):
 *                           a requirement of an installed distribution
 *                           (Requires-Dist, its marker true here) whose
 *                           distribution is not installed, or is at a
 *                           version outside its specifiers, or that pip
 *                           cannot read; warn: one not met whose marker
 *                           needs a value the capture did not know.  One
 *                           result per distribution with findings and,
 *                           when there are none, one pass
 *                           "stack.requires" for them all: a thousand
 *                           passes would say nothing.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compare.h"
#include "vercmp.h"

/* NVIDIA's minimum Linux driver for each CUDA major release under
 * minor-version compatibility (shared/research/gpu-stack.md, "Minimum
 * drivers": the CUDA compatibility page).  13.0 GA is cited as needing
 * 580.65.06, which NVIDIA's own page does not confirm: 580 it is. */
static const struct {
	unsigned long major;
	const char *driver;
} driver_min[] = {
	{ 13, "580" },
	{ 12, "525.60.13" },
	{ 11, "450.80.02" },
};

/* The values of CUBLAS_WORKSPACE_CONFIG that cuBLAS documents as giving
 * deterministic results with several streams (cuBLAS guide, "Results
 * reproducibility": ":16:8" or ":4096:8"; gpu-stack.md). */
static const char *const cublas_workspace_ok[] = { ":4096:8", ":16:8",
    NULL };

struct checks {
	struct ep_results *out;
	const struct ep_manifest *m;
	const struct ep_policy *policy;
};

static void
add(struct checks *k, const char *key, int status, const char *rule,
    const char *expected, const char *actual, char *message)
{
	struct ep_result r = { 0 };

	/* ep_results_add copies; nothing is written through the casts. */
	if (ep_policy_match(k->policy, key)->kind != EP_RULE_IGNORE) {
		r.key = (char *)key;
		r.area = (char *)"stack";
		r.status = status;
		r.expected = (char *)expected;
		r.actual = (char *)actual;
		r.rule = (char *)rule;
		r.message = message;
		ep_results_add(k->out, &r);
	}
	free(message);
}

static const char *
get(struct checks *k, const char *key)
{
	return ep_manifest_get(k->m, key);
}

static const char *
unavailable(struct checks *k, const char *area)
{
	json_t *u = json_object_get(k->m->meta, "unavailable");

	return json_string_value(json_object_get(u, area));
}

/* Why there is no fact key: the area's unavailable reason if any. */
static char *
no_fact(struct checks *k, const char *key, const char *area)
{
	const char *why = unavailable(k, area);

	return why != NULL ? xasprintf("not checked here: %s", why) :
	    xasprintf("no %s in this capture", key);
}

static void
check_driver_min(struct checks *k, const char *rt, unsigned long rt_major)
{
	static const char *key = "stack.driver_min", *rule =
	    "check:driver-min";
	const char *drv = get(k, "gpu.driver.version");
	char *need = NULL, *why;

	for (size_t i = 0; i < sizeof driver_min / sizeof driver_min[0]; i++)
		if (driver_min[i].major == rt_major)
			need = xasprintf(">=%s", driver_min[i].driver);
	if (drv == NULL) {
		why = no_fact(k, "gpu.driver.version", "gpu");
		add(k, key, EP_SKIP, rule, need, NULL, xasprintf("%s: %s", key,
		    why));
		free(why);
	} else if (!ep_version_valid(drv))
		add(k, key, EP_ERROR, rule, need, drv, xasprintf("%s: "
		    "gpu.driver.version \"%s\" is not a version", key, drv));
	else if (need == NULL)
		add(k, key, EP_SKIP, rule, NULL, drv, xasprintf("%s: no "
		    "minimum driver known for CUDA %lu.x (runtime %s)", key,
		    rt_major, rt));
	else if (ep_vercmp(drv, need + 2) >= 0)
		add(k, key, EP_PASS, rule, need, drv, xasprintf("%s: driver "
		    "%s meets CUDA %s's minimum %s", key, drv, rt, need + 2));
	else
		add(k, key, EP_FAIL, rule, need, drv, xasprintf("%s: driver "
		    "%s is older than %s, the minimum for CUDA %lu.x "
		    "(runtime %s)", key, drv, need + 2, rt_major, rt));
	free(need);
}

static void
check_cuda_driver(struct checks *k, const char *rt, const unsigned long *r,
    size_t nr)
{
	static const char *key = "stack.cuda_driver", *rule =
	    "check:cuda-driver";
	const char *cd = get(k, "gpu.cuda_driver.version");
	unsigned long d[2] = { 0, 0 };
	char *why;

	if (cd == NULL) {
		why = no_fact(k, "gpu.cuda_driver.version", "gpu");
		add(k, key, EP_SKIP, rule, NULL, rt, xasprintf("%s: %s", key,
		    why));
		free(why);
		return;
	}
	if (ep_version_release(d, 2, cd) == 0) {
		add(k, key, EP_ERROR, rule, cd, rt, xasprintf("%s: the driver's "
		    "CUDA version \"%s\" is not a version", key, cd));
		return;
	}
	if (r[0] > d[0])
		add(k, key, EP_FAIL, rule, cd, rt, xasprintf("%s: CUDA runtime "
		    "%s is a newer major release than the driver supports "
		    "(CUDA %s)", key, rt, cd));
	else if (r[0] == d[0] && nr > 1 && r[1] > d[1])
		add(k, key, EP_WARN, rule, cd, rt, xasprintf("%s: CUDA runtime "
		    "%s is a newer minor release than the driver's CUDA %s: "
		    "it runs under CUDA's minor-version compatibility, but "
		    "cannot JIT-compile PTX newer than the driver", key, rt,
		    cd));
	else
		add(k, key, EP_PASS, rule, cd, rt, xasprintf("%s: CUDA runtime "
		    "%s within the driver's CUDA %s", key, rt, cd));
}

/* One library's cudart (built) against the runtime rt (r: its major and
 * minor), or a skip saying no_rt when the runtime is unusable. */
static void
lib_cudart(struct checks *k, const char *lib, const char *built,
    const char *rt, const unsigned long *r, const char *no_rt)
{
	static const char *rule = "check:cudart";
	unsigned long b[2] = { 0, 0 };
	char *key = xasprintf("stack.cudart.%s", lib);
	size_t nb = ep_version_release(b, 2, built);

	if (no_rt != NULL)
		add(k, key, EP_SKIP, rule, built, rt, xasprintf("%s: %s", key,
		    no_rt));
	else if (nb == 0)
		add(k, key, EP_FAIL, rule, built, rt, xasprintf("%s: %s "
		    "reports cudart \"%s\", not a version", key, lib, built));
	else if (b[0] != r[0])
		add(k, key, EP_FAIL, rule, built, rt, xasprintf("%s: %s was "
		    "built for CUDA %s, a different major release than the "
		    "runtime %s", key, lib, built, rt));
	else if (nb > 1 && b[1] > r[1]) {
		free(key);
		key = xasprintf("stack.cudart_minor.%s", lib);
		add(k, key, EP_WARN, rule, built, rt, xasprintf("%s: %s was "
		    "built for CUDA %s, a newer minor release than the runtime "
		    "%s it runs with: supported within CUDA %lu.x (NVIDIA's "
		    "cuDNN support matrix lists such builds for every %lu.x "
		    "toolkit), but not the pair NVIDIA tuned it for", key, lib,
		    built, rt, r[0], r[0]));
	} else
		add(k, key, EP_PASS, rule, built, rt, xasprintf("%s: %s built "
		    "for CUDA %s runs on runtime %s", key, lib, built, rt));
	free(key);
}

/* Every lib.<x>.cudart but cudart's own. */
static void
check_lib_cudart(struct checks *k, const char *rt, const unsigned long *r,
    const char *no_rt)
{
	const char *fk;
	json_t *fv;

	json_object_foreach(k->m->facts, fk, fv) {
		size_t len = strlen(fk);
		char *lib;

		if (!ep_startswith(fk, "lib.") || !ep_endswith(fk, ".cudart") ||
		    len <= strlen("lib..cudart") || !json_is_string(fv))
			continue;
		lib = xstrndup(fk + 4, len - 4 - strlen(".cudart"));
		if (strcmp(lib, "cudart") != 0)
			lib_cudart(k, lib, json_string_value(fv), rt, r,
			    no_rt);
		free(lib);
	}
}

static void
check_cudnn_sublibs(struct checks *k)
{
	static const char *key = "stack.cudnn_sublibs", *rule =
	    "check:cudnn-sublibs";
	const char *ref = get(k, "lib.cudnn.version"), *fk;
	struct ep_strv bad = { 0 }, err = { 0 };
	size_t n = 0, nchk = 0;
	json_t *fv;
	char *list;

	json_object_foreach(k->m->facts, fk, fv) {
		const char *v = json_string_value(fv), *dot;
		char *sub;

		if (!ep_startswith(fk, "lib.cudnn_") || v == NULL ||
		    (dot = strchr(fk + 4, '.')) == NULL)
			continue;
		sub = xstrndup(fk + 4, (size_t)(dot - fk - 4));
		if (strcmp(dot, ".version") == 0) {
			n++;
			if (ref == NULL)
				ref = v;	/* no libcudnn: the first */
			else if (strcmp(v, ref) != 0)
				ep_strv_push_owned(&bad, xasprintf("%s %s",
				    sub, v));
		} else if (strcmp(dot, ".version_check") == 0) {
			nchk++;
			if (strcmp(v, "mismatch") == 0)
				ep_strv_push_owned(&bad, xasprintf("%s's "
				    "version check says mismatch", sub));
			else if (strcmp(v, "ok") != 0)
				ep_strv_push_owned(&err, xasprintf("%s's "
				    "version check gave %s", sub, v));
		}
		free(sub);
	}
	if (bad.n > 0 || err.n > 0) {
		struct ep_strv *sv = bad.n > 0 ? &bad : &err;
		size_t len = 1;

		for (size_t i = 0; i < sv->n; i++)
			len += strlen(sv->v[i]) + 2;
		list = xcalloc(1, len);
		for (size_t i = 0; i < sv->n; i++) {
			if (i > 0)
				strcat(list, "; ");
			strcat(list, sv->v[i]);
		}
		/* A status other than ok or mismatch: the check itself
		 * could not answer, which no waiver should hide. */
		add(k, key, bad.n > 0 ? EP_FAIL : EP_ERROR, rule, ref, list,
		    xasprintf("%s: cuDNN sub-libraries disagree with cuDNN "
		    "%s: %s", key, ref ? ref : "?", list));
		free(list);
	} else if (ref == NULL && nchk == 0) {
		char *why = no_fact(k, "lib.cudnn.version", "lib");

		add(k, key, EP_SKIP, rule, NULL, NULL, xasprintf("%s: %s", key,
		    why));
		free(why);
	} else
		add(k, key, EP_PASS, rule, ref, ref, xasprintf("%s: cuDNN %s: "
		    "%zu sub-library version%s the same, %zu version check%s "
		    "ok", key, ref ? ref : "?", n, n == 1 ? "" : "s", nchk,
		    nchk == 1 ? "" : "s"));
	ep_strv_clear(&bad);
	ep_strv_clear(&err);
}

/* TensorFlow reads these as booleans: "1"/"true" and "0"/"false",
 * case-insensitively. */
static int
env_true(const char *v)
{
	return v != NULL && (strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0);
}

static void
check_determinism(struct checks *k)
{
	static const char *tf = "stack.determinism.tf_autotune",
	    *cb = "stack.determinism.cublas_workspace",
	    *rule = "check:determinism";
	const char *ops = get(k, "env.TF_DETERMINISTIC_OPS"),
	    *cudnn = get(k, "env.TF_CUDNN_DETERMINISTIC"),
	    *tune = get(k, "env.TF_USE_CUDNN_AUTOTUNE"),
	    *ws = get(k, "env.CUBLAS_WORKSPACE_CONFIG"), *which;
	int i;

	/* TF's determinism holds only with cuDNN autotuning off
	 * (gpu-stack.md, "Determinism"). */
	which = env_true(ops) ? "TF_DETERMINISTIC_OPS" :
	    env_true(cudnn) ? "TF_CUDNN_DETERMINISTIC" : NULL;
	if (which == NULL)
		add(k, tf, EP_SKIP, rule, NULL, tune, xasprintf("%s: "
		    "TensorFlow determinism not asked for "
		    "(TF_DETERMINISTIC_OPS and TF_CUDNN_DETERMINISTIC not set "
		    "to 1)", tf));
	else if (tune != NULL && strcmp(tune, "0") != 0 &&
	    strcasecmp(tune, "false") != 0)
		add(k, tf, EP_FAIL, rule, "unset", tune, xasprintf("%s: %s=1 "
		    "with TF_USE_CUDNN_AUTOTUNE=%s: autotuning picks cuDNN "
		    "algorithms per run and defeats determinism; unset it",
		    tf, which, tune));
	else
		add(k, tf, EP_PASS, rule, "unset", tune, xasprintf("%s: %s=1 "
		    "and cuDNN autotuning off", tf, which));

	if (ws == NULL) {
		add(k, cb, EP_SKIP, rule, NULL, NULL, xasprintf("%s: "
		    "CUBLAS_WORKSPACE_CONFIG not set (cuBLAS is deterministic "
		    "without it on a single stream)", cb));
		return;
	}
	for (i = 0; cublas_workspace_ok[i] != NULL; i++)
		if (strcmp(ws, cublas_workspace_ok[i]) == 0)
			break;
	if (cublas_workspace_ok[i] != NULL)
		add(k, cb, EP_PASS, rule, ":4096:8 or :16:8", ws, xasprintf(
		    "%s: CUBLAS_WORKSPACE_CONFIG=%s, as cuBLAS documents for "
		    "deterministic results", cb, ws));
	else
		add(k, cb, EP_FAIL, rule, ":4096:8 or :16:8", ws, xasprintf(
		    "%s: CUBLAS_WORKSPACE_CONFIG=%s is not one of the values "
		    "cuBLAS documents as deterministic (:4096:8, :16:8)", cb,
		    ws));
}

/* One distribution's findings as sentences, in pip check's order. */
struct unmet {
	struct ep_strv missing;	/* pip check's sentences, by kind: */
	struct ep_strv conflict;
	struct ep_strv invalid;	/* what pip cannot read (it fails too) */
	struct ep_strv warn;	/* unmet where the marker is unknown */
	struct ep_strv want;	/* what is unmet, without markers */
	struct ep_strv have;	/* what is installed of each */
};

static void
unmet_clear(struct unmet *u)
{
	ep_strv_clear(&u->missing);
	ep_strv_clear(&u->conflict);
	ep_strv_clear(&u->invalid);
	ep_strv_clear(&u->warn);
	ep_strv_clear(&u->want);
	ep_strv_clear(&u->have);
}

static void
push_once(struct ep_strv *sv, char *s)
{
	if (ep_strv_contains(sv, s))
		free(s);
	else
		ep_strv_push_owned(sv, s);
}

static char *
join(const struct ep_strv *sv, const char *sep)
{
	size_t len = 1;
	char *out;

	for (size_t i = 0; i < sv->n; i++)
		len += strlen(sv->v[i]) + strlen(sep);
	out = xcalloc(1, len);
	for (size_t i = 0; i < sv->n; i++) {
		if (i > 0)
			strcat(out, sep);
		strcat(out, sv->v[i]);
	}
	return out;
}

/* A version as pip prints it (str(Version)), or as written. */
static char *
pip_version(const char *v)
{
	char *n = ep_version_pep440_norm(v);

	return n != NULL ? n : xstrdup(v);
}

static const char *
field(json_t *f, const char *key)
{
	return json_string_value(json_object_get(f, key));
}

/* One finding of dist (at version ver, as pip prints it) into u; 0, or
 * -1 when it is not what a capture writes. */
static int
one_finding(struct unmet *u, const char *dist, const char *ver, json_t *f,
    const char *why_unknown)
{
	const char *kind = field(f, "kind"), *req = field(f, "requirement"),
	    *name = field(f, "name"), *inst = field(f, "installed"),
	    *error = field(f, "error"), *unknown = field(f, "unknown"),
	    *wants = field(f, "wants");
	char *sentence, *hv, *s;

	if (kind == NULL || req == NULL)
		return -1;
	if (strcmp(kind, "invalid") == 0 || strcmp(kind, "marker") == 0) {
		if (error == NULL)
			return -1;
		push_once(&u->invalid, kind[0] == 'i' ? xasprintf("%s %s has "
		    "an invalid requirement \"%s\": %s.", dist, ver, req,
		    error) : xasprintf("%s %s has requirement %s, whose marker "
		    "cannot be evaluated: %s.", dist, ver, req, error));
		return 0;
	}
	if (name == NULL || wants == NULL || (strcmp(kind, "missing") != 0 &&
	    (strcmp(kind, "conflict") != 0 || inst == NULL)))
		return -1;
	if (inst == NULL) {
		sentence = xasprintf("%s %s requires %s, which is not "
		    "installed.", dist, ver, name);
		push_once(&u->have, xasprintf("%s not installed", name));
	} else {
		hv = pip_version(inst);
		sentence = xasprintf("%s %s has requirement %s, but you have "
		    "%s %s.", dist, ver, req, name, hv);
		push_once(&u->have, xasprintf("%s %s", name, hv));
		free(hv);
	}
	push_once(&u->want, xstrdup(wants));
	if (unknown != NULL) {
		/* "requires y, which is not installed." and the like, where
		 * the marker may hold. */
		sentence[strlen(sentence) - 1] = '\0';
		s = xasprintf("%s, if its marker holds (%s: %s).", sentence,
		    unknown, why_unknown);
		free(sentence);
		push_once(&u->warn, s);
	} else
		push_once(inst == NULL ? &u->missing : &u->conflict, sentence);
	return 0;
}

static int
key_order(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One distribution's findings as its result, if any is one.  1 when a
 * result was given. */
static int
dist_result(struct checks *k, const char *dist, json_t *fs,
    const char *why_unknown)
{
	static const char *rule = "check:requires";
	struct unmet u = { 0 };
	char *key = xasprintf("python.pkg.%s", dist), *rkey, *ver, *msg,
	    *want, *have;
	const char *raw = get(k, key);
	size_t i, nfail;
	json_t *f;
	int bad = !json_is_array(fs);

	free(key);
	ver = raw != NULL ? pip_version(raw) : xstrdup("(not installed)");
	rkey = xasprintf("stack.requires.%s", dist);
	json_array_foreach(fs, i, f)
		bad |= one_finding(&u, dist, ver, f, why_unknown) < 0;
	if (bad) {
		/* A manifest not written by capture: the check cannot say
		 * what it holds, and no waiver should hide that. */
		add(k, rkey, EP_ERROR, rule, NULL, NULL, xasprintf("%s: "
		    "meta.python.requires.unmet.%s is not what a capture "
		    "writes", rkey, dist));
		goto done;
	}
	nfail = u.missing.n + u.conflict.n + u.invalid.n;
	if (nfail == 0 && u.warn.n == 0) {
		free(rkey);
		free(ver);
		unmet_clear(&u);
		return 0;
	}
	/* pip prints the missing, then the conflicts, each kind sorted;
	 * then what it could not read, and the unknowns. */
	ep_strv_sort(&u.missing);
	ep_strv_sort(&u.conflict);
	ep_strv_sort(&u.invalid);
	ep_strv_sort(&u.warn);
	for (i = 0; i < u.conflict.n; i++)
		ep_strv_push(&u.missing, u.conflict.v[i]);
	for (i = 0; i < u.invalid.n; i++)
		ep_strv_push(&u.missing, u.invalid.v[i]);
	for (i = 0; i < u.warn.n; i++)
		ep_strv_push(&u.missing, u.warn.v[i]);
	msg = join(&u.missing, " ");
	want = join(&u.want, "; ");
	have = join(&u.have, "; ");
	add(k, rkey, nfail > 0 ? EP_FAIL : EP_WARN, rule, *want ? want : NULL,
	    *have ? have : NULL, xasprintf("%s: %s", rkey, msg));
	free(msg);
	free(want);
	free(have);
done:
	free(rkey);
	free(ver);
	unmet_clear(&u);
	return 1;
}

/*
 * stack.requires.<dist>: pip check's findings, as the capture judged
 * them (requires.h) where every distribution was at hand, in pip's own
 * sentences.  One result per distribution with findings; one pass for
 * them all when there is none.
 */
static void
check_requires(struct checks *k)
{
	static const char *rule = "check:requires";
	json_t *py = json_object_get(k->m->meta, "python"), *req, *unmet, *fs;
	const char *from, *why, *dk;
	struct ep_strv dists = { 0 };
	size_t nres = 0;
	json_int_t ndist, nreq;
	char *why_unknown;

	req = json_object_get(py, "requires");
	unmet = json_object_get(req, "unmet");
	if (!json_is_object(unmet)) {
		why = unavailable(k, "python");
		add(k, "stack.requires", EP_SKIP, rule, NULL, NULL, why !=
		    NULL ? xasprintf("stack.requires: not checked here: %s",
		    why) : xstrdup("stack.requires: this capture records no "
		    "requirements (meta.python.requires): an envparity before "
		    "it read them, or no Python here"));
		return;
	}
	if ((from = json_string_value(json_object_get(py, "markers_from"))) ==
	    NULL)
		from = "nowhere";
	else if (strcmp(from, "interpreter") == 0)
		from = "the interpreter";
	why_unknown = xasprintf("the capture took the marker environment "
	    "from %s", from);
	json_object_foreach(unmet, dk, fs)
		ep_strv_push(&dists, dk);
	if (dists.n > 0)
		qsort(dists.v, dists.n, sizeof *dists.v, key_order);
	for (size_t i = 0; i < dists.n; i++)
		nres += (size_t)dist_result(k, dists.v[i],
		    json_object_get(unmet, dists.v[i]), why_unknown);
	ndist = json_integer_value(json_object_get(req, "distributions"));
	nreq = json_integer_value(json_object_get(req, "requirements"));
	if (nres == 0)
		add(k, "stack.requires", EP_PASS, rule, NULL, NULL, xasprintf(
		    "stack.requires: %lld distribution%s, %lld requirement%s "
		    "that apply here: every one met (pip check's rules; "
		    "markers from %s)", (long long)ndist, ndist == 1 ? "" : "s",
		    (long long)nreq, nreq == 1 ? "" : "s", from));
	free(why_unknown);
	ep_strv_clear(&dists);
}

void
ep_checks_run(struct ep_results *out, const struct ep_manifest *current,
    const struct ep_policy *policy, time_t now)
{
	struct checks k = { out, current, policy };
	const char *rt = get(&k, "lib.cudart.version");
	unsigned long r[2] = { 0, 0 };
	size_t from = out->n, nr = 0;
	char *no_rt = NULL;
	int st;

	/* Without a usable runtime version the cudart checks cannot
	 * apply: a skip, or an error when the capture holds garbage. */
	if (rt == NULL)
		no_rt = no_fact(&k, "lib.cudart.version", "lib");
	else if ((nr = ep_version_release(r, 2, rt)) == 0)
		no_rt = xasprintf("lib.cudart.version \"%s\" is not a "
		    "version", rt);
	if (no_rt == NULL) {
		check_driver_min(&k, rt, r[0]);
		check_cuda_driver(&k, rt, r, nr);
	} else {
		st = rt == NULL ? EP_SKIP : EP_ERROR;
		add(&k, "stack.driver_min", st, "check:driver-min", NULL, rt,
		    xasprintf("stack.driver_min: %s", no_rt));
		add(&k, "stack.cuda_driver", st, "check:cuda-driver", NULL, rt,
		    xasprintf("stack.cuda_driver: %s", no_rt));
	}
	check_lib_cudart(&k, rt, r, no_rt);
	free(no_rt);
	check_cudnn_sublibs(&k);
	check_determinism(&k);
	check_requires(&k);
	ep_results_waive(out, from, policy, now);
}
