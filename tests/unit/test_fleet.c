/*
 * test_fleet.c: the fleet engine (checker/fleet/), ep_fleet_run on node
 * manifests written to a scratch directory (fleetfixture.h; the fast
 * manifest reader is test_fleet_parse.c's, the nodes themselves
 * test_fleet_nodes.c's): odd node out, ties, per-host identities, absent
 * facts and the rules' "missing", ignore and version rules; and the
 * names fleetview.h gives each kind of split and each node's verdict.
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

static void
test_identical(void **state)
{
	struct fleet *fl = *state;
	const struct ep_result *r;
	char *msg;

	node(fl, "n1", BASE);
	node(fl, "n2", BASE);
	node(fl, "n3", BASE);
	run(fl);
	assert_int_equal(fl->v->nsplits, 0);
	assert_int_equal(fl->v->nnodes, 3);
	assert_int_equal(fl->v->nreported, 3);
	assert_int_equal(fl->v->nodd, 0);
	assert_int_equal(fl->v->nkeys, 5);
	assert_int_equal(node_results(fl, EP_FAIL), 0);
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_OK);
	r = must_find(fl, "node.manifest", "n2");
	assert_int_equal(r->status, EP_PASS);
	msg = xasprintf("node.manifest: 5 facts from %s/n2.json", fl->dir);
	assert_string_equal(r->message, msg);
	free(msg);
	assert_int_equal(vnode(fl, "n2")->nfacts, 5);
	assert_int_equal(vnode(fl, "n2")->exit_status, EP_EXIT_OK);
}

/* One node with another value: it is named, with the majority's value;
 * the fleet's result lists the groups. */
static void
test_odd_node(void **state)
{
	struct fleet *fl = *state;
	const struct ep_fleet_split *s;
	const struct ep_result *r;

	node(fl, "n1", BASE);
	node(fl, "n2", BASE);
	node(fl, "n3", "\"python.pkg.numpy\": \"2.0.0\", \"os.id\": "
	    "\"debian\", \"os.kernel\": \"6.1.0-1\", \"lib.cublas.version\": "
	    "\"13.1.0.3\", \"env.NCCL_ALGO\": \"Ring\"");
	node(fl, "n4", BASE);
	run(fl);

	r = must_find(fl, "python.pkg.numpy", "n3");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->expected, "1.26.4");
	assert_string_equal(r->actual, "2.0.0");
	assert_string_equal(r->rule, "fleet:majority");
	assert_string_equal(r->message, "python.pkg.numpy: '2.0.0' here, "
	    "'1.26.4' on the fleet's majority (3 of 4 nodes)");
	assert_null(find(fl, "python.pkg.numpy", "n1"));

	r = must_find(fl, "fleet.odd.python.pkg.numpy", NULL);
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->area, "fleet");
	assert_string_equal(r->rule, "fleet:majority");
	assert_string_equal(r->expected, "1.26.4");
	assert_string_equal(r->message, "python.pkg.numpy: 1 of 4 nodes "
	    "differ from the majority: '1.26.4' on n[1-2,4] (3); '2.0.0' on "
	    "n3 (1)");

	assert_int_equal(fl->v->nsplits, 1);
	s = split(fl, "python.pkg.numpy", NULL);
	assert_non_null(s);
	assert_int_equal(s->kind, EP_SPLIT_ODD);
	assert_int_equal(s->status, EP_FAIL);
	assert_null(s->domain);
	assert_int_equal(s->ngroups, 2);
	group_is(&s->groups[0], "1.26.4", 3, "n[1-2,4]");
	group_is(&s->groups[1], "2.0.0", 1, "n3");
	assert_int_equal(s->ncauses, 0);

	assert_int_equal(fl->v->nodd, 1);
	assert_int_equal(vnode(fl, "n3")->odd, 1);
	assert_int_equal(vnode(fl, "n3")->exit_status, EP_EXIT_DRIFT);
	assert_int_equal(vnode(fl, "n3")->counts[EP_FAIL], 1);
	assert_int_equal(vnode(fl, "n1")->odd, 0);
	assert_int_equal(vnode(fl, "n1")->exit_status, EP_EXIT_OK);
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_DRIFT);
}

