/*
 * compare.c: the comparison of golden facts with current facts under a
 * policy (compare.h); the results it gives are results.c's.
 *
 * Every key on either side, in byte order, is decided by the first rule
 * whose glob matches it:
 *   ignore   no result at all: an ignored key would only flood reports.
 *            A key that a built-in ignore rule (os.kernel) keeps out and
 *            that differs is listed in out's ignored changes instead
 *            (the JSON report, a line of the summary): not judged, but
 *            not vanished either.  A user's own ignore rule is the
 *            user's word, and lists nothing.
 *   exact    both sides: pass if equal, else fail "KEY: expected G, got C".
 *   version  the current value must lie in the range, whatever the golden
 *            says (the golden value is shown as expected): "KEY: C not in
 *            RANGE"; a value that is no version fails and says so.  A key
 *            new here is judged by the range too.
 *   present  pass when the key exists here, fail when it does not; it
 *            overrides the skip below, so "this runner must have a GPU"
 *            is one rule.
 *   absent   fail when the key exists here, pass otherwise.
 * A key only one side has, under exact (or version, when missing here):
 *   - missing here, and this capture says it could not look at the key's
 *     area (meta.unavailable.<area>): for an area a machine may lack (gpu
 *     on a runner without one, the probe not run) skip, "KEY: not
 *     checked here: REASON", neither a silent pass nor a false removal;
 *     for any other (a collector that failed: no Python answer, no CUDA
 *     library found) an error, "KEY: expected G, could not be read
 *     here (AREA: REASON)", since a failed collector proves no parity;
 *   - new here, and the golden could not look at that area (gpu, probe):
 *     skip, "KEY: not in the golden manifest, which did not check AREA:
 *     REASON";
 *   - new here, a fact that a release newer than the golden's began to
 *     capture (factsince.h): skip, "KEY: fact new since envparity X.Y
 *     (the golden was blessed by envparity A.B.C): ...";
 *   - under exact, a per-GPU probe fact of a GPU probed on one side only
 *     (another --gpus): skip, not drift (probe_gpu_oneside);
 *   - otherwise the rule's "missing": fail (the default: "expected G,
 *     missing here" or "new here (C), not in the golden manifest"), skip
 *     (the same words, then "(not compared)"), or ignore (no result).
 * A golden captured before envparity recorded node facts (no node.* key
 * at all) compares none of this machine's: one skip says how many were
 * not compared, and that blessing again compares them (node_unblessed),
 * so that an upgrade is not drift.
 * A rule of severity warn makes its failures warnings.  A user rule's
 * reason is appended to its non-passing messages; probe hashes bind only
 * within a determinism domain (bind_probe_domains); waivers are applied
 * last (ep_results_waive).  A comparison that compared no golden fact is
 * an error result (compared_nothing).
 *
 * Each row is a case in tests/unit/cases/compare.test (what a policy
 * decides: policy.test), run through this code by tests/unit/test_cases.c:
 * a change to the table changes a case there.
 */
#include <stdlib.h>
#include <string.h>

#include "results.h"
#include "compare.h"
#include "factsince.h"
#include "verrange.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

static void
set_owned(char **field, char *value)
{
	free(*field);
	*field = value;
}

/* meta.unavailable.<area> of m: why m could not look at area, or NULL. */
static const char *
unavailable(const struct ep_manifest *m, const char *area)
{
	json_t *u;

	if (m == NULL || m->meta == NULL ||
	    (u = json_object_get(m->meta, "unavailable")) == NULL)
		return NULL;
	return json_string_value(json_object_get(u, area));
}

static const char *
fact(const struct ep_manifest *m, const char *key)
{
	return m != NULL ? ep_manifest_get(m, key) : NULL;
}

/* 1 for an area a machine may lack without drift (meta.unavailable
 * then means "cannot be checked here", a skip): the GPU on a runner
 * without one (--require-gpu makes that a failure for gates), and the
 * probe when it was not asked to run.  Any other area marked unavailable
 * is a collector that failed, which proves nothing either way. */
static int
may_lack(const char *area)
{
	return strcmp(area, "gpu") == 0 || strcmp(area, "probe") == 0;
}

/*
 * Per-GPU probe facts: probe.<b>.gpu<N>.<w>.sha256 and probe.gpu<N>.domain
 * (N among the GPUs the probe ran on).  The GPU number of key, or -1.
 */
static long
probe_gpu_of(const char *key)
{
	const char *p;
	char *end;
	long n;

	if (!ep_startswith(key, "probe."))
		return -1;
	p = key + 6;
	if (!ep_startswith(p, "gpu")) {
		/* probe.<b>.gpuN. */
		if ((p = strchr(p, '.')) == NULL || !ep_startswith(++p, "gpu"))
			return -1;
	}
	p += 3;
	if (*p < '0' || *p > '9')
		return -1;
	n = strtol(p, &end, 10);
	return *end == '.' ? n : -1;
}

