/*
 * pep508.h: dependency specifiers (PEP 508), as pip reads a distribution's
 * Requires-Dist lines: a name, extras, PEP 440 version specifiers or a
 * URL, and an environment marker.  They are parsed as pypa/packaging 26.3
 * (what pip's main branch vendors) parses them: its tokenizer's token
 * patterns, its grammar, what SpecifierSet then refuses; and markers are
 * evaluated as packaging evaluates them for core metadata, where "extra"
 * is "": the version variables (python_version, python_full_version,
 * implementation_version, platform_release) compared as PEP 440 versions
 * when the operator and the string make a specifier, everything else as
 * strings ("in", "not in", "==", "!="; "<=" and ">=" are "==", "<" and
 * ">" are false; "~=" and "===" are undefined there: an error).
 *
 * A marker may be evaluated where some variables are not known (a
 * capture that could not ask the interpreter): the answer is then
 * three-valued, and unknown only where the known values do not decide it.
 *
 * Pure functions on strings: no file system, no allocation the caller
 * does not free.
 */
#ifndef EP_PEP508_H
#define EP_PEP508_H

#include <stddef.h>

#include "errors.h"
#include "strv.h"

/* The marker environment (packaging's default_environment()), in name
 * order: the order of meta.python.markers too. */
enum ep_mvar {
	EP_MV_IMPLEMENTATION_NAME,
	EP_MV_IMPLEMENTATION_VERSION,
	EP_MV_OS_NAME,
	EP_MV_PLATFORM_MACHINE,
	EP_MV_PLATFORM_PYTHON_IMPLEMENTATION,
	EP_MV_PLATFORM_RELEASE,
	EP_MV_PLATFORM_SYSTEM,
	EP_MV_PLATFORM_VERSION,
	EP_MV_PYTHON_FULL_VERSION,
	EP_MV_PYTHON_VERSION,
	EP_MV_SYS_PLATFORM,
	EP_MV_N
};

/* "implementation_name", ..., "sys_platform": indexed by enum ep_mvar. */
extern const char *const ep_marker_vars[EP_MV_N];

/* The values a marker is evaluated against, borrowed; NULL where the
 * value is not known here. */
struct ep_markerenv {
	const char *v[EP_MV_N];
};

/* The PEP 503 normal form of a distribution or extra name (packaging's
 * canonicalize_name): ASCII letters lowered, each run of '-', '_' and '.'
 * made one '-'.  A new string. */
char *ep_pep503_normalize(const char *name);

/* 1 if name is a valid distribution name (PEP 508: ASCII letters and
 * digits, with '-', '_', '.' inside), 0 if not. */
int ep_pep508_name_valid(const char *name);

struct ep_marker;	/* a parsed marker expression */
struct ep_specset;	/* a parsed set of version specifiers */

struct ep_req {
	char *name;		/* as written */
	char *norm;		/* its PEP 503 form */
	struct ep_strv extras;	/* as written, sorted, each once */
	char *url;		/* "name @ URL": the URL; else NULL */
	struct ep_specset *spec;	/* never NULL once parsed */
	struct ep_marker *marker;	/* NULL: no marker */
};

/* Parse one requirement (text is the whole of it: a trailing newline is
 * an error, as for packaging; strip a metadata value first, as pip does).
 * Fills *out, to be freed with ep_req_clear.  -1 with err (EP_E_INPUT)
 * saying what was expected where; *out is then empty. */
int ep_req_parse(struct ep_req *out, const char *text, struct ep_err *err);
void ep_req_clear(struct ep_req *r);

/* The requirement as packaging writes it back, str(Requirement), which
 * pip check prints: name[extras]specifiers @ URL; marker, with the
 * specifiers sorted and the marker normalized (double quotes, variable
 * aliases resolved, redundant parentheses dropped).  A new string. */
char *ep_req_str(const struct ep_req *r);

/* 1 if version satisfies every specifier, as pip check asks
 * (SpecifierSet.contains(version, prereleases=True)): pre-releases
 * admitted, a version that is not PEP 440 in no specifier but "===" of
 * the same text; 1 for an empty set. */
int ep_req_contains(const struct ep_req *r, const char *version);

/* The specifiers as str(SpecifierSet) writes them ("" for none),
 * borrowed from r. */
const char *ep_req_specifier(const struct ep_req *r);

/* A marker on its own (what follows ';').  -1 with err as ep_req_parse. */
int ep_marker_parse(struct ep_marker **out, const char *text,
    struct ep_err *err);
void ep_marker_free(struct ep_marker *m);	/* accepts NULL */

/* The marker as str(Marker) writes it.  A new string. */
char *ep_marker_str(const struct ep_marker *m);

enum ep_marker_value {
	EP_MARKER_FALSE = 0,
	EP_MARKER_TRUE = 1,
	EP_MARKER_UNKNOWN = 2,	/* a value it needs is not known */
};

/* Evaluate m against env for core metadata (extra is ""): an
 * enum ep_marker_value; with EP_MARKER_UNKNOWN, err (may be NULL) names
 * the first variable whose value was missing.  -1 with err (EP_E_INPUT)
 * where packaging raises: an operator undefined on its operands ("~=" or
 * "===" on a string variable), a variable core metadata has no value for
 * ("extras", "dependency_groups"), two strings or two variables compared.
 * Every item is evaluated, as packaging does, so an error anywhere is an
 * error whatever the rest says. */
int ep_marker_eval(const struct ep_marker *m, const struct ep_markerenv *env,
    struct ep_err *err);

#endif