/* Two groups as large: a tie, nobody singled out. */
static void
test_tie(void **state)
{
	struct fleet *fl = *state;
	const struct ep_fleet_split *s;
	const struct ep_result *r;
	static const char other[] = "\"os.id\": \"debian\", \"os.kernel\": "
	    "\"6.1.0-1\", \"python.pkg.numpy\": \"2.0.0\", "
	    "\"lib.cublas.version\": \"13.1.0.3\", \"env.NCCL_ALGO\": \"Ring\"";

	node(fl, "n1", BASE);
	node(fl, "n2", BASE);
	node(fl, "n3", other);
	node(fl, "n4", other);
	run(fl);
	s = split(fl, "python.pkg.numpy", NULL);
	assert_non_null(s);
	assert_int_equal(s->kind, EP_SPLIT_TIE);
	assert_int_equal(s->status, EP_FAIL);
	group_is(&s->groups[0], "1.26.4", 2, "n[1-2]");
	group_is(&s->groups[1], "2.0.0", 2, "n[3-4]");
	r = must_find(fl, "fleet.odd.python.pkg.numpy", NULL);
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->rule, "fleet:tie");
	assert_int_equal(ep_fleet_split_kind(r->rule), s->kind);
	assert_null(r->expected);
	assert_string_equal(r->message, "python.pkg.numpy: no majority "
	    "among 4 nodes: '1.26.4' on n[1-2] (2); '2.0.0' on n[3-4] (2)");
	assert_int_equal(node_results(fl, EP_FAIL), 0);
	assert_int_equal(fl->v->nodd, 0);
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_DRIFT);
}

/* A different value on each of three or more nodes (8 nodes, 8 numpy
 * versions) is no majority, and fails under an exact rule like any tie;
 * only the policy calls a fact per host: under its present rule the
 * spread is a warning, under its ignore rule nothing.  On two nodes it
 * is a tie, a failure, either way. */
static void
test_per_host_identity(void **state)
{
	struct fleet *fl = *state;
	const struct ep_fleet_split *s;
	const struct ep_result *r;

	node(fl, "n1", BASE ", \"host.serial\": \"S-C\"");
	node(fl, "n2", BASE ", \"host.serial\": \"S-A\"");
	node(fl, "n3", BASE ", \"host.serial\": \"S-B\"");
	run(fl);
	s = split(fl, "host.serial", NULL);
	assert_non_null(s);
	assert_int_equal(s->kind, EP_SPLIT_TIE);
	assert_int_equal(s->status, EP_FAIL);
	assert_int_equal(s->ngroups, 3);
	group_is(&s->groups[0], "S-A", 1, "n2");
	group_is(&s->groups[1], "S-B", 1, "n3");
	group_is(&s->groups[2], "S-C", 1, "n1");
	r = must_find(fl, "fleet.odd.host.serial", NULL);
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->rule, "fleet:tie");
	assert_string_equal(r->message, "host.serial: no majority among 3 "
	    "nodes, a different value on each (only a fact the policy calls "
	    "per host, with an ignore or present rule, may differ on every "
	    "node): 'S-A' on n2 (1); 'S-B' on n3 (1); 'S-C' on n1 (1)");
	/* No node is singled out: there is no majority to differ from. */
	assert_int_equal(node_results(fl, EP_FAIL), 0);
	assert_int_equal(node_results(fl, EP_WARN), 0);
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_DRIFT);

	/* The policy calls it per host: present, any value. */
	with_policy(fl, "{\"key\": \"host.serial\", \"rule\": \"present\"}");
	run(fl);
	s = split(fl, "host.serial", NULL);
	assert_non_null(s);
	assert_int_equal(s->status, EP_WARN);
	r = must_find(fl, "fleet.odd.host.serial", NULL);
	assert_int_equal(r->status, EP_WARN);
	assert_string_equal(r->message, "host.serial: a different value on "
	    "each of the 3 nodes, which its present rule accepts: 'S-A' on "
	    "n2 (1); 'S-B' on n3 (1); 'S-C' on n1 (1)");
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_OK);

	/* Or ignore: not judged at all. */
	with_policy(fl, "{\"key\": \"host.serial\", \"rule\": \"ignore\"}");
	run(fl);
	assert_null(split(fl, "host.serial", NULL));
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_OK);

	/* Two nodes, two values: no majority, and a failure. */
	with_policy(fl, "{\"key\": \"nothing.here\", \"rule\": \"ignore\"}");
	rm_node(fl, "n3");
	run(fl);
	s = split(fl, "host.serial", NULL);
	assert_non_null(s);
	assert_int_equal(s->kind, EP_SPLIT_TIE);
	assert_int_equal(s->status, EP_FAIL);
	r = must_find(fl, "fleet.odd.host.serial", NULL);
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message, "host.serial: no majority among 2 "
	    "nodes: 'S-A' on n2 (1); 'S-C' on n1 (1)");
}