/* 1 when m has a per-GPU probe fact (of GPU gpu, or of any when gpu is
 * -1). */
static int
has_probe_gpu(const struct ep_manifest *m, long gpu)
{
	const char *k;
	json_t *v;

	if (m == NULL || m->facts == NULL)
		return 0;
	json_object_foreach(m->facts, k, v) {
		long n = probe_gpu_of(k);

		if (n >= 0 && (gpu < 0 || n == gpu))
			return 1;
	}
	return 0;
}

/*
 * A per-GPU probe fact on one side only is a GPU probed on one side only
 * (another --gpus, another GPU count), not drift: a skip that says so.
 * Against a golden with no per-GPU fact at all (blessed before the probe
 * ran on every GPU) the per-GPU facts here are not reported: the
 * node-wide probe.<b>.<w>.sha256, which keeps its meaning, is compared.
 * 0: not reported; 1: *msg and r->status set; -1: not such a case.
 */
static int
probe_gpu_oneside(struct ep_result *r, char **msg, const char *key,
    const char *g, const char *c, const struct ep_manifest *golden,
    const struct ep_manifest *current)
{
	long n = probe_gpu_of(key);
	char *dkey;
	int probed;

	if (n < 0 || (g != NULL) == (c != NULL))
		return -1;
	if (g == NULL && !has_probe_gpu(golden, -1))
		return 0;
	dkey = xasprintf("probe.gpu%ld.domain", n);
	probed = fact(g == NULL ? golden : current, dkey) != NULL;
	free(dkey);
	if (probed)
		return -1;	/* the GPU ran on both sides: a real difference */
	r->status = EP_SKIP;
	*msg = g == NULL ? xasprintf("%s: new here (%s); GPU %ld was not "
	    "probed for the golden manifest (not compared)", key, c, n) :
	    xasprintf("%s: GPU %ld was not probed here (the golden's: %s; "
	    "not compared)", key, n, g);
	return 1;
}

/* The verdict of a version rule on the current value c. */
static char *
version_verdict(int *status, const struct ep_rule *rule, const char *key,
    const char *c)
{
	const char *range = ep_verrange_text(rule->range);

	switch (ep_verrange_match(rule->range, c)) {
	case 1:
		*status = EP_PASS;
		return xasprintf("%s: %s in %s", key, c, range);
	case 0:
		*status = EP_FAIL;
		return xasprintf("%s: %s not in %s", key, c, range);
	default:
		*status = EP_FAIL;
		return xasprintf("%s: \"%s\" is not a version (range %s)", key,
		    c, range);
	}
}

