/*
 * cmd_diff.c: `envparity diff A B`: compare two manifests, each a file or
 * a store spec STORE#REF:PROFILE, with the same results, reports and exit
 * codes as check (A plays the golden, B the current machine).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "results.h"
#include "compare.h"
#include "checks.h"
#include "policy.h"
#include "opt.h"
#include "report.h"
#include "storeopt.h"
#include "errors.h"
#include "xalloc.h"

static int cmd_diff_exec(const struct ep_cmd *, int, char **);

/* What the command line says. */
struct diff_opts {
	struct ep_reportopt ropt;
	const char *policy;
	int expiry;
	int quiet;
};

#define DO struct diff_opts
static const struct ep_opt diff_opts[] = {
	EP_OPT_STR("policy", 0, "FILE", DO, policy,
	    "compare under this policy"),
	EP_OPT_FN("expiry-warning", 0, "DAYS", DO, expiry, ep_og_expiry,
	    "warn of a waiver that expires within DAYS days\n"
	    "(default 14; 0: only on its last day)"),
	EP_OPT_FLAG("quiet", 'q', DO, quiet,
	    "print only the verdict line and the counts"),
	EP_OPT_HELP,
	EP_OPT_GROUP(ep_og_report, DO, ropt, NULL),
	EP_OPT_END,
};
#undef DO

const struct ep_cmd ep_cmd_diff = {
	.name = "diff",
	.summary = "compare two manifests (files or store specs)",
	.usage =
"usage: envparity diff [--policy FILE] [report options] A B\n"
"\n"
"Compare manifest B with manifest A as check compares this machine with a\n"
"golden one.  Each of A and B is a manifest file or a store spec\n"
"STORE#REF:PROFILE (STORE a path or URL as for --store; REF may be empty\n"
"for the store's default branch, \":PROFILE\" left out for \"default\").\n"
"The policy is --policy FILE, else the one stored beside A when A is a\n"
"store spec (with the shared policy.json files above it, as check reads\n"
"it), else the defaults.  The checks that need no golden run on B.\n"
"\n",
	.opts = diff_opts,
	.footer =
"Exit codes: 0 same (waived findings included), 1 drift, 2 usage or\n"
"malformed input, 3 could not run (store unreachable, I/O error).\n",
	/* Options may follow A and B. */
	.max_operands = -1,
	.exec = cmd_diff_exec,
};

/* One side: its manifest, and for a store spec where it came from and the
 * policy stored beside it. */
struct side {
	char *name;
	struct ep_manifest *m;
	struct ep_store_policies pol;	/* the policy files, or none */
	struct ep_store_info info;
	char *profile;
};

static void
side_clear(struct side *s)
{
	free(s->name);
	ep_store_policies_clear(&s->pol);
	free(s->profile);
	ep_manifest_free(s->m);
	ep_store_info_clear(&s->info);
}

/* STORE#REF:PROFILE: the store is everything before the last '#' (one
 * in a URL's password does not count), so URLs with ':' are fine; the
 * profile follows the last ':' after it. */
static int
load_spec(struct side *s, const char *spec, struct ep_err *err)
{
	const char *hash = ep_store_spec_ref(spec), *colon;
	struct ep_store_opts so = { 0 };
	struct ep_store *store = NULL;
	char *path = NULL, *ref = NULL, *text = NULL, *mname = NULL;
	int rc = -1;

	path = xstrndup(spec, (size_t)(hash - spec));
	colon = strchr(hash + 1, ':');
	ref = colon ? xstrndup(hash + 1, (size_t)(colon - hash - 1)) :
	    xstrdup(hash + 1);
	s->profile = xstrdup(colon && colon[1] ? colon + 1 : "default");
	if (*path == '\0') {
		ep_err_set(err, EP_E_INPUT, "%s: no store before '#'", spec);
		goto done;
	}
	if (ep_profile_check(s->profile, err) < 0)
		goto done;
	so.spec = path;
	so.ref = *ref ? ref : NULL;
	if (ep_store_open(&store, &so, err) < 0 ||
	    ep_store_read(&text, &s->pol, &s->info, store, s->profile,
	    err) < 0)
		goto done;
	s->name = xasprintf("%s#%s:%s", s->info.store, s->info.ref,
	    s->profile);
	if (text == NULL && ep_store_no_branch(&s->info, err) < 0)
		goto done;
	if (text == NULL) {
		ep_err_set(err, EP_E_INPUT, "%s: no golden manifest for "
		    "profile %s", s->name, s->profile);
		goto done;
	}
	mname = xasprintf("%s/manifest.json", s->name);
	rc = ep_manifest_parse(&s->m, text, strlen(text), mname, err);
done:
	ep_store_free(store);
	free(path);
	free(ref);
	free(text);
	free(mname);
	return rc;
}

