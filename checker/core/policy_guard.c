/*
 * policy_guard.c: the waivers and rules a policy may not hold, decided
 * from each glob itself (keyglob.c's ep_glob_names and ep_glob_covers), not
 * by trying sample keys: a glob such as "*[!]]" or "[!r]*" missed every
 * sample and hid every finding.
 *
 * What a glob may cover, its [ ] classes taken as any character:
 *   - every key (it names nothing but by shape: "*", "?*", "*.*",
 *     "[!r]*", "*[!]]"): no waiver, and no rule that lets a drift pass
 *     (ignore, present, version, severity warn, missing skip or ignore).
 *     A rule for every key may only judge as strictly as the default's
 *     ("*": exact, missing fail), or more (absent).  Ignoring everything
 *     but a few areas is said area by area, so a new kind of fact (a new
 *     collector, a new library) is judged until someone says otherwise.
 *   - every key of an area ("python.*", "p*", "*n.*", "[p]ython.*"): no
 *     waiver (a waiver accepts a finding someone looked at, named by its
 *     keys; a whole area's accepts drift nobody has seen yet); a rule
 *     that lets drift pass only when it names the area as its first
 *     word ("lib.*", "stack.*": an area that is noise where it runs is
 *     said plainly), never by a glob that reaches it sideways.
 * The areas tried are the ones envparity writes (facts and results) and
 * the glob's own first word, so "newarea.*" counts as one too.
 */
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "keyglob.h"
#include "policy_int.h"
#include "xalloc.h"

/* The areas of the keys envparity writes: facts (docs/manifest.md),
 * results and meta. */
static const char *const areas[] = { "artifact", "capture", "conda",
    "cpu", "env", "file", "fleet", "framework", "golden", "gpu", "image",
    "lib", "libc", "lockfile", "meta", "node", "os", "policy", "probe",
    "python", "report", "stack", "store", NULL };

/* The glob's first word, when the glob opens with plain bytes up to a
 * '.': "lib" for "lib.*"; else NULL.  New. */
static char *
first_word(const char *glob)
{
	size_t n = strcspn(glob, "*?[\\.");

	return n > 0 && glob[n] == '.' ? xstrndup(glob, n) : NULL;
}

/* The areas of which glob covers every key, "python" or "golden,
 * python", or NULL for none; *named whether the glob opens with that
 * area's name and a '.' (it then covers that one alone).  New. */
static char *
covered_areas(const char *glob, int *named)
{
	char *own = first_word(glob), *prefix, *found = NULL, *t;

	*named = 0;
	if (own != NULL) {
		prefix = xasprintf("%s.", own);
		*named = ep_glob_covers(glob, prefix);
		free(prefix);
		if (*named)
			return own;
		free(own);
		return NULL;	/* its keys all start with own */
	}
	for (size_t i = 0; areas[i] != NULL; i++) {
		prefix = xasprintf("%s.", areas[i]);
		if (ep_glob_covers(glob, prefix)) {
			t = found ? xasprintf("%s, %s", found, areas[i]) :
			    xstrdup(areas[i]);
			free(found);
			found = t;
		}
		free(prefix);
	}
	return found;
}

char *
ep_policy_waiver_too_wide(const char *key)
{
	char *area, *why;
	int named;

	if (!ep_glob_names(key))
		return xstrdup("a waiver for every key hides every finding "
		    "(leaving '*', '?' and [ ] classes aside, the key holds "
		    "nothing but dots: it picks keys by their shape, not by "
		    "name): name the keys the finding is about");
	if ((area = covered_areas(key, &named)) == NULL)
		return NULL;
	why = xasprintf("a waiver for every key of %s %s hides every finding "
	    "there, ones nobody has looked at included: name the keys the "
	    "finding is about (python.pkg.numpy, a glob such as "
	    "lib.*.sha256), or say with a rule \"ignore\" for an area "
	    "(\"stack.*\") that it is not judged", strchr(area, ',') ?
	    "areas" : "area", area);
	free(area);
	return why;
}

/* What in a rule lets a drift pass, or NULL when it judges as strictly
 * as exact, missing fail, severity fail. */
static const char *
relaxes(int kind, int missing, int severity)
{
	static const char *const kinds[] = { NULL, "rule \"ignore\"",
	    "rule \"version\"", "rule \"present\"", NULL };

	if (kind >= EP_RULE_EXACT && kind <= EP_RULE_ABSENT &&
	    kinds[kind] != NULL)
		return kinds[kind];
	if (severity == EP_SEVERITY_WARN)
		return "severity \"warn\"";
	if (kind == EP_RULE_EXACT && missing == EP_MISSING_SKIP)
		return "missing \"skip\"";
	if (kind == EP_RULE_EXACT && missing == EP_MISSING_IGNORE)
		return "missing \"ignore\"";
	return NULL;
}

char *
ep_policy_rule_too_wide(const char *key, int kind, int missing,
    int severity)
{
	const char *what = relaxes(kind, missing, severity);
	char *area, *why;
	int named;

	if (what == NULL)
		return NULL;
	if (!ep_glob_names(key))
		return xasprintf("%s for every key lets every drift pass "
		    "(leaving '*', '?' and [ ] classes aside, the key holds "
		    "nothing but dots): a rule for every key judges as "
		    "strictly as the default (exact, missing fail) or more; "
		    "name the areas to relax (\"stack.*\")", what);
	if ((area = covered_areas(key, &named)) == NULL || named) {
		free(area);
		return NULL;
	}
	why = xasprintf("%s covers every key of %s %s without naming it: a "
	    "rule relaxes a whole area only as \"AREA.*\", one area each",
	    what, strchr(area, ',') ? "areas" : "area", area);
	free(area);
	return why;
}
