/*
 * results.h: what every judgement gives, one result per key (DESIGN.md:
 * reports only render results): the comparison of golden and current
 * facts (compare.h), the checks that need no golden (checks.h), the probe
 * runs (probe.c) and the fleet.  The list, its order, bounds and counts,
 * waivers applied to it and reviewed: results.c.
 */
#ifndef EP_RESULTS_H
#define EP_RESULTS_H

#include <stddef.h>
#include <time.h>

#include "manifest.h"
#include "policy.h"
#include "errors.h"

enum ep_status {
	EP_PASS,
	EP_FAIL,
	EP_SKIP,	/* could not be checked here (the reason says why) */
	EP_WAIVED,	/* a failure a live waiver covers: visible, not fatal */
	EP_ERROR,	/* the check itself could not run */
	EP_WARN,	/* a finding to see, never failing the run (a rule of
			   severity warn, a supported minor-version mix, a
			   stale waiver, a capture warning) */
	EP_NSTATUS,
};

struct ep_result {
	char *key;		/* the fact key, or a check's name */
	char *area;		/* the key's first segment: os, lib, stack, ... */
	int status;		/* enum ep_status */
	char *expected;		/* NULL: the golden has no such fact */
	char *actual;		/* NULL: this machine has no such fact */
	char *rule;		/* what decided: "exact", "version >=580,<590",
				   "check:driver-min", ... */
	char *message;		/* one line for a human */
	/* The waiver that covered it (EP_WAIVED) or that has expired (an
	 * EP_FAIL that says so); all NULL otherwise. */
	char *waiver_reason;
	char *waiver_owner;
	char *waiver_expires;	/* YYYY-MM-DD */
	int waiver;		/* 1 + that waiver's place in the merged
				   policy (ep_waiver.seq), 0 for none */
	char *node;		/* the node it is about (fleet), or NULL:
				   this machine, or the fleet as a whole */
};

/* A fact that a built-in ignore rule keeps out of the results and that
 * differs between the golden and here (os.kernel 6.18 -> 6.1): not
 * judged, but listed (the JSON report's ignored_changes, a line of the
 * summary), so that it does not vanish. */
struct ep_ignored {
	char *key;
	char *expected;		/* NULL: not in the golden */
	char *actual;		/* NULL: not here */
	char *reason;		/* the rule's reason, or NULL */
};

struct ep_results {
	struct ep_result *v;
	size_t n, cap;
	struct ep_ignored *ign;	/* nign of them, in key order */
	size_t nign, ign_cap;
};

/* Append a result; every string is copied (NULLs stay NULL) and area is
 * derived from key when r->area is NULL. */
void ep_results_add(struct ep_results *rs, const struct ep_result *r);

/* Append an ignored change; every string is copied (NULLs stay NULL). */
void ep_results_ignored_add(struct ep_results *rs, const char *key,
    const char *expected, const char *actual, const char *reason);

/* The area of a key: its first segment ("python" of "python.pkg.x"). A
 * new string. */
char *ep_result_area(const char *key);
void ep_results_clear(struct ep_results *rs);

/* Sort by node (the fleet's own results first), then area, then key
 * (byte order), so reports are stable. */
void ep_results_sort(struct ep_results *rs);

/* Keep at most max results: errors first, then failures, waivers, skips
 * and passes, each kept in the order rs had; the rest are freed and
 * counted in omitted[status].  Reports stay bounded whatever a machine
 * or a pull request holds. */
void ep_results_truncate(struct ep_results *rs, size_t max,
    size_t omitted[EP_NSTATUS]);

/* counts[status] for each enum ep_status. */
void ep_results_count(const struct ep_results *rs, size_t counts[EP_NSTATUS]);

/* EP_EXIT_OK when nothing failed or errored (waived, warned and skipped
 * results included), else EP_EXIT_DRIFT. */
int ep_results_exit(const struct ep_results *rs);

/* Apply policy's waivers to rs->v[from] onwards, at time now (today's
 * date in UTC): an EP_FAIL or EP_WARN whose key and value a live waiver
 * covers becomes EP_WAIVED, its message ending "; waived by OWNER until
 * DATE: REASON"; one whose only matching waiver has expired stays as it
 * was, its message ending "; waiver by OWNER expired on DATE: REASON".
 * Either way the waiver_* fields and waiver are filled.  One that a live
 * waiver names by key but not by value stays as it was, its message
 * saying which value the waiver covers.  Other statuses are left alone:
 * an error (the check could not run) is not waivable.  ep_compare and
 * ep_checks_run call it; other producers of results (the probe) may. */
void ep_results_waive(struct ep_results *rs, size_t from,
    const struct ep_policy *policy, time_t now);

/* "pass", "fail", "skip", "waived", "error", "warn". */
const char *ep_status_name(int status);

/* Warnings about the policy's waivers after a run whose results are all
 * in rs (from ep_compare, ep_checks_run, the probe): a waiver that
 * covered no result (stale: the drift it was for is gone, or it never
 * matched), and a live one that expires within expiry_days days.  Each
 * is an EP_WARN result keyed "policy.waivers[I]". */
void ep_waivers_review(struct ep_results *rs, const struct ep_policy *policy,
    time_t now, int expiry_days);

/* check's and diff's --expiry-warning DAYS: its default, and its value
 * (0 to 3650) from text into *days; EP_E_INPUT saying so when text is
 * not one. */
#define EP_EXPIRY_WARNING_DAYS	14
int ep_expiry_days(int *days, const char *text, struct ep_err *err);

/* The capture's own warnings (meta.warnings of m: a METADATA without a
 * Version, a lockfile it could not read) as EP_WARN results keyed
 * "capture.warning[I]", so that the cause stands next to the failure it
 * explains in every report. */
void ep_results_capture_warnings(struct ep_results *rs,
    const struct ep_manifest *m);

#endif
