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

#include "errors.h"
#include "strv.h"

#define EP_POLICY_SCHEMA "envparity/policy@1"

struct ep_policy;

/* A policy file larger than this is refused (ep_policy_load). */
#define EP_POLICY_MAX	(16 << 20)

/* Parse policy text (name says where it came from, for errors).  Unknown
 * rule kinds, bad version ranges, bad globs, waivers without reason,
 * owner or a valid expiry date, a waiver or a rule that lets drift pass
 * covering too much (every key; every key of an area: policy_guard.c):
 * EP_E_INPUT naming the input, the rule's index and the problem.  The defaults are appended after the user's
 * rules, so a policy only states what differs. */
int ep_policy_parse(struct ep_policy **out, const char *text, size_t len,
    const char *name, struct ep_err *err);
int ep_policy_load(struct ep_policy **out, const char *path,
    struct ep_err *err);

/*
 * Where a rule or a waiver comes from.  A store's profile "train/h100"
 * is judged by policy.json at the store's root (shared by every
 * profile), then train/policy.json (inherited), then
 * train/h100/policy.json (the profile's own), then the defaults: the
 * nearest wins.
 */
enum ep_policy_scope {
	EP_SCOPE_PROFILE,	/* the profile's own policy.json (or a
				   --policy FILE) */
	EP_SCOPE_INHERITED,	/* a folder's above the profile */
	EP_SCOPE_SHARED,	/* the store root's policy.json */
	EP_SCOPE_DEFAULT,	/* the built-in defaults */
};

/* One policy file of a merged policy. */
struct ep_policy_layer {
	const char *text;
	size_t len;
	const char *name;	/* for errors: "STORE#REF:policy.json" */
	const char *origin;	/* for messages and `envparity policy`:
				   the file in the store ("policy.json",
				   "train/policy.json"); NULL: name */
	int scope;		/* enum ep_policy_scope */
};

/*
 * Parse n policy files, the NEAREST FIRST (the profile's own, then the
 * folders' above it, then the shared one), into one policy: the rules of
 * each file in its order, nearer files' rules before farther ones', then
 * the defaults; so the profile's rules win.  A rule or a waiver whose
 * key (the glob, as written) a nearer file already has a rule or a
 * waiver for is left out: the nearer one overrides it.  Each keeps its
 * origin (copied).  Errors as ep_policy_parse, naming the file.
 */
int ep_policy_parse_layers(struct ep_policy **out,
    const struct ep_policy_layer *v, size_t n, struct ep_err *err);

/* "profile", "inherited", "shared", "default". */
const char *ep_policy_scope_name(int scope);

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

/* What a drift under a rule is: a failure, or a warning that never fails
 * the run (a nightly audit that reports package churn). */
enum ep_severity {
	EP_SEVERITY_FAIL,
	EP_SEVERITY_WARN,
};

/* One rule, borrowed from its policy. */
struct ep_rule {
	const char *key;		/* the glob */
	int kind;			/* enum ep_rule_kind */
	const struct ep_verrange *range;	/* EP_RULE_VERSION only */
	int missing;			/* enum ep_missing */
	int severity;			/* enum ep_severity */
	const char *reason;		/* NULL: none given */
	const char *text;		/* for results: "exact",
					   "version >=580.65,<590", ... */
	int builtin;			/* one of the appended defaults */
	int scope;			/* enum ep_policy_scope */
	const char *origin;		/* the file it came from, or
					   "built-in default" */
};

/* "exact", "ignore", ...; "fail", "skip", "ignore". */
const char *ep_rule_kind_name(int kind);
const char *ep_rule_missing_name(int missing);

/* The first rule whose glob matches key.  Never NULL: the defaults end
 * with a catch-all. */
const struct ep_rule *ep_policy_match(const struct ep_policy *p,
    const char *key);

/* All the rules, the user's first, then the defaults (*n of them). */
const struct ep_rule *ep_policy_rules(const struct ep_policy *p, size_t *n);

/* The policy's "workloads" (a team's reference runs, which check runs
 * as if given --workload): "NAME=COMMAND" entries, the nearest file's
 * for each NAME, names checked as --workload checks them.  Borrowed. */
const struct ep_strv *ep_policy_workloads(const struct ep_policy *p);

/* What every file of the policy adds to a capture ("capture":
 * extrafacts.h), all files' together.  Borrowed. */
struct ep_extra;
const struct ep_extra *ep_policy_capture(const struct ep_policy *p);

/* One waiver, borrowed from its policy. */
struct ep_waiver {
	size_t index;			/* its place in its file's "waivers" */
	size_t seq;			/* its place in the merged policy */
	int scope;			/* enum ep_policy_scope */
	const char *origin;		/* the file it came from */
	const char *key;		/* the glob; never one that covers
					   every key, or every key of an
					   area (policy_guard.c) */
	const char *reason;
	const char *owner;
	const char *expires;		/* YYYY-MM-DD, a valid date */
	const char *actual;		/* NULL, or the only value it accepts */
	const struct ep_verrange *range;	/* NULL, or the values it
						   accepts */
	const char *accepts;		/* "2.0.0", "range >=2,<2.1", or NULL:
					   any value */
};

