/*
 * compare.h: golden facts against current facts, under a policy, give one
 * result per key (DESIGN.md: reports only render results).  Checks that
 * need no golden (checks.c) and the probe runs (probe.c) add results of
 * the same shape.
 */
#ifndef EP_COMPARE_H
#define EP_COMPARE_H

#include <stddef.h>
#include <time.h>

#include "manifest.h"
#include "policy.h"
#include "util.h"

enum ep_status {
	EP_PASS,
	EP_FAIL,
	EP_SKIP,	/* could not be checked here (the reason says why) */
	EP_WAIVED,	/* a failure a live waiver covers: visible, not fatal */
	EP_ERROR,	/* the check itself could not run */
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
	int waiver;		/* 1 + that waiver's index in the policy's
				   "waivers", 0 for none */
};

struct ep_results {
	struct ep_result *v;
	size_t n, cap;
};

/* Append a result; every string is copied (NULLs stay NULL) and area is
 * derived from key when r->area is NULL. */
void ep_results_add(struct ep_results *rs, const struct ep_result *r);
void ep_results_clear(struct ep_results *rs);

/* Sort by area, then key (byte order), so reports are stable. */
void ep_results_sort(struct ep_results *rs);

/* Keep at most max results: errors first, then failures, waivers, skips
 * and passes, each kept in the order rs had; the rest are freed and
 * counted in omitted[status].  Reports stay bounded whatever a machine
 * or a pull request holds. */
void ep_results_truncate(struct ep_results *rs, size_t max,
    size_t omitted[EP_NSTATUS]);

/* counts[status] for each enum ep_status. */
void ep_results_count(const struct ep_results *rs, size_t counts[EP_NSTATUS]);

/* EP_EXIT_OK when nothing failed or errored (waived and skipped results
 * included), else EP_EXIT_DRIFT. */
int ep_results_exit(const struct ep_results *rs);

/* Apply policy's waivers to rs->v[from] onwards, at time now (today's
 * date in UTC): an EP_FAIL whose key matches a live waiver becomes
 * EP_WAIVED, its message ending "; waived by OWNER until DATE: REASON";
 * one whose only matching waiver has expired stays EP_FAIL, its message
 * ending "; waiver by OWNER expired on DATE: REASON".  Either way the
 * waiver_* fields are filled.  Other statuses are left alone: an error
 * (the check could not run) is not waivable.  ep_compare and
 * ep_checks_run call it; other producers of results (the probe) may. */
void ep_results_waive(struct ep_results *rs, size_t from,
    const struct ep_policy *policy, time_t now);

/* "pass", "fail", "skip", "waived", "error". */
const char *ep_status_name(int status);

/* Compare every key present on either side under policy (first matching
 * rule wins; waivers applied with today's date from now).  Adds to out.
 * Fails only on an internal error; drift is results, not an error. */
int ep_compare(struct ep_results *out, const struct ep_manifest *golden,
    const struct ep_manifest *current, const struct ep_policy *policy,
    time_t now, struct ep_err *err);

/* The checks that need no golden (checks.c): the CUDA runtime against the
 * driver's minimum, libraries built for a newer cudart than the one they
 * run with, mixed cuDNN sub-library versions, determinism settings that
 * defeat each other.  Results have area "stack" and keys "stack.<check>",
 * waivable by policy like any other. */
void ep_checks_run(struct ep_results *out, const struct ep_manifest *current,
    const struct ep_policy *policy, time_t now);

#endif
