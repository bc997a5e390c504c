/*
 * cmd_check.c: `envparity check`: capture this machine, compare it with
 * the profile's golden manifest under its policy, run the checks that need
 * no golden, write the reports asked for, print a short summary.
 *
 * Order matters for what a user sees on bad input (resolve.h's steps
 * keep it): where the signing key comes from (not the key:
 * attestopt.h), then the output paths (none may be the key's file) are
 * checked, the store is read and the policy parsed
 * before anything is captured, so a malformed policy or a key others can
 * read stops the run at once (exit 2) and an unreachable store costs no
 * work (exit 3).  The store's token is wiped once the golden is read.
 * After the work the key is read and signs before anything is written (a
 * key that cannot sign leaves no output); then, in this order: the
 * manifest checked (-o), the statement and the attestation (whatever the
 * verdict), the reports; the first that cannot be written ends the run
 * (exit 3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attestopt.h"
#include "capture.h"
#include "cmd.h"
#include "results.h"
#include "compare.h"
#include "checks.h"
#include "opt.h"
#include "policy.h"
#include "probeopt.h"
#include "report.h"
#include "resolve.h"
#include "storeopt.h"
#include "errors.h"
#include "xalloc.h"
#include "hostname.h"

static int cmd_check_exec(const struct ep_cmd *, int, char **);

/* What the command line says. */
struct check_opts {
	struct ep_capture_opts copts;
	struct ep_storeopt sopt;
	struct ep_reportopt ropt;
	struct ep_probeopt popt;
	struct ep_attestopt aopt;
	const char *output;
	int quiet;
	int expiry;
};

#define CO struct check_opts
static const struct ep_opt check_opts[] = {
	EP_OPT_STR("output", 'o', "FILE", CO, output,
	    "keep the manifest that was checked (probe facts\n"
	    "included), written atomically; - for standard\n"
	    "output (the summary then goes to standard error)"),
	EP_OPT_FLAG("quiet", 'q', CO, quiet,
	    "print only the verdict line and the counts"),
	EP_OPT_FN("expiry-warning", 0, "DAYS", CO, expiry, ep_og_expiry,
	    "warn of a waiver that expires within DAYS days\n"
	    "(default 14; 0: only on its last day)"),
	EP_OPT_GROUP_NOSTRUCT(ep_og_progress),
	EP_OPT_HELP,
	EP_OPT_GROUP(ep_og_attest, CO, aopt, NULL),
	EP_OPT_GROUP(ep_og_probe, CO, popt, NULL),
	EP_OPT_GROUP(ep_og_store, CO, sopt, NULL),
	EP_OPT_GROUP(ep_og_report, CO, ropt, NULL),
	EP_OPT_GROUP(ep_og_capture, CO, copts, NULL),
	EP_OPT_GROUP(ep_og_image, CO, copts.img, NULL),
	EP_OPT_END,
};
#undef CO

const struct ep_cmd ep_cmd_check = {
	.name = "check",
	.summary = "compare this machine with the golden manifest",
	.usage =
"usage: envparity check [store options] [report options] [collector options]\n"
"                       [-o FILE] [--attest FILE --sign-key KEY.pem]\n"
"                       [--statement FILE]\n"
"\n"
"Capture this machine, compare it with the profile's golden manifest under\n"
"the profile's policy (<profile>/policy.json in the store, then the\n"
"policy.json of each folder above it and of the store's root, shared by\n"
"the profiles under them, then the defaults; the nearest wins: see\n"
"'envparity policy'), and run the checks that need no golden: the CUDA\n"
"runtime against the driver, libraries built for a newer cudart, mixed\n"
"cuDNN sub-libraries, determinism settings that defeat each other.\n"
"\n",
	.opts = check_opts,
	.footer =
"In CI (CI, GITHUB_ACTIONS or GITLAB_CI set) a store must be named: the\n"
"default .envparity/store is not used there.\n"
"\n"
"Exit codes: 0 parity (waived findings included), 1 drift or a failed\n"
"check (a comparison that compared no golden fact included), 2 usage,\n"
"malformed input or no golden manifest, 3 could not run (store\n"
"unreachable, I/O error).\n",
	.in_order = 1,
	.exec = cmd_check_exec,
};

/* The work, once the golden is read: capture this machine (the images
 * the golden recorded resolved again, --image or not: collect_image.c),
 * run the probe and the workloads, the policy's with --workload's (their
 * results need no golden: run-to-run identity and the known answers;
 * their hashes join the facts compared), compare, run
 * the checks that need no golden, review the waivers. */
static int
check_judge(struct ep_results *rs, struct ep_manifest **current,
    struct check_opts *o, const struct ep_resolved *r, time_t now,
    struct ep_err *err)
{
	size_t from;

