/*
 * test_fleet_nodes.c: the fleet engine (checker/fleet/) on what sets
 * nodes apart besides their facts (fleetfixture.h): probe hashes within
 * and across determinism domains, expected nodes, the nodes refused
 * (duplicate names, bad names, bad manifests) and the view's counts and
 * hostlists.
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

/* Probe facts as capture --runs writes them, in domain dom. */
static char *
probe_facts(const char *dom, const char *gemm, const char *cublas)
{
	return xasprintf("\"os.id\": \"debian\", \"os.kernel\": \"6.1.0-1\", "
	    "\"python.pkg.numpy\": \"1.26.4\", \"lib.cublas.version\": "
	    "\"%s\", \"env.NCCL_ALGO\": \"Ring\", \"probe.domain\": \"%s\", "
	    "\"probe.cublas.gemm.sha256\": \"%s\", "
	    "\"probe.cublas.reduce.sha256\": \"bbbb\"", cublas, dom, gemm);
}

static void
probe_node(struct fleet *fl, const char *name, const char *dom,
    const char *gemm, const char *cublas)
{
	char *f = probe_facts(dom, gemm, cublas);

	node(fl, name, f);
	free(f);
}

#define DOM_H100	"NVIDIA H100 80GB HBM3 cc 9.0 driver 580.159.04"
#define DOM_A100	"NVIDIA A100-SXM4-80GB cc 8.0 driver 580.159.04"

/* A node whose probe computes other bits within its domain fails, and
 * the fact that sets it apart is named as the likely cause. */
static void
test_probe_split_in_domain(void **state)
{
	struct fleet *fl = *state;
	const struct ep_fleet_split *s;
	const struct ep_result *r;

	probe_node(fl, "n1", DOM_H100, "aaaa", "13.1.0.3");
	probe_node(fl, "n2", DOM_H100, "aaaa", "13.1.0.3");
	probe_node(fl, "n3", DOM_H100, "cccc", "13.1.0.9");
	probe_node(fl, "n4", DOM_H100, "aaaa", "13.1.0.3");
	run(fl);

	assert_int_equal(fl->v->nsplits, 2);
	s = split(fl, "probe.cublas.gemm.sha256", DOM_H100);
	assert_non_null(s);
	assert_int_equal(s->kind, EP_SPLIT_PROBE);
	assert_int_equal(s->status, EP_FAIL);
	assert_string_equal(s->domain, DOM_H100);
	group_is(&s->groups[0], "aaaa", 3, "n[1-2,4]");
	group_is(&s->groups[1], "cccc", 1, "n3");
	assert_int_equal(s->ncauses, 1);
	assert_string_equal(s->causes[0], "lib.cublas.version=13.1.0.9");
	assert_null(split(fl, "probe.cublas.reduce.sha256", NULL));
	assert_null(split(fl, "probe.domain", NULL));
	/* The cause is a split of its own. */
	assert_int_equal(split(fl, "lib.cublas.version", NULL)->kind,
	    EP_SPLIT_ODD);

	r = must_find(fl, "probe.cublas.gemm.sha256", "n3");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->rule, "fleet:probe");
	assert_string_equal(r->message, "probe.cublas.gemm.sha256: 'cccc' "
	    "here, 'aaaa' on the fleet's majority (3 of 4 nodes in domain "
	    DOM_H100 ")");
	r = must_find(fl, "fleet.odd.probe.cublas.gemm.sha256", NULL);
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->rule, "fleet:probe");
	assert_string_equal(r->message, "probe.cublas.gemm.sha256: 1 of 4 "
	    "nodes in domain " DOM_H100 " differ from the majority: 'aaaa' "
	    "on n[1-2,4] (3); 'cccc' on n3 (1); the nodes that differ are "
	    "exactly those with: lib.cublas.version=13.1.0.9");
	assert_int_equal(vnode(fl, "n3")->odd, 2);
	assert_int_equal(fl->v->nodd, 1);
}

/* Nodes in different domains: the domains are said, never failed, and
 * hashes are compared within each only. */
