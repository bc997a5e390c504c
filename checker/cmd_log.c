/*
 * cmd_log.c: `envparity log [store options] [-v] [--max N] [--json]`: the
 * history of a profile's golden manifest, newest first, with how many
 * facts each bless added, removed and changed; as text for a reader, or
 * as one JSON document (manifests/log.schema.json) for a script.
 */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clean.h"
#include "cmd.h"
#include "factdiff.h"
#include "manifest.h"
#include "opt.h"
#include "policy.h"
#include "store.h"
#include "storeopt.h"
#include "errors.h"
#include "xalloc.h"

static int cmd_log_exec(const struct ep_cmd *, int, char **);

/* What the command line says. */
struct log_opts {
	struct ep_storeopt sopt;
	int verbose;
	int json;
	unsigned long long max;	/* 0: all */
};

#define EP_LOG_SCHEMA "envparity/log@1"

static int
log_max(void *field, const char *arg, struct ep_err *err)
{
	unsigned long long *max = field;
	char *end;

	errno = 0;
	*max = strtoull(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end != '\0' || errno != 0 ||
	    *max == 0 || *max > SIZE_MAX)
		return ep_err_set(err, EP_E_INPUT, "--max '%s': expected a "
		    "positive number", arg);
	return 0;
}

#define LO struct log_opts
static const struct ep_opt log_opts[] = {
	EP_OPT_FLAG("verbose", 'v', LO, verbose,
	    "also list the keys, with old and new values"),
	EP_OPT_FN("max", 'n', "N", LO, max, log_max, "at most N commits"),
	EP_OPT_FLAG("json", 0, LO, json,
	    "print it as JSON\n"
	    "(share/envparity/schemas/log.schema.json): each\n"
	    "commit's id, date, author, subject, counts and\n"
	    "policy files; with -v its keys and values too"),
	EP_OPT_HELP,
	EP_OPT_GROUP(ep_og_store, LO, sopt, NULL),
	EP_OPT_END,
};
#undef LO

const struct ep_cmd ep_cmd_log = {
	.name = "log",
	.summary = "list the history of a profile's golden and policy",
	.usage =
"usage: envparity log [store options] [-v] [--max N] [--json]\n"
"\n"
"List the commits that changed PROFILE/manifest.json or a policy file\n"
"PROFILE is judged by, newest first: the commit, its date (UTC), author,\n"
"what it changed, and the first line of its message.  What it changed:\n"
"for the manifest, how many facts it added (+), removed (-) and changed\n"
"(~); then \"policy\" (PROFILE/policy.json), \"shared policy\" (the\n"
"store root's policy.json), or the path of a folder's policy.json above\n"
"the profile (\"train/policy.json\"), comma-separated.\n"
"\n",
	.opts = log_opts,
	.footer =
"Exit codes: 0 listed, 2 usage or no history for the profile (the message\n"
"says how to bless one), 3 the store could not be read.\n",
	.exec = cmd_log_exec,
};

static struct ep_manifest *
parse_or_null(const char *text, const char *id, const char *profile,
    char **why)
{
	struct ep_manifest *m = NULL;
	struct ep_err err = { 0 };
	char *name;

	if (text == NULL)
		return NULL;
	name = xasprintf("%s/manifest.json at %.12s", profile, id);
	if (ep_manifest_parse(&m, text, strlen(text), name, &err) < 0 &&
	    *why == NULL)
		*why = xstrdup(err.msg);
	free(name);
	return m;
}

static void
print_keys(const struct ep_factdiff *d, const struct ep_manifest *old,
    const struct ep_manifest *cur)
{
	for (size_t i = 0; i < d->added.n; i++)
		ep_say(stdout, "    + %s = %s", d->added.v[i],
		    ep_manifest_get(cur, d->added.v[i]));
	for (size_t i = 0; i < d->removed.n; i++)
		ep_say(stdout, "    - %s (was %s)", d->removed.v[i],
		    ep_manifest_get(old, d->removed.v[i]));
	for (size_t i = 0; i < d->changed.n; i++)
		ep_say(stdout, "    ~ %s: %s -> %s", d->changed.v[i],
		    ep_manifest_get(old, d->changed.v[i]),
		    ep_manifest_get(cur, d->changed.v[i]));
}

/* The policy files c changed, named for a reader: "policy" (the
 * profile's own), "shared policy" (the store root's), a folder's by its
 * path ("train/policy.json"); "" for none.  New. */
