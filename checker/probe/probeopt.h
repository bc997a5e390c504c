/*
 * probeopt.h: the reference-workload options that check, bless and
 * `envparity probe` share (--runs, --backend, --timeout, --require-gpu,
 * --probe, --gpus, --jobs), used like capture.h's collector options, and
 * running the probe into a manifest.
 */
#ifndef EP_PROBEOPT_H
#define EP_PROBEOPT_H

#include <getopt.h>

#include "results.h"
#include "manifest.h"
#include "probe.h"

enum {
	EP_OPT_RUNS = 0x500,
	EP_OPT_BACKEND,
	EP_OPT_TIMEOUT,
	EP_OPT_REQUIRE_GPU,
	EP_OPT_PROBE,
	EP_OPT_GPUS,
	EP_OPT_JOBS,
};
#define EP_PROBE_LONGOPTS						\
	{ "runs", required_argument, NULL, EP_OPT_RUNS },		\
	{ "backend", required_argument, NULL, EP_OPT_BACKEND },		\
	{ "timeout", required_argument, NULL, EP_OPT_TIMEOUT },		\
	{ "require-gpu", no_argument, NULL, EP_OPT_REQUIRE_GPU },	\
	{ "probe", required_argument, NULL, EP_OPT_PROBE },		\
	{ "gpus", required_argument, NULL, EP_OPT_GPUS },		\
	{ "jobs", required_argument, NULL, EP_OPT_JOBS }

#define EP_PROBE_HELP							\
"Reference workload (envparity-probe; not run unless --runs is given):\n" \
"  --runs N             run the probe N times per backend, each a fresh\n" \
"                       process: runs must be bit-identical, known answers\n" \
"                       exact, and output hashes equal the golden's within\n" \
"                       one determinism domain\n"			\
"  --backend B          cpu, cuda, cublas, cudnn or all (default all)\n" \
"  --timeout S          kill a run after S seconds (default 60)\n"	\
"  --require-gpu        a GPU backend that cannot run fails, not skips\n" \
"  --probe PATH         the probe binary (default: beside envparity)\n" \
EP_PROBE_GPUS_HELP							\
EP_PROBE_JOBS_HELP

/* --gpus and --jobs, shared with `envparity probe`. */
#define EP_PROBE_GPUS_HELP						\
"  --gpus LIST          the GPUs the GPU backends run on, by index among\n" \
"                       the visible ones (0,3), one process each, all at\n" \
"                       once; default every visible GPU (gpu.count, or\n" \
"                       the entries of a CUDA_VISIBLE_DEVICES already set)\n"
#define EP_PROBE_JOBS_HELP						\
"  --jobs N             at most N probe processes at once (default: the\n" \
"                       CPUs this job may use, at least one per GPU):\n" \
"                       run 1 of every backend on every GPU together,\n" \
"                       then the other runs together; 1 runs one at a time\n"

struct ep_probeopt {
	struct ep_probe_opts po;	/* runs 0: not asked for; jobs 0:
					   the default */
	const char *given;		/* --probe, or NULL */
};

/* Set the defaults (backend all, the default timeout, runs as given: 0
 * for check and bless, where the probe runs only when asked). */
void ep_probeopt_init(struct ep_probeopt *o, unsigned runs);

/* Apply one option (c a getopt_long code): 1 if it was one, 0 if not, -1
 * with err (EP_E_INPUT) naming the option when its value is bad. */
int ep_probe_opt(struct ep_probeopt *o, int c, const char *arg,
    struct ep_err *err);

/* With runs asked for, run the probe: its results to rs (waivable from
 * policy when not NULL) and its facts into m, whose libraries the GPU
 * backends load.  Without, say in m's meta.unavailable.probe that it was
 * not run, so a golden's probe facts show as skips, not drift.  Fails
 * (EP_E_IO) only when the probe cannot be found or started. */
int ep_probeopt_run(struct ep_results *rs, struct ep_manifest *m,
    struct ep_probeopt *o, struct ep_err *err);

/* Keep the probe's findings (rs's results that are not passes: runs that
 * disagree, a wrong known answer, a crash, a skipped backend) in m's
 * meta.probe = {"runs": N, "findings": [{"key", "status", "message"}]},
 * at most EP_WARNINGS_MAX of them, so that a capture read elsewhere
 * (fleet) still says what the probe found on its node. */
void ep_probe_record_findings(struct ep_manifest *m,
    const struct ep_results *rs, int runs);

#endif
