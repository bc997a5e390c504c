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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clean.h"
#include "cmd.h"
#include "policy.h"
#include "store.h"
#include "storeopt.h"
#include "errors.h"
#include "xalloc.h"

static int cmd_waive_exec(const struct ep_cmd *, int, char **);

#define WAIVE_COMMON_HELP						\
"  --shared             the store root's policy.json, which every profile\n" \
"                       shares, instead of PROFILE/policy.json\n"	\
"  -m, --message TEXT   the commit message\n"				\
"  -q, --quiet          print nothing when it succeeds\n"		\
"  -h, --help           show this help\n"				\
"\n"									\
EP_STORE_HELP								\
"\n"									\
"The author is $ENVPARITY_AUTHOR (\"Name <email>\"), else the CI's user,\n" \
"else git config's user.name and user.email, as for bless.  The commit\n" \
"is made as bless makes one: the branch moves by compare-and-swap, a\n" \
"commit of other files that lands first is kept and this one made on\n" \
"top; one that changed the same policy.json makes this one fail (exit\n" \
"3) rather than replace it unseen.  On a remote store whose branch was\n" \
"rewritten since the cache saw it (store.history), it takes that history,\n" \
"as a bless would, and says so on standard error, even with -q.\n"

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
"check.  The rest of the file is kept as it is, in its order.\n"
"\n"
"  --reason TEXT        why the drift is accepted (required)\n"
"  --owner NAME         who answers for it (required)\n"
"  --expires DATE       the last day it holds, YYYY-MM-DD in UTC, today or\n"
"                       later (required)\n"
"  --actual VALUE       waive only this value of KEY (another value still\n"
"                       fails); default: any value\n"
WAIVE_COMMON_HELP
"\n"
"Prints \"waived KEY in FILE at COMMIT on STORE BRANCH\" (\"already\" when\n"
"the file held that waiver).  Default message: \"waive KEY (OWNER):\n"
"REASON\".\n"
"Exit codes: 0 committed or already so, 2 usage, an empty reason or\n"
"owner, a date that is no date or is past, a KEY that is no fact key or\n"
"pattern, a policy.json check would refuse (nothing is committed), 3 the\n"
"store could not be read or written, or a race on the same file.\n",
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
"\n"
WAIVE_COMMON_HELP
"\n"
"Prints \"unwaived KEY in FILE at COMMIT on STORE BRANCH\"; when another\n"
"live waiver still covers KEY for PROFILE, \"removed the waiver for KEY\n"
"from FILE at ...\" instead, and on standard error (even with -q) a\n"
"warning naming that waiver, its file, owner and expiry.  Default\n"
"message: \"unwaive KEY\".\n"
"Exit codes: 0 committed (with or without that warning: the waiver asked\n"
"for is gone), 2 usage, no waiver for KEY in the file, a policy.json\n"
"check would refuse (nothing is committed), 3 the store could not be\n"
"read or written, or a race on the same file.\n",
	.exec = cmd_waive_exec,
};