static char *
policies_changed(const struct ep_store_commit *c)
{
	char *out = xstrdup(""), *next;
	const char *what;

	for (size_t i = 0; i < c->policies.n; i++) {
		if (c->policy_scopes[i] == EP_SCOPE_PROFILE)
			what = "policy";
		else if (c->policy_scopes[i] == EP_SCOPE_SHARED)
			what = "shared policy";
		else
			what = c->policies.v[i];
		next = xasprintf("%s%s%s", out, out[0] ? ", " : "", what);
		free(out);
		out = next;
	}
	return out;
}

static void
print_commit(const struct ep_store_commit *c, const char *profile,
    int verbose)
{
	struct ep_manifest *old, *cur;
	struct ep_factdiff d = { 0 };
	char when[32], *why = NULL, *pols;
	struct tm tm;
	time_t t = c->when;
	/* The subject, as git log --oneline shows it. */
	int subject = (int)strcspn(c->message != NULL ? c->message : "", "\n");

	gmtime_r(&t, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	pols = policies_changed(c);
	if (!c->manifest_changed) {
		ep_say(stdout, "%.12s  %s  %s  %s  %.*s", c->id, when,
		    c->author, pols, subject, c->message != NULL ?
		    c->message : "");
		free(pols);
		return;
	}
	cur = parse_or_null(c->manifest, c->id, profile, &why);
	old = parse_or_null(c->parent_manifest, c->id, profile, &why);
	if (why != NULL) {
		ep_say(stdout, "%.12s  %s  %s  unreadable%s%s  %.*s", c->id,
		    when, c->author, pols[0] ? ", " : "", pols, subject,
		    c->message != NULL ? c->message : "");
		if (verbose)
			ep_say(stdout, "    %s", why);
	} else {
		ep_factdiff_compute(&d, old, cur);
		ep_say(stdout, "%.12s  %s  %s  +%zu -%zu ~%zu%s%s  %.*s",
		    c->id, when, c->author, d.added.n, d.removed.n,
		    d.changed.n, pols[0] ? ", " : "", pols, subject,
		    c->message != NULL ? c->message : "");
		if (verbose)
			print_keys(&d, old, cur);
	}
	free(pols);
	ep_factdiff_clear(&d);
	ep_manifest_free(old);
	ep_manifest_free(cur);
	free(why);
}

/* A JSON string of untrusted text (an author, a message, a value): valid
 * UTF-8, nothing a terminal would act on (ep_text_clean). */
static json_t *
jtext(const char *s)
{
	char *t = ep_text_clean(s != NULL ? s : "", 0);
	json_t *j = json_string(t);

	free(t);
	return j;
}

/* With -v: {"added": {KEY: NEW}, "removed": {KEY: OLD}, "changed": {KEY:
 * {"old": OLD, "new": NEW}}}. */
static json_t *
keys_json(const struct ep_factdiff *d, const struct ep_manifest *old,
    const struct ep_manifest *cur)
{
	json_t *k = json_object(), *a = json_object(), *r = json_object();
	json_t *c = json_object(), *pair;
	char *key;

	for (size_t i = 0; i < d->added.n; i++) {
		key = ep_text_clean(d->added.v[i], 0);
		json_object_set_new(a, key, jtext(ep_manifest_get(cur,
		    d->added.v[i])));
		free(key);
	}
	for (size_t i = 0; i < d->removed.n; i++) {
		key = ep_text_clean(d->removed.v[i], 0);
		json_object_set_new(r, key, jtext(ep_manifest_get(old,
		    d->removed.v[i])));
		free(key);
	}
	for (size_t i = 0; i < d->changed.n; i++) {
		key = ep_text_clean(d->changed.v[i], 0);
		pair = json_object();
		json_object_set_new(pair, "old", jtext(ep_manifest_get(old,
		    d->changed.v[i])));
		json_object_set_new(pair, "new", jtext(ep_manifest_get(cur,
		    d->changed.v[i])));
		json_object_set_new(c, key, pair);
		free(key);
	}
	json_object_set_new(k, "added", a);
	json_object_set_new(k, "removed", r);
	json_object_set_new(k, "changed", c);
	return k;
}

/* What c did to the manifest: null when nothing; {"added": N, "removed":
 * N, "changed": N} (and "keys" with -v); {"unreadable": WHY} when either
 * side does not parse. */
static json_t *
manifest_json(const struct ep_store_commit *c, const char *profile,
    int verbose)
{
	struct ep_manifest *old, *cur;
	struct ep_factdiff d = { 0 };
	char *why = NULL;
	json_t *m;

	if (!c->manifest_changed)
		return json_null();
	cur = parse_or_null(c->manifest, c->id, profile, &why);
	old = parse_or_null(c->parent_manifest, c->id, profile, &why);
	m = json_object();
	if (why != NULL)
		json_object_set_new(m, "unreadable", jtext(why));
	else {
		ep_factdiff_compute(&d, old, cur);
		json_object_set_new(m, "added", json_integer((json_int_t)
		    d.added.n));
		json_object_set_new(m, "removed", json_integer((json_int_t)
		    d.removed.n));
		json_object_set_new(m, "changed", json_integer((json_int_t)
		    d.changed.n));
		if (verbose)
			json_object_set_new(m, "keys", keys_json(&d, old, cur));
	}
	ep_factdiff_clear(&d);
	ep_manifest_free(old);
	ep_manifest_free(cur);
	free(why);
	return m;
}

static json_t *
commit_json(const struct ep_store_commit *c, const char *profile,
    int verbose)
{
	json_t *o = json_object(), *pols = json_array(), *p;
	char when[32];
	struct tm tm;
	time_t t = c->when;
	const char *msg = c->message != NULL ? c->message : "";
	char *subject = xstrndup(msg, strcspn(msg, "\n"));

	gmtime_r(&t, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_set_new(o, "commit", json_string(c->id));
	json_object_set_new(o, "date", json_string(when));
	json_object_set_new(o, "author", jtext(c->author));
	json_object_set_new(o, "subject", jtext(subject));
	json_object_set_new(o, "manifest", manifest_json(c, profile,
	    verbose));
	for (size_t i = 0; i < c->policies.n; i++) {
		p = json_object();
		json_object_set_new(p, "path", jtext(c->policies.v[i]));
		json_object_set_new(p, "scope", json_string(
		    ep_policy_scope_name(c->policy_scopes[i])));
		json_array_append_new(pols, p);
	}
	json_object_set_new(o, "policies", pols);
	free(subject);
	return o;
}

/* The whole history as one JSON document on standard output. */
static int
print_json(const struct ep_store_commit *v, size_t n,
    const struct ep_store_info *info, const char *profile, int verbose,
    struct ep_err *err)
{
	json_t *root = json_object(), *commits = json_array();

	json_object_set_new(root, "schema", json_string(EP_LOG_SCHEMA));
	json_object_set_new(root, "profile", json_string(profile));
	json_object_set_new(root, "store", jtext(info->store));
	json_object_set_new(root, "ref", jtext(info->ref));
	json_object_set_new(root, "commit", info->commit[0] ?
	    json_string(info->commit) : json_null());
	for (size_t i = 0; i < n; i++)
		json_array_append_new(commits, commit_json(&v[i], profile,
		    verbose));
	json_object_set_new(root, "commits", commits);
	return ep_cmd_print_json(root, err);
}

static int
cmd_log_exec(const struct ep_cmd *self, int argc, char **argv)
{
	struct log_opts o = { 0 };
	struct ep_cmd_args args;
	struct ep_store_opts so;
	struct ep_store_info info = { 0 };
	struct ep_store_commit *v = NULL;
	struct ep_store *s = NULL;
	struct ep_err err = { 0 };
	const char *profile;
	char *hint = NULL;
	size_t n = 0;
	int rc = EP_EXIT_OK;

	if (ep_opt_parse(&args, &rc, self, &o, argc, argv) < 0)
		return rc;
	if (ep_storeopt_resolve(&so, &profile, &o.sopt, &err) < 0 ||
	    ep_store_open(&s, &so, &err) < 0 ||
	    ep_store_policy_valid(s, profile, &err) < 0 ||
	    ep_store_log(&v, &n, s, profile, (size_t)o.max, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (n == 0) {
		ep_store_describe(&info, s);
		if (ep_store_no_branch(&info, &err) < 0) {
			rc = ep_cmd_fail(self, &err);
			goto done;
		}
		hint = ep_storeopt_bless_hint(&so, profile);
		ep_say(stderr, "envparity log: profile %s has no golden "
		    "manifest in %s %s; bless one with: %s", profile,
		    info.store, info.ref, hint);
		rc = EP_EXIT_USAGE;
		goto done;
	}
	if (o.json) {
		ep_store_describe(&info, s);
		if (print_json(v, n, &info, profile, o.verbose, &err) < 0) {
			rc = ep_cmd_fail(self, &err);
			goto done;
		}
	} else
		for (size_t i = 0; i < n; i++)
			print_commit(&v[i], profile, o.verbose);
	if (fflush(stdout) == EOF) {
		ep_err_set(&err, EP_E_IO, "standard output: write failed");
		rc = ep_cmd_fail(self, &err);
	}
done:
	ep_store_log_free(v, n);
	ep_store_info_clear(&info);
	ep_store_free(s);
	free(hint);
	return rc;
}
