/*
 * probeopt.h: the reference-workload options that check, bless and
 * `envparity probe` share (--runs, --backend, --timeout, --require-gpu,
 * --probe, --gpus, --jobs: parsed by the command layer, optgroups.c, into
 * a struct ep_probeopt), and running the probe into a manifest.
 */
#ifndef EP_PROBEOPT_H
#define EP_PROBEOPT_H

#include "policy.h"
#include "results.h"
#include "manifest.h"
#include "probe.h"

struct ep_probeopt {
	struct ep_probe_opts po;	/* runs 0: not asked for; jobs 0:
					   the default */
	const char *given;		/* --probe, or NULL */
	struct ep_strv workloads;	/* --workload NAME=COMMAND, checked
					   (workload.h); ep_probeopt_clear */
};

void ep_probeopt_clear(struct ep_probeopt *o);

/* Add the workloads policy asks for (ep_policy_workloads) to o's, a NAME
 * given with --workload left as given there.  From the implicit default
 * store (store_named 0: .envparity/store in the current directory, which
 * the checkout under test can write) none is run: a skip result
 * workload.NAME says so and how to run it.  Never fails. */
void ep_probeopt_policy(struct ep_probeopt *o, struct ep_results *rs,
    const struct ep_policy *policy, int store_named);

/* Set the defaults (backend all, the default timeout, runs as given: 0
 * for check and bless, where the probe runs only when asked). */
void ep_probeopt_init(struct ep_probeopt *o, unsigned runs);

/* With runs asked for, run the probe: its results to rs (waivable from
 * policy when not NULL) and its facts into m, whose libraries the GPU
 * backends load.  Without, say in m's meta.unavailable.probe that it was
 * not run, so a golden's probe facts show as skips, not drift.  Then the
 * workloads, each --runs times (EP_WORKLOAD_RUNS_DEFAULT without
 * --runs), their results to rs and facts to m (workload.h).  Fails
 * (EP_E_IO) only when the probe cannot be found or started, or a
 * workload's helper cannot be. */
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
