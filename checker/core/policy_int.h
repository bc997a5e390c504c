/*
 * policy_int.h: what a policy is made of, shared by the parser
 * (policy.c), the queries (policy_query.c), the editor (policy_edit.c)
 * and the guard (policy_guard.c); private to them.
 */
#ifndef EP_POLICY_INT_H
#define EP_POLICY_INT_H

#include "policy.h"
#include "strv.h"

struct ep_policy {
	struct ep_rule *rules;
	size_t nrules;
	struct ep_waiver *waivers;
	size_t nwaivers;
	struct ep_strv strings;	/* owns what rules and waivers name */
	struct ep_verrange **ranges;	/* owned */
	size_t nranges;
};

/*
 * policy_guard.c: whether a waiver or a rule covers too much to stand,
 * decided from its glob (a usable one): NULL when it may, else why not,
 * one sentence for an error message (new).  A waiver may cover neither
 * every key nor every key of an area; a rule that lets a drift pass
 * (kind, missing and severity: enum ep_rule_kind, ep_missing,
 * ep_severity) may not cover every key, nor a whole area it does not
 * name as its first word.
 */
char *ep_policy_waiver_too_wide(const char *key);
char *ep_policy_rule_too_wide(const char *key, int kind, int missing,
    int severity);

#endif
