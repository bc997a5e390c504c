/*
 * cmd_policy.c: `envparity policy [store options] [--json]`: the policy
 * a profile is judged by, as check merges it (the profile's own
 * policy.json, each folder's above it, the store root's, the defaults),
 * each rule and waiver with the file it comes from; and `policy add KEY
 * RULE [RANGE]` and `policy remove KEY`, which put a rule in a profile's
 * policy.json (or the store root's) and take it out, committed and
 * pushed as waive commits a waiver (the same store write path: the edit
 * is made under the store's lock from what the branch holds then, and
 * parsed by the parser check uses before it is committed).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clean.h"
#include "cmd.h"
#include "extrafacts.h"
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
	struct ep_rule_spec r;	/* add: missing, severity, reason */
	const char *message;
	int quiet;
	int shared;
};

#define PO struct policy_opts
static const struct ep_opt policy_opts[] = {
	EP_OPT_FLAG("json", 0, PO, json,
	    "print it as JSON: profile, store, ref, commit,\n"
	    "rules and waivers, each with its origin\n"
	    "(the file) and scope (profile, inherited, shared,\n"
	    "default); a waiver has \"expired\": true or false"),
	EP_OPT_STR("missing", 0, "fail|skip|ignore", PO, r.missing,
	    "add, rule exact or version: what a key only one\n"
	    "side has is (default fail)"),
	EP_OPT_STR("severity", 0, "fail|warn", PO, r.severity,
	    "add: whether the rule's drift fails or warns\n"
	    "(default fail)"),
	EP_OPT_STR("reason", 0, "TEXT", PO, r.reason,
	    "add: why the rule is there (shown with its findings)"),
	EP_OPT_FLAG("shared", 0, PO, shared,
	    "add, remove: the store root's policy.json, which every\n"
	    "profile shares, instead of PROFILE/policy.json"),
	EP_OPT_STR("message", 'm', "TEXT", PO, message,
	    "add, remove: the commit message"),
	EP_OPT_FLAG("quiet", 'q', PO, quiet,
	    "add, remove: print nothing when it succeeds"),
	EP_OPT_HELP,
	EP_OPT_GROUP(ep_og_store, PO, sopt, NULL),
	EP_OPT_END,
};
#undef PO

