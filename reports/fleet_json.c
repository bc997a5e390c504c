/*
 * fleet_json.c: the "fleet" object of the fleet's JSON report
 * (manifests/fleet.schema.json): the node counts, every node with its
 * verdict and counts, every fact that differs with its value groups
 * (nodes in hostlist syntax) and likely causes, within the run's bounds
 * (fleetview.h), with the number left out; each node's changes that a
 * built-in rule does not judge (os.kernel), written as check's own
 * ignored_changes (ep_report_ignored_json, here for both).
 */
#include "report.h"

static json_t *
counts_json(const size_t c[EP_NSTATUS])
{
	json_t *o = json_object();

	for (int i = 0; i < EP_NSTATUS; i++)
		json_object_set_new(o, ep_status_name(i),
		    json_integer((json_int_t)c[i]));
	return o;
}

json_t *
ep_report_ignored_json(const struct ep_results *rs)
{
	json_t *arr = json_array(), *o;

	for (size_t i = 0; i < rs->nign; i++) {
		o = json_object();
		json_object_set_new(o, "key", ep_report_str(rs->ign[i].key));
		json_object_set_new(o, "expected",
		    ep_report_str(rs->ign[i].expected));
		json_object_set_new(o, "actual",
		    ep_report_str(rs->ign[i].actual));
		json_object_set_new(o, "reason",
		    ep_report_str(rs->ign[i].reason));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* Every node with its verdict and counts. */
static json_t *
nodes_json(const struct ep_fleet_view *v)
{
	json_t *nodes = json_array(), *o;

	for (size_t i = 0; i < v->nnodes; i++) {
		const struct ep_fleet_node *n = &v->nodes[i];

		o = json_object();
		json_object_set_new(o, "name", ep_report_str(n->name));
		json_object_set_new(o, "file", ep_report_str(n->file));
		json_object_set_new(o, "state",
		    json_string(ep_fleet_state_name(n->state)));
		json_object_set_new(o, "error", ep_report_str(n->error));
		json_object_set_new(o, "expected", json_boolean(n->expected));
		json_object_set_new(o, "facts",
		    json_integer((json_int_t)n->nfacts));
		json_object_set_new(o, "odd", json_integer((json_int_t)n->odd));
		json_object_set_new(o, "exit_status",
		    json_integer(n->exit_status));
		json_object_set_new(o, "counts", counts_json(n->counts));
		json_object_set_new(o, "ignored_changes",
		    ep_report_ignored_json(&n->ignored));
		json_array_append_new(nodes, o);
	}
	return nodes;
}

/* One split: its kind, its value groups and its likely causes. */
static json_t *
split_json(const struct ep_fleet_split *s)
{
	json_t *o = json_object(), *g, *a;

	json_object_set_new(o, "key", ep_report_str(s->key));
	json_object_set_new(o, "kind",
	    json_string(ep_fleet_split_name(s->kind)));
	json_object_set_new(o, "status",
	    json_string(ep_status_name(s->status)));
	json_object_set_new(o, "domain", ep_report_str(s->domain));
	a = json_array();
	for (size_t k = 0; k < s->ngroups; k++) {
		g = json_object();
		json_object_set_new(g, "value",
		    ep_report_str(s->groups[k].value));
		json_object_set_new(g, "count",
		    json_integer((json_int_t)s->groups[k].count));
		json_object_set_new(g, "nodes",
		    ep_report_str(s->groups[k].nodes));
		json_array_append_new(a, g);
	}
	json_object_set_new(o, "groups", a);
	json_object_set_new(o, "groups_omitted",
	    json_integer((json_int_t)s->groups_omitted));
	a = json_array();
	for (size_t k = 0; k < s->ncauses; k++)
		json_array_append_new(a, ep_report_str(s->causes[k]));
	json_object_set_new(o, "causes", a);
	return o;
}

json_t *
ep_report_fleet_json(const struct ep_fleet_view *v)
{
	json_t *root = json_object(), *splits = json_array(), *o;

	o = json_object();
	json_object_set_new(o, "total", json_integer((json_int_t)v->nnodes));
	json_object_set_new(o, "reported",
	    json_integer((json_int_t)v->nreported));
	json_object_set_new(o, "missing", json_integer((json_int_t)v->nmissing));
	json_object_set_new(o, "unreadable",
	    json_integer((json_int_t)v->nerror));
	json_object_set_new(o, "odd", json_integer((json_int_t)v->nodd));
	json_object_set_new(o, "ignored_changes",
	    json_integer((json_int_t)v->nignored));
	json_object_set_new(root, "node_counts", o);
	json_object_set_new(root, "expect", ep_report_str(v->expect));
	json_object_set_new(root, "keys", json_integer((json_int_t)v->nkeys));
	json_object_set_new(root, "nodes", nodes_json(v));
	for (size_t i = 0; i < v->nsplits; i++)
		json_array_append_new(splits, split_json(&v->splits[i]));
	json_object_set_new(root, "splits", splits);
	json_object_set_new(root, "splits_omitted",
	    json_integer((json_int_t)v->nsplits_omitted));
	return root;
}
