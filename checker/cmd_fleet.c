/*
 * cmd_fleet.c: `envparity fleet DIR|FILE...`: read the node manifests a
 * Slurm job (ci/slurm/, through srun's channel) or a Kubernetes Job
 * (ci/kubernetes/, signed on a shared volume) produced, each bound to its
 * node as the options say (--bind-filenames, --node-keys with
 * attest/nodesig.c's opener, --max-age), compare each with the golden
 * when a store is named, find the odd node out for every fact, compare
 * probe hashes node against node within a determinism domain, and fail
 * for the nodes expected that did not report.  envparity schedules
 * nothing: the cluster's scheduler has run the captures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attestopt.h"
#include "cmd.h"
#include "results.h"
#include "fleet.h"
#include "hostlist.h"
#include "nodesig.h"
#include "opt.h"
#include "policy.h"
#include "report.h"
#include "resolve.h"
#include "storeopt.h"
#include "errors.h"
#include "files.h"
#include "strv.h"
#include "xalloc.h"
#include "hostname.h"

static int cmd_fleet_exec(const struct ep_cmd *, int, char **);

/* --expect expands to at most this many names. */
#define EXPECT_MAX	EP_FLEET_NODES_MAX

/* What the command line says. */
struct fleet_opts {
	struct ep_storeopt sopt;
	struct ep_reportopt ropt;
	struct ep_attestopt aopt;
	struct ep_fleet_opts fo;	/* the node binding and age */
	const char *expect;
	const char *policy;
	const char *nodekeys;
	int from_slurm;
	int quiet;
	int expiry;
};

static int
fleet_max_age(void *field, const char *arg, struct ep_err *err)
{
	struct ep_fleet_opts *fo = field;

	if (ep_attest_duration(&fo->max_age, arg, err) < 0)
		return -1;
	fo->max_age_text = arg;
	return 0;
}

#define FO struct fleet_opts
static const struct ep_opt fleet_opts[] = {
	EP_OPT_STR("expect", 0, "HOSTLIST", FO, expect,
	    "the nodes that must report, in Slurm's hostlist\n"
	    "syntax (n[001-050],gpu7)"),
	EP_OPT_FLAG("expect-from-slurm", 0, FO, from_slurm,
	    "the nodes of this Slurm job ($SLURM_JOB_NODELIST)"),
	EP_OPT_FLAG("bind-filenames", 0, FO, fo.bind_names,
	    "each file NODE.json is node NODE's, as whoever wrote\n"
	    "it says (the scheduler's channel: ci/slurm/); a\n"
	    "manifest whose meta.node names another node is an\n"
	    "error of NODE, which counts as not reported"),
	EP_OPT_STR("node-keys", 0, "DIR", FO, nodekeys,
	    "each file NODE.json must be NODE's manifest signed\n"
	    "by NODE's key, DIR/NODE.pub (capture --sign-key);\n"
	    "an unsigned, tampered or other node's manifest is\n"
	    "an error of NODE (implies --bind-filenames)"),
	EP_OPT_FN("max-age", 0, "DURATION", FO, fo, fleet_max_age,
	    "a manifest captured longer ago (meta.captured_at;\n"
	    "30m, 6h, 1d) is an error of its node"),
	EP_OPT_STR("policy", 0, "FILE", FO, policy,
	    "the policy to judge by when no store is named\n"
	    "(default: the built-in defaults)"),
	EP_OPT_FN("expiry-warning", 0, "DAYS", FO, expiry, ep_og_expiry,
	    "warn of a waiver that expires within DAYS days"),
	EP_OPT_FLAG("quiet", 'q', FO, quiet,
	    "print only the verdict line and the counts"),
	EP_OPT_GROUP_NOSTRUCT(ep_og_progress),
	EP_OPT_HELP,
	EP_OPT_GROUP(ep_og_store, FO, sopt,
	    "fleet reads a store only when one is named: .envparity/store is not\n"
	    "its default.  Its JSON report follows\n"
	    "share/envparity/schemas/fleet.schema.json."),
	EP_OPT_GROUP(ep_og_report, FO, ropt, NULL),
	EP_OPT_GROUP(ep_og_attest, FO, aopt,
	    "A fleet's attestation has one subject per node read (facts:NODE, the\n"
	    "canonical digest of its facts), and the golden and policy."),
	EP_OPT_END,
};
#undef FO

