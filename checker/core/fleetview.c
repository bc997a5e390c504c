/*
 * fleetview.c: what fleetview.h describes, named once (each kind of split
 * with its rule, its JSON name and its Markdown word; a node's state and
 * verdict), so that the fleet's engine and the report writers key on the
 * enums and no string is matched across files; and freeing the view.
 */
#include <stdlib.h>
#include <string.h>

#include "fleetview.h"

static const struct {
	const char *rule, *name, *label;
} kinds[EP_NSPLIT_KINDS] = {
	[EP_SPLIT_ODD] = { "fleet:majority", "odd", "odd" },
	[EP_SPLIT_TIE] = { "fleet:tie", "tie", "tie" },
	[EP_SPLIT_PROBE] = { "fleet:probe", "probe", "probe" },
	[EP_SPLIT_DOMAIN] = { "fleet:domain", "domain", "domains" },
};

static int
kind_index(int kind)
{
	return kind >= 0 && kind < EP_NSPLIT_KINDS ? kind : EP_SPLIT_ODD;
}

const char *
ep_fleet_split_rule(int kind)
{
	return kinds[kind_index(kind)].rule;
}

const char *
ep_fleet_split_name(int kind)
{
	return kinds[kind_index(kind)].name;
}

const char *
ep_fleet_split_label(int kind)
{
	return kinds[kind_index(kind)].label;
}

int
ep_fleet_split_kind(const char *rule)
{
	if (rule == NULL)
		return -1;
	for (int k = 0; k < EP_NSPLIT_KINDS; k++)
		if (strcmp(rule, kinds[k].rule) == 0)
			return k;
	return -1;
}

int
ep_fleet_node_verdict(const struct ep_fleet_node *n)
{
	if (n->state == EP_NODE_MISSING)
		return EP_VERDICT_MISSING;
	if (n->state == EP_NODE_ERROR)
		return EP_VERDICT_UNREADABLE;
	if (n->exit_status != 0 || n->odd > 0)
		return EP_VERDICT_DRIFT;
	return EP_VERDICT_PARITY;
}

const char *
ep_fleet_verdict_name(int verdict)
{
	static const char *const names[EP_NVERDICTS] = {
		[EP_VERDICT_PARITY] = "parity",
		[EP_VERDICT_DRIFT] = "drift",
		[EP_VERDICT_UNREADABLE] = "unreadable",
		[EP_VERDICT_MISSING] = "missing",
	};

	return verdict >= 0 && verdict < EP_NVERDICTS ? names[verdict] :
	    "drift";
}

const char *
ep_fleet_state_name(int state)
{
	switch (state) {
	case EP_NODE_ERROR: return "unreadable";
	case EP_NODE_MISSING: return "missing";
	default: return "reported";
	}
}

void
ep_fleet_view_free(struct ep_fleet_view *v)
{
	if (v == NULL)
		return;
	for (size_t i = 0; i < v->nnodes; i++) {
		free(v->nodes[i].name);
		free(v->nodes[i].file);
		free(v->nodes[i].error);
		ep_results_clear(&v->nodes[i].ignored);
	}
	free(v->nodes);
	for (size_t i = 0; i < v->nsplits; i++) {
		struct ep_fleet_split *s = &v->splits[i];

		free(s->key);
		free(s->domain);
		for (size_t j = 0; j < s->ngroups; j++) {
			free(s->groups[j].value);
			free(s->groups[j].nodes);
		}
		free(s->groups);
		for (size_t j = 0; j < s->ncauses; j++)
			free(s->causes[j]);
		free(s->causes);
	}
	free(v->splits);
	free(v->expect);
	free(v);
}