/* What ep_policy_waiver found for a key and its value. */
enum ep_waiver_state {
	EP_WAIVER_NONE,		/* no waiver names the key */
	EP_WAIVER_LIVE,		/* one covers it: the finding is waived */
	EP_WAIVER_EXPIRED,	/* one would, but it has expired */
	EP_WAIVER_OTHER_VALUE,	/* a live one names the key, but accepts
				   another value than actual (a waiver for
				   the numpy 2 rollout does not hide a node
				   back on 1.26.4) */
};

/* The waiver for key whose current value is actual (NULL: the key is
 * missing here) at time now (today's date in UTC): the first matching
 * live one that accepts actual, else the first matching expired one that
 * accepts it, else the first matching live one that does not; *state
 * says which (EP_WAIVER_NONE and NULL when none matches).  A waiver that
 * names a value (actual or range) never accepts a missing key. */
const struct ep_waiver *ep_policy_waiver(const struct ep_policy *p,
    const char *key, const char *actual, time_t now, int *state);

/* The first live waiver at now (in the order they are tried) whose glob
 * matches key, any value it accepts, and in *n how many do; NULL and 0
 * when none.  unwaive asks it after removing a waiver: a glob waiver, or
 * a shared or inherited one, may still cover the key.  A key that is
 * itself a glob ("lib.*.sha256") is matched as the text it is. */
const struct ep_waiver *ep_policy_waiver_covering(const struct ep_policy *p,
    const char *key, time_t now, size_t *n);

/* Whether w, live at now, expires within days days: the days left in
 * *left (0: it expires today). */
int ep_waiver_expires_within(const struct ep_waiver *w, time_t now,
    int days, int *left);

/* All the waivers (*n of them), for reports that list them. */
const struct ep_waiver *ep_policy_waivers(const struct ep_policy *p,
    size_t *n);

/* 1 if s is a real calendar date written YYYY-MM-DD. */
int ep_policy_valid_date(const char *s);

/* 1 when waiver w has expired at now (its date is before today's, UTC). */
int ep_policy_waiver_expired(const struct ep_waiver *w, time_t now);

/*
 * Editing a policy file's waivers (policy_edit.c), for waive and
 * unwaive.  cur is the file's text (NULL: there is none yet); name names
 * it in messages.  The result (*out, new) keeps every other member and
 * entry in its order, indented by two spaces, and has been parsed again
 * by ep_policy_parse.  A cur that ep_policy_parse refuses is EP_E_INPUT
 * (mend it by hand).
 */
struct ep_waiver_spec {
	const char *key;
	const char *reason;
	const char *owner;
	const char *expires;	/* YYYY-MM-DD, today or later */
	const char *actual;	/* NULL: any value */
};

/* EP_E_INPUT naming what is wrong with w at now: an empty or blank key,
 * reason or owner, a key with blanks or control bytes, that is no glob
 * or that covers too much for a waiver (every key, every key of an
 * area), an expiry that is no date or is already past (UTC). */
int ep_policy_waiver_check(const struct ep_waiver_spec *w, time_t now,
    struct ep_err *err);

/* Add w to cur's "waivers", or replace the waiver with the same key
 * (written the same) where it stands. */
int ep_policy_waiver_set(char **out, const char *cur, const char *name,
    const struct ep_waiver_spec *w, time_t now, struct ep_err *err);

/* Remove every waiver whose key is written as key; none: EP_E_INPUT
 * (naming a waiver of the file whose glob covers key, if one does). */
int ep_policy_waiver_remove(char **out, const char *cur, const char *name,
    const char *key, struct ep_err *err);

/*
 * Editing a policy file's rules (policy_edit.c), for `policy add` and
 * `policy remove`, as the waivers above: cur, name and *out alike.
 */
struct ep_rule_spec {
	const char *key;	/* a fact key or a glob */
	const char *rule;	/* "exact", "ignore", "version", "present",
				   "absent" */
	const char *range;	/* "version" only: ">=580.65,<590" */
	const char *missing;	/* NULL, "fail", "skip", "ignore" */
	const char *severity;	/* NULL, "fail", "warn" */
	const char *reason;	/* NULL: none */
};

/* EP_E_INPUT naming what is wrong with r as check would refuse it: an
 * empty key, one with blanks or control bytes, an unknown rule kind (the
 * message names it), a range, missing or severity that does not go with
 * the rule or is no such value, a key that is no glob or that covers too
 * much for a rule that lets drift pass (policy_guard.c), a blank
 * reason. */
int ep_policy_rule_check(const struct ep_rule_spec *r, struct ep_err *err);

/* Put r in cur's "rules": replacing the rule with the same key (written
 * the same) where it stands (*replaced 1), else first in the file, so
 * that it decides its keys before the file's other rules (*replaced 0). */
int ep_policy_rule_set(char **out, const char *cur, const char *name,
    const struct ep_rule_spec *r, int *replaced, struct ep_err *err);

/* Remove every rule whose key is written as key; none: EP_E_INPUT. */
int ep_policy_rule_remove(char **out, const char *cur, const char *name,
    const char *key, struct ep_err *err);

/* The merged policy p as JSON (*out, new, indented): head's members
 * first (pairs of name and value, NULL-terminated; a NULL value is left
 * out), then "rules" (key, rule, range, missing, severity, reason,
 * origin, scope) in the order they are tried, then "waivers" (key,
 * reason, owner, expires, actual or range, expired at now, origin,
 * scope), then "workloads" (NAME: COMMAND) when it names any. */
int ep_policy_json(char **out, const struct ep_policy *p, time_t now,
    const char *const *head, struct ep_err *err);

#endif