	o->copts.golden = r->golden;
	o->copts.golden_name = r->pname;
	o->copts.policy = r->policy;
	o->copts.policy_capture = r->so.spec != NULL;
	if (ep_capture(current, &o->copts, err) < 0)
		return -1;
	from = rs->n;
	ep_probeopt_policy(&o->popt, rs, r->policy, r->so.spec != NULL);
	if (ep_probeopt_run(rs, *current, &o->popt, err) < 0)
		return -1;
	ep_results_waive(rs, from, r->policy, now);
	ep_compare(rs, r->golden, *current, r->policy, now);
	ep_checks_run(rs, *current, r->policy, now);
	ep_storeopt_history(rs, &r->info, r->policy, now);
	ep_waivers_review(rs, r->policy, now, o->expiry);
	ep_results_capture_warnings(rs, *current);
	return 0;
}

/* The proof of what was checked, signed before anything is written (a
 * key that cannot sign leaves no output); then what was checked and its
 * proof, both whatever the verdict, before the reports (every result
 * counted). */
static int
check_record(struct check_opts *o, struct ep_resolved *r,
    const struct ep_results *rs, const struct ep_manifest *current,
    const char *host, time_t now, struct ep_err *err)
{
	struct ep_attest_in ain = { 0 };

	ain.command = "check";
	ain.rs = rs;
	ain.current = current;
	ep_resolved_attest_in(&ain, r);
	ain.host = host;
	ain.time = now;
	if (ep_attestopt_sign(&o->aopt, &ain, err) < 0 ||
	    (o->output != NULL && ep_manifest_write(current, o->output,
	    err) < 0) ||
	    ep_attestopt_write(&o->aopt, err) < 0)
		return -1;
	return 0;
}

static int
cmd_check_exec(const struct ep_cmd *self, int argc, char **argv)
{
	struct check_opts o = { .expiry = EP_EXPIRY_WARNING_DAYS };
	const char *outwhat[3] = { "-o", "--attest", "--statement" };
	const char *outs[3];
	struct ep_need need = {
		.what = EP_NEED_ATTEST | EP_NEED_OUTPUTS | EP_NEED_STORE |
		    EP_NEED_NAMED | EP_NEED_GOLDEN,
		.sopt = &o.sopt, .aopt = &o.aopt, .ropt = &o.ropt,
		.outs = outs, .outwhat = outwhat, .nouts = 3,
		.bless_what = "this machine",
	};
	struct ep_cmd_args args;
	struct ep_resolved r = { 0 };
	struct ep_report_ctx ctx = { 0 };
	struct ep_results rs = { 0 };
	struct ep_manifest *current = NULL;
	struct ep_err err = { 0 };
	char *current_name = NULL, host[256] = "";
	int rc;
	time_t now = time(NULL);

	ep_probeopt_init(&o.popt, 0);
	ep_imgopt_init(&o.copts.img);
	if (ep_opt_parse(&args, &rc, self, &o, argc, argv) < 0)
		goto done;
	if (ep_attestopt_unpaired(&o.aopt) != NULL) {
		rc = ep_cmd_usage_error(self, "%s",
		    ep_attestopt_unpaired(&o.aopt));
		goto done;
	}
	outs[0] = o.output;
	outs[1] = o.aopt.file;
	outs[2] = o.aopt.statement;
	if (ep_resolve_outputs(&r, &need, &err) < 0 ||
	    ep_resolve_store(&r, &need, &err) < 0 ||
	    ep_resolve_read(&r, &need, &err) < 0 ||
	    check_judge(&rs, &current, &o, &r, now, &err) < 0) {
		rc = ep_resolve_fail(self, &r, &err);
		goto done;
	}
	/* Which machine, in a report read far from it (the name is shown
	 * cleaned, as any value is). */
	ep_hostname(host, sizeof host);
	if (check_record(&o, &r, &rs, current, host, now, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	ctx.command = "check";
	ep_resolved_report_ctx(&ctx, &r);
	current_name = xasprintf("this machine (%s)", host);
	ctx.current_name = current_name;
	ctx.current = current;
	ctx.generated = now;
	ctx.stdout_taken = r.stdout_taken;
	if ((rc = ep_reports_finish(&ctx, &rs, &o.ropt, o.quiet, &err)) < 0)
		rc = ep_cmd_fail(self, &err);
done:
	free(current_name);
	ep_attestopt_clear(&o.aopt);
	ep_resolved_clear(&r);
	ep_results_clear(&rs);
	ep_manifest_free(current);
	ep_capture_opts_clear(&o.copts);
	ep_probeopt_clear(&o.popt);
	return rc;
}
