/*
 * verrange.h: version ranges as a policy writes them (">=580.65,<590",
 * "==13.*", "~=2.1", "!=2.0.0"), over the versions of vercmp.h;
 * verrange.c parses and matches them.
 */
#ifndef EP_VERRANGE_H
#define EP_VERRANGE_H

#include "errors.h"

/*
 * A range: clauses separated by commas, all of which must hold.  Each is
 * an operator and a version: ==, !=, <, <=, >, >=, ~= (compatible
 * release: ~=2.1 is >=2.1,==2.*), === (the same string); == and != also
 * take a release prefix ending in .* (==13.*).  As PEP 440 says, a local
 * label on the candidate is ignored unless the clause names one
 * (==2.1.0 holds for 2.1.0+cu121) and an ordered comparison cannot name
 * one (>=1.0+abc is malformed); <V does not admit pre-releases of V unless
 * V is one (1.0rc1 is not in <1.0, but is in <1.0.post1), >V does not
 * admit post-releases of V unless V is one (1.0.post1 is not in >1.0, but
 * 1.0.post0 is in >1.0.dev1).  Pre-releases are otherwise admitted: a
 * range checks the version a machine has, it does not choose one.
 */
struct ep_verrange;

/* Parse text into *out (the caller frees it with ep_verrange_free).  A
 * malformed range is EP_E_INPUT with a message that quotes the range and
 * the offending clause ("range \">=580.65,x590\": clause \"x590\": no
 * operator ..."), for the caller to prefix with where it came from. */
int ep_verrange_parse(struct ep_verrange **out, const char *text,
    struct ep_err *err);

/* 1 if version lies in r, 0 if not, -1 if version is not a version
 * (unless every clause is ===, which compares strings: "foobar" is in
 * ===foobar). */
int ep_verrange_match(const struct ep_verrange *r, const char *version);

/* The range as written (trimmed), borrowed from r. */
const char *ep_verrange_text(const struct ep_verrange *r);

void ep_verrange_free(struct ep_verrange *r);	/* accepts NULL */

#endif
