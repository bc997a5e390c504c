/*
 * cmd_waive.c: `envparity waive KEY --reason R --owner O --expires DATE`
 * and `envparity unwaive KEY`: add, replace or remove a waiver in a
 * profile's policy.json (or the store root's, shared by every profile,
 * with --shared), committed and pushed as bless commits a manifest.
 *
 * Everything the command line says is checked before the store is
 * opened; the file is edited under the store's lock from what the
 * branch holds then, and what is written has been parsed by the parser
 * check uses, so a waive never leaves a policy check would refuse.
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
#include "manifest.h"
#include "xalloc.h"

static int cmd_waive_exec(const struct ep_cmd *, int, char **);

/* What the command line says (waive's and unwaive's). */
struct waive_opts {
	struct ep_storeopt sopt;
	struct ep_waiver_spec w;
	const char *message;
	int quiet;
	int shared;
};

/* unwaive takes waive's options only to say they are waive's. */
#define FOR_WAIVE(FN, NAME)						\
static int								\
FN(void *field, const char *arg, struct ep_err *err)			\
{									\
	(void)field;							\
	(void)arg;							\
	return ep_err_set(err, EP_E_INPUT, "'--%s' is for waive", NAME); \
}
FOR_WAIVE(for_waive_reason, "reason")
FOR_WAIVE(for_waive_owner, "owner")
FOR_WAIVE(for_waive_expires, "expires")
FOR_WAIVE(for_waive_actual, "actual")
#undef FOR_WAIVE

#define WO struct waive_opts
/* What waive and unwaive share. */
#define WAIVE_COMMON							\
	EP_OPT_FLAG("shared", 0, WO, shared,				\
	    "the store root's policy.json, which every profile\n"	\
	    "shares, instead of PROFILE/policy.json"),			\
	EP_OPT_STR("message", 'm', "TEXT", WO, message,		\
	    "the commit message"),					\
	EP_OPT_FLAG("quiet", 'q', WO, quiet,				\
	    "print nothing when it succeeds"),				\
	EP_OPT_HELP,							\
	EP_OPT_GROUP(ep_og_store, WO, sopt, NULL),			\
	EP_OPT_END

static const struct ep_opt waive_opts[] = {
	EP_OPT_STR("reason", 0, "TEXT", WO, w.reason,
	    "why the drift is accepted (required)"),
	EP_OPT_STR("owner", 0, "NAME", WO, w.owner,
	    "who answers for it (required)"),
	EP_OPT_STR("expires", 0, "DATE", WO, w.expires,
	    "the last day it holds, YYYY-MM-DD in UTC, today or\n"
	    "later (required)"),
	EP_OPT_STR("actual", 0, "VALUE", WO, w.actual,
	    "waive only this value of KEY (another value still\n"
	    "fails); default: any value"),
	WAIVE_COMMON,
};

static const struct ep_opt unwaive_opts[] = {
	{ .kind = EP_OPTK_FN, .name = "reason", .arg = EP_ARG_REQUIRED,
	  .fn = for_waive_reason, .hidden = 1 },
	{ .kind = EP_OPTK_FN, .name = "owner", .arg = EP_ARG_REQUIRED,
	  .fn = for_waive_owner, .hidden = 1 },
	{ .kind = EP_OPTK_FN, .name = "expires", .arg = EP_ARG_REQUIRED,
	  .fn = for_waive_expires, .hidden = 1 },
	{ .kind = EP_OPTK_FN, .name = "actual", .arg = EP_ARG_REQUIRED,
	  .fn = for_waive_actual, .hidden = 1 },
	WAIVE_COMMON,
};
#undef WAIVE_COMMON
#undef WO

/* The help's tail waive and unwaive share. */
#define WAIVE_AUTHOR							\
"The author is $ENVPARITY_AUTHOR (\"Name <email>\"), else the CI's user,\n" \
"else git config's user.name and user.email, as for bless.  The commit\n" \
"is made as bless makes one: the branch moves by compare-and-swap, a\n" \
"commit of other files that lands first is kept and this one made on\n" \
"top; one that changed the same policy.json makes this one fail (exit\n" \
"3) rather than replace it unseen.  On a remote store whose branch was\n" \
"rewritten since the cache saw it (store.history), it takes that history,\n" \
"as a bless would, and says so on standard error, even with -q.\n" \
"\n"

