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

/* fnmatch-style glob with '*' matching across dots too; exposed for the
 * unit tests. */
int ep_glob_match(const char *pattern, const char *key);

#endif