/* An absent fact is a value of its own: a node without it, or with it
 * alone, is odd; unless the rule's missing is skip or ignore. */
static void
test_absent(void **state)
{
	struct fleet *fl = *state;
	static const char no_nccl[] = "\"os.id\": \"debian\", \"os.kernel\": "
	    "\"6.1.0-1\", \"python.pkg.numpy\": \"1.26.4\", "
	    "\"lib.cublas.version\": \"13.1.0.3\"";
	static const char *const modes[] = { "skip", "ignore" };
	const struct ep_fleet_split *s;
	const struct ep_result *r;
	char *rule;

	node(fl, "n1", BASE);
	node(fl, "n2", BASE ", \"env.CUDA_LAUNCH_BLOCKING\": \"1\"");
	node(fl, "n3", no_nccl);
	node(fl, "n4", BASE);
	run(fl);

	r = must_find(fl, "env.NCCL_ALGO", "n3");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->expected, "Ring");
	assert_null(r->actual);
	assert_string_equal(r->message, "env.NCCL_ALGO: absent here, 'Ring' "
	    "on the fleet's majority (3 of 4 nodes)");
	s = split(fl, "env.NCCL_ALGO", NULL);
	assert_non_null(s);
	assert_int_equal(s->kind, EP_SPLIT_ODD);
	group_is(&s->groups[0], "Ring", 3, "n[1-2,4]");
	group_is(&s->groups[1], NULL, 1, "n3");
	assert_string_equal(must_find(fl, "fleet.odd.env.NCCL_ALGO",
	    NULL)->message, "env.NCCL_ALGO: 1 of 4 nodes differ from the "
	    "majority: 'Ring' on n[1-2,4] (3); absent on n3 (1)");

	r = must_find(fl, "env.CUDA_LAUNCH_BLOCKING", "n2");
	assert_int_equal(r->status, EP_FAIL);
	assert_null(r->expected);
	assert_string_equal(r->actual, "1");
	assert_string_equal(r->message, "env.CUDA_LAUNCH_BLOCKING: '1' here, "
	    "absent on the fleet's majority (3 of 4 nodes)");
	s = split(fl, "env.CUDA_LAUNCH_BLOCKING", NULL);
	assert_non_null(s);
	group_is(&s->groups[0], NULL, 3, "n[1,3-4]");
	group_is(&s->groups[1], "1", 1, "n2");
	assert_int_equal(fl->v->nsplits, 2);
	assert_int_equal(fl->v->nodd, 2);

	for (size_t i = 0; i < 2; i++) {
		rule = xasprintf("{\"key\": \"env.*\", \"rule\": \"exact\", "
		    "\"missing\": \"%s\"}", modes[i]);
		with_policy(fl, rule);
		free(rule);
		run(fl);
		assert_int_equal(fl->v->nsplits, 0);
		assert_null(find(fl, "env.NCCL_ALGO", "n3"));
		assert_null(find(fl, "env.CUDA_LAUNCH_BLOCKING", "n2"));
		assert_null(find(fl, "fleet.odd.env.NCCL_ALGO", NULL));
		assert_int_equal(fl->v->nodd, 0);
		assert_int_equal(node_results(fl, EP_FAIL), 0);
	}

	/* Under skip, the nodes that have it are compared among
	 * themselves: two values on two nodes are a tie, the absent
	 * majority does not count. */
	node(fl, "n4", BASE ", \"env.CUDA_LAUNCH_BLOCKING\": \"0\"");
	run(fl);
	s = split(fl, "env.CUDA_LAUNCH_BLOCKING", NULL);
	assert_non_null(s);
	assert_int_equal(s->kind, EP_SPLIT_TIE);
	assert_int_equal(s->ngroups, 2);
	group_is(&s->groups[0], "0", 1, "n4");
	group_is(&s->groups[1], "1", 1, "n2");
	assert_string_equal(must_find(fl, "fleet.odd.env.CUDA_LAUNCH_BLOCKING",
	    NULL)->message, "env.CUDA_LAUNCH_BLOCKING: no majority among 2 "
	    "nodes: '0' on n4 (1); '1' on n2 (1)");
	/* The default again: absent on two, a value each on two. */
	ep_policy_free(fl->policy);
	fl->policy = NULL;
	run(fl);
	s = split(fl, "env.CUDA_LAUNCH_BLOCKING", NULL);
	assert_int_equal(s->kind, EP_SPLIT_ODD);
	assert_int_equal(s->ngroups, 3);
	group_is(&s->groups[0], NULL, 2, "n[1,3]");
	group_is(&s->groups[1], "0", 1, "n4");
	group_is(&s->groups[2], "1", 1, "n2");
}