const struct ep_cmd ep_cmd_waive = {
	.name = "waive",
	.summary = "accept a finding until a date: a waiver in the policy",
	.usage =
"usage: envparity waive [store options] [--shared] [-m MESSAGE] [-q]\n"
"                       --reason TEXT --owner NAME --expires YYYY-MM-DD\n"
"                       [--actual VALUE] KEY\n"
"\n"
"Add a waiver for KEY (a fact key, or a glob such as 'lib.*.sha256') to\n"
"PROFILE/policy.json in the store, or replace the one KEY has there, and\n"
"commit it (pushed when the store is remote).  Until it expires, a\n"
"failure or warning on KEY is reported as waived and does not fail the\n"
"check.  The rest of the file is kept as it is, in its order.  A KEY\n"
"that matches no fact of the profile's golden is committed, with a\n"
"warning on standard error (even with -q): a typo?\n"
"\n",
	.opts = waive_opts,
	.footer =
WAIVE_AUTHOR
"Prints \"waived KEY in FILE at COMMIT on STORE BRANCH\" (\"already\" when\n"
"the file held that waiver).  Default message: \"waive KEY (OWNER):\n"
"REASON\".\n"
"Exit codes: 0 committed or already so, 2 usage, an empty reason or\n"
"owner, a date that is no date or is past, a KEY that is no fact key or\n"
"pattern, a policy.json check would refuse (nothing is committed), 3 the\n"
"store could not be read or written, or a race on the same file.\n",
	.max_operands = -1,
	.exec = cmd_waive_exec,
};

const struct ep_cmd ep_cmd_unwaive = {
	.name = "unwaive",
	.summary = "remove a waiver from the policy",
	.usage =
"usage: envparity unwaive [store options] [--shared] [-m MESSAGE] [-q] KEY\n"
"\n"
"Remove the waiver for KEY (written as the waiver names it) from\n"
"PROFILE/policy.json in the store and commit it (pushed when the store\n"
"is remote): a failure on KEY fails the check again, unless another\n"
"waiver still covers it (a glob such as 'lib.*', or one in a shared or\n"
"inherited policy.json): then it says so.\n"
"\n",
	.opts = unwaive_opts,
	.footer =
WAIVE_AUTHOR
"Prints \"unwaived KEY in FILE at COMMIT on STORE BRANCH\"; when another\n"
"live waiver still covers KEY for PROFILE, \"removed the waiver for KEY\n"
"from FILE at ...\" instead, and on standard error (even with -q) a\n"
"warning naming that waiver, its file, owner and expiry.  Default\n"
"message: \"unwaive KEY\".\n"
"Exit codes: 0 committed (with or without that warning: the waiver asked\n"
"for is gone), 2 usage, no waiver for KEY in the file, a policy.json\n"
"check would refuse (nothing is committed), 3 the store could not be\n"
"read or written, or a race on the same file.\n",
	.max_operands = -1,
	.exec = cmd_waive_exec,
};

/* What the edit needs (the store's callback). */
struct waive_ctx {
	int remove;
	struct ep_waiver_spec w;
	const char *name;	/* "<store>#<ref>:<path>" */
	time_t now;
};

static int
edit_policy(char **out, const char *cur, void *arg, struct ep_err *err)
{
	struct waive_ctx *c = arg;

	if (c->remove)
		return ep_policy_waiver_remove(out, cur, c->name, c->w.key,
		    err);
	return ep_policy_waiver_set(out, cur, c->name, &c->w, c->now, err);
}

/* After an unwaive: whether a live waiver of profile's merged policy, as
 * the store holds it now, still covers key: *warning says which (a line,
 * new), or is NULL when none does.  -1 with err when the policy cannot be
 * read. */
static int
still_waived(char **warning, struct ep_store *s, const char *profile,
    const char *key, time_t now, struct ep_err *err)
{
	struct ep_store_policies pol = { 0 };
	struct ep_store_info info = { 0 };
	struct ep_policy *p = NULL;
	const struct ep_waiver *w;
	char *mtext = NULL, *where = NULL;
	size_t n;
	int rc = -1;

	*warning = NULL;
	if (ep_store_read(&mtext, &pol, &info, s, profile, err) < 0)
		goto done;
	where = xasprintf("%s#%s", info.store, info.ref);
	if (ep_store_policy(&p, &pol, where, err) < 0)
		goto done;
	if ((w = ep_policy_waiver_covering(p, key, now, &n)) != NULL)
		*warning = xasprintf("warning: %s is still waived for profile "
		    "%s: by the waiver for '%s' in %s (%s)%s%s, owner %s, "
		    "until %s%s%s%s: unwaive that one too, or the check keeps "
		    "waiving %s", key, profile, w->key, w->origin,
		    ep_policy_scope_name(w->scope), w->accepts != NULL ?
		    ", for " : "", w->accepts != NULL ? w->accepts : "",
		    w->owner, w->expires, n > 1 ? " (and " : "", n > 1 ?
		    "others" : "", n > 1 ? ")" : "", key);
	rc = 0;
done:
	ep_policy_free(p);
	ep_store_policies_clear(&pol);
	ep_store_info_clear(&info);
	free(mtext);
	free(where);
	return rc;
}

