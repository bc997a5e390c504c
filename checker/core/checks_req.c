/*
 * checks_req.c: stack.requires.<dist>, what `pip check` finds, as the
 * capture judged it (requires.h, meta.python.requires): a requirement of
 * an installed distribution (Requires-Dist, its marker true here) whose
 * distribution is not installed, or is at a version outside its
 * specifiers, or that pip cannot read, fails; one not met whose marker
 * needs a value the capture did not know warns.  One result per
 * distribution with findings and, when there are none, one pass
 * "stack.requires" for them all: a thousand passes would say nothing.
 *
 * And stack.duplicate.<dist>: a distribution installed twice in one
 * site-packages (meta.python.duplicates) fails, since which of the two
 * Python finds is the directory's order, not a rule.  Only the findings
 * are results: pip check does not look, and a clean site-packages, the
 * rule, would only add a pass to every report.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "checks_int.h"
#include "vercmp.h"
#include "strv.h"
#include "xalloc.h"

/* One distribution's findings as sentences, in pip check's order. */
struct unmet {
	struct ep_strv missing;	/* pip check's sentences, by kind: */
	struct ep_strv conflict;
	struct ep_strv invalid;	/* what pip cannot read (it fails too) */
	struct ep_strv warn;	/* unmet where the marker is unknown */
	struct ep_strv want;	/* what is unmet, without markers */
	struct ep_strv have;	/* what is installed of each */
};

static void
unmet_clear(struct unmet *u)
{
	ep_strv_clear(&u->missing);
	ep_strv_clear(&u->conflict);
	ep_strv_clear(&u->invalid);
	ep_strv_clear(&u->warn);
	ep_strv_clear(&u->want);
	ep_strv_clear(&u->have);
}

static void
push_once(struct ep_strv *sv, char *s)
{
	if (ep_strv_contains(sv, s))
		free(s);
	else
		ep_strv_push_owned(sv, s);
}

static char *
join(const struct ep_strv *sv, const char *sep)
{
	size_t len = 1;
	char *out;

	for (size_t i = 0; i < sv->n; i++)
		len += strlen(sv->v[i]) + strlen(sep);
	out = xcalloc(1, len);
	for (size_t i = 0; i < sv->n; i++) {
		if (i > 0)
			strcat(out, sep);
		strcat(out, sv->v[i]);
	}
	return out;
}

/* A version as pip prints it (str(Version)), or as written. */
static char *
pip_version(const char *v)
{
	char *n = ep_version_pep440_norm(v);

	return n != NULL ? n : xstrdup(v);
}

static const char *
field(json_t *f, const char *key)
{
	return json_string_value(json_object_get(f, key));
}

/* One finding of dist (at version ver, as pip prints it) into u; 0, or
 * -1 when it is not what a capture writes. */
static int
one_finding(struct unmet *u, const char *dist, const char *ver, json_t *f,
    const char *why_unknown)
{
	const char *kind = field(f, "kind"), *req = field(f, "requirement"),
	    *name = field(f, "name"), *inst = field(f, "installed"),
	    *error = field(f, "error"), *unknown = field(f, "unknown"),
	    *wants = field(f, "wants");
	char *sentence, *hv, *s;

	if (kind == NULL || req == NULL)
		return -1;
	if (strcmp(kind, "invalid") == 0 || strcmp(kind, "marker") == 0) {
		if (error == NULL)
			return -1;
		push_once(&u->invalid, kind[0] == 'i' ? xasprintf("%s %s has "
		    "an invalid requirement \"%s\": %s.", dist, ver, req,
		    error) : xasprintf("%s %s has requirement %s, whose marker "
		    "cannot be evaluated: %s.", dist, ver, req, error));
		return 0;
	}
	if (name == NULL || wants == NULL || (strcmp(kind, "missing") != 0 &&
	    (strcmp(kind, "conflict") != 0 || inst == NULL)))
		return -1;
	if (inst == NULL) {
		sentence = xasprintf("%s %s requires %s, which is not "
		    "installed.", dist, ver, name);
		push_once(&u->have, xasprintf("%s not installed", name));
	} else {
		hv = pip_version(inst);
		sentence = xasprintf("%s %s has requirement %s, but you have "
		    "%s %s.", dist, ver, req, name, hv);
		push_once(&u->have, xasprintf("%s %s", name, hv));
		free(hv);
	}
	push_once(&u->want, xstrdup(wants));
	if (unknown != NULL) {
		/* "requires y, which is not installed." and the like, where
		 * the marker may hold. */
		sentence[strlen(sentence) - 1] = '\0';
		s = xasprintf("%s, if its marker holds (%s: %s).", sentence,
		    unknown, why_unknown);
		free(sentence);
		push_once(&u->warn, s);
	} else
		push_once(inst == NULL ? &u->missing : &u->conflict, sentence);
	return 0;
}

