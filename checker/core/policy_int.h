/*
 * policy_int.h: what a policy is made of, shared by the parser
 * (policy.c), the queries (policy_query.c), the editor (policy_edit.c)
 * and the guard (policy_guard.c); private to them.
 */
#ifndef EP_POLICY_INT_H
#define EP_POLICY_INT_H

#include "extrafacts.h"
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
	struct ep_strv workloads;	/* "NAME=COMMAND", the nearest
					   file's for each NAME */
	struct ep_extra capture;	/* every file's "capture" */
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

/* policy_workload.c: add the "workloads" member o of a policy file (may
 * be NULL: none) to p's, a NAME p already has left as it is.  EP_E_INPUT
 * naming the file (name) and the entry when o is not an object of
 * NAME: COMMAND, a name is not [A-Za-z0-9_-]{1,64} or a command is not
 * a non-empty string. */
struct json_t;
int ep_policy_parse_workloads(struct ep_policy *p, struct json_t *o,
    const char *name, struct ep_err *err);
/* policy_capture.c: add the "capture" member o of a policy file (may be
 * NULL: none) to p's: {"env": ["NAME", "PREFIX*"], "env_not_secret":
 * ["NAME"], "files": [{"path": "/ABS", "fact": "sha256"|"line"}]}.
 * EP_E_INPUT naming the file (name) and the entry when o is not so, or an
 * entry extrafacts.h refuses (a name that looks like a credential's). */
int ep_policy_parse_capture(struct ep_policy *p, struct json_t *o,
    const char *name, struct ep_err *err);
char *ep_policy_rule_too_wide(const char *key, int kind, int missing,
    int severity);

#endif