/* Whether a waiver's key may name a result that check makes without a
 * fact of the golden (the checks that need no golden, the store's
 * history, the fleet's and the probe's results): its literal start is
 * compatible with one of their namespaces. */
static int
may_name_result(const char *key)
{
	static const char *const ns[] = { "stack.", "store.", "node.",
	    "fleet.", "probe." };
	size_t lit = strcspn(key, "*?[\\");

	for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++) {
		size_t n = strlen(ns[i]);

		if (strncmp(key, ns[i], lit < n ? lit : n) == 0)
			return 1;
	}
	return 0;
}

/* After a waive: when key names no fact of profile's golden as the store
 * holds it now (and no result check makes without one), *warning says so
 * (a line, new); NULL otherwise, and when the profile has no golden yet.
 * -1 with err when the golden cannot be read. */
static int
unmatched(char **warning, struct ep_store *s, const char *profile,
    const char *key, struct ep_err *err)
{
	struct ep_store_policies pol = { 0 };
	struct ep_store_info info = { 0 };
	struct ep_manifest *m = NULL;
	char *mtext = NULL, *name = NULL;
	int rc = -1;

	*warning = NULL;
	if (may_name_result(key)) {
		rc = 0;
		goto done;
	}
	if (ep_store_read(&mtext, &pol, &info, s, profile, err) < 0)
		goto done;
	if (mtext == NULL) {
		rc = 0;
		goto done;
	}
	name = xasprintf("%s#%s:%s/manifest.json", info.store, info.ref,
	    profile);
	if (ep_manifest_parse(&m, mtext, strlen(mtext), name, err) < 0)
		goto done;
	if (ep_manifest_matching(m, key) == 0)
		*warning = xasprintf("warning: '%s' matches no fact of profile "
		    "%s's golden (%s): a typo? The waiver is committed; "
		    "unwaive %s to take it back", key, profile, name, key);
	rc = 0;
done:
	ep_manifest_free(m);
	ep_store_policies_clear(&pol);
	ep_store_info_clear(&info);
	free(mtext);
	free(name);
	return rc;
}

/* KEY, and for waive what a waiver needs, checked before the store is
 * touched: 0, or the exit code, printed. */
static int
waive_usage(const struct ep_cmd *self, struct waive_ctx *ctx,
    const struct waive_opts *o, const struct ep_cmd_args *args)
{
	struct ep_err err = { 0 };

	if (args->n != 1)
		return args->n == 0 ? ep_cmd_usage_error(self, "no KEY") :
		    ep_cmd_usage_error(self, "unexpected argument '%s'",
		    args->v[1]);
	ctx->w = o->w;
	ctx->w.key = args->v[0];
	if (!ctx->remove) {
		if (ctx->w.reason == NULL || ctx->w.owner == NULL ||
		    ctx->w.expires == NULL)
			return ep_cmd_usage_error(self, "a waiver needs "
			    "--reason, --owner and --expires");
		if (ep_policy_waiver_check(&ctx->w, ctx->now, &err) < 0)
			return ep_cmd_fail(self, &err);
	} else if (ctx->w.key[0] == '\0')
		return ep_cmd_usage_error(self, "the key is empty");
	return ep_cmd_message_check(self, o->message);
}

/* The default commit message: one line, whatever --owner and --reason
 * hold (a line of its own starting "::" would be a workflow command
 * where a CI job shows the store's git log).  New. */
static char *
waive_message(const struct waive_ctx *ctx, int shared)
{
	char *line, *msg;

	if (ctx->remove)
		line = xasprintf("unwaive %s%s", ctx->w.key, shared ?
		    " in the shared policy" : "");
	else
		line = xasprintf("waive %s%s (%s): %s", ctx->w.key, shared ?
		    " in the shared policy" : "", ctx->w.owner,
		    ctx->w.reason);
	msg = ep_line_clean(line);
	free(line);
	return msg;
}