static int
key_order(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One distribution's findings as its result, if any is one.  1 when a
 * result was given. */
static int
dist_result(struct checks *k, const char *dist, json_t *fs,
    const char *why_unknown)
{
	static const char *rule = "check:requires";
	struct unmet u = { 0 };
	char *key = xasprintf("python.pkg.%s", dist), *rkey, *ver, *msg,
	    *want, *have;
	const char *raw = ep_checks_get(k, key);
	size_t i, nfail;
	json_t *f;
	int bad = !json_is_array(fs);

	free(key);
	ver = raw != NULL ? pip_version(raw) : xstrdup("(not installed)");
	rkey = xasprintf("stack.requires.%s", dist);
	json_array_foreach(fs, i, f)
		bad |= one_finding(&u, dist, ver, f, why_unknown) < 0;
	if (bad) {
		/* A manifest not written by capture: the check cannot say
		 * what it holds, and no waiver should hide that. */
		ep_checks_add(k, rkey, EP_ERROR, rule, NULL, NULL, xasprintf("%s: "
		    "meta.python.requires.unmet.%s is not what a capture "
		    "writes", rkey, dist));
		goto done;
	}
	nfail = u.missing.n + u.conflict.n + u.invalid.n;
	if (nfail == 0 && u.warn.n == 0) {
		free(rkey);
		free(ver);
		unmet_clear(&u);
		return 0;
	}
	/* pip prints the missing, then the conflicts, each kind sorted;
	 * then what it could not read, and the unknowns. */
	ep_strv_sort(&u.missing);
	ep_strv_sort(&u.conflict);
	ep_strv_sort(&u.invalid);
	ep_strv_sort(&u.warn);
	for (i = 0; i < u.conflict.n; i++)
		ep_strv_push(&u.missing, u.conflict.v[i]);
	for (i = 0; i < u.invalid.n; i++)
		ep_strv_push(&u.missing, u.invalid.v[i]);
	for (i = 0; i < u.warn.n; i++)
		ep_strv_push(&u.missing, u.warn.v[i]);
	msg = join(&u.missing, " ");
	want = join(&u.want, "; ");
	have = join(&u.have, "; ");
	ep_checks_add(k, rkey, nfail > 0 ? EP_FAIL : EP_WARN, rule,
	    *want ? want : NULL,
	    *have ? have : NULL, xasprintf("%s: %s", rkey, msg));
	free(msg);
	free(want);
	free(have);
done:
	free(rkey);
	free(ver);
	unmet_clear(&u);
	return 1;
}

/*
 * stack.requires.<dist>: pip check's findings, as the capture judged
 * them (requires.h) where every distribution was at hand, in pip's own
 * sentences.  One result per distribution with findings; one pass for
 * them all when there is none.
 */
void
ep_checks_requires(struct checks *k)
{
	static const char *rule = "check:requires";
	json_t *py = json_object_get(k->m->meta, "python"), *req, *unmet, *fs;
	const char *from, *why, *dk;
	struct ep_strv dists = { 0 };
	size_t nres = 0;
	json_int_t ndist, nreq;
	char *why_unknown;

	req = json_object_get(py, "requires");
	unmet = json_object_get(req, "unmet");
	if (!json_is_object(unmet)) {
		why = ep_checks_unavailable(k, "python");
		ep_checks_add(k, "stack.requires", EP_SKIP, rule, NULL, NULL, why !=
		    NULL ? xasprintf("stack.requires: not checked here: %s",
		    why) : xstrdup("stack.requires: this capture records no "
		    "requirements (meta.python.requires): an envparity before "
		    "it read them, or no Python here"));
		return;
	}
	if ((from = json_string_value(json_object_get(py, "markers_from"))) ==
	    NULL)
		from = "nowhere";
	else if (strcmp(from, "interpreter") == 0)
		from = "the interpreter";
	why_unknown = xasprintf("the capture took the marker environment "
	    "from %s", from);
	json_object_foreach(unmet, dk, fs)
		ep_strv_push(&dists, dk);
	if (dists.n > 0)
		qsort(dists.v, dists.n, sizeof *dists.v, key_order);
	for (size_t i = 0; i < dists.n; i++)
		nres += (size_t)dist_result(k, dists.v[i],
		    json_object_get(unmet, dists.v[i]), why_unknown);
	ndist = json_integer_value(json_object_get(req, "distributions"));
	nreq = json_integer_value(json_object_get(req, "requirements"));
	if (nres == 0)
		ep_checks_add(k, "stack.requires", EP_PASS, rule, NULL, NULL,
		    xasprintf("stack.requires: %lld distribution%s, %lld requirement%s "
		    "that apply here: every one met (pip check's rules; "
		    "markers from %s)", (long long)ndist, ndist == 1 ? "" : "s",
		    (long long)nreq, nreq == 1 ? "" : "s", from));
	free(why_unknown);
	ep_strv_clear(&dists);
}

/*
 * stack.duplicate.<dist>: each name meta.python.duplicates holds, with
 * the metadata files and versions the capture found in one directory.
 */
void
ep_checks_duplicates(struct checks *k)
{
	static const char *rule = "check:duplicates";
	json_t *d = json_object_get(json_object_get(k->m->meta, "python"),
	    "duplicates"), *arr, *e;
	const char *dk, *path, *ver;
	struct ep_strv dists = { 0 }, parts = { 0 }, vers = { 0 };
	char *key, *msg, *all, *vall;
	size_t i;
	int bad;

	json_object_foreach(d, dk, arr)
		ep_strv_push(&dists, dk);
	if (dists.n > 0)
		qsort(dists.v, dists.n, sizeof *dists.v, key_order);
	for (size_t n = 0; n < dists.n; n++) {
		arr = json_object_get(d, dists.v[n]);
		key = xasprintf("stack.duplicate.%s", dists.v[n]);
		bad = !json_is_array(arr) || json_array_size(arr) < 2;
		json_array_foreach(arr, i, e) {
			path = field(e, "metadata");
			ver = field(e, "version");
			if (path == NULL || ver == NULL) {
				bad = 1;
				break;
			}
			ep_strv_push_owned(&parts, xasprintf("%s (%s)", path,
			    ver));
			ep_strv_push(&vers, ver);
		}
		if (bad)
			ep_checks_add(k, key, EP_ERROR, rule, NULL, NULL,
			    xasprintf("%s: meta.python.duplicates.%s is not "
			    "what a capture writes", key, dists.v[n]));
		else {
			all = join(&parts, ", ");
			vall = join(&vers, ", ");
			msg = xasprintf("%s: %s is installed %zu times in one "
			    "site-packages: %s; python.pkg.%s records the "
			    "first by name, but Python's importlib.metadata "
			    "and pip take whichever the directory lists first "
			    "(remove the one that is not what was installed)",
			    key, dists.v[n], parts.n, all, dists.v[n]);
			ep_checks_add(k, key, EP_FAIL, rule, NULL, vall, msg);
			free(all);
			free(vall);
		}
		ep_strv_clear(&parts);
		ep_strv_clear(&vers);
		free(key);
	}
	ep_strv_clear(&dists);
}
