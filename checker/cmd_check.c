/*
 * cmd_check.c: `envparity check`: capture this machine, compare it with
 * the profile's golden manifest under its policy, run the checks that need
 * no golden, write the reports asked for, print a short summary.
 *
 * Order matters for what a user sees on bad input: where the signing key
 * comes from (not the key: attestopt.h), then the output paths (none may
 * be the key's file) are checked, the store is read and the policy parsed
 * before anything is captured, so a malformed policy or a key others can
 * read stops the run at once (exit 2) and an unreachable store costs no
 * work (exit 3).  The store's token is wiped once the golden is read.
 * After the work the key is read and signs before anything is written (a
 * key that cannot sign leaves no output); then, in this order: the
 * manifest checked (-o), the statement and the attestation (whatever the
 * verdict), the reports; the first that cannot be written ends the run
 * (exit 3).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attestopt.h"
#include "clean.h"
#include "capture.h"
#include "cmd.h"
#include "progress.h"
#include "results.h"
#include "compare.h"
#include "checks.h"
#include "policy.h"
#include "probeopt.h"
#include "report.h"
#include "storeopt.h"
#include "errors.h"
#include "xalloc.h"
#include "hostname.h"

static int cmd_check_exec(const struct ep_cmd *, int, char **);

enum { OPT_EXPIRY = 0x480 };

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
"\n"
"  -o, --output FILE    keep the manifest that was checked (probe facts\n"
"                       included), written atomically; - for standard\n"
"                       output (the summary then goes to standard error)\n"
"  -q, --quiet          print only the verdict line and the counts\n"
"  --expiry-warning DAYS  warn of a waiver that expires within DAYS days\n"
"                       (default 14; 0: only on its last day)\n"
EP_PROGRESS_HELP
"  -h, --help           show this help\n"
"\n"
EP_ATTEST_HELP
"\n"
EP_PROBE_HELP
"\n"
EP_STORE_HELP
"\n"
EP_REPORT_HELP
"\n"
EP_CAPTURE_HELP
"\n"
EP_IMAGE_HELP
"\n"
"In CI (CI, GITHUB_ACTIONS or GITLAB_CI set) a store must be named: the\n"
"default .envparity/store is not used there.\n"
"\n"
"Exit codes: 0 parity (waived findings included), 1 drift or a failed\n"
"check (a comparison that compared no golden fact included), 2 usage,\n"
"malformed input or no golden manifest, 3 could not run (store\n"
"unreachable, I/O error).\n",
	.exec = cmd_check_exec,
};

static int
cmd_check_exec(const struct ep_cmd *self, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "expiry-warning", required_argument, NULL, OPT_EXPIRY },
		{ "output", required_argument, NULL, 'o' },
		EP_ATTEST_LONGOPTS,
		EP_PROBE_LONGOPTS,
		EP_STORE_LONGOPTS,
		EP_REPORT_LONGOPTS,
		EP_CAPTURE_LONGOPTS,
		EP_IMAGE_LONGOPTS,
		EP_PROGRESS_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct ep_capture_opts copts = { 0 };
	struct ep_storeopt sopt = { 0 };
	struct ep_store_opts so = { 0 };
	struct ep_reportopt ropt = { 0 };
	struct ep_store_info info = { 0 };
	struct ep_report_ctx ctx = { 0 };
	struct ep_results rs = { 0 };
	struct ep_probeopt popt;
	struct ep_attestopt aopt = { 0 };
	struct ep_attest_in ain = { 0 };
	struct ep_store *store = NULL;
	struct ep_manifest *golden = NULL, *current = NULL;
	struct ep_policy *policy = NULL;
	struct ep_err err = { 0 };
	const char *profile = NULL, *output = NULL;
	const char *outs[3], *outwhat[3] = { "-o", "--attest",
	    "--statement" };
	size_t from;
	struct ep_store_policies pol = { 0 };
	const char *more_texts[EP_PROFILE_MAX_DEPTH + 1];
	const char *more_names[EP_PROFILE_MAX_DEPTH + 1];
	char *mtext = NULL, *name = NULL, *pname = NULL, *where = NULL;
	char *hint, *current_name = NULL, host[256] = "";
	char *gname = NULL, *pfile = NULL;
	int c, v, quiet = 0, taken = 0, rc = EP_EXIT_NORUN;
	int expiry = EP_EXPIRY_WARNING_DAYS;
	time_t now = time(NULL);

	ep_probeopt_init(&popt, 0);
	ep_imgopt_init(&copts.img);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:qho:", longopts, NULL)) != -1) {
		if (ep_progress_opt(c))
			continue;
		if (ep_capture_opt(&copts, c, optarg) ||
		    ep_store_opt(&sopt, c, optarg) ||
		    ep_report_opt(&ropt, c, optarg) ||
		    ep_attest_opt(&aopt, c, optarg))
			continue;
		if ((v = ep_image_opt(&copts.img, c, optarg, &err)) != 0 ||
		    (v = ep_probe_opt(&popt, c, optarg, &err)) != 0) {
			if (v < 0) {
				rc = ep_cmd_usage_error(self, "%s", err.msg);
				goto done;
			}
			continue;
		}
		switch (c) {
		case OPT_EXPIRY:
			if (ep_expiry_days(&expiry, optarg, &err) < 0) {
				rc = ep_cmd_usage_error(self, "%s", err.msg);
				goto done;
			}
			break;
		case 'o':
			output = optarg;
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
	if ((rc = ep_cmd_operands(self, argc, argv, 0)) != 0)
		goto done;
	if (ep_attestopt_unpaired(&aopt) != NULL) {
		rc = ep_cmd_usage_error(self, "%s",
		    ep_attestopt_unpaired(&aopt));
		goto done;
	}
	/* Where the signing key comes from (nothing of it read yet: that
	 * waits for the work to end), then an output path that cannot take
	 * its file, the key's own among them, fail before the work. */
	outs[0] = output;
	outs[1] = aopt.file;
	outs[2] = aopt.statement;
	if (ep_attestopt_prepare(&aopt, &err) < 0 ||
	    ep_reports_check(&ropt, &err) < 0 ||
	    ep_cmd_outputs_check(&taken, &ropt, outs, outwhat, 3, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (ep_storeopt_resolve(&so, &profile, &sopt, &err) < 0 ||
	    ep_storeopt_require_named(&so, &err) < 0 ||
	    ep_store_open(&store, &so, &err) < 0 ||
	    ep_store_read(&mtext, &pol, &info, store, profile, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	/* Done with the network: the token is wiped before the judged
	 * environment's code runs. */
	ep_store_cred_forget();
	name = xasprintf("%s#%s:%s", info.store, info.ref, profile);
	where = xasprintf("%s#%s", info.store, info.ref);
	if (ep_store_policy(&policy, &pol, where, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (mtext == NULL) {
		hint = ep_storeopt_bless_hint(&so, profile);
		ep_say(stderr, "envparity check: no golden manifest for "
		    "profile %s in %s; bless this machine with: %s", profile,
		    name, hint);
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
	/* The images the golden recorded are resolved again, --image or
	 * not (collect_image.c). */
	copts.golden = golden;
	copts.golden_name = pname;
	copts.policy = policy;
	if (ep_capture(&current, &copts, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	/* The probe's results need no golden: run-to-run identity and the
	 * known answers; its hashes join the facts compared below. */
	from = rs.n;
	if (ep_probeopt_run(&rs, current, &popt, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	ep_results_waive(&rs, from, policy, now);
	ep_compare(&rs, golden, current, policy, now);
	ep_checks_run(&rs, current, policy, now);
	ep_storeopt_history(&rs, &info, policy, now);
	ep_waivers_review(&rs, policy, now, expiry);
	ep_results_capture_warnings(&rs, current);
	/* Which machine, in a report read far from it (the name is shown
	 * cleaned, as any value is). */
	ep_hostname(host, sizeof host);

	/* The proof of what was checked, signed before anything is written
	 * (a key that cannot sign leaves no output); then what was checked
	 * and its proof, both whatever the verdict, before the reports
	 * (every result counted). */
	ain.command = "check";
	ain.rs = &rs;
	ain.current = current;
	ain.profile = profile;
	ain.store = info.store;
	ain.ref = info.ref;
	ain.commit = info.commit[0] ? info.commit : NULL;
	ain.golden_text = mtext;
	ain.golden_name = gname = xasprintf("%s/manifest.json", profile);
	ain.policy_text = ep_store_policies_own(&pol);
	ain.policy_name = pfile = xasprintf("%s/policy.json", profile);
	for (size_t i = 0; i < pol.n; i++)
		if (pol.v[i].scope != EP_SCOPE_PROFILE) {
			more_texts[ain.nmore_policies] = pol.v[i].text;
			more_names[ain.nmore_policies++] = pol.v[i].path;
		}
	ain.more_policy_texts = more_texts;
	ain.more_policy_names = more_names;
	ain.host = host;
	ain.time = now;
	if (ep_attestopt_sign(&aopt, &ain, &err) < 0 ||
	    (output != NULL && ep_manifest_write(current, output, &err) < 0) ||
	    ep_attestopt_write(&aopt, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}

	ctx.command = "check";
	ctx.golden_name = name;
	ctx.golden_store = info.store;
	ctx.golden_ref = info.ref;
	ctx.golden_commit = info.commit[0] ? info.commit : NULL;
	ctx.golden_profile = profile;
	current_name = xasprintf("this machine (%s)", host);
	ctx.current_name = current_name;
	ctx.current = current;
	ctx.generated = now;
	ctx.stdout_taken = taken;
	if ((rc = ep_reports_finish(&ctx, &rs, &ropt, quiet, &err)) < 0)
		rc = ep_cmd_fail(self, &err);
done:
	free(current_name);
	free(gname);
	free(pfile);
	ep_attestopt_clear(&aopt);
	free(mtext);
	ep_store_policies_clear(&pol);
	free(name);
	free(where);
	free(pname);
	ep_results_clear(&rs);
	ep_manifest_free(golden);
	ep_manifest_free(current);
	ep_policy_free(policy);
	ep_store_info_clear(&info);
	ep_store_free(store);
	ep_capture_opts_clear(&copts);
	return rc;
}
