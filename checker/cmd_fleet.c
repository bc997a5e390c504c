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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attestopt.h"
#include "cmd.h"
#include "progress.h"
#include "results.h"
#include "fleet.h"
#include "hostlist.h"
#include "nodesig.h"
#include "policy.h"
#include "report.h"
#include "storeopt.h"
#include "errors.h"
#include "files.h"
#include "strv.h"
#include "xalloc.h"
#include "hostname.h"

static int cmd_fleet_exec(const struct ep_cmd *, int, char **);

enum {
	OPT_EXPECT = 0x600,
	OPT_EXPECT_SLURM,
	OPT_POLICY,
	OPT_FLEET_EXPIRY,
	OPT_BIND_FILENAMES,
	OPT_NODE_KEYS,
	OPT_MAX_AGE,
};

/* --expect expands to at most this many names. */
#define EXPECT_MAX	EP_FLEET_NODES_MAX

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
"\n"
"  --expect HOSTLIST    the nodes that must report, in Slurm's hostlist\n"
"                       syntax (n[001-050],gpu7)\n"
"  --expect-from-slurm  the nodes of this Slurm job ($SLURM_JOB_NODELIST)\n"
"  --bind-filenames     each file NODE.json is node NODE's, as whoever wrote\n"
"                       it says (the scheduler's channel: ci/slurm/); a\n"
"                       manifest whose meta.node names another node is an\n"
"                       error of NODE, which counts as not reported\n"
"  --node-keys DIR      each file NODE.json must be NODE's manifest signed\n"
"                       by NODE's key, DIR/NODE.pub (capture --sign-key);\n"
"                       an unsigned, tampered or other node's manifest is\n"
"                       an error of NODE (implies --bind-filenames)\n"
"  --max-age DURATION   a manifest captured longer ago (meta.captured_at;\n"
"                       30m, 6h, 1d) is an error of its node\n"
"  --policy FILE        the policy to judge by when no store is named\n"
"                       (default: the built-in defaults)\n"
"  --expiry-warning DAYS  warn of a waiver that expires within DAYS days\n"
"  -q, --quiet          print only the verdict line and the counts\n"
EP_PROGRESS_HELP
"  -h, --help           show this help\n"
"\n"
EP_STORE_HELP
"fleet reads a store only when one is named: .envparity/store is not\n"
"its default.  Its JSON report follows manifests/fleet.schema.json.\n"
"\n"
EP_REPORT_HELP
"\n"
EP_ATTEST_HELP
"A fleet's attestation has one subject per node read (facts:NODE, the\n"
"canonical digest of its facts), and the golden and policy.\n"
"\n"
"Exit codes: 0 parity, 1 drift, an odd node, a node missing or\n"
"unreadable, 2 usage or malformed input (a bad hostlist, an input that\n"
"does not exist, a directory without manifests, a malformed policy or\n"
"golden), 3 could not run (store unreachable, I/O error).\n",
	.exec = cmd_fleet_exec,
};

