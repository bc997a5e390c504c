/*
 * policy.h: how golden and current facts are compared, kept in the store
 * beside the golden manifest as <profile>/policy.json and described by
 * manifests/policy.schema.json.  A list of rules, first match wins, keys
 * matched by glob; waivers with reason, owner and expiry.
 */
#ifndef EP_POLICY_H
#define EP_POLICY_H

#include <stddef.h>
#include <time.h>

#include "util.h"

#define EP_POLICY_SCHEMA "envparity/policy@1"

struct ep_policy;

/* Parse policy text (name says where it came from, for errors).  Unknown
 * rule kinds, bad version ranges, bad globs, waivers without reason,
 * owner or a valid expiry date: EP_E_INPUT naming the input, the rule's
 * index and the problem.  The defaults are appended after the user's
 * rules, so a policy only states what differs. */
int ep_policy_parse(struct ep_policy **out, const char *text, size_t len,
    const char *name, struct ep_err *err);
int ep_policy_load(struct ep_policy **out, const char *path,
    struct ep_err *err);

/* The defaults alone (no policy.json in the store). */
struct ep_policy *ep_policy_default(void);

void ep_policy_free(struct ep_policy *p);	/* accepts NULL */

/* What a rule does with a key (policy.schema.json says the same). */
enum ep_rule_kind {
	EP_RULE_EXACT,		/* the same value on both sides */
	EP_RULE_IGNORE,		/* not compared, not reported */
	EP_RULE_VERSION,	/* the current value lies in the range */
	EP_RULE_PRESENT,	/* the key exists here, any value */
	EP_RULE_ABSENT,		/* the key does not exist here */
};

/* What exact and version rules do with a key only one side has (a new
 * key here, or one the golden has and this machine lacks). */
enum ep_missing {
	EP_MISSING_FAIL,	/* drift (the default) */
	EP_MISSING_SKIP,	/* a visible skip, not fatal */
	EP_MISSING_IGNORE,	/* no result */
};

struct ep_verrange;

/* One rule, borrowed from its policy. */
struct ep_rule {
	const char *key;		/* the glob */
	int kind;			/* enum ep_rule_kind */
	const struct ep_verrange *range;	/* EP_RULE_VERSION only */
	int missing;			/* enum ep_missing */
	const char *reason;		/* NULL: none given */
	const char *text;		/* for results: "exact",
					   "version >=580.65,<590", ... */
	int builtin;			/* one of the appended defaults */
};

/* The first rule whose glob matches key.  Never NULL: the defaults end
 * with a catch-all. */
const struct ep_rule *ep_policy_match(const struct ep_policy *p,
    const char *key);

/* All the rules, the user's first, then the defaults (*n of them). */
const struct ep_rule *ep_policy_rules(const struct ep_policy *p, size_t *n);

/* One waiver, borrowed from its policy. */
struct ep_waiver {
	const char *key;		/* the glob */
	const char *reason;
	const char *owner;
	const char *expires;		/* YYYY-MM-DD, a valid date */
};

/* The waiver for key at time now: the first matching one that is live
 * (expires on or after today's date in UTC), else the first matching
 * one that has expired (*expired set to 1), else NULL. */
const struct ep_waiver *ep_policy_waiver(const struct ep_policy *p,
    const char *key, time_t now, int *expired);

/* All the waivers (*n of them), for reports that list them. */
const struct ep_waiver *ep_policy_waivers(const struct ep_policy *p,
    size_t *n);

/* 1 if key matches the glob pattern, else 0.  fnmatch-style, but '*'
 * matches any run of bytes, dots included ("lib.*.sha256" matches
 * "lib.cudnn_ops.sha256"); '?' matches one byte; [abc], [a-z], [!a-z]
 * (or [^a-z]) a class; '\\' quotes the next byte.  A malformed pattern
 * matches nothing (ep_policy_parse rejects one). */
int ep_glob_match(const char *pattern, const char *key);

#endif