static void
test_probe_domains(void **state)
{
	struct fleet *fl = *state;
	const struct ep_fleet_split *s;
	const struct ep_result *r;

	probe_node(fl, "n1", DOM_H100, "aaaa", "13.1.0.3");
	probe_node(fl, "n2", DOM_H100, "aaaa", "13.1.0.3");
	probe_node(fl, "n3", DOM_A100, "dddd", "13.1.0.3");
	probe_node(fl, "n4", DOM_A100, "dddd", "13.1.0.3");
	run(fl);
	assert_int_equal(fl->v->nsplits, 1);
	s = split(fl, "probe.domain", NULL);
	assert_non_null(s);
	assert_int_equal(s->kind, EP_SPLIT_DOMAIN);
	assert_int_equal(s->status, EP_PASS);
	assert_null(s->domain);
	/* As many on each: by value, A100 first. */
	group_is(&s->groups[0], DOM_A100, 2, "n[3-4]");
	group_is(&s->groups[1], DOM_H100, 2, "n[1-2]");
	r = must_find(fl, "fleet.odd.probe.domain", NULL);
	assert_int_equal(r->status, EP_PASS);
	assert_string_equal(r->rule, "fleet:domain");
	assert_null(r->expected);
	assert_string_equal(r->message, "probe.domain: 2 determinism domains "
	    "(hashes are compared within each, never across): '" DOM_A100
	    "' on n[3-4] (2); '" DOM_H100 "' on n[1-2] (2)");
	assert_null(split(fl, "probe.cublas.gemm.sha256", NULL));
	assert_null(find(fl, "probe.domain", "n3"));
	assert_int_equal(node_results(fl, EP_FAIL), 0);
	assert_int_equal(fl->v->nodd, 0);
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_OK);

	/* A third A100 with other bits: a probe split in that domain
	 * alone, the H100s not counted. */
	probe_node(fl, "n5", DOM_A100, "eeee", "13.1.0.3");
	run(fl);
	assert_int_equal(fl->v->nsplits, 2);
	s = split(fl, "probe.cublas.gemm.sha256", DOM_A100);
	assert_non_null(s);
	assert_int_equal(s->kind, EP_SPLIT_PROBE);
	assert_int_equal(s->status, EP_FAIL);
	group_is(&s->groups[0], "dddd", 2, "n[3-4]");
	group_is(&s->groups[1], "eeee", 1, "n5");
	assert_int_equal(s->ncauses, 0);
	assert_null(split(fl, "probe.cublas.gemm.sha256", DOM_H100));
	assert_string_equal(must_find(fl, "probe.cublas.gemm.sha256",
	    "n5")->message, "probe.cublas.gemm.sha256: 'eeee' here, 'dddd' on "
	    "the fleet's majority (2 of 3 nodes in domain " DOM_A100 ")");
	s = split(fl, "probe.domain", NULL);
	assert_int_equal(s->kind, EP_SPLIT_DOMAIN);
	group_is(&s->groups[0], DOM_A100, 3, "n[3-5]");
	group_is(&s->groups[1], DOM_H100, 2, "n[1-2]");
}

#define MISSING_WHY "expected, but no manifest names it (the node is " \
	"down, drained, or its capture failed)"

/* A node expected that did not report fails; one that reported without
 * being expected is a warning. */
static void
test_expected(void **state)
{
	struct fleet *fl = *state;
	static const char *const five[] = { "n1", "n2", "n3", "n4", "n5",
	    "n5", NULL };
	static const char *const three[] = { "n1", "n2", "n3", NULL };
	const struct ep_fleet_node *vn;
	const struct ep_result *r;

	node(fl, "n1", BASE);
	node(fl, "n2", BASE);
	node(fl, "n3", BASE);
	node(fl, "n4", BASE);
	run_with(fl, five, "n[1-5]");
	assert_int_equal(fl->v->nnodes, 5);
	assert_int_equal(fl->v->nreported, 4);
	assert_int_equal(fl->v->nmissing, 1);
	assert_int_equal(fl->v->nerror, 0);
	assert_string_equal(fl->v->expect, "n[1-5]");
	vn = vnode(fl, "n5");
	assert_int_equal(vn->state, EP_NODE_MISSING);
	assert_null(vn->file);
	assert_true(vn->expected);
	assert_string_equal(vn->error, MISSING_WHY);
	assert_int_equal(vn->exit_status, EP_EXIT_DRIFT);
	r = must_find(fl, "node.manifest", "n5");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message, "node.manifest: " MISSING_WHY);
	assert_true(vnode(fl, "n1")->expected);
	assert_null(find(fl, "node.expected", "n1"));
	/* A missing node is not a value of any fact. */
	assert_int_equal(fl->v->nsplits, 0);
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_DRIFT);

	run_with(fl, three, "n[1-3]");
	assert_int_equal(fl->v->nmissing, 0);
	assert_false(vnode(fl, "n4")->expected);
	r = must_find(fl, "node.expected", "n4");
	assert_int_equal(r->status, EP_WARN);
	assert_string_equal(r->message, "node.expected: n4 reported but is "
	    "not in the expected nodes (n[1-3])");
	assert_int_equal(vnode(fl, "n4")->exit_status, EP_EXIT_OK);
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_OK);
}

