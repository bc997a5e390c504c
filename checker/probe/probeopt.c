/*
 * probeopt.c: the reference-workload options of check and bless, and
 * running the probe into a manifest.
 */
#include <stdlib.h>
#include <string.h>

#include "probeopt.h"

/* A whole number in [lo, hi], or -1. */
static long
number(const char *s, long lo, long hi)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtol(s, &end, 10);
	return *end == '\0' && v >= lo && v <= hi ? v : -1;
}

void
ep_probeopt_init(struct ep_probeopt *o, unsigned runs)
{
	memset(o, 0, sizeof *o);
	o->po.backend = "all";
	o->po.runs = runs;
	o->po.timeout_s = EP_PROBE_TIMEOUT_DEFAULT;
}

int
ep_probe_opt(struct ep_probeopt *o, int c, const char *arg,
    struct ep_err *err)
{
	long v;

	switch (c) {
	case EP_OPT_RUNS:
		if ((v = number(arg, 1, EP_PROBE_RUNS_MAX)) < 0)
			return ep_err_set(err, EP_E_INPUT, "--runs %s: not a "
			    "number from 1 to %d", arg, EP_PROBE_RUNS_MAX);
		o->po.runs = (unsigned)v;
		return 1;
	case EP_OPT_BACKEND:
		if (strcmp(arg, "all") != 0 && ep_probe_workloads(arg) == NULL)
			return ep_err_set(err, EP_E_INPUT, "--backend %s: not "
			    "cpu, cuda, cublas, cudnn or all", arg);
		o->po.backend = arg;
		return 1;
	case EP_OPT_TIMEOUT:
		if ((v = number(arg, 1, EP_PROBE_TIMEOUT_MAX)) < 0)
			return ep_err_set(err, EP_E_INPUT, "--timeout %s: not "
			    "a number of seconds from 1 to %d", arg,
			    EP_PROBE_TIMEOUT_MAX);
		o->po.timeout_s = (unsigned)v;
		return 1;
	case EP_OPT_REQUIRE_GPU:
		o->po.require_gpu = 1;
		return 1;
	case EP_OPT_PROBE:
		o->given = arg;
		return 1;
	case EP_OPT_GPUS:
		if (ep_probe_gpus_parse(arg, err) < 0)
			return -1;
		o->po.gpus = arg;
		return 1;
	case EP_OPT_JOBS:
		if ((v = number(arg, 1, EP_PROBE_JOBS_MAX)) < 0)
			return ep_err_set(err, EP_E_INPUT, "--jobs %s: not a "
			    "number from 1 to %d", arg, EP_PROBE_JOBS_MAX);
		o->po.jobs = (unsigned)v;
		return 1;
	}
	return 0;
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
		return 0;
	}
	if (ep_probe_find(&probe, o->given, err) < 0)
		return -1;
	o->po.probe = probe;
	rc = ep_probe_all(rs, m, &summary, &o->po, m, err);
	o->po.probe = NULL;
	ep_strv_clear(&summary);
	free(probe);
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
