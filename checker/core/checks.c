/*
 * checks.c: the checks that need no golden manifest (ep_checks_run in
 * results.h), read from the current manifest's facts alone.  Each check
 * gives results keyed "stack.<check>": pass (so reports show what was
 * checked), fail, or skip with the reason it could not apply.  A policy
 * rule "ignore" on a check's key turns it off; waivers apply as to any
 * other result.
 *
 * Each fails only where the stack would break or silently compute
 * otherwise, and warns where NVIDIA supports what it sees (docs/checking.md, "Checks
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
 *   stack.framework.*, stack.requires.*, stack.duplicate.*, stack.gpu.*,
 *   stack.node.*:           checks_fw.c, checks_req.c, checks_gpu.c,
 *                           checks_node.c.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "checks_int.h"
#include "results.h"
#include "checks.h"
#include "vercmp.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

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

static void
check_driver_min(struct checks *k, const char *rt, unsigned long rt_major)
{
	static const char *key = "stack.driver_min", *rule =
	    "check:driver-min";
	const char *drv = ep_checks_get(k, "gpu.driver.version");
	char *need = NULL, *why;

	for (size_t i = 0; i < sizeof driver_min / sizeof driver_min[0]; i++)
		if (driver_min[i].major == rt_major)
			need = xasprintf(">=%s", driver_min[i].driver);
	if (drv == NULL) {
		why = ep_checks_no_fact(k, "gpu.driver.version", "gpu");
		ep_checks_add(k, key, EP_SKIP, rule, need, NULL, xasprintf("%s: %s", key,
		    why));
		free(why);
	} else if (!ep_version_valid(drv))
		ep_checks_add(k, key, EP_ERROR, rule, need, drv, xasprintf("%s: "
		    "gpu.driver.version \"%s\" is not a version", key, drv));
	else if (need == NULL)
		ep_checks_add(k, key, EP_SKIP, rule, NULL, drv, xasprintf("%s: no "
		    "minimum driver known for CUDA %lu.x (runtime %s)", key,
		    rt_major, rt));
	else if (ep_vercmp(drv, need + 2) >= 0)
		ep_checks_add(k, key, EP_PASS, rule, need, drv, xasprintf("%s: driver "
		    "%s meets CUDA %s's minimum %s", key, drv, rt, need + 2));
	else
		ep_checks_add(k, key, EP_FAIL, rule, need, drv, xasprintf("%s: driver "
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
	const char *cd = ep_checks_get(k, "gpu.cuda_driver.version");
	unsigned long d[2] = { 0, 0 };
	char *why;

	if (cd == NULL) {
		why = ep_checks_no_fact(k, "gpu.cuda_driver.version", "gpu");
		ep_checks_add(k, key, EP_SKIP, rule, NULL, rt, xasprintf("%s: %s", key,
		    why));
		free(why);
		return;
	}
	if (ep_version_release(d, 2, cd) == 0) {
		ep_checks_add(k, key, EP_ERROR, rule, cd, rt, xasprintf("%s: the driver's "
		    "CUDA version \"%s\" is not a version", key, cd));
		return;
	}
	if (r[0] > d[0])
		ep_checks_add(k, key, EP_FAIL, rule, cd, rt, xasprintf("%s: CUDA runtime "
		    "%s is a newer major release than the driver supports "
		    "(CUDA %s)", key, rt, cd));
	else if (r[0] == d[0] && nr > 1 && r[1] > d[1])
		ep_checks_add(k, key, EP_WARN, rule, cd, rt, xasprintf("%s: CUDA runtime "
		    "%s is a newer minor release than the driver's CUDA %s: "
		    "it runs under CUDA's minor-version compatibility, but "
		    "cannot JIT-compile PTX newer than the driver", key, rt,
		    cd));
	else
		ep_checks_add(k, key, EP_PASS, rule, cd, rt, xasprintf("%s: CUDA runtime "
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
		ep_checks_add(k, key, EP_SKIP, rule, built, rt, xasprintf("%s: %s", key,
		    no_rt));
	else if (nb == 0)
		ep_checks_add(k, key, EP_FAIL, rule, built, rt, xasprintf("%s: %s "
		    "reports cudart \"%s\", not a version", key, lib, built));
	else if (b[0] != r[0])
		ep_checks_add(k, key, EP_FAIL, rule, built, rt, xasprintf("%s: %s was "
		    "built for CUDA %s, a different major release than the "
		    "runtime %s", key, lib, built, rt));
	else if (nb > 1 && b[1] > r[1]) {
		free(key);
		key = xasprintf("stack.cudart_minor.%s", lib);
		ep_checks_add(k, key, EP_WARN, rule, built, rt, xasprintf("%s: %s was "
		    "built for CUDA %s, a newer minor release than the runtime "
		    "%s it runs with: supported within CUDA %lu.x (NVIDIA's "
		    "cuDNN support matrix lists such builds for every %lu.x "
		    "toolkit), but not the pair NVIDIA tuned it for", key, lib,
		    built, rt, r[0], r[0]));
	} else
		ep_checks_add(k, key, EP_PASS, rule, built, rt, xasprintf("%s: %s built "
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
	const char *ref = ep_checks_get(k, "lib.cudnn.version"), *fk;
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
		ep_checks_add(k, key, bad.n > 0 ? EP_FAIL : EP_ERROR, rule, ref, list,
		    xasprintf("%s: cuDNN sub-libraries disagree with cuDNN "
		    "%s: %s", key, ref ? ref : "?", list));
		free(list);
	} else if (ref == NULL && nchk == 0) {
		char *why = ep_checks_no_fact(k, "lib.cudnn.version", "lib");

		ep_checks_add(k, key, EP_SKIP, rule, NULL, NULL, xasprintf("%s: %s", key,
		    why));
		free(why);
	} else
		ep_checks_add(k, key, EP_PASS, rule, ref, ref, xasprintf("%s: cuDNN %s: "
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
	const char *ops = ep_checks_get(k, "env.TF_DETERMINISTIC_OPS"),
	    *cudnn = ep_checks_get(k, "env.TF_CUDNN_DETERMINISTIC"),
	    *tune = ep_checks_get(k, "env.TF_USE_CUDNN_AUTOTUNE"),
	    *ws = ep_checks_get(k, "env.CUBLAS_WORKSPACE_CONFIG"), *which;
	int i;

	/* TF's determinism holds only with cuDNN autotuning off
	 * (gpu-stack.md, "Determinism"). */
	which = env_true(ops) ? "TF_DETERMINISTIC_OPS" :
	    env_true(cudnn) ? "TF_CUDNN_DETERMINISTIC" : NULL;
	if (which == NULL)
		ep_checks_add(k, tf, EP_SKIP, rule, NULL, tune, xasprintf("%s: "
		    "TensorFlow determinism not asked for "
		    "(TF_DETERMINISTIC_OPS and TF_CUDNN_DETERMINISTIC not set "
		    "to 1)", tf));
	else if (tune != NULL && strcmp(tune, "0") != 0 &&
	    strcasecmp(tune, "false") != 0)
		ep_checks_add(k, tf, EP_FAIL, rule, "unset", tune, xasprintf("%s: %s=1 "
		    "with TF_USE_CUDNN_AUTOTUNE=%s: autotuning picks cuDNN "
		    "algorithms per run and defeats determinism; unset it",
		    tf, which, tune));
	else
		ep_checks_add(k, tf, EP_PASS, rule, "unset", tune, xasprintf("%s: %s=1 "
		    "and cuDNN autotuning off", tf, which));

	if (ws == NULL) {
		ep_checks_add(k, cb, EP_SKIP, rule, NULL, NULL, xasprintf("%s: "
		    "CUBLAS_WORKSPACE_CONFIG not set (cuBLAS is deterministic "
		    "without it on a single stream)", cb));
		return;
	}
	for (i = 0; cublas_workspace_ok[i] != NULL; i++)
		if (strcmp(ws, cublas_workspace_ok[i]) == 0)
			break;
	if (cublas_workspace_ok[i] != NULL)
		ep_checks_add(k, cb, EP_PASS, rule, ":4096:8 or :16:8", ws, xasprintf(
		    "%s: CUBLAS_WORKSPACE_CONFIG=%s, as cuBLAS documents for "
		    "deterministic results", cb, ws));
	else
		ep_checks_add(k, cb, EP_FAIL, rule, ":4096:8 or :16:8", ws, xasprintf(
		    "%s: CUBLAS_WORKSPACE_CONFIG=%s is not one of the values "
		    "cuBLAS documents as deterministic (:4096:8, :16:8)", cb,
		    ws));
}