/* An ignore rule takes a key out of the comparison (os.kernel is one by
 * default); it is still one of the fleet's keys. */
static void
test_ignore_rule(void **state)
{
	struct fleet *fl = *state;

	node(fl, "n1", BASE ", \"lib.cublas.path\": \"/usr/lib/libcublas.so\"");
	node(fl, "n2", BASE ", \"lib.cublas.path\": \"/usr/lib/libcublas.so\"");
	node(fl, "n3", "\"os.id\": \"debian\", \"os.kernel\": \"6.1.0-2\", "
	    "\"python.pkg.numpy\": \"1.26.4\", \"lib.cublas.version\": "
	    "\"13.1.0.3\", \"env.NCCL_ALGO\": \"Ring\", \"lib.cublas.path\": "
	    "\"/opt/x/libcublas.so\"");
	run(fl);
	assert_int_equal(fl->v->nsplits, 1);
	assert_non_null(split(fl, "lib.cublas.path", NULL));
	assert_null(split(fl, "os.kernel", NULL));
	assert_null(find(fl, "os.kernel", "n3"));
	assert_int_equal(must_find(fl, "lib.cublas.path", "n3")->status,
	    EP_FAIL);

	with_policy(fl, "{\"key\": \"lib.*.path\", \"rule\": \"ignore\", "
	    "\"reason\": \"venvs live in different places\"}");
	run(fl);
	assert_int_equal(fl->v->nsplits, 0);
	assert_null(find(fl, "lib.cublas.path", "n3"));
	assert_null(find(fl, "fleet.odd.lib.cublas.path", NULL));
	assert_int_equal(fl->v->nkeys, 6);
	assert_int_equal(fl->v->nodd, 0);
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_OK);
}

/* A version rule accepts more than one value: nodes that differ under
 * it are a warning; so are they under an exact rule of severity warn. */