const struct ep_cmd ep_cmd_policy = {
	.name = "policy",
	.summary = "show a profile's effective policy; add or remove a rule",
	.usage =
"usage: envparity policy [store options] [--json]\n"
"       envparity policy add [store options] [--shared] [-m MESSAGE] [-q]\n"
"                        [--missing fail|skip|ignore] [--severity fail|warn]\n"
"                        [--reason TEXT] KEY RULE [RANGE]\n"
"       envparity policy remove [store options] [--shared] [-m MESSAGE] [-q]\n"
"                        KEY\n"
"\n"
"Print the policy check applies to PROFILE: its rules in the order they\n"
"are tried (the first whose key matches decides), then its waivers, each\n"
"with the file it comes from: PROFILE/policy.json (profile), the\n"
"policy.json of each folder above the profile (inherited: train/ for\n"
"train/h100), the store root's policy.json (shared by every profile),\n"
"or the built-in defaults.  A nearer file's rule or waiver for the same\n"
"key replaces a farther one's.  Expired waivers are marked expired.\n"
"\n"
"policy add puts a rule for KEY (a fact key, or a glob such as\n"
"'lib.*.path') in PROFILE/policy.json in the store, first in the file so\n"
"that it decides KEY before the file's other rules, or replaces the rule\n"
"KEY has there where it stands, and commits it (pushed when the store is\n"
"remote).  RULE is exact, ignore, version (with RANGE, such as\n"
"'>=580.65,<590'), present or absent.  policy remove takes the rule for\n"
"KEY (written as the rule names it) out.  The rest of the file is kept\n"
"as it is, in its order; editing the file by hand (clone, edit, push)\n"
"works as before.  The author and the commit are bless's and waive's\n"
"(see envparity waive --help).\n"
"\n",
	.opts = policy_opts,
	.footer =
"policy add and remove print \"added|replaced|removed rule KEY in FILE at\n"
"COMMIT on STORE BRANCH\" (\"already\" when the file held that rule).\n"
"Default message: \"policy: add rule KEY RULE\", \"policy: remove rule\n"
"KEY\".\n"
"Exit codes: 0 shown, committed or already so, 2 usage, an unknown RULE,\n"
"a RANGE, --missing or --severity that does not go with it, a KEY that is\n"
"no fact key or pattern or that covers too much for the rule, no rule for\n"
"KEY to remove, a policy file check would refuse (nothing is committed),\n"
"3 the store could not be read or written, or a race on the same file.\n",
	.max_operands = -1,
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

/* One line per kind of thing the policy adds to a capture, if any. */
static void
print_capture(const struct ep_extra *x)
{
	const struct {
		const char *what;
		const struct ep_strv *v;
	} k[] = {
		{ "env", &x->env },
		{ "env not secret", &x->not_secret },
		{ "file sha256", &x->sha256 },
		{ "file line", &x->line },
	};

	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
		char *line = xstrdup("");

		for (size_t j = 0; j < k[i].v->n; j++) {
			char *t = xasprintf("%s%s%s", line, j ? ", " : "",
			    k[i].v->v[j]);

			free(line);
			line = t;
		}
		if (k[i].v->n > 0)
			ep_say(stdout, "capture adds %s: %s", k[i].what, line);
		free(line);
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
	print_capture(ep_policy_capture(p));
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

/* What policy add and remove edit (the store's callback). */
struct rule_ctx {
	int remove;
	const struct ep_rule_spec *r;
	const char *name;	/* "<store>#<ref>:<path>" */
	int replaced;
};

static int
edit_rules(char **out, const char *cur, void *arg, struct ep_err *err)
{
	struct rule_ctx *c = arg;

	if (c->remove)
		return ep_policy_rule_remove(out, cur, c->name, c->r->key, err);
	return ep_policy_rule_set(out, cur, c->name, c->r, &c->replaced, err);
}

/* The operands and options of add and remove, checked before the store
 * is touched: 0, or the exit code, printed. */
static int
edit_usage(const struct ep_cmd *self, struct policy_opts *o,
    const struct ep_cmd_args *args, int remove)
{
	const char *verb = remove ? "remove" : "add";
	int want = remove ? 1 : 2;
	struct ep_err err = { 0 };

	if (o->json)
		return ep_cmd_usage_error(self, "'--json' is for showing the "
		    "policy, not for policy %s", verb);
	if (remove && (o->r.missing || o->r.severity || o->r.reason))
		return ep_cmd_usage_error(self, "'--%s' is for policy add",
		    o->r.missing ? "missing" : o->r.severity ? "severity" :
		    "reason");
	if (args->n < 1 + want)
		return ep_cmd_usage_error(self, "policy %s needs %s", verb,
		    remove ? "KEY" : args->n == 1 ? "KEY and RULE" : "RULE");
	if (args->n > 1 + want + (!remove && strcmp(args->v[2],
	    "version") == 0))
		return ep_cmd_usage_error(self, "unexpected argument '%s'%s",
		    args->v[1 + want], remove ? "" : " (only rule version "
		    "takes a RANGE)");
	o->r.key = args->v[1];
	if (!remove) {
		o->r.rule = args->v[2];
		o->r.range = args->n > 3 ? args->v[3] : NULL;
		if (ep_policy_rule_check(&o->r, &err) < 0)
			return ep_cmd_fail(self, &err);
	} else if (o->r.key[0] == '\0')
		return ep_cmd_usage_error(self, "the key is empty");
	return ep_cmd_message_check(self, o->message);
}

/* The default commit message: one line, whatever KEY and --reason hold.
 * New. */
static char *
edit_message(const struct policy_opts *o, int remove)
{
	char *line, *msg;

	if (remove)
		line = xasprintf("policy: remove rule %s%s", o->r.key,
		    o->shared ? " in the shared policy" : "");
	else
		line = xasprintf("policy: add rule %s %s%s%s%s%s%s", o->r.key,
		    o->r.rule, o->r.range ? " " : "", o->r.range ? o->r.range :
		    "", o->shared ? " in the shared policy" : "", o->r.reason ?
		    ": " : "", o->r.reason ? o->r.reason : "");
	msg = ep_line_clean(line);
	free(line);
	return msg;
}

/* policy add, policy remove: the rule put in or taken out of the file,
 * committed as waive commits a waiver. */
static int
edit_exec(const struct ep_cmd *self, struct policy_opts *o,
    const struct ep_cmd_args *args, int remove)
{
	struct ep_need need = { .what = EP_NEED_STORE, .sopt = &o->sopt };
	struct ep_resolved r = { 0 };
	struct ep_store_info info = { 0 }, after = { 0 };
	struct ep_author author = { 0 };
	struct ep_err err = { 0 };
	struct rule_ctx ctx = { .remove = remove, .r = &o->r };
	char *path = NULL, *name = NULL, *msg = NULL, *abuf = NULL, *taken;
	char commit[41];
	int have_author, changed, rc;

	if ((rc = edit_usage(self, o, args, remove)) != 0)
		return rc;
	if (ep_resolve_store(&r, &need, &err) < 0 ||
	    ep_storeopt_author(&author, &have_author, &abuf, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	path = o->shared ? xstrdup("policy.json") :
	    xasprintf("%s/policy.json", r.profile);
	if (o->message == NULL)
		o->message = msg = edit_message(o, remove);
	r.so.create = r.so.spec == NULL;
	if (ep_store_open(&r.store, &r.so, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	ep_store_describe(&info, r.store);
	name = xasprintf("%s#%s:%s", info.store, info.ref, path);
	ctx.name = name;
	if (ep_store_commit_file(commit, &changed, r.store, path, edit_rules,
	    &ctx, o->message, have_author ? &author : NULL, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if ((taken = ep_storeopt_history_taken(r.store, &info)) != NULL)
		ep_say(stderr, "envparity %s: %s", self->name, taken);
	free(taken);
	ep_store_describe(&after, r.store);
	if (!o->quiet)
		ep_say(stdout, "%s%s rule %s in %s at %s on %s %s", changed ?
		    "" : "already ", remove ? "removed" : ctx.replaced &&
		    changed ? "replaced" : "added", o->r.key, path, commit[0] ? commit :
		    "(none)", after.store, after.ref);
	rc = EP_EXIT_OK;
	if (fflush(stdout) == EOF) {
		ep_err_set(&err, EP_E_IO, "standard output: write failed");
		rc = ep_cmd_fail(self, &err);
	}
done:
	ep_store_info_clear(&info);
	ep_store_info_clear(&after);
	ep_resolved_clear(&r);
	free(path);
	free(name);
	free(msg);
	free(abuf);
	return rc;
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
	if (args.n > 0 && (strcmp(args.v[0], "add") == 0 ||
	    strcmp(args.v[0], "remove") == 0))
		return edit_exec(self, &o, &args, args.v[0][0] == 'r');
	if (args.n > 0)
		return ep_cmd_usage_error(self, "unknown verb '%s' (add or "
		    "remove; none shows the policy)", args.v[0]);
	if (o.r.missing || o.r.severity || o.r.reason)
		return ep_cmd_usage_error(self, "'--%s' is for policy add",
		    o.r.missing ? "missing" : o.r.severity ? "severity" :
		    "reason");
	if (o.shared || o.message || o.quiet)
		return ep_cmd_usage_error(self, "'--%s' is for policy add or "
		    "remove", o.shared ? "shared" : o.message ? "message" :
		    "quiet");
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
