/*
 * cmd_probe.c: `envparity probe [--runs N] [--backend B] [--timeout S]
 * [--require-gpu] [--probe PATH] [--gpus LIST] [--jobs N] [-o FILE] [-q]
 * [report options] [collector options]`: run the reference workload N
 * times per backend and say whether the runs agree, whether the known
 * answers held, and what was skipped.  Its results are a report's like
 * check's (command "probe", no golden), written by the same writers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clean.h"
#include "capture.h"
#include "cmd.h"
#include "opt.h"
#include "probe.h"
#include "probeopt.h"
#include "report.h"
#include "resolve.h"
#include "version.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"
#include "hostname.h"

static int cmd_probe_exec(const struct ep_cmd *, int, char **);

/* What the command line says. */
struct probe_opts {
	struct ep_probeopt popt;
	struct ep_capture_opts copts;
	struct ep_reportopt ropt;
	const char *output;
	int quiet;
};

#define PR struct probe_opts
static const struct ep_opt probe_opts[] = {
	EP_OPT_FN("runs", 0, "N", PR, popt, ep_og_probe_runs,
	    "runs per backend (default 5)"),
	EP_OPT_FN("backend", 0, "B", PR, popt, ep_og_probe_backend,
	    "cpu, cuda, cublas, cudnn or all (default all)"),
	EP_OPT_FN("timeout", 0, "S", PR, popt, ep_og_probe_timeout,
	    "seconds a run may take before it is killed\n"
	    "(default 60)"),
	{ .kind = EP_OPTK_FN, .name = "require-gpu", .arg = EP_ARG_NONE,
	  .off = offsetof(PR, popt), .fn = ep_og_probe_require_gpu,
	  .help = "a GPU backend that cannot run here is a failure,\n"
	    "not a skip" },
	EP_OPT_STR("probe", 0, "PATH", PR, popt.given,
	    "the probe binary (default: $ENVPARITY_PROBE, else\n"
	    "envparity-probe beside envparity, else on PATH)"),
	EP_OPT_GROUP(ep_og_probe_gpus, PR, popt, NULL),
	EP_OPT_STR("output", 'o', "FILE", PR, output,
	    "also write the probe's facts as a manifest; - for\n"
	    "standard output (the summary then goes to\n"
	    "standard error)"),
	EP_OPT_FLAG("quiet", 'q', PR, quiet,
	    "print only the counts line, not each workload"),
	EP_OPT_GROUP_NOSTRUCT(ep_og_progress),
	EP_OPT_HELP,
	EP_OPT_GROUP(ep_og_report, PR, ropt, NULL),
	EP_OPT_GROUP(ep_og_capture, PR, copts, NULL),
	EP_OPT_END,
};
#undef PR

const struct ep_cmd ep_cmd_probe = {
	.name = "probe",
	.summary = "run the reference workload N times and compare the runs",
	.usage =
"usage: envparity probe [--runs N] [--backend cpu|cuda|cublas|cudnn|all]\n"
"                       [--timeout S] [--require-gpu] [--probe PATH]\n"
"                       [--gpus LIST] [--jobs N] [-o FILE] [-q]\n"
"                       [report options] [collector options]\n""\n"
"Run envparity-probe N times per backend, each run a fresh process with\n"
"a deadline, and check that the runs' output hashes are identical and\n"
"that the known answers are exact.  The GPU backends load the CUDA\n"
"libraries a capture finds (the collector options below steer it).\n"
"A crash, a hang or garbage output is reported and the other runs go on.\n"
"\n",
	.opts = probe_opts,
	.footer =
"Exit codes: 0 every run agreed and every known answer held (skips\n"
"included), 1 a check failed or a run crashed, hung or misbehaved,\n"
"2 usage, 3 the probe binary is missing or cannot be run.\n",
	.in_order = 1,
	.exec = cmd_probe_exec,
};

/* The probe's own summary (check's has no room for the workloads'
 * lines); brief: the counts only. */