enum {
	OPT_REASON = 0x500,
	OPT_OWNER,
	OPT_EXPIRES,
	OPT_ACTUAL,
	OPT_SHARED,
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

static int
cmd_waive_exec(const struct ep_cmd *self, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "reason", required_argument, NULL, OPT_REASON },
		{ "owner", required_argument, NULL, OPT_OWNER },
		{ "expires", required_argument, NULL, OPT_EXPIRES },
		{ "actual", required_argument, NULL, OPT_ACTUAL },
		{ "shared", no_argument, NULL, OPT_SHARED },
		{ "message", required_argument, NULL, 'm' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		EP_STORE_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct ep_storeopt sopt = { 0 };
	struct ep_store_opts so;
	struct ep_store_info info = { 0 };
	struct ep_author author = { 0 };
	struct ep_store *s = NULL;
	struct ep_err err = { 0 };
	struct waive_ctx ctx = { 0 };
	const char *message = NULL, *profile;
	char *path = NULL, *name = NULL, *msg = NULL, *abuf = NULL;
	char *still = NULL, *taken = NULL;
	char commit[41];
	int c, quiet = 0, shared = 0, have_author, changed;
	int rc = EP_EXIT_OK;

	ctx.remove = self == &ep_cmd_unwaive;
	ctx.now = time(NULL);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:qh", longopts, NULL)) != -1) {
		if (ep_store_opt(&sopt, c, optarg))
			continue;
		switch (c) {
		case OPT_REASON:
		case OPT_OWNER:
		case OPT_EXPIRES:
		case OPT_ACTUAL:
			if (ctx.remove) {
				rc = ep_cmd_usage_error(self, "'--%s' is for "
				    "waive", longopts[c - OPT_REASON].name);
				goto done;
			}
			if (c == OPT_REASON)
				ctx.w.reason = optarg;
			else if (c == OPT_OWNER)
				ctx.w.owner = optarg;
			else if (c == OPT_EXPIRES)
				ctx.w.expires = optarg;
			else
				ctx.w.actual = optarg;
			break;
		case OPT_SHARED:
			shared = 1;
			break;
		case 'm':
			message = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			fputs(self->usage, stdout);
			goto done;
		default:
			rc = ep_cmd_bad_option(self, c, longopts, argv);
			goto done;
		}
	}
	if (argc - optind != 1) {
		rc = argc - optind == 0 ? ep_cmd_usage_error(self, "no KEY") :
		    ep_cmd_usage_error(self, "unexpected argument '%s'",
		    argv[optind + 1]);
		goto done;
	}
	ctx.w.key = argv[optind];
	if (!ctx.remove) {
		if (ctx.w.reason == NULL || ctx.w.owner == NULL ||
		    ctx.w.expires == NULL) {
			rc = ep_cmd_usage_error(self, "a waiver needs --reason, "
			    "--owner and --expires");
			goto done;
		}
		/* Before the store is touched. */
		if (ep_policy_waiver_check(&ctx.w, ctx.now, &err) < 0) {
			rc = ep_cmd_fail(self, &err);
			goto done;
		}
	} else if (ctx.w.key[0] == '\0') {
		rc = ep_cmd_usage_error(self, "the key is empty");
		goto done;
	}
	if ((rc = ep_cmd_message_check(self, message)) != 0)
		goto done;
	if (ep_storeopt_resolve(&so, &profile, &sopt, &err) < 0 ||
	    ep_storeopt_author(&author, &have_author, &abuf, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	path = shared ? xstrdup("policy.json") :
	    xasprintf("%s/policy.json", profile);
	if (message == NULL) {
		char *line;

		if (ctx.remove)
			line = xasprintf("unwaive %s%s", ctx.w.key, shared ?
			    " in the shared policy" : "");
		else
			line = xasprintf("waive %s%s (%s): %s", ctx.w.key,
			    shared ? " in the shared policy" : "",
			    ctx.w.owner, ctx.w.reason);
		/* One line, whatever --owner and --reason hold: a line of
		 * its own starting "::" would be a workflow command where
		 * a CI job shows the store's git log. */
		msg = ep_line_clean(line);
		free(line);
		message = msg;
	}

	so.create = so.spec == NULL;
	if (ep_store_open(&s, &so, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	ep_store_describe(&info, s);
	name = xasprintf("%s#%s:%s", info.store, info.ref, path);
	ctx.name = name;
	if (ep_store_commit_file(commit, &changed, s, path, edit_policy, &ctx,
	    message, have_author ? &author : NULL, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	/* Taking a rewritten history is said where -q still speaks, and
	 * first: whatever follows, it is taken. */
	if ((taken = ep_storeopt_history_taken(s, &info)) != NULL)
		ep_say(stderr, "envparity %s: %s", self->name, taken);
	/* Removed as asked; but a glob, or a shared or inherited file's
	 * waiver, may still cover the key: said, never "unwaived". */
	if (ctx.remove && still_waived(&still, s, profile, ctx.w.key, ctx.now,
	    &err) < 0) {
		char *why = xstrdup(err.msg);

		ep_err_set(&err, err.kind, "the waiver for %s was removed from "
		    "%s at %.12s, but whether another still covers it cannot be "
		    "told: %s", ctx.w.key, path, commit, why);
		free(why);
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	ep_store_info_clear(&info);
	ep_store_describe(&info, s);
	if (!quiet && still != NULL)
		ep_say(stdout, "removed the waiver for %s from %s at %s on %s "
		    "%s", ctx.w.key, path, commit, info.store, info.ref);
	else if (!quiet)
		ep_say(stdout, "%s%s %s in %s at %s on %s %s", changed ? "" :
		    "already ", ctx.remove ? "unwaived" : "waived", ctx.w.key,
		    path, commit[0] ? commit : "(none)", info.store, info.ref);
	if (still != NULL)
		ep_say(stderr, "envparity %s: %s", self->name, still);
	if (fflush(stdout) == EOF) {
		ep_err_set(&err, EP_E_IO, "standard output: write failed");
		rc = ep_cmd_fail(self, &err);
	}
done:
	ep_store_info_clear(&info);
	ep_store_free(s);
	free(path);
	free(name);
	free(msg);
	free(abuf);
	free(still);
	free(taken);
	return rc;
}