/* After the commit: a rewritten history taken, as before (the store
 * described before it) names it (said where -q still speaks, and first:
 * whatever follows, it is taken); for unwaive, whether another waiver
 * still covers the key (said, never "unwaived"); for waive, whether the
 * key names no fact of the golden (said, the waiver kept); then what was
 * done. */
static int
waive_said(const struct ep_cmd *self, struct ep_store *s,
    struct ep_store_info *before, const struct waive_ctx *ctx,
    const char *profile, const char *path, const char *commit, int changed,
    int quiet, int shared)
{
	struct ep_store_info info = { 0 };
	struct ep_err err = { 0 };
	char *warn = NULL, *taken, *why;
	int rc = EP_EXIT_OK;

	if ((taken = ep_storeopt_history_taken(s, before)) != NULL)
		ep_say(stderr, "envparity %s: %s", self->name, taken);
	free(taken);
	if (!ctx->remove && !shared && unmatched(&warn, s, profile,
	    ctx->w.key, &err) < 0) {
		why = xstrdup(err.msg);
		ep_err_set(&err, err.kind, "the waiver for %s was added to %s "
		    "at %.12s, but whether it names a fact of the golden cannot "
		    "be told: %s", ctx->w.key, path, commit, why);
		free(why);
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (ctx->remove && still_waived(&warn, s, profile, ctx->w.key,
	    ctx->now, &err) < 0) {
		why = xstrdup(err.msg);
		ep_err_set(&err, err.kind, "the waiver for %s was removed from "
		    "%s at %.12s, but whether another still covers it cannot be "
		    "told: %s", ctx->w.key, path, commit, why);
		free(why);
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	ep_store_describe(&info, s);
	if (!quiet && warn != NULL && ctx->remove)
		ep_say(stdout, "removed the waiver for %s from %s at %s on %s "
		    "%s", ctx->w.key, path, commit, info.store, info.ref);
	else if (!quiet)
		ep_say(stdout, "%s%s %s in %s at %s on %s %s", changed ? "" :
		    "already ", ctx->remove ? "unwaived" : "waived", ctx->w.key,
		    path, commit[0] ? commit : "(none)", info.store, info.ref);
	if (warn != NULL)
		ep_say(stderr, "envparity %s: %s", self->name, warn);
	if (fflush(stdout) == EOF) {
		ep_err_set(&err, EP_E_IO, "standard output: write failed");
		rc = ep_cmd_fail(self, &err);
	}
done:
	ep_store_info_clear(&info);
	free(warn);
	return rc;
}

static int
cmd_waive_exec(const struct ep_cmd *self, int argc, char **argv)
{
	struct waive_opts o = { 0 };
	struct ep_need need = { .what = EP_NEED_STORE, .sopt = &o.sopt };
	struct ep_cmd_args args;
	struct ep_resolved r = { 0 };
	struct ep_store_info info = { 0 };
	struct ep_author author = { 0 };
	struct ep_err err = { 0 };
	struct waive_ctx ctx = { 0 };
	char *path = NULL, *name = NULL, *msg = NULL, *abuf = NULL;
	char commit[41];
	int have_author, changed, rc;

	ctx.remove = self == &ep_cmd_unwaive;
	ctx.now = time(NULL);
	if (ep_opt_parse(&args, &rc, self, &o, argc, argv) < 0 ||
	    (rc = waive_usage(self, &ctx, &o, &args)) != 0)
		goto done;
	if (ep_resolve_store(&r, &need, &err) < 0 ||
	    ep_storeopt_author(&author, &have_author, &abuf, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	path = o.shared ? xstrdup("policy.json") :
	    xasprintf("%s/policy.json", r.profile);
	if (o.message == NULL)
		o.message = msg = waive_message(&ctx, o.shared);
	r.so.create = r.so.spec == NULL;
	if (ep_store_open(&r.store, &r.so, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	ep_store_describe(&info, r.store);
	name = xasprintf("%s#%s:%s", info.store, info.ref, path);
	ctx.name = name;
	if (ep_store_commit_file(commit, &changed, r.store, path, edit_policy,
	    &ctx, o.message, have_author ? &author : NULL, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	rc = waive_said(self, r.store, &info, &ctx, r.profile, path, commit,
	    changed, o.quiet, o.shared);
done:
	ep_store_info_clear(&info);
	ep_resolved_clear(&r);
	free(path);
	free(name);
	free(msg);
	free(abuf);
	return rc;
}