/* Decide one key; 0 when the rule says to report nothing. */
static int
decide(struct ep_result *r, char **msg, const struct ep_rule *rule,
    const char *key, const char *area, const char *g, const char *c,
    const struct ep_manifest *golden, const struct ep_manifest *current)
{
	const char *why;

	switch (rule->kind) {
	case EP_RULE_IGNORE:
		return 0;
	case EP_RULE_PRESENT:
		if (c != NULL) {
			r->status = EP_PASS;
			*msg = xasprintf("%s: present here", key);
		} else if ((why = unavailable(current, area)) != NULL) {
			r->status = EP_FAIL;
			*msg = xasprintf("%s: required, missing here (%s not "
			    "checked here: %s)", key, area, why);
		} else {
			r->status = EP_FAIL;
			*msg = xasprintf("%s: required, missing here", key);
		}
		return 1;
	case EP_RULE_ABSENT:
		r->status = c == NULL ? EP_PASS : EP_FAIL;
		*msg = c == NULL ? xasprintf("%s: absent here", key) :
		    xasprintf("%s: must be absent, found %s", key, c);
		return 1;
	}

	/* exact or version */
	if (c != NULL && (g != NULL || rule->kind == EP_RULE_VERSION)) {
		if (rule->kind == EP_RULE_VERSION)
			*msg = version_verdict(&r->status, rule, key, c);
		else if (strcmp(g, c) == 0) {
			r->status = EP_PASS;
			*msg = xasprintf("%s: %s", key, c);
		} else {
			r->status = EP_FAIL;
			*msg = xasprintf("%s: expected %s, got %s", key, g, c);
		}
		return 1;
	}
	if (c == NULL && (why = unavailable(current, area)) != NULL) {
		/* A runner that cannot have the area (no GPU, the probe not
		 * asked for) skips; one whose collector failed (a Python
		 * that timed out, no CUDA library found where the golden had
		 * them) has not shown parity: the check could not be made. */
		r->status = may_lack(area) ? EP_SKIP : EP_ERROR;
		*msg = r->status == EP_SKIP ?
		    xasprintf("%s: not checked here: %s", key, why) :
		    xasprintf("%s: expected %s, could not be read here (%s: "
		    "%s)", key, g, area, why);
		return 1;
	}
	if (g == NULL && may_lack(area) &&
	    (why = unavailable(golden, area)) != NULL) {
		r->status = EP_SKIP;
		*msg = xasprintf("%s: not in the golden manifest, which did "
		    "not check %s: %s", key, area, why);
		return 1;
	}
	if (g == NULL && (why = ep_fact_new_since(golden, key)) != NULL) {
		r->status = EP_SKIP;
		*msg = xasprintf("%s: fact new since envparity %.*s (the golden "
		    "was blessed by envparity %s): not judged until the profile "
		    "is blessed again", key, (int)(strrchr(why, '.') - why), why,
		    ep_fact_golden_release(golden));
		return 1;
	}
	if (rule->kind == EP_RULE_EXACT && (c == NULL || g == NULL)) {
		int one = probe_gpu_oneside(r, msg, key, g, c, golden,
		    current);

		if (one >= 0)
			return one;
	}
	if (rule->missing == EP_MISSING_IGNORE)
		return 0;
	r->status = rule->missing == EP_MISSING_SKIP ? EP_SKIP : EP_FAIL;
	if (c == NULL)
		*msg = xasprintf("%s: expected %s, missing here%s", key, g,
		    r->status == EP_SKIP ? " (not compared)" : "");
	else
		*msg = xasprintf("%s: new here (%s), not in the golden "
		    "manifest%s", key, c,
		    r->status == EP_SKIP ? " (not compared)" : "");
	return 1;
}

/* Equal values, or both absent. */
static int
same(const char *a, const char *b)
{
	return a == NULL || b == NULL ? a == b : strcmp(a, b) == 0;
}

static void
keys_of(struct ep_strv *sv, const struct ep_manifest *m)
{
	const char *k;
	json_t *v;

	if (m == NULL || m->facts == NULL)
		return;
	json_object_foreach(m->facts, k, v)
		ep_strv_push(sv, k);
	ep_strv_sort(sv);
}

/*
 * The probe's output hashes bind only within one determinism domain (GPU
 * model and SM count, driver, CUDA, cuBLAS, cuDNN, probe version): NVIDIA
 * promises bit-identical results for one stack on one architecture, not
 * across them.  A hash (or a domain) that differs where the domains differ
 * is a skip that says how, not drift; the run-to-run and known-answer
 * results, which need no golden, always bind.  probe.cpu.domain governs
 * the cpu backend, probe.domain the GPU ones, workload.domain a team's
 * workloads (workload.h).
 */
const char *
ep_compare_domain_key(const char *key)
{
	if (ep_startswith(key, "workload."))
		return "workload.domain";
	return ep_startswith(key, "probe.cpu.") ? "probe.cpu.domain" :
	    "probe.domain";
}

static void
bind_probe_domains(struct ep_results *rs, size_t from,
    const struct ep_manifest *golden, const struct ep_manifest *current)
{
	for (size_t i = from; i < rs->n; i++) {
		struct ep_result *r = &rs->v[i];
		const char *dkey, *g, *c;
		char *gdkey;
		long gpu;
		int is_domain;

		if ((r->status != EP_FAIL && r->status != EP_WARN) ||
		    (!ep_startswith(r->key, "probe.") &&
		    !ep_startswith(r->key, "workload.")))
			continue;
		is_domain = ep_endswith(r->key, ".domain");
		if (!is_domain && !ep_endswith(r->key, ".sha256"))
			continue;
		dkey = ep_compare_domain_key(r->key);
		/* A GPU's facts bind within its own domain. */
		gpu = *dkey == 'w' ? -1 : probe_gpu_of(r->key);
		gdkey = gpu >= 0 ? xasprintf("probe.gpu%ld.domain", gpu) : NULL;
		if (gdkey != NULL)
			dkey = gdkey;
		g = fact(golden, dkey);
		c = fact(current, dkey);
		if (!is_domain && g != NULL && c != NULL && strcmp(g, c) == 0) {
			free(gdkey);
			continue;	/* same domain: a real difference */
		}
		r->status = EP_SKIP;
		set_owned(&r->message, is_domain ?
		    xasprintf("%s: determinism domain differs (golden: %s; "
		    "here: %s): the golden's output hashes do not bind here",
		    r->key, g ? g : "none", c ? c : "none") :
		    xasprintf("%s: golden hash does not bind: determinism "
		    "domains differ (golden: %s; here: %s)", r->key,
		    g ? g : "none", c ? c : "none"));
		free(gdkey);
	}
}