/* A side from a file or a store spec; no message names a credential the
 * argument holds. */
static int
load_side(struct side *s, const char *arg, struct ep_err *err)
{
	int rc;

	if (ep_store_spec_ref(arg) != NULL)
		rc = load_spec(s, arg, err);
	else {
		s->name = xstrdup(arg);
		rc = ep_manifest_load(&s->m, arg, err);
	}
	if (rc < 0)
		ep_store_spec_scrub(arg, err);
	return rc;
}

static int
cmd_diff_exec(const struct ep_cmd *self, int argc, char **argv)
{
	struct diff_opts o = { .expiry = EP_EXPIRY_WARNING_DAYS };
	struct ep_cmd_args args;
	struct ep_report_ctx ctx = { 0 };
	struct ep_results rs = { 0 };
	struct side a = { 0 }, b = { 0 };
	struct ep_policy *policy = NULL;
	struct ep_err err = { 0 };
	char *pname = NULL;
	int rc = EP_EXIT_NORUN;
	time_t now = time(NULL);

	if (ep_opt_parse(&args, &rc, self, &o, argc, argv) < 0)
		return rc;
	if (args.n != 2) {
		rc = ep_cmd_usage_error(self, "expected two manifests, A and "
		    "B; got %d", args.n);
		goto done;
	}
	if (ep_reports_check(&o.ropt, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	/* The policy first: a malformed one stops the run before anything
	 * else is read. */
	if (o.policy != NULL &&
	    ep_policy_load(&policy, o.policy, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (load_side(&a, args.v[0], &err) < 0 ||
	    load_side(&b, args.v[1], &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (policy == NULL && a.pol.n > 0) {
		pname = xasprintf("%s#%s", a.info.store, a.info.ref);
		if (ep_store_policy(&policy, &a.pol, pname, &err) < 0) {
			rc = ep_cmd_fail(self, &err);
			goto done;
		}
	}
	if (policy == NULL)
		policy = ep_policy_default();
	ep_compare(&rs, a.m, b.m, policy, now);
	ep_checks_run(&rs, b.m, policy, now);
	ep_storeopt_history(&rs, &a.info, policy, now);
	ep_storeopt_history(&rs, &b.info, policy, now);
	ep_waivers_review(&rs, policy, now, o.expiry);
	ep_results_capture_warnings(&rs, b.m);

	ctx.command = "diff";
	ctx.golden_name = a.name;
	ctx.golden_store = a.info.store;
	ctx.golden_ref = a.info.ref;
	ctx.golden_commit = a.info.commit[0] ? a.info.commit : NULL;
	ctx.golden_profile = a.profile;
	ctx.current_name = b.name;
	ctx.current = b.m;
	ctx.generated = now;
	if ((rc = ep_reports_finish(&ctx, &rs, &o.ropt, o.quiet, &err)) < 0)
		rc = ep_cmd_fail(self, &err);
done:
	free(pname);
	side_clear(&a);
	side_clear(&b);
	ep_results_clear(&rs);
	ep_policy_free(policy);
	return rc;
}