const struct ep_cmd ep_cmd_fleet = {
	.name = "fleet",
	.summary = "compare many nodes' manifests: golden, odd node out, probe",
	.usage =
"usage: envparity fleet DIR|FILE... [store options] [--expect HOSTLIST |\n"
"                       --expect-from-slurm] [--bind-filenames |\n"
"                       --node-keys DIR] [--max-age DURATION]\n"
"                       [report options] [--prom FILE]\n"
"                       [--attest FILE --sign-key KEY.pem] [--statement FILE]\n"
"\n"
"Read node manifests (each DIR's *.json, from `envparity capture --node\n"
"NAME -o DIR/NAME.json` on every node) and judge the fleet:\n"
"  - each node against the profile's golden, when a store is named\n"
"    (--store or ENVPARITY_STORE): the comparison, policy and waivers\n"
"    of `check`, and the checks that need no golden;\n"
"  - every fact against the fleet's majority (fleet.odd.<key>): the\n"
"    nodes that differ, or a tie; the policy's ignore rules apply, and\n"
"    meta (host name, node, time) and os.kernel are per host;\n"
"  - probe hashes node against node within one determinism domain, with\n"
"    the facts that set the differing nodes apart;\n"
"  - the nodes expected that did not report.\n"
"A node is named by its manifest's meta.node, else by its file name;\n"
"any writer of a shared directory can so speak for any node, unless the\n"
"files are bound to their nodes (--bind-filenames, --node-keys).\n"
"A manifest that cannot be read is an error for that node only.\n"
"\n",
	.opts = fleet_opts,
	.footer =
"Exit codes: 0 parity, 1 drift, an odd node, a node missing or\n"
"unreadable, 2 usage or malformed input (a bad hostlist, an input that\n"
"does not exist, a directory without manifests, a malformed policy or\n"
"golden), 3 could not run (store unreachable, I/O error).\n",
	.max_operands = -1,
	.exec = cmd_fleet_exec,
};

/* The command line's usage errors beyond the parser's, in the order a
 * user meets them: no input, an attestation option without its pair,
 * node keys that cannot be read, the nodes expected (--expect or the
 * Slurm job's); EP_EXIT_USAGE printed, or 0. */
static int
fleet_usage(const struct ep_cmd *self, struct fleet_opts *o, int ninputs,
    struct ep_nodekeys **nodekeys, struct ep_strv *expect)
{
	struct ep_err err = { 0 };

	if (ninputs == 0)
		return ep_cmd_usage_error(self, "name the node manifests: a "
		    "directory or files");
	if (ep_attestopt_unpaired(&o->aopt) != NULL)
		return ep_cmd_usage_error(self, "%s",
		    ep_attestopt_unpaired(&o->aopt));
	if (o->nodekeys != NULL) {
		if (ep_nodekeys_open(nodekeys, o->nodekeys, &err) < 0)
			return ep_cmd_usage_error(self, "%s", err.msg);
		o->fo.open_signed = ep_nodesig_open;
		o->fo.open_arg = *nodekeys;
	}
	if (o->expect != NULL && o->from_slurm)
		return ep_cmd_usage_error(self, "--expect and "
		    "--expect-from-slurm exclude each other");
	if (o->from_slurm) {
		o->expect = getenv("SLURM_JOB_NODELIST");
		if (o->expect == NULL || *o->expect == '\0')
			return ep_cmd_usage_error(self, "--expect-from-slurm: "
			    "SLURM_JOB_NODELIST is not set (not inside a Slurm "
			    "job?)");
	}
	if (o->expect != NULL && ep_hostlist_expand(expect, o->expect,
	    o->from_slurm ? "SLURM_JOB_NODELIST" : "--expect", EXPECT_MAX,
	    &err) < 0)
		return ep_cmd_usage_error(self, "%s", err.msg);
	return 0;
}

/* Without a store: --policy FILE, read here as ep_policy_load would, to
 * keep the text the attestation names; else the defaults. */
static int
fleet_policy_file(struct ep_policy **policy, char **text,
    const char *file, struct ep_err *err)
{
	size_t len;

	if (file == NULL) {
		*policy = ep_policy_default();
		return 0;
	}
	if (ep_read_file(text, &len, file, EP_POLICY_MAX, err) < 0)
		return -1;
	return ep_policy_parse(policy, *text, len, file, err);
}

/* The proof of the fleet's verdict, whatever it is, before the reports
 * (every result counted). */
static int
fleet_record(struct fleet_opts *o, struct ep_resolved *r,
    const struct ep_results *rs, const struct ep_fleet_view *view,
    const char *ptext, time_t now, struct ep_err *err)
{
	struct ep_attest_in ain = { 0 };
	char host[256] = "";

	ep_hostname(host, sizeof host);
	ain.command = "fleet";
	ain.rs = rs;
	ain.fleet = view;
	if (r->golden != NULL)
		ep_resolved_attest_in(&ain, r);
	else {
		ain.policy_name = o->policy;
		ain.policy_text = ptext;
	}
	ain.host = host;
	ain.time = now;
	if (ep_attestopt_sign(&o->aopt, &ain, err) < 0 ||
	    ep_attestopt_write(&o->aopt, err) < 0)
		return -1;
	return 0;
}