/* A manifest under any file name. */
static void
node_file(struct fleet *fl, const char *file, const char *meta,
    const char *facts)
{
	char *text = xasprintf("{" SCHEMA ", \"meta\": {%s}, \"facts\": "
	    "{%s}}", meta, facts);

	write_file(fl->dir, file, text);
	free(text);
}

/* Two manifests naming one node: neither is taken. */
static void
test_duplicate_names(void **state)
{
	struct fleet *fl = *state;
	char *want;
	size_t nerr = 0;

	node_file(fl, "a.json", "\"node\": \"n1\"", BASE);
	node_file(fl, "b.json", "\"node\": \"n1\"", BASE
	    ", \"only.b\": \"1\"");
	node(fl, "n2", BASE);
	node(fl, "n3", BASE);
	run(fl);
	assert_int_equal(fl->v->nnodes, 4);
	/* The refused manifests' facts count nowhere. */
	assert_int_equal(fl->v->nkeys, 5);
	assert_int_equal(fl->v->nsplits, 0);
	assert_int_equal(fl->v->nerror, 2);
	assert_int_equal(fl->v->nreported, 2);
	for (size_t i = 0; i < fl->v->nnodes; i++) {
		const struct ep_fleet_node *vn = &fl->v->nodes[i];

		if (strcmp(vn->name, "n1") != 0)
			continue;
		assert_int_equal(vn->state, EP_NODE_ERROR);
		assert_int_equal(vn->exit_status, EP_EXIT_USAGE);
		want = xasprintf("%s/%s.json: node n1 is also named by "
		    "%s/%s.json (duplicate node names are refused)", fl->dir,
		    strstr(vn->file, "/a.json") ? "a" : "b", fl->dir,
		    strstr(vn->file, "/a.json") ? "b" : "a");
		assert_string_equal(vn->error, want);
		free(want);
		nerr++;
	}
	assert_int_equal(nerr, 2);
	nerr = 0;
	for (size_t i = 0; i < fl->rs.n; i++)
		if (fl->rs.v[i].node != NULL &&
		    strcmp(fl->rs.v[i].node, "n1") == 0) {
			assert_string_equal(fl->rs.v[i].key, "node.manifest");
			assert_int_equal(fl->rs.v[i].status, EP_ERROR);
			nerr++;
		}
	assert_int_equal(nerr, 2);
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_DRIFT);
}

/* A name that is not a node name, a manifest that does not parse, a
 * fact key twice: that node's error, named by its file. */
static void
test_bad_nodes(void **state)
{
	struct fleet *fl = *state;
	const struct ep_fleet_node *vn;
	char *want;

	node_file(fl, "spaced.json", "\"node\": \"a b\"", BASE);
	node_file(fl, "dots.json", "\"node\": \"..\"", BASE);
	node_file(fl, "slash.json", "\"node\": \"x/y\"", BASE);
	node_file(fl, "dupkey.json", "", "\"a\": \"1\", \"b\": \"2\", "
	    "\"a\": \"1\"");
	write_file(fl->dir, "cut.json", "{" SCHEMA ", \"facts\": {\"a\": \"1");
	/* No meta.node: the file's name. */
	node_file(fl, "n9.json", "", BASE);
	node(fl, "n1", BASE);
	run(fl);
	assert_int_equal(fl->v->nnodes, 7);
	assert_int_equal(fl->v->nerror, 5);
	assert_int_equal(fl->v->nreported, 2);
	assert_int_equal(vnode(fl, "n9")->state, EP_NODE_OK);
	assert_int_equal(vnode(fl, "n9")->nfacts, 5);

	vn = vnode(fl, "spaced");
	assert_int_equal(vn->state, EP_NODE_ERROR);
	assert_int_equal(vn->nfacts, 0);
	want = xasprintf("%s/spaced.json: node name 'a b' is not a node name "
	    "(letters, digits, '.', '_' and '-'; not '.' or '..')", fl->dir);
	assert_string_equal(vn->error, want);
	free(want);
	want = xasprintf("%s/dots.json: node name '..' is not a node name "
	    "(letters, digits, '.', '_' and '-'; not '.' or '..')", fl->dir);
	assert_string_equal(vnode(fl, "dots")->error, want);
	free(want);
	assert_int_equal(vnode(fl, "slash")->state, EP_NODE_ERROR);

	/* The loader finds the duplicate after interning and says it in
	 * the manifest parser's words. */
	want = xasprintf("%s/dupkey.json: not a manifest: line 1 column 80: "
	    "duplicate object key near '\"a\"'", fl->dir);
	assert_string_equal(vnode(fl, "dupkey")->error, want);
	free(want);
	want = xasprintf("%s/cut.json: not a manifest: line 1 column 52: "
	    "premature end of input near '\"1'", fl->dir);
	assert_string_equal(vnode(fl, "cut")->error, want);
	free(want);
	want = xasprintf("node.manifest: %s", vnode(fl, "cut")->error);
	assert_string_equal(must_find(fl, "node.manifest", "cut")->message,
	    want);
	assert_int_equal(must_find(fl, "node.manifest", "cut")->status,
	    EP_ERROR);
	free(want);
	/* The errors' facts count nowhere: not as values, not as keys
	 * (dupkey's "a" and "b" were interned before it was refused). */
	assert_int_equal(fl->v->nsplits, 0);
	assert_int_equal(fl->v->nkeys, 5);
}

