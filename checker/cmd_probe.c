/*
 * cmd_probe.c: `envparity probe [--runs N] [--backend B] [--timeout S]
 * [--require-gpu] [--probe PATH] [--gpus LIST] [--jobs N] [-o FILE] [-q]
 * [report options] [collector options]`: run the reference workload N
 * times per backend and say whether the runs agree, whether the known
 * answers held, and what was skipped.  Its results are a report's like
 * check's (command "probe", no golden), written by the same writers.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "clean.h"
#include "capture.h"
#include "cmd.h"
#include "progress.h"
#include "probe.h"
#include "probeopt.h"
#include "report.h"
#include "version.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"
#include "hostname.h"

static int cmd_probe_exec(const struct ep_cmd *, int, char **);

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
"\n"
"  --runs N             runs per backend (default 5)\n"
"  --backend B          cpu, cuda, cublas, cudnn or all (default all)\n"
"  --timeout S          seconds a run may take before it is killed\n"
"                       (default 60)\n"
"  --require-gpu        a GPU backend that cannot run here is a failure,\n"
"                       not a skip\n"
"  --probe PATH         the probe binary (default: $ENVPARITY_PROBE, else\n"
"                       envparity-probe beside envparity, else on PATH)\n"
EP_PROBE_GPUS_HELP
EP_PROBE_JOBS_HELP
"  -o, --output FILE    also write the probe's facts as a manifest; - for\n"
"                       standard output (the summary then goes to\n"
"                       standard error)\n"
"  -q, --quiet          print only the counts line, not each workload\n"
EP_PROGRESS_HELP
"  -h, --help           show this help\n"
"\n"
EP_REPORT_HELP
"\n"
EP_CAPTURE_HELP
"\n"
"Exit codes: 0 every run agreed and every known answer held (skips\n"
"included), 1 a check failed or a run crashed, hung or misbehaved,\n"
"2 usage, 3 the probe binary is missing or cannot be run.\n",
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

static int
cmd_probe_exec(const struct ep_cmd *self, int argc, char **argv)
{
	static const struct option longopts[] = {
		EP_PROBE_LONGOPTS,
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		EP_REPORT_LONGOPTS,
		EP_CAPTURE_LONGOPTS,
		EP_PROGRESS_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct ep_probeopt popt;
	struct ep_probe_opts *po = &popt.po;
	struct ep_capture_opts copts = { 0 };
	struct ep_manifest *captured = NULL, *facts = NULL;
	struct ep_results rs = { 0 };
	struct ep_strv summary = { 0 };
	struct ep_reportopt ropt = { 0 };
	struct ep_report_ctx ctx = { 0 };
	struct ep_err err = { 0 };
	const char *output = NULL, *outwhat[1] = { "-o" };
	char *probe = NULL, *current_name = NULL, host[256] = "";
	size_t counts[EP_NSTATUS];
	int c, v, rc = EP_EXIT_OK, quiet = 0, taken = 0;
	FILE *say;

	ep_probeopt_init(&popt, EP_PROBE_RUNS_DEFAULT);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:qh", longopts, NULL)) != -1) {
		if (ep_progress_opt(c))
			continue;
		if (ep_capture_opt(&copts, c, optarg) ||
		    ep_report_opt(&ropt, c, optarg))
			continue;
		if ((v = ep_probe_opt(&popt, c, optarg, &err)) != 0) {
			if (v < 0) {
				rc = ep_cmd_usage_error(self, "%s", err.msg);
				goto done;
			}
			continue;
		}
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(self->usage, stdout);
			goto done;
		default:
			rc = ep_cmd_bad_option(self, c, longopts, argv);
			goto done;
		}
	}
	if ((rc = ep_cmd_operands(self, argc, argv, 0)) != 0)
		goto done;

	if (ep_reports_check(&ropt, &err) < 0 ||
	    ep_cmd_outputs_check(&taken, &ropt, &output, outwhat, 1,
	    &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (ep_probe_find(&probe, popt.given, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	po->probe = probe;
	/* The GPU backends must load the very files capture hashed. */
	if (strcmp(po->backend, "cpu") != 0 &&
	    ep_capture(&captured, &copts, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	facts = ep_manifest_new();
	ep_capture_meta(facts, copts.node);
	if (ep_probe_all(&rs, facts, &summary, po, captured, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	ep_results_count(&rs, counts);
	if (output != NULL && ep_manifest_write(facts, output, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	ep_hostname(host, sizeof host);
	ctx.command = "probe";
	current_name = xasprintf("this machine (%s)", host);
	ctx.current_name = current_name;
	ctx.current = facts;
	ctx.generated = time(NULL);
	ctx.own_summary = 1;
	if ((rc = ep_reports_finish(&ctx, &rs, &ropt, quiet, &err)) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	/* Facts or a report on standard output keep it to themselves. */
	say = taken || ep_reports_to_stdout(&ropt) ? stderr : stdout;
	print_summary(say, po, &summary, counts, quiet);
	if (fflush(stdout) == EOF) {
		ep_err_set(&err, EP_E_IO, "standard output: write failed");
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
done:
	free(current_name);
	free(probe);
	ep_manifest_free(captured);
	ep_manifest_free(facts);
	ep_results_clear(&rs);
	ep_strv_clear(&summary);
	ep_capture_opts_clear(&copts);
	return rc;
}
