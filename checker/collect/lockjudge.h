/*
 * lockjudge.h: the environment against its own lockfile (stack.lock.*):
 * which pins of a lockfile apply to the inspected interpreter or conda
 * environment (markers, platform, category or group, environment), and
 * how the installed distributions stand against them.  The capture calls
 * it for each lockfile it reads, while the pins still say what they
 * apply to (the lockfile.<key>.pin.* facts keep versions alone), and
 * keeps the judgement in meta.lock for core/checks_lock.c to report, as
 * meta.python.requires is kept for stack.requires.  Hashes are not
 * verified again: what is installed is compared by name and version.
 */
#ifndef EP_LOCKJUDGE_H
#define EP_LOCKJUDGE_H

#include <jansson.h>

#include "lockfile.h"
#include "manifest.h"
#include "pep508.h"
#include "strv.h"

/* A requirements file whose extras are more than this many gets one
 * summary (its first EP_LOCK_EXTRAS_NAMED names) instead of one finding
 * each. */
#define EP_LOCK_EXTRAS_MAX	20
#define EP_LOCK_EXTRAS_NAMED	5

struct ep_lockjudge {
	/* --lock-group NAME (borrowed): the categories, groups or pixi
	 * environments whose pins apply; "all" is every one.  Empty: what
	 * each tool installs by default (ep_lock_default_groups). */
	const struct ep_strv *groups;
	/* The marker environment of the inspected interpreter (borrowed);
	 * a value NULL where not known.  NULL: no interpreter was looked
	 * at, the Python pins cannot be judged. */
	const struct ep_markerenv *env;
	/* conda's name for this platform ("linux-64"), or NULL. */
	const char *conda_platform;
};

/* What each tool installs by default, in words, for f: "main and every
 * non-optional group (poetry install)", ...  A static string. */
const char *ep_lock_default_groups(enum ep_lock_format f);

/* conda's platform ("linux-64", "linux-aarch64", "osx-arm64", ...) for
 * platform_system and platform_machine as the marker environment gives
 * them, or NULL when either is NULL or the pair is not one conda names.
 * A static string. */
const char *ep_lock_conda_platform(const char *system, const char *machine);

/*
 * Judge the pins (with what each applies to: not merged) of a lockfile
 * of format f against the python.pkg.* and conda.pkg.* facts of m.  A new
 * object for meta.lock.<key>:
 *
 *   {"format": "poetry", "selected": what applies, in words,
 *    "against": "python" | "conda" | "python and conda",
 *    "pins": the pins judged, "unjudged": the pins that apply or may but
 *    cannot be judged (a loose specifier, a marker that cannot be
 *    decided), "extras": true when installed distributions not pinned
 *    were looked for, "extras_summary": {"count": N, "names": the first
 *    EP_LOCK_EXTRAS_NAMED, sorted} for a requirements file with more
 *    than EP_LOCK_EXTRAS_MAX extras (then none of them is a finding),
 *    "findings": {"<name>" (a PyPI package's "pypi:<name>" where a conda
 *                 package of the name has a finding too):
 *                {"kind": "missing" | "version" | "extra",
 *                            "pin": the version(s) pinned that apply,
 *                            "installed": the version installed,
 *                            "maybe_optional": true for a pin not
 *                            installed that the tool may leave out by
 *                            default: uv.lock's (it pins every extra's
 *                            and group's packages without saying
 *                            whose), pdm.lock's only in groups other
 *                            than default (it does not say which group
 *                            is an optional one), unless named with
 *                            --lock-group; pdm.lock's when no pin has a
 *                            marker (it cannot say which is a
 *                            platform's); poetry.lock's (1.x, no pin
 *                            with a marker) reached from its roots only
 *                            through an edge whose marker is not
 *                            decided here or that an extra asks for}}}
 *
 * A pin applies when its group and its marker (evaluated as pip does,
 * "extra" being "") select it (poetry.lock 1.x, whose pins have no marker:
 * when its dependents' edges reach it here, lockreach.h); among several pins of a name that apply,
 * one installed at its version is enough.  "extra" is a distribution
 * installed and not among the pins that apply: looked for only when the
 * lockfile lists everything (a requirements file whose every pin is ==,
 * without -r or a line that installs a URL or a path; no pin dropped;
 * not uv.lock), never the installer's own (pip, setuptools, wheel,
 * distribute) nor an editable install (the project worked on).
 * Never fails; pins with names or versions that are not strings cannot
 * occur (the parsers make them).
 */
json_t *ep_lock_judge(const struct ep_manifest *m, enum ep_lock_format f,
    const struct ep_pins *pins, const struct ep_lockjudge *j);

#endif