/*
 * A comparison in which no golden fact was compared (the golden has none,
 * or the policy ignores them all) proves nothing: parity by an empty
 * golden, or by a policy of "ignore everything" that a change could
 * commit beside it, is no parity.  An error result says so; errors are
 * not decided by the policy, so no rule can hide it.
 */
static void
compared_nothing(struct ep_results *out, size_t ngolden)
{
	struct ep_result r = { 0 };

	r.key = "golden.compared";
	r.status = EP_ERROR;
	r.rule = "check:compared";
	r.message = ngolden == 0 ? "golden.compared: nothing was compared: "
	    "the golden manifest has no facts" : "golden.compared: nothing "
	    "was compared: the policy ignores every fact of the golden "
	    "manifest, or none could be checked here";
	ep_results_add(out, &r);
}

/* 1 when the sorted keys hold a node.* fact. */
static int
has_node_facts(const struct ep_strv *keys)
{
	for (size_t i = 0; i < keys->n; i++) {
		int c = strncmp(keys->v[i], "node.", 5);

		if (c == 0)
			return 1;
		if (c > 0)
			break;
	}
	return 0;
}

/* The node facts of this machine a golden from before them could not
 * judge, said once. */
static void
node_unblessed(struct ep_results *out, size_t n)
{
	struct ep_result r = { 0 };

	if (n == 0)
		return;
	r.key = "node";
	r.area = "node";
	r.status = EP_SKIP;
	r.rule = "exact";
	r.message = xasprintf("node: %zu node facts not compared: the golden "
	    "manifest has none (captured before envparity recorded them); "
	    "bless again to compare them", n);
	ep_results_add(out, &r);
	free(r.message);
}

void
ep_compare(struct ep_results *out, const struct ep_manifest *golden,
    const struct ep_manifest *current, const struct ep_policy *policy,
    time_t now)
{
	struct ep_strv gk = { 0 }, ck = { 0 };
	size_t i = 0, j = 0, from = out->n, compared = 0, unblessed = 0;
	int golden_node;

	keys_of(&gk, golden);
	keys_of(&ck, current);
	golden_node = has_node_facts(&gk);
	while (i < gk.n || j < ck.n) {
		const char *key;
		const struct ep_rule *rule;
		struct ep_result r = { 0 };
		char *area, *msg = NULL;
		int c;

		if (i == gk.n)
			c = 1;
		else if (j == ck.n)
			c = -1;
		else
			c = strcmp(gk.v[i], ck.v[j]);
		key = c <= 0 ? gk.v[i] : ck.v[j];
		i += c <= 0;
		j += c >= 0;

		rule = ep_policy_match(policy, key);
		if (c > 0 && !golden_node && ep_startswith(key, "node.")) {
			unblessed += rule->kind != EP_RULE_IGNORE;
			continue;
		}
		area = ep_result_area(key);
		/* ep_results_add copies; nothing is written through the
		 * casts. */
		r.key = (char *)key;
		r.area = area;
		r.expected = (char *)fact(golden, key);
		r.actual = (char *)fact(current, key);
		r.rule = (char *)rule->text;
		if (decide(&r, &msg, rule, key, area, r.expected, r.actual,
		    golden, current)) {
			/* Compared: judged on both sides; a skip or an error
			 * proves nothing. */
			compared += r.expected != NULL &&
			    r.status != EP_SKIP && r.status != EP_ERROR;
			/* A rule of severity warn: its drift is seen, never
			 * fatal. */
			if (r.status == EP_FAIL &&
			    rule->severity == EP_SEVERITY_WARN)
				r.status = EP_WARN;
			if (r.status != EP_PASS && !rule->builtin &&
			    rule->reason != NULL)
				set_owned(&msg, xasprintf("%s (policy: %s)",
				    msg, rule->reason));
			r.message = msg;
			ep_results_add(out, &r);
		} else if (rule->kind == EP_RULE_IGNORE && rule->builtin &&
		    !same(r.expected, r.actual))
			ep_results_ignored_add(out, key, r.expected, r.actual,
			    rule->reason);
		free(msg);
		free(area);
	}
	node_unblessed(out, unblessed);
	if (compared == 0)
		compared_nothing(out, gk.n);
	ep_strv_clear(&gk);
	ep_strv_clear(&ck);
	bind_probe_domains(out, from, golden, current);
	ep_results_waive(out, from, policy, now);
}
