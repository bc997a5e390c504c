/*
 * probeopt.c: the reference-workload options of check and bless, and
 * running the probe into a manifest.
 */
#include <stdlib.h>
#include <string.h>

#include "probeopt.h"
#include "workload.h"
#include "xalloc.h"

/* A whole number in [lo, hi], or -1. */
void
ep_probeopt_init(struct ep_probeopt *o, unsigned runs)
{
	memset(o, 0, sizeof *o);
	o->po.backend = "all";
	o->po.runs = runs;
	o->po.timeout_s = EP_PROBE_TIMEOUT_DEFAULT;
}

void
ep_probeopt_clear(struct ep_probeopt *o)
{
	ep_strv_clear(&o->workloads);
}

/* 1 when o has a --workload named as entry ("NAME=COMMAND") is. */
static int
has_workload(const struct ep_probeopt *o, const char *entry)
{
	size_t n = (size_t)(strchr(entry, '=') - entry);

	for (size_t i = 0; i < o->workloads.n; i++)
		if (strncmp(o->workloads.v[i], entry, n) == 0 &&
		    o->workloads.v[i][n] == '=')
			return 1;
	return 0;
}

void
ep_probeopt_policy(struct ep_probeopt *o, struct ep_results *rs,
    const struct ep_policy *policy, int store_named)
{
	const struct ep_strv *w = ep_policy_workloads(policy);
	struct ep_result r = { 0 };
	const char *e;

	for (size_t i = 0; i < w->n; i++) {
		e = w->v[i];
		if (has_workload(o, e))
			continue;
		if (store_named) {
			ep_strv_push(&o->workloads, e);
			continue;
		}
		r.key = xasprintf("workload.%.*s", (int)(strchr(e, '=') - e),
		    e);
		r.status = EP_SKIP;
		r.rule = (char *)"workload:policy";
		r.message = xasprintf("workload %s (the policy's): not run: "
		    "the implicit store (.envparity/store in the current "
		    "directory, which the checkout can write) runs nothing; "
		    "name the store (--store, ENVPARITY_STORE) or give "
		    "--workload", r.key + 9);
		ep_results_add(rs, &r);
		free(r.key);
		free(r.message);
	}
}

/* The workloads of o, each --runs times. */
static int
run_workloads(struct ep_results *rs, struct ep_manifest *m,
    const struct ep_probeopt *o, struct ep_err *err)
{
	size_t n = o->workloads.n;
	struct ep_workload *w = xcalloc(n + 1, sizeof *w);
	int rc = 0;

	for (size_t i = 0; i < n && rc == 0; i++)
		rc = ep_workload_parse(&w[i], o->workloads.v[i], err);
	if (rc == 0)
		rc = ep_workload_run_all(rs, m, w, n, o->po.runs ?
		    o->po.runs : EP_WORKLOAD_RUNS_DEFAULT, o->po.timeout_s,
		    err);
	for (size_t i = 0; i < n; i++)
		ep_workload_clear(&w[i]);
	free(w);
	return rc;
}

int
ep_probeopt_run(struct ep_results *rs, struct ep_manifest *m,
    struct ep_probeopt *o, struct ep_err *err)
{
	struct ep_strv summary = { 0 };
	char *probe = NULL;
	int rc;

	if (o->po.runs == 0) {
		ep_manifest_unavailable(m, "probe", "not run (--runs N runs "
		    "the reference workload)");
		return o->workloads.n ? run_workloads(rs, m, o, err) : 0;
	}
	if (ep_probe_find(&probe, o->given, err) < 0)
		return -1;
	o->po.probe = probe;
	rc = ep_probe_all(rs, m, &summary, &o->po, m, err);
	o->po.probe = NULL;
	ep_strv_clear(&summary);
	free(probe);
	if (rc == 0 && o->workloads.n)
		rc = run_workloads(rs, m, o, err);
	return rc;
}

void
ep_probe_record_findings(struct ep_manifest *m, const struct ep_results *rs,
    int runs)
{
	json_t *probe = json_object(), *findings = json_array(), *f;
	const struct ep_result *r;

	for (size_t i = 0; i < rs->n; i++) {
		r = &rs->v[i];
		if (r->status == EP_PASS)
			continue;
		if (json_array_size(findings) >= EP_WARNINGS_MAX)
			break;
		f = json_object();
		json_object_set_new(f, "key", json_string(r->key));
		json_object_set_new(f, "status",
		    json_string(ep_status_name(r->status)));
		if (r->message != NULL)
			json_object_set_new(f, "message",
			    json_stringn(r->message, strnlen(r->message,
			    EP_WARNING_BYTES)));
		json_array_append_new(findings, f);
	}
	json_object_set_new(probe, "runs", json_integer(runs));
	json_object_set_new(probe, "findings", findings);
	json_object_set_new(m->meta, "probe", probe);
}