/* Judge the fleet: every node, odd nodes out, probe hashes, the nodes
 * expected; a store whose branch was rewritten says so, as check does. */
static int
fleet_judge(struct ep_results *rs, struct ep_fleet_view **view,
    struct fleet_opts *o, const struct ep_cmd_args *args,
    const struct ep_strv *expect, const struct ep_resolved *r, time_t now,
    struct ep_err *err)
{
	o->fo.inputs = (const char *const *)args->v;
	o->fo.ninputs = (size_t)args->n;
	if (o->expect != NULL) {
		o->fo.expect = (const char *const *)expect->v;
		o->fo.nexpect = expect->n;
		o->fo.expect_text = o->expect;
	}
	o->fo.golden = r->golden;
	o->fo.policy = r->policy;
	o->fo.now = now;
	o->fo.expiry_days = o->expiry;
	if (ep_fleet_run(rs, view, &o->fo, err) < 0)
		return -1;
	if (r->golden != NULL)
		ep_storeopt_history(rs, &r->info, r->policy, now);
	return 0;
}

static int
cmd_fleet_exec(const struct ep_cmd *self, int argc, char **argv)
{
	struct fleet_opts o = { .expiry = EP_EXPIRY_WARNING_DAYS };
	const char *outwhat[2] = { "--attest", "--statement" };
	const char *outs[2];
	struct ep_need need = {
		.what = EP_NEED_ATTEST | EP_NEED_OUTPUTS | EP_NEED_STORE |
		    EP_NEED_GOLDEN,
		.sopt = &o.sopt, .aopt = &o.aopt, .ropt = &o.ropt,
		.outs = outs, .outwhat = outwhat, .nouts = 2,
		.bless_what = "a node's manifest", .bless_after = " NODE.json",
	};
	struct ep_cmd_args args;
	struct ep_resolved r = { 0 };
	struct ep_report_ctx ctx = { 0 };
	struct ep_results rs = { 0 };
	struct ep_strv expect = { 0 };
	struct ep_fleet_view *view = NULL;
	struct ep_nodekeys *nodekeys = NULL;
	struct ep_err err = { 0 };
	char *ptext = NULL;
	int rc;
	time_t now = time(NULL);

	if (ep_opt_parse(&args, &rc, self, &o, argc, argv) < 0 ||
	    (rc = fleet_usage(self, &o, args.n, &nodekeys, &expect)) != 0)
		goto done;
	/* Where the signing key comes from (read after the work), then an
	 * output path that cannot take its file, the key's own among them,
	 * fail before the work. */
	outs[0] = o.aopt.file;
	outs[1] = o.aopt.statement;
	if (ep_resolve_outputs(&r, &need, &err) < 0 ||
	    ep_resolve_store(&r, &need, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (r.so.spec != NULL && o.policy != NULL) {
		rc = ep_cmd_usage_error(self, "--policy is for a fleet without "
		    "a store: the store's profile has its own policy");
		goto done;
	}
	if ((r.so.spec != NULL ? ep_resolve_read(&r, &need, &err) :
	    fleet_policy_file(&r.policy, &ptext, o.policy, &err)) < 0 ||
	    fleet_judge(&rs, &view, &o, &args, &expect, &r, now, &err) < 0 ||
	    fleet_record(&o, &r, &rs, view, ptext, now, &err) < 0) {
		rc = ep_resolve_fail(self, &r, &err);
		goto done;
	}
	ctx.command = "fleet";
	if (r.golden != NULL)
		ep_resolved_report_ctx(&ctx, &r);
	else
		ctx.golden_name = "its own majority (no store named)";
	ctx.current_name = "the fleet";
	ctx.fleet = view;
	ctx.generated = now;
	ctx.stdout_taken = r.stdout_taken;
	if ((rc = ep_reports_finish(&ctx, &rs, &o.ropt, o.quiet, &err)) < 0)
		rc = ep_cmd_fail(self, &err);
done:
	ep_nodekeys_free(nodekeys);
	ep_attestopt_clear(&o.aopt);
	free(ptext);
	ep_resolved_clear(&r);
	ep_strv_clear(&expect);
	ep_results_clear(&rs);
	ep_fleet_view_free(view);
	return rc;
}
