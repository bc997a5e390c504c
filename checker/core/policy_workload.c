/*
 * policy_workload.c: a policy's "workloads", the team's reference runs
 * (--workload NAME=COMMAND) a profile asks every check to run, so that a
 * gate need not repeat them: read from each policy file (the nearest
 * file's command for a NAME wins) and handed to the command layer.
 */
#include <ctype.h>
#include <string.h>

#include <jansson.h>

#include "policy_int.h"
#include "xalloc.h"

/* 1 when name may name a workload (workload.h: the fact key
 * workload.NAME): [A-Za-z0-9_-], 1 to 64 characters. */
static int
workload_name_ok(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_' &&
		    name[i] != '-')
			return 0;
	return 1;
}

/*
 * "workloads": {"NAME": "COMMAND", ...}, the team's reference runs that
 * check runs as if given --workload NAME=COMMAND.  A nearer file's NAME
 * wins over a farther one's (they are parsed nearest first).
 */
int
ep_policy_parse_workloads(struct ep_policy *p, json_t *o, const char *name,
    struct ep_err *err)
{
	const char *k, *cmd, *eq;
	json_t *v;
	size_t len;
	int seen;

	if (o == NULL)
		return 0;
	if (!json_is_object(o))
		return ep_err_set(err, EP_E_INPUT, "%s: \"workloads\" is not "
		    "an object of NAME: COMMAND", name);
	json_object_foreach(o, k, v) {
		if (!workload_name_ok(k))
			return ep_err_set(err, EP_E_INPUT, "%s: workloads: "
			    "\"%.64s\": a name holds 1 to 64 letters, digits, "
			    "'_' and '-'", name, k);
		cmd = json_string_value(v);
		len = json_string_length(v);
		if (cmd == NULL || len == 0 || strlen(cmd) != len)
			return ep_err_set(err, EP_E_INPUT, "%s: workloads: "
			    "\"%s\": the command is not a non-empty string",
			    name, k);
		seen = 0;
		for (size_t i = 0; i < p->workloads.n && !seen; i++) {
			eq = strchr(p->workloads.v[i], '=');
			seen = (size_t)(eq - p->workloads.v[i]) == strlen(k) &&
			    strncmp(p->workloads.v[i], k, strlen(k)) == 0;
		}
		if (!seen)
			ep_strv_push_owned(&p->workloads,
			    xasprintf("%s=%s", k, cmd));
	}
	return 0;
}

const struct ep_strv *
ep_policy_workloads(const struct ep_policy *p)
{
	return &p->workloads;
}