static void
test_version_rule(void **state)
{
	struct fleet *fl = *state;
	const struct ep_fleet_split *s;
	const struct ep_result *r;

	node(fl, "n1", BASE);
	node(fl, "n2", BASE);
	node(fl, "n3", "\"os.id\": \"debian\", \"os.kernel\": \"6.1.0-1\", "
	    "\"python.pkg.numpy\": \"1.26.4\", \"lib.cublas.version\": "
	    "\"13.1.0.9\", \"env.NCCL_ALGO\": \"Ring\"");
	run(fl);
	assert_int_equal(split(fl, "lib.cublas.version", NULL)->status,
	    EP_FAIL);

	with_policy(fl, "{\"key\": \"lib.cublas.version\", \"rule\": "
	    "\"version\", \"range\": \">=13.1,<13.2\"}");
	run(fl);
	s = split(fl, "lib.cublas.version", NULL);
	assert_non_null(s);
	assert_int_equal(s->kind, EP_SPLIT_ODD);
	assert_int_equal(s->status, EP_WARN);
	group_is(&s->groups[0], "13.1.0.3", 2, "n[1-2]");
	group_is(&s->groups[1], "13.1.0.9", 1, "n3");
	r = must_find(fl, "lib.cublas.version", "n3");
	assert_int_equal(r->status, EP_WARN);
	assert_string_equal(r->message, "lib.cublas.version: '13.1.0.9' here, "
	    "'13.1.0.3' on the fleet's majority (2 of 3 nodes)");
	assert_int_equal(must_find(fl, "fleet.odd.lib.cublas.version",
	    NULL)->status, EP_WARN);
	assert_int_equal(vnode(fl, "n3")->odd, 1);
	assert_int_equal(vnode(fl, "n3")->exit_status, EP_EXIT_OK);
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_OK);

	with_policy(fl, "{\"key\": \"lib.*\", \"rule\": \"exact\", "
	    "\"severity\": \"warn\"}");
	run(fl);
	assert_int_equal(split(fl, "lib.cublas.version", NULL)->status,
	    EP_WARN);
	assert_int_equal(must_find(fl, "lib.cublas.version", "n3")->status,
	    EP_WARN);
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_OK);
}

/* Each kind of split's rule leads back to the kind, and no other rule
 * does; a node's verdict follows its state, its exit and its odd facts. */
static void
test_names(void **state)
{
	struct ep_fleet_node n = { 0 };

	(void)state;
	for (int k = 0; k < EP_NSPLIT_KINDS; k++) {
		assert_int_equal(ep_fleet_split_kind(ep_fleet_split_rule(k)),
		    k);
		assert_non_null(ep_fleet_split_name(k));
		assert_non_null(ep_fleet_split_label(k));
	}
	assert_string_equal(ep_fleet_split_rule(EP_SPLIT_ODD),
	    "fleet:majority");
	assert_string_equal(ep_fleet_split_name(EP_SPLIT_DOMAIN), "domain");
	assert_string_equal(ep_fleet_split_label(EP_SPLIT_DOMAIN), "domains");
	assert_int_equal(ep_fleet_split_kind(NULL), -1);
	assert_int_equal(ep_fleet_split_kind("exact"), -1);
	assert_int_equal(ep_fleet_split_kind("fleet:bound"), -1);
	assert_int_equal(ep_fleet_split_kind("fleet:expect"), -1);
	assert_int_equal(ep_fleet_node_verdict(&n), EP_VERDICT_PARITY);
	n.odd = 1;
	assert_int_equal(ep_fleet_node_verdict(&n), EP_VERDICT_DRIFT);
	n.odd = 0;
	n.exit_status = 1;
	assert_int_equal(ep_fleet_node_verdict(&n), EP_VERDICT_DRIFT);
	n.state = EP_NODE_ERROR;
	assert_int_equal(ep_fleet_node_verdict(&n), EP_VERDICT_UNREADABLE);
	n.state = EP_NODE_MISSING;
	assert_int_equal(ep_fleet_node_verdict(&n), EP_VERDICT_MISSING);
	assert_string_equal(ep_fleet_verdict_name(EP_VERDICT_MISSING),
	    "missing");
	assert_string_equal(ep_fleet_state_name(EP_NODE_ERROR), "unreadable");
	assert_string_equal(ep_fleet_state_name(EP_NODE_OK), "reported");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_identical, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_odd_node, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_tie, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_per_host_identity, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_absent, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_ignore_rule, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_version_rule, setup,
		    teardown),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
