/*
 * requires.h: what `pip check` finds among installed distributions (pip's
 * src/pip/_internal/operations/check.py), judged where they are: the
 * capture calls it once it has read every distribution, and keeps only
 * the findings, in meta.python.requires, for stack.requires (checks.c)
 * to report.  A golden or a fleet's node manifest carries no requirement
 * lines, only what was wrong with them.
 *
 * As pip check: a requirement whose marker is false (with "extra" ""),
 * the extra-only ones among them, does not apply; one that applies is
 * unmet when its distribution is not installed ("missing") or is at a
 * version outside its specifiers, pre-releases admitted ("conflict").
 * Where pip cannot read a requirement it drops the distribution and
 * fails; here the line is a finding ("invalid", or "marker" when only its
 * marker cannot be evaluated) and the distribution's other requirements
 * are still judged.  A marker that needs a value the capture did not
 * know leaves the finding marked "unknown", with why.
 */
#ifndef EP_REQUIRES_H
#define EP_REQUIRES_H

#include <jansson.h>

#include "manifest.h"
#include "pep508.h"

/*
 * Judge lines (normalized distribution name -> array of requirement
 * strings, as its metadata gives them) against the python.pkg.<name>
 * facts of m, under env.  A new object for meta.python.requires:
 *
 *   {"distributions": N,	the python.pkg facts of m
 *    "requirements": M,	the lines that apply here
 *    "unmet": {"<name>": [F, ...], ...}}	only names with findings
 *
 * F is {"kind": "missing" | "conflict" | "invalid" | "marker",
 *       "requirement": str(Requirement) as pip prints it (the line as
 *                      written for "invalid"),
 *       "wants": the requirement without its marker ("missing",
 *                "conflict"),
 *       "name": the PEP 503 name required ("missing", "conflict"),
 *       "installed": the version installed ("conflict"),
 *       "error": why pip could not read it ("invalid", "marker"),
 *       "unknown": why the marker could not be decided, when so}.
 * Names and findings in byte order of name, then requirement.  Values
 * of lines that are not strings are skipped.
 */
json_t *ep_requires_judge(const struct ep_manifest *m, json_t *lines,
    const struct ep_markerenv *env);

#endif