static void
print_summary(FILE *f, const struct ep_probe_opts *po,
    const struct ep_strv *summary, const size_t counts[EP_NSTATUS],
    int brief)
{
	if (!brief) {
		ep_say(f, "probe: %s, %u run%s per backend, %u s timeout each, "
		    "at most %u at once", po->probe, po->runs,
		    po->runs == 1 ? "" : "s", po->timeout_s, po->jobs);
		for (size_t i = 0; i < summary->n; i++)
			ep_say(f, "%s", summary->v[i]);
	}
	ep_say(f, "probe: %zu passed, %zu failed, %zu errors, %zu skipped",
	    counts[EP_PASS], counts[EP_FAIL], counts[EP_ERROR],
	    counts[EP_SKIP]);
}

/* Find the probe (*probe, new), run the workloads into rs and facts (a
 * manifest of the probe's own, with this machine's meta; written to -o);
 * the GPU backends load the very files a capture hashed. */
static int
probe_run(struct ep_results *rs, struct ep_manifest **facts,
    struct ep_strv *summary, char **probe, struct probe_opts *o,
    struct ep_err *err)
{
	struct ep_manifest *captured = NULL;
	int rc = -1;

	if (ep_probe_find(probe, o->popt.given, err) < 0)
		return -1;
	o->popt.po.probe = *probe;
	if (strcmp(o->popt.po.backend, "cpu") != 0 &&
	    ep_capture(&captured, &o->copts, err) < 0)
		return -1;
	*facts = ep_manifest_new();
	ep_capture_meta(*facts, o->copts.node);
	if (ep_probe_all(rs, *facts, summary, &o->popt.po, captured, err) < 0)
		goto done;
	if (o->output != NULL && ep_manifest_write(*facts, o->output,
	    err) < 0)
		goto done;
	rc = 0;
done:
	ep_manifest_free(captured);
	return rc;
}

static int
cmd_probe_exec(const struct ep_cmd *self, int argc, char **argv)
{
	struct probe_opts o = { 0 };
	const char *outwhat[1] = { "-o" };
	struct ep_need need = { .what = EP_NEED_OUTPUTS, .ropt = &o.ropt,
	    .outs = &o.output, .outwhat = outwhat, .nouts = 1 };
	struct ep_cmd_args args;
	struct ep_resolved r = { 0 };
	struct ep_manifest *facts = NULL;
	struct ep_results rs = { 0 };
	struct ep_strv summary = { 0 };
	struct ep_report_ctx ctx = { 0 };
	struct ep_err err = { 0 };
	char *probe = NULL, *current_name = NULL, host[256] = "";
	size_t counts[EP_NSTATUS];
	int rc;

	ep_probeopt_init(&o.popt, EP_PROBE_RUNS_DEFAULT);
	if (ep_opt_parse(&args, &rc, self, &o, argc, argv) < 0)
		goto done;
	if (ep_resolve_outputs(&r, &need, &err) < 0 ||
	    probe_run(&rs, &facts, &summary, &probe, &o, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	ep_results_count(&rs, counts);
	ep_hostname(host, sizeof host);
	ctx.command = "probe";
	current_name = xasprintf("this machine (%s)", host);
	ctx.current_name = current_name;
	ctx.current = facts;
	ctx.generated = time(NULL);
	ctx.own_summary = 1;
	if ((rc = ep_reports_finish(&ctx, &rs, &o.ropt, o.quiet, &err)) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	/* Facts or a report on standard output keep it to themselves. */
	print_summary(r.stdout_taken || ep_reports_to_stdout(&o.ropt) ?
	    stderr : stdout, &o.popt.po, &summary, counts, o.quiet);
	if (fflush(stdout) == EOF) {
		ep_err_set(&err, EP_E_IO, "standard output: write failed");
		rc = ep_cmd_fail(self, &err);
	}
done:
	free(current_name);
	free(probe);
	ep_manifest_free(facts);
	ep_results_clear(&rs);
	ep_strv_clear(&summary);
	ep_capture_opts_clear(&o.copts);
	ep_resolved_clear(&r);
	return rc;
}