/* The view's counts, and the splits' nodes in hostlist syntax over
 * zero-padded names. */
static void
test_view_counts(void **state)
{
	struct fleet *fl = *state;
	const char *expect[13];
	const struct ep_fleet_split *s;
	char name[8];

	for (int i = 1; i <= 10; i++) {
		snprintf(name, sizeof name, "n%03d", i);
		node(fl, name, i == 5 ? "\"os.id\": \"debian\", \"os.kernel\": "
		    "\"6.1.0-1\", \"python.pkg.numpy\": \"2.0.0\", "
		    "\"lib.cublas.version\": \"13.1.0.3\", \"env.NCCL_ALGO\": "
		    "\"Ring\"" : i == 9 ? BASE ", \"env.X\": \"1\"" : BASE);
	}
	write_file(fl->dir, "bad.json", "[]");
	for (int i = 0; i < 12; i++)
		expect[i] = xasprintf("n%03d", i + 1);
	expect[12] = NULL;
	run_with(fl, expect, "n[001-012]");
	for (int i = 0; i < 12; i++)
		free((char *)expect[i]);

	assert_int_equal(fl->v->nnodes, 13);
	assert_int_equal(fl->v->nreported, 10);
	assert_int_equal(fl->v->nmissing, 2);
	assert_int_equal(fl->v->nerror, 1);
	assert_int_equal(fl->v->nodd, 2);
	assert_int_equal(fl->v->nkeys, 6);
	/* Sorted by name. */
	assert_string_equal(fl->v->nodes[0].name, "bad");
	assert_string_equal(fl->v->nodes[1].name, "n001");
	assert_string_equal(fl->v->nodes[12].name, "n012");
	assert_int_equal(fl->v->nodes[0].exit_status, EP_EXIT_USAGE);
	assert_false(fl->v->nodes[0].expected);
	assert_int_equal(must_find(fl, "node.expected", "bad")->status,
	    EP_WARN);

	/* Sorted by key. */
	assert_int_equal(fl->v->nsplits, 2);
	assert_string_equal(fl->v->splits[0].key, "env.X");
	assert_string_equal(fl->v->splits[1].key, "python.pkg.numpy");
	s = &fl->v->splits[1];
	group_is(&s->groups[0], "1.26.4", 9, "n[001-004,006-010]");
	group_is(&s->groups[1], "2.0.0", 1, "n005");
	s = &fl->v->splits[0];
	group_is(&s->groups[0], NULL, 9, "n[001-008,010]");
	group_is(&s->groups[1], "1", 1, "n009");
	assert_string_equal(must_find(fl, "fleet.odd.python.pkg.numpy",
	    NULL)->message, "python.pkg.numpy: 1 of 10 nodes differ from the "
	    "majority: '1.26.4' on n[001-004,006-010] (9); '2.0.0' on n005 "
	    "(1)");
	assert_int_equal(vnode(fl, "n005")->odd, 1);
	assert_int_equal(vnode(fl, "n009")->odd, 1);
	assert_int_equal(vnode(fl, "n011")->state, EP_NODE_MISSING);
	assert_int_equal(vnode(fl, "n012")->state, EP_NODE_MISSING);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_probe_split_in_domain, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_probe_domains, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_expected, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_names, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_bad_nodes, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_view_counts, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