void
ep_checks_run(struct ep_results *out, const struct ep_manifest *current,
    const struct ep_policy *policy, time_t now)
{
	struct checks k = { out, current, policy };
	const char *rt = ep_checks_get(&k, "lib.cudart.version");
	unsigned long r[2] = { 0, 0 };
	size_t from = out->n, nr = 0;
	char *no_rt = NULL;
	int st;

	/* Without a usable runtime version the cudart checks cannot
	 * apply: a skip, or an error when the capture holds garbage. */
	if (rt == NULL)
		no_rt = ep_checks_no_fact(&k, "lib.cudart.version", "lib");
	else if ((nr = ep_version_release(r, 2, rt)) == 0)
		no_rt = xasprintf("lib.cudart.version \"%s\" is not a "
		    "version", rt);
	if (no_rt == NULL) {
		check_driver_min(&k, rt, r[0]);
		check_cuda_driver(&k, rt, r, nr);
	} else {
		st = rt == NULL ? EP_SKIP : EP_ERROR;
		ep_checks_add(&k, "stack.driver_min", st, "check:driver-min", NULL, rt,
		    xasprintf("stack.driver_min: %s", no_rt));
		ep_checks_add(&k, "stack.cuda_driver", st, "check:cuda-driver", NULL, rt,
		    xasprintf("stack.cuda_driver: %s", no_rt));
	}
	check_lib_cudart(&k, rt, r, no_rt);
	free(no_rt);
	check_cudnn_sublibs(&k);
	check_determinism(&k);
	ep_checks_framework(&k);
	ep_checks_requires(&k);
	ep_checks_duplicates(&k);
	ep_checks_lock(&k);
	ep_checks_gpu(&k);
	ep_checks_node(&k);
	ep_results_waive(out, from, policy, now);
}
