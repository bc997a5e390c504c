/*
 * cmd_policy.c: `envparity policy [store options] [--json]`: the policy
 * a profile is judged by, as check merges it (the profile's own
 * policy.json, each folder's above it, the store root's, the defaults),
 * each rule and waiver with the file it comes from.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clean.h"
#include "cmd.h"
#include "opt.h"
#include "policy.h"
#include "resolve.h"
#include "store.h"
#include "storeopt.h"
#include "errors.h"
#include "xalloc.h"

static int cmd_policy_exec(const struct ep_cmd *, int, char **);

/* What the command line says. */
struct policy_opts {
	struct ep_storeopt sopt;
	int json;
};

#define PO struct policy_opts
static const struct ep_opt policy_opts[] = {
	EP_OPT_FLAG("json", 0, PO, json,
	    "print it as JSON: profile, store, ref, commit,\n"
	    "rules and waivers, each with its origin\n"
	    "(the file) and scope (profile, inherited, shared,\n"
	    "default); a waiver has \"expired\": true or false"),
	EP_OPT_HELP,
	EP_OPT_GROUP(ep_og_store, PO, sopt, NULL),
	EP_OPT_END,
};
#undef PO

const struct ep_cmd ep_cmd_policy = {
	.name = "policy",
	.summary = "show a profile's effective policy, each rule's origin",
	.usage =
"usage: envparity policy [store options] [--json]\n"
"\n"
"Print the policy check applies to PROFILE: its rules in the order they\n"
"are tried (the first whose key matches decides), then its waivers, each\n"
"with the file it comes from: PROFILE/policy.json (profile), the\n"
"policy.json of each folder above the profile (inherited: train/ for\n"
"train/h100), the store root's policy.json (shared by every profile),\n"
"or the built-in defaults.  A nearer file's rule or waiver for the same\n"
"key replaces a farther one's.  Expired waivers are marked expired.\n"
"\n",
	.opts = policy_opts,
	.footer =
"Exit codes: 0 shown, 2 usage or a policy file check would refuse, 3 the\n"
"store could not be read.\n",
	.exec = cmd_policy_exec,
};

/* Where a rule comes from, for a reader: "train/h100/policy.json",
 * "inherited train/policy.json", "shared policy.json", "built-in
 * default". */
static const char *
origin(int scope, const char *file)
{
	static char buf[256];

	switch (scope) {
	case EP_SCOPE_INHERITED:
		snprintf(buf, sizeof buf, "inherited %s", file);
		return buf;
	case EP_SCOPE_SHARED:
		snprintf(buf, sizeof buf, "shared %s", file);
		return buf;
	default:
		return file;
	}
}

static void
print_text(const struct ep_policy *p, const struct ep_store_policies *pol,
    const struct ep_store_info *info, const char *profile, time_t now)
{
	const struct ep_rule *r;
	const struct ep_waiver *w;
	size_t nr, nw, width = 0;

	ep_say(stdout, "profile %s in %s %s%s%.12s", profile, info->store,
	    info->ref, info->commit[0] ? " at " : "", info->commit);
	if (pol->n == 0)
		ep_say(stdout, "files: none (the defaults alone)");
	for (size_t i = 0; i < pol->n; i++)
		ep_say(stdout, "file: %s (%s)", pol->v[i].path,
		    ep_policy_scope_name(pol->v[i].scope));
	r = ep_policy_rules(p, &nr);
	for (size_t i = 0; i < nr; i++)
		if (strlen(r[i].key) > width)
			width = strlen(r[i].key);
	if (width > 40)
		width = 40;
	ep_say(stdout, "rules (the first that matches decides):");
	for (size_t i = 0; i < nr; i++) {
		char *extra = NULL;

		if (r[i].kind == EP_RULE_EXACT || r[i].kind == EP_RULE_VERSION)
			extra = xasprintf(", missing %s%s",
			    ep_rule_missing_name(r[i].missing),
			    r[i].severity == EP_SEVERITY_WARN ? ", warn" : "");
		else if (r[i].severity == EP_SEVERITY_WARN)
			extra = xstrdup(", warn");
		ep_say(stdout, "  %-*s  %s%s  [%s]", (int)width, r[i].key,
		    r[i].text, extra != NULL ? extra : "",
		    origin(r[i].scope, r[i].origin));
		free(extra);
	}
	w = ep_policy_waivers(p, &nw);
	if (nw == 0) {
		ep_say(stdout, "waivers: none");
		return;
	}
	ep_say(stdout, "waivers:");
	for (size_t i = 0; i < nw; i++)
		ep_say(stdout, "  %s%s%s  by %s until %s%s: %s  [%s]",
		    w[i].key, w[i].accepts != NULL ? " = " : "",
		    w[i].accepts != NULL ? w[i].accepts : "", w[i].owner,
		    w[i].expires, ep_policy_waiver_expired(&w[i], now) ?
		    " (EXPIRED)" : "", w[i].reason,
		    origin(w[i].scope, w[i].origin));
}

static int
cmd_policy_exec(const struct ep_cmd *self, int argc, char **argv)
{
	struct policy_opts o = { 0 };
	struct ep_need need = { .what = EP_NEED_STORE | EP_NEED_POLICY,
	    .sopt = &o.sopt };
	struct ep_cmd_args args;
	struct ep_resolved r = { 0 };
	struct ep_err err = { 0 };
	char *json = NULL;
	int rc = EP_EXIT_OK;
	time_t now = time(NULL);

	if (ep_opt_parse(&args, &rc, self, &o, argc, argv) < 0)
		return rc;
	if (ep_resolve_store(&r, &need, &err) < 0 ||
	    ep_resolve_read(&r, &need, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (o.json) {
		const char *head[] = { "profile", r.profile, "store",
		    r.info.store, "ref", r.info.ref, "commit",
		    r.info.commit[0] ? r.info.commit : NULL, NULL };

		if (ep_policy_json(&json, r.policy, now, head, &err) < 0) {
			rc = ep_cmd_fail(self, &err);
			goto done;
		}
		/* The text is already clean (ep_json_clean). */
		fputs(json, stdout);
	} else
		print_text(r.policy, &r.pol, &r.info, r.profile, now);
	if (fflush(stdout) == EOF) {
		ep_err_set(&err, EP_E_IO, "standard output: write failed");
		rc = ep_cmd_fail(self, &err);
	}
done:
	free(json);
	ep_resolved_clear(&r);
	return rc;
}