static int
cmd_fleet_exec(const struct ep_cmd *self, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "expect", required_argument, NULL, OPT_EXPECT },
		{ "expect-from-slurm", no_argument, NULL, OPT_EXPECT_SLURM },
		{ "policy", required_argument, NULL, OPT_POLICY },
		{ "expiry-warning", required_argument, NULL, OPT_FLEET_EXPIRY },
		{ "bind-filenames", no_argument, NULL, OPT_BIND_FILENAMES },
		{ "node-keys", required_argument, NULL, OPT_NODE_KEYS },
		{ "max-age", required_argument, NULL, OPT_MAX_AGE },
		EP_STORE_LONGOPTS,
		EP_REPORT_LONGOPTS,
		EP_ATTEST_LONGOPTS,
		EP_PROGRESS_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct ep_storeopt sopt = { 0 };
	struct ep_store_opts so = { 0 };
	struct ep_reportopt ropt = { 0 };
	struct ep_store_info info = { 0 };
	struct ep_report_ctx ctx = { 0 };
	struct ep_fleet_opts fo = { 0 };
	struct ep_results rs = { 0 };
	struct ep_strv expect = { 0 };
	struct ep_fleet_view *view = NULL;
	struct ep_nodekeys *nodekeys = NULL;
	const char *nodekeys_dir = NULL;
	struct ep_attestopt aopt = { 0 };
	struct ep_attest_in ain = { 0 };
	const char *outs[2], *outwhat[2] = { "--attest", "--statement" };
	char host[256] = "", *gname = NULL, *pfile = NULL;
	size_t plen;
	struct ep_store *store = NULL;
	struct ep_manifest *golden = NULL;
	struct ep_policy *policy = NULL;
	struct ep_err err = { 0 };
	const char *profile = NULL, *expect_text = NULL, *policy_file = NULL;
	char *mtext = NULL, *ptext = NULL, *name = NULL, *pname = NULL;
	char *hint, *where = NULL;
	struct ep_store_policies pol = { 0 };
	const char *more_texts[EP_PROFILE_MAX_DEPTH + 1];
	const char *more_names[EP_PROFILE_MAX_DEPTH + 1];
	int c, rc = EP_EXIT_NORUN, from_slurm = 0, quiet = 0, taken = 0;
	int expiry = EP_EXPIRY_WARNING_DAYS;
	time_t now = time(NULL);

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		if (ep_progress_opt(c))
			continue;
		if (ep_store_opt(&sopt, c, optarg) ||
		    ep_report_opt(&ropt, c, optarg) ||
		    ep_attest_opt(&aopt, c, optarg))
			continue;
		switch (c) {
		case OPT_EXPECT:
			expect_text = optarg;
			break;
		case OPT_EXPECT_SLURM:
			from_slurm = 1;
			break;
		case OPT_POLICY:
			policy_file = optarg;
			break;
		case OPT_FLEET_EXPIRY:
			if (ep_expiry_days(&expiry, optarg, &err) < 0) {
				rc = ep_cmd_usage_error(self, "%s", err.msg);
				goto done;
			}
			break;
		case OPT_BIND_FILENAMES:
			fo.bind_names = 1;
			break;
		case OPT_NODE_KEYS:
			nodekeys_dir = optarg;
			break;
		case OPT_MAX_AGE:
			if (ep_attest_duration(&fo.max_age, optarg, &err) < 0) {
				rc = ep_cmd_usage_error(self, "%s", err.msg);
				goto done;
			}
			fo.max_age_text = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(self->usage, stdout);
			rc = EP_EXIT_OK;
			goto done;
		default:
			rc = ep_cmd_bad_option(self, c, longopts, argv);
			goto done;
		}
	}
	if (optind >= argc) {
		rc = ep_cmd_usage_error(self, "name the node manifests: a "
		    "directory or files");
		goto done;
	}
	if (ep_attestopt_unpaired(&aopt) != NULL) {
		rc = ep_cmd_usage_error(self, "%s",
		    ep_attestopt_unpaired(&aopt));
		goto done;
	}
	if (nodekeys_dir != NULL) {
		if (ep_nodekeys_open(&nodekeys, nodekeys_dir, &err) < 0) {
			rc = ep_cmd_usage_error(self, "%s", err.msg);
			goto done;
		}
		fo.open_signed = ep_nodesig_open;
		fo.open_arg = nodekeys;
	}
	if (expect_text != NULL && from_slurm) {
		rc = ep_cmd_usage_error(self, "--expect and --expect-from-slurm "
		    "exclude each other");
		goto done;
	}
	if (from_slurm) {
		expect_text = getenv("SLURM_JOB_NODELIST");
		if (expect_text == NULL || *expect_text == '\0') {
			rc = ep_cmd_usage_error(self, "--expect-from-slurm: "
			    "SLURM_JOB_NODELIST is not set (not inside a Slurm "
			    "job?)");
			goto done;
		}
	}
	if (expect_text != NULL && ep_hostlist_expand(&expect, expect_text,
	    from_slurm ? "SLURM_JOB_NODELIST" : "--expect", EXPECT_MAX,
	    &err) < 0) {
		rc = ep_cmd_usage_error(self, "%s", err.msg);
		goto done;
	}
	/* Where the signing key comes from (read after the work), then an
	 * output path that cannot take its file, the key's own among them,
	 * fail before the work. */
	outs[0] = aopt.file;
	outs[1] = aopt.statement;
	if (ep_attestopt_prepare(&aopt, &err) < 0 ||
	    ep_reports_check(&ropt, &err) < 0 ||
	    ep_cmd_outputs_check(&taken, &ropt, outs, outwhat, 2, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (ep_storeopt_resolve(&so, &profile, &sopt, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (so.spec != NULL && policy_file != NULL) {
		rc = ep_cmd_usage_error(self, "--policy is for a fleet without "
		    "a store: the store's profile has its own policy");
		goto done;
	}
	if (so.spec != NULL) {
		if (ep_store_open(&store, &so, &err) < 0 ||
		    ep_store_read(&mtext, &pol, &info, store, profile,
		    &err) < 0) {
			rc = ep_cmd_fail(self, &err);
			goto done;
		}
		ep_store_cred_forget();
		name = xasprintf("%s#%s:%s", info.store, info.ref, profile);
		where = xasprintf("%s#%s", info.store, info.ref);
		if (ep_store_policy(&policy, &pol, where, &err) < 0) {
			rc = ep_cmd_fail(self, &err);
			goto done;
		}
		if (mtext == NULL) {
			hint = ep_storeopt_bless_hint(&so, profile);
			ep_say(stderr, "envparity fleet: no golden manifest for "
			    "profile %s in %s; bless a node's manifest with: %s "
			    "NODE.json", profile, name, hint);
			free(hint);
			rc = EP_EXIT_USAGE;
			goto done;
		}
		pname = xasprintf("%s/manifest.json", name);
		if (ep_manifest_parse(&golden, mtext, strlen(mtext), pname,
		    &err) < 0) {
			rc = ep_cmd_fail(self, &err);
			goto done;
		}
	} else if (policy_file != NULL) {
		/* Read here, as ep_policy_load would, to keep the text the
		 * attestation names. */
		if (ep_read_file(&ptext, &plen, policy_file, EP_POLICY_MAX,
		    &err) < 0 || ep_policy_parse(&policy, ptext, plen,
		    policy_file, &err) < 0) {
			rc = ep_cmd_fail(self, &err);
			goto done;
		}
	} else
		policy = ep_policy_default();

	/* fo's node binding and age were set with the options. */
	fo.inputs = (const char *const *)argv + optind;
	fo.ninputs = (size_t)(argc - optind);
	if (expect_text != NULL) {
		fo.expect = (const char *const *)expect.v;
		fo.nexpect = expect.n;
		fo.expect_text = expect_text;
	}
	fo.golden = golden;
	fo.policy = policy;
	fo.now = now;
	fo.expiry_days = expiry;
	if (ep_fleet_run(&rs, &view, &fo, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	/* A store whose branch was rewritten says so, as check does. */
	if (golden != NULL)
		ep_storeopt_history(&rs, &info, policy, now);

	ep_hostname(host, sizeof host);
	/* The proof of the fleet's verdict, whatever it is, before the
	 * reports (every result counted). */
	ain.command = "fleet";
	ain.rs = &rs;
	ain.fleet = view;
	if (golden != NULL) {
		ain.profile = profile;
		ain.store = info.store;
		ain.ref = info.ref;
		ain.commit = info.commit[0] ? info.commit : NULL;
		ain.golden_text = mtext;
		ain.golden_name = gname = xasprintf("%s/manifest.json",
		    profile);
		ain.policy_name = pfile = xasprintf("%s/policy.json",
		    profile);
		ain.policy_text = ep_store_policies_own(&pol);
		for (size_t i = 0; i < pol.n; i++)
			if (pol.v[i].scope != EP_SCOPE_PROFILE) {
				more_texts[ain.nmore_policies] = pol.v[i].text;
				more_names[ain.nmore_policies++] =
				    pol.v[i].path;
			}
		ain.more_policy_texts = more_texts;
		ain.more_policy_names = more_names;
	} else {
		ain.policy_name = policy_file;
		ain.policy_text = ptext;
	}
	ain.host = host;
	ain.time = now;
	if (ep_attestopt_sign(&aopt, &ain, &err) < 0 ||
	    ep_attestopt_write(&aopt, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}

	ctx.command = "fleet";
	if (golden != NULL) {
		ctx.golden_name = name;
		ctx.golden_store = info.store;
		ctx.golden_ref = info.ref;
		ctx.golden_commit = info.commit[0] ? info.commit : NULL;
		ctx.golden_profile = profile;
	} else
		ctx.golden_name = "its own majority (no store named)";
	ctx.current_name = "the fleet";
	ctx.fleet = view;
	ctx.generated = now;
	ctx.stdout_taken = taken;
	if ((rc = ep_reports_finish(&ctx, &rs, &ropt, quiet, &err)) < 0)
		rc = ep_cmd_fail(self, &err);
done:
	ep_nodekeys_free(nodekeys);
	free(gname);
	free(pfile);
	ep_attestopt_clear(&aopt);
	free(mtext);
	free(ptext);
	ep_store_policies_clear(&pol);
	free(where);
	free(name);
	free(pname);
	ep_strv_clear(&expect);
	ep_results_clear(&rs);
	ep_fleet_view_free(view);
	ep_manifest_free(golden);
	ep_policy_free(policy);
	ep_store_info_clear(&info);
	ep_store_free(store);
	return rc;
}
