/*
 * test_fleet_bounds.c: what one node's manifest can cost the fleet
 * (checker/fleet/, fleetview.h's bounds): a manifest past
 * EP_FLEET_FACTS_MAX facts is that node's error and nothing of it is
 * kept; a node's facts of its own list at most EP_FLEET_NODE_ODD_MAX
 * results and EP_FLEET_SPLITS_SAME splits, the rest counted, so that
 * another node's drift is still listed; a split lists its
 * EP_FLEET_GROUPS_MAX largest groups.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fleetfixture.h"

/* BASE and n facts "python.pkg.u<i>" of the node's own. */
static char *
own_facts(size_t n, const char *prefix)
{
	size_t cap = 64 + n * 48, len;
	char *s = xmalloc(cap);

	len = (size_t)snprintf(s, cap, "%s", BASE);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(s + len, cap - len,
		    ", \"python.pkg.%s%06zu\": \"1.%zu\"", prefix, i, i);
	return s;
}

static size_t
results_of(const struct fleet *fl, const char *node, const char *rule)
{
	size_t n = 0;

	for (size_t i = 0; i < fl->rs.n; i++)
		if (fl->rs.v[i].node != NULL &&
		    strcmp(fl->rs.v[i].node, node) == 0 &&
		    fl->rs.v[i].rule != NULL &&
		    strcmp(fl->rs.v[i].rule, rule) == 0)
			n++;
	return n;
}

/* 300 facts of one node's own: 100 listed as its results, 100 as splits,
 * the rest counted and said, as failures; another node's one drift is
 * listed whole. */
static void
test_one_node_many_facts(void **state)
{
	struct fleet *fl = *state;
	char *facts = own_facts(300, "a");
	const struct ep_result *r;

	node(fl, "n1", BASE);
	node(fl, "n2", "\"os.id\": \"debian\", \"os.kernel\": \"6.1.0-1\", "
	    "\"python.pkg.numpy\": \"2.0.0\", \"lib.cublas.version\": "
	    "\"13.1.0.3\", \"env.NCCL_ALGO\": \"Ring\"");
	node(fl, "n3", BASE);
	node(fl, "a-evil", facts);
	free(facts);
	run(fl);

	assert_int_equal(results_of(fl, "a-evil", "fleet:majority"),
	    EP_FLEET_NODE_ODD_MAX);
	r = must_find(fl, "node.odd_omitted", "a-evil");
	assert_int_equal(r->status, EP_FAIL);
	assert_non_null(strstr(r->message, "node.odd_omitted: 200 more facts "
	    "where this node differs"));
	assert_int_equal(vnode(fl, "a-evil")->odd, 300);
	assert_int_equal(vnode(fl, "a-evil")->exit_status, EP_EXIT_DRIFT);

	assert_int_equal(fl->v->nsplits, EP_FLEET_SPLITS_SAME + 1);
	assert_int_equal(fl->v->nsplits_omitted, 300 - EP_FLEET_SPLITS_SAME);
	r = must_find(fl, "fleet.splits_omitted", NULL);
	assert_int_equal(r->status, EP_FAIL);
	assert_non_null(strstr(r->message, "200 facts that differ across "
	    "nodes are not listed (101 are;"));

	/* n2's drift: its result, its split, its verdict. */
	assert_int_equal(must_find(fl, "python.pkg.numpy", "n2")->status,
	    EP_FAIL);
	assert_non_null(split(fl, "python.pkg.numpy", NULL));
	assert_int_equal(vnode(fl, "n2")->exit_status, EP_EXIT_DRIFT);
	assert_null(find(fl, "node.odd_omitted", "n2"));
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_DRIFT);
}

/* Below the bounds nothing is said of them. */
static void
test_within_bounds(void **state)
{
	struct fleet *fl = *state;
	char *facts = own_facts(EP_FLEET_NODE_ODD_MAX, "u");

	node(fl, "n1", BASE);
	node(fl, "n2", BASE);
	node(fl, "n3", facts);
	free(facts);
	run(fl);
	assert_int_equal(results_of(fl, "n3", "fleet:majority"),
	    EP_FLEET_NODE_ODD_MAX);
	assert_null(find(fl, "node.odd_omitted", "n3"));
	assert_null(find(fl, "fleet.splits_omitted", NULL));
	assert_int_equal(fl->v->nsplits, EP_FLEET_SPLITS_SAME);
	assert_int_equal(fl->v->nsplits_omitted, 0);
}

/* A fact with a value per node on 150 nodes: one split, its 100 largest
 * groups listed, 50 counted. */
static void
test_groups_bound(void **state)
{
	struct fleet *fl = *state;
	const struct ep_fleet_split *s;

	for (int i = 1; i <= 150; i++) {
		char name[16], *facts;

		snprintf(name, sizeof name, "n%03d", i);
		facts = xasprintf("%s, \"host.serial\": \"S%03d\"", BASE, i);
		node(fl, name, facts);
		free(facts);
	}
	run(fl);
	s = split(fl, "host.serial", NULL);
	assert_non_null(s);
	assert_int_equal(s->kind, EP_SPLIT_TIE);
	assert_int_equal(s->ngroups, EP_FLEET_GROUPS_MAX);
	assert_int_equal(s->groups_omitted, 150 - EP_FLEET_GROUPS_MAX);
	assert_non_null(strstr(must_find(fl, "fleet.odd.host.serial",
	    NULL)->message, "; and 142 more values"));
}

/* A manifest past EP_FLEET_FACTS_MAX facts: that node's one error,
 * naming it and its count; none of its keys is kept; the others are
 * judged. */
static void
test_facts_max(void **state)
{
	struct fleet *fl = *state;
	char *facts = own_facts(EP_FLEET_FACTS_MAX, "x");
	const struct ep_result *r;
	char *want;

	node(fl, "n1", BASE);
	node(fl, "n2", BASE);
	node(fl, "n3", "\"os.id\": \"debian\", \"os.kernel\": \"6.1.0-1\", "
	    "\"python.pkg.numpy\": \"2.0.0\", \"lib.cublas.version\": "
	    "\"13.1.0.3\", \"env.NCCL_ALGO\": \"Ring\"");
	node(fl, "big", facts);
	free(facts);
	run(fl);
	r = must_find(fl, "node.manifest", "big");
	assert_int_equal(r->status, EP_ERROR);
	want = xasprintf("node.manifest: %s/big.json: %d facts, more than a "
	    "node manifest may hold (%d)", fl->dir, EP_FLEET_FACTS_MAX + 5,
	    EP_FLEET_FACTS_MAX);
	assert_string_equal(r->message, want);
	free(want);
	assert_int_equal(vnode(fl, "big")->state, EP_NODE_ERROR);
	assert_int_equal(fl->v->nkeys, 5);
	assert_int_equal(fl->v->nsplits, 1);
	assert_int_equal(must_find(fl, "python.pkg.numpy", "n3")->status,
	    EP_FAIL);
	assert_int_equal(fl->v->nerror, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_node_many_facts,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_within_bounds, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_groups_bound, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_facts_max, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
