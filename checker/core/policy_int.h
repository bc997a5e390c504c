/*
 * policy_int.h: what a policy is made of, shared by the parser
 * (policy.c) and the queries (policy_query.c); private to them.
 */
#ifndef EP_POLICY_INT_H
#define EP_POLICY_INT_H

#include "policy.h"

struct ep_policy {
	struct ep_rule *rules;
	size_t nrules;
	struct ep_waiver *waivers;
	size_t nwaivers;
	struct ep_strv strings;	/* owns what rules and waivers name */
	struct ep_verrange **ranges;	/* owned */
	size_t nranges;
};

#endif
