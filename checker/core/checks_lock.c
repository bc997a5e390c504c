/*
 * checks_lock.c: stack.lock.<lockfile>.<name>, the environment against
 * its own lockfile, as the capture judged it (collect/lockjudge.h,
 * meta.lock.<lockfile>): a pinned package installed at another version
 * fails, a pinned package not installed fails (warns where the lockfile
 * does not say whether the tool installs it by default: uv.lock's,
 * pdm.lock's outside its default group), a
 * package installed that no pin that applies names warns (a rule of the
 * policy for its key with
 * severity fail makes it fail; kind ignore drops it).  One result per
 * package with a finding and, when a lockfile has none, one pass
 * stack.lock.<lockfile> for all its pins, as stack.requires does.
 * <lockfile> is the key of the lockfile.<lockfile>.* facts: the path
 * relative to the current directory, so two lockfiles never share it.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "checks_int.h"
#include "policy.h"
#include "strv.h"
#include "xalloc.h"

static const char *
str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* A package installed that no pin names: a warning, unless a rule of
 * the user's policy matches its key with severity fail. */
static int
extra_status(struct checks *k, const char *key)
{
	const struct ep_rule *r = ep_policy_match(k->policy, key);

	return !r->builtin && r->kind != EP_RULE_IGNORE &&
	    r->severity == EP_SEVERITY_FAIL ? EP_FAIL : EP_WARN;
}

/* One finding of lockfile lf (format fmt): its result. */
static void
lock_finding(struct checks *k, const char *lf, const char *fmt,
    const char *name, json_t *f)
{
	static const char *rule = "check:lock";
	const char *kind = str(f, "kind"), *pin = str(f, "pin"),
	    *have = str(f, "installed");
	char *key = xasprintf("stack.lock.%s.%s", lf, name);

	if (kind != NULL && strcmp(kind, "missing") == 0 && pin != NULL &&
	    json_is_true(json_object_get(f, "maybe_optional")))
		ep_checks_add(k, key, EP_WARN, rule, pin, NULL, xasprintf("%s: "
		    "%s is pinned to %s by %s (%s) and is not installed (the "
		    "lockfile does not say whether it is an extra's, a "
		    "group's that is not installed by default or another "
		    "platform's)", key, name,
		    pin, lf, fmt));
	else if (kind != NULL && strcmp(kind, "missing") == 0 && pin != NULL)
		ep_checks_add(k, key, EP_FAIL, rule, pin, NULL, xasprintf("%s: "
		    "%s is pinned to %s by %s (%s) and is not installed", key,
		    name, pin, lf, fmt));
	else if (kind != NULL && strcmp(kind, "version") == 0 && pin != NULL &&
	    have != NULL)
		ep_checks_add(k, key, EP_FAIL, rule, pin, have, xasprintf("%s: "
		    "%s is pinned to %s by %s (%s), but %s is installed", key,
		    name, pin, lf, fmt, have));
	else if (kind != NULL && strcmp(kind, "extra") == 0 && have != NULL)
		ep_checks_add(k, key, extra_status(k, key), rule, NULL, have,
		    xasprintf("%s: %s %s is installed, but %s (%s) pins no "
		    "such package where it applies here", key, name, have, lf,
		    fmt));
	else
		ep_checks_add(k, key, EP_ERROR, rule, NULL, NULL, xasprintf(
		    "%s: meta.lock.%s.findings.%s is not what a capture "
		    "writes", key, lf, name));
	free(key);
}

static int
key_order(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A requirements file's many extras, as one warning on the lockfile's
 * key (a policy rule on it turns it as it turns an extra). */
static void
extras_summary(struct checks *k, const char *key, const char *lf,
    const char *fmt, json_t *sum)
{
	json_t *names = json_object_get(sum, "names"), *v;
	json_int_t n = json_integer_value(json_object_get(sum, "count"));
	char *joined = xstrdup(""), *w;
	size_t i, named = 0;

	json_array_foreach(names, i, v)
		if (json_is_string(v)) {
			w = xasprintf("%s%s%s", joined, named++ > 0 ? ", " : "",
			    json_string_value(v));
			free(joined);
			joined = w;
		}
	ep_checks_add(k, key, extra_status(k, key), "check:lock", NULL, NULL,
	    xasprintf("%s: %lld packages are installed that %s (%s) pins "
	    "nowhere where it applies here (%s%s): a file of == pins that "
	    "lists what was asked for, not each dependency (pip freeze "
	    "does)?", key, (long long)n, lf, fmt, joined,
	    (json_int_t)named < n ? ", ..." : ""));
	free(joined);
}

/* One lockfile's judgement. */
static void
lock_one(struct checks *k, const char *lf, json_t *j)
{
	static const char *rule = "check:lock";
	const char *fmt = str(j, "format"), *why = str(j, "unavailable"),
	    *sel = str(j, "selected"), *name;
	json_t *fs = json_object_get(j, "findings"), *f, *sum;
	struct ep_strv names = { 0 };
	char *key = xasprintf("stack.lock.%s", lf);
	json_int_t npins, nun;

	if (fmt == NULL)
		fmt = "lockfile";
	if (why != NULL) {
		ep_checks_add(k, key, EP_SKIP, rule, NULL, NULL, xasprintf(
		    "%s: %s (%s) not compared with what is installed: %s",
		    key, lf, fmt, why));
		goto done;
	}
	if (!json_is_object(fs) || sel == NULL) {
		ep_checks_add(k, key, EP_ERROR, rule, NULL, NULL, xasprintf(
		    "%s: meta.lock.%s is not what a capture writes", key, lf));
		goto done;
	}
	json_object_foreach(fs, name, f)
		ep_strv_push(&names, name);
	if (names.n > 1)
		qsort(names.v, names.n, sizeof *names.v, key_order);
	for (size_t i = 0; i < names.n; i++)
		lock_finding(k, lf, fmt, names.v[i],
		    json_object_get(fs, names.v[i]));
	npins = json_integer_value(json_object_get(j, "pins"));
	nun = json_integer_value(json_object_get(j, "unjudged"));
	if ((sum = json_object_get(j, "extras_summary")) != NULL)
		extras_summary(k, key, lf, fmt, sum);
	else if (names.n == 0)
		ep_checks_add(k, key, EP_PASS, rule, NULL, NULL, xasprintf("%s: "
		    "%lld pin%s of %s (%s) that appl%s here, every one "
		    "installed at its version%s%s%s (%s)", key, (long long)npins,
		    npins == 1 ? "" : "s", lf, fmt, npins == 1 ? "ies" : "y",
		    json_is_true(json_object_get(j, "extras")) ?
		    ", nothing installed beside them" : "",
		    nun > 0 ? "; not judged: " : "",
		    nun > 0 ? "loose specifiers or markers not decided here" :
		    "", sel));
done:
	ep_strv_clear(&names);
	free(key);
}

/*
 * stack.lock.*: for each lockfile the capture read, its findings.
 * Nothing when no lockfile was read.
 */
void
ep_checks_lock(struct checks *k)
{
	json_t *lock = json_object_get(k->m->meta, "lock"), *j;
	struct ep_strv lfs = { 0 };
	const char *lf;

	json_object_foreach(lock, lf, j)
		ep_strv_push(&lfs, lf);
	if (lfs.n > 1)
		qsort(lfs.v, lfs.n, sizeof *lfs.v, key_order);
	for (size_t i = 0; i < lfs.n; i++)
		lock_one(k, lfs.v[i], json_object_get(lock, lfs.v[i]));
	ep_strv_clear(&lfs);
}
