/*
 * checks_util.c: what the checks that need no golden share (checks_int.h):
 * adding a result unless the policy ignores its key, reading a fact, and
 * saying why a fact is missing.
 */
#include <stdlib.h>

#include "checks_int.h"
#include "xalloc.h"

void
ep_checks_add(struct checks *k, const char *key, int status,
    const char *rule, const char *expected, const char *actual,
    char *message)
{
	struct ep_result r = { 0 };

	/* ep_results_add copies; nothing is written through the casts. */
	if (ep_policy_match(k->policy, key)->kind != EP_RULE_IGNORE) {
		r.key = (char *)key;
		r.area = (char *)"stack";
		r.status = status;
		r.expected = (char *)expected;
		r.actual = (char *)actual;
		r.rule = (char *)rule;
		r.message = message;
		ep_results_add(k->out, &r);
	}
	free(message);
}

const char *
ep_checks_get(struct checks *k, const char *key)
{
	return ep_manifest_get(k->m, key);
}

const char *
ep_checks_unavailable(struct checks *k, const char *area)
{
	json_t *u = json_object_get(k->m->meta, "unavailable");

	return json_string_value(json_object_get(u, area));
}

/* Why there is no fact key: the area's unavailable reason if any. */
char *
ep_checks_no_fact(struct checks *k, const char *key, const char *area)
{
	const char *why = ep_checks_unavailable(k, area);

	return why != NULL ? xasprintf("not checked here: %s", why) :
	    xasprintf("no %s in this capture", key);
}
