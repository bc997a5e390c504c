/*
 * test_fleet.c: the fleet engine (checker/fleet/), ep_fleet_run on node
 * manifests written to a scratch directory (the fast manifest reader is
 * test_fleet_parse.c's): odd node out, ties, per-host identities, absent
 * facts and the rules' "missing", ignore and version rules, probe hashes
 * within and across determinism domains, expected nodes, the nodes
 * refused (duplicate names, bad names, bad manifests) and the view's
 * counts and hostlists.
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

#include "fleet_int.h"
#include "testutil.h"

/* 2026-11-22T12:00:00Z */
#define NOV22	((time_t)1795348800)

#define SCHEMA	"\"schema\": \"envparity/manifest@1\""

/* What every node of the engine's tests has unless a test changes it. */
#define BASE	"\"os.id\": \"debian\", \"os.kernel\": \"6.1.0-1\", " \
	"\"python.pkg.numpy\": \"1.26.4\", " \
	"\"lib.cublas.version\": \"13.1.0.3\", \"env.NCCL_ALGO\": \"Ring\""

/* ---- ep_fleet_run ---- */

struct fleet {
	char dir[256];
	struct ep_results rs;
	struct ep_fleet_view *v;
	struct ep_policy *policy;
};

static void
write_file(const char *dir, const char *file, const char *text)
{
	char *path = xasprintf("%s/%s", dir, file);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	free(path);
}

static void
rm_node(struct fleet *fl, const char *name)
{
	char *path = xasprintf("%s/%s.json", fl->dir, name);

	assert_int_equal(unlink(path), 0);
	free(path);
}

/* <dir>/<node>.json naming node in meta, with facts (the inside of the
 * facts object). */
static void
node(struct fleet *fl, const char *name, const char *facts)
{
	char *file = xasprintf("%s.json", name);
	char *text = xasprintf("{\"facts\": {%s}, \"meta\": {\"node\": "
	    "\"%s\", \"host\": \"vm\"}, " SCHEMA "}\n", facts, name);

	write_file(fl->dir, file, text);
	free(text);
	free(file);
}

static int
setup(void **state)
{
	struct fleet *fl = xcalloc(1, sizeof *fl);

	if (tu_scratch_make(fl->dir, sizeof fl->dir, "fleet") < 0) {
		free(fl);
		return -1;
	}
	*state = fl;
	return 0;
}

static int
teardown(void **state)
{
	struct fleet *fl = *state;
	int rc = tu_scratch_remove(fl->dir);

	ep_results_clear(&fl->rs);
	ep_fleet_view_free(fl->v);
	ep_policy_free(fl->policy);
	free(fl);
	return rc;
}

static void
with_policy(struct fleet *fl, const char *rules)
{
	char *text = xasprintf("{\"schema\": \"envparity/policy@1\", "
	    "\"rules\": [%s]}", rules);
	struct ep_err err = { 0 };

	ep_policy_free(fl->policy);
	if (ep_policy_parse(&fl->policy, text, strlen(text), "policy.json",
	    &err) < 0)
		fail_msg("%s", err.msg);
	free(text);
}

/* ep_fleet_run over the directory (expect: NULL, or a list ending in
 * NULL, given as expect_text). */
static void
run_with(struct fleet *fl, const char *const *expect,
    const char *expect_text)
{
	struct ep_fleet_opts o = { 0 };
	const char *inputs[] = { fl->dir };
	struct ep_err err = { 0 };

	if (fl->policy == NULL)
		fl->policy = ep_policy_default();
	ep_results_clear(&fl->rs);
	ep_fleet_view_free(fl->v);
	fl->v = NULL;
	o.inputs = inputs;
	o.ninputs = 1;
	if (expect != NULL) {
		o.expect = expect;
		while (expect[o.nexpect] != NULL)
			o.nexpect++;
		o.expect_text = expect_text;
	}
	o.policy = fl->policy;
	o.now = NOV22;
	o.expiry_days = 14;
	if (ep_fleet_run(&fl->rs, &fl->v, &o, &err) < 0)
		fail_msg("%s", err.msg);
	assert_non_null(fl->v);
}

static void
run(struct fleet *fl)
{
	run_with(fl, NULL, NULL);
}

/* The one result for key about node (NULL: the fleet's); NULL if none,
 * a failure if more than one. */
static const struct ep_result *
find(const struct fleet *fl, const char *key, const char *nd)
{
	const struct ep_result *hit = NULL;

	for (size_t i = 0; i < fl->rs.n; i++) {
		const struct ep_result *r = &fl->rs.v[i];

		if (strcmp(r->key, key) != 0 || (r->node == NULL) !=
		    (nd == NULL) || (nd != NULL && strcmp(r->node, nd) != 0))
			continue;
		if (hit != NULL)
			fail_msg("two results for %s on %s", key,
			    nd ? nd : "the fleet");
		hit = r;
	}
	return hit;
}

static const struct ep_result *
must_find(const struct fleet *fl, const char *key, const char *nd)
{
	const struct ep_result *r = find(fl, key, nd);

	if (r == NULL)
		fail_msg("no result for %s on %s", key, nd ? nd : "the fleet");
	return r;
}

/* How many results have status on nodes (not the fleet's own). */
static size_t
node_results(const struct fleet *fl, int status)
{
	size_t n = 0;

	for (size_t i = 0; i < fl->rs.n; i++)
		if (fl->rs.v[i].node != NULL && fl->rs.v[i].status == status)
			n++;
	return n;
}

/* The split of key (in domain, for probe hashes), or NULL. */
static const struct ep_fleet_split *
split(const struct fleet *fl, const char *key, const char *domain)
{
	for (size_t i = 0; i < fl->v->nsplits; i++) {
		const struct ep_fleet_split *s = &fl->v->splits[i];

		if (strcmp(s->key, key) == 0 && (domain == NULL ||
		    (s->domain != NULL && strcmp(s->domain, domain) == 0)))
			return s;
	}
	return NULL;
}

static const struct ep_fleet_node *
vnode(const struct fleet *fl, const char *name)
{
	for (size_t i = 0; i < fl->v->nnodes; i++)
		if (strcmp(fl->v->nodes[i].name, name) == 0)
			return &fl->v->nodes[i];
	fail_msg("no node %s in the view", name);
	return NULL;
}

static void
group_is(const struct ep_fleet_group *g, const char *value, size_t count,
    const char *nodes)
{
	if (value == NULL)
		assert_null(g->value);
	else
		assert_string_equal(g->value, value);
	assert_int_equal(g->count, count);
	assert_string_equal(g->nodes, nodes);
}

/* Identical nodes: nothing splits, every node passes. */
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
	assert_null(r->expected);
	assert_string_equal(r->message, "python.pkg.numpy: no majority "
	    "among 4 nodes: '1.26.4' on n[1-2] (2); '2.0.0' on n[3-4] (2)");
	assert_int_equal(node_results(fl, EP_FAIL), 0);
	assert_int_equal(fl->v->nodd, 0);
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_DRIFT);
}

/* A different value on each of three or more nodes is an identity: a
 * warning; on each of two it is a tie, a failure. */
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
	assert_int_equal(s->status, EP_WARN);
	assert_int_equal(s->ngroups, 3);
	group_is(&s->groups[0], "S-A", 1, "n2");
	group_is(&s->groups[1], "S-B", 1, "n3");
	group_is(&s->groups[2], "S-C", 1, "n1");
	r = must_find(fl, "fleet.odd.host.serial", NULL);
	assert_int_equal(r->status, EP_WARN);
	assert_string_equal(r->rule, "fleet:tie");
	assert_string_equal(r->message, "host.serial: a different value on "
	    "each of the 3 nodes (a per-host fact? an ignore rule in the "
	    "policy says so): 'S-A' on n2 (1); 'S-B' on n3 (1); 'S-C' on n1 "
	    "(1)");
	assert_int_equal(node_results(fl, EP_FAIL), 0);
	assert_int_equal(node_results(fl, EP_WARN), 0);
	assert_int_equal(ep_results_exit(&fl->rs), EP_EXIT_OK);

	/* Two nodes, two values: no majority, and a failure. */
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
		cmocka_unit_test_setup_teardown(test_identical, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_odd_node, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_tie, setup, teardown),
		cmocka_unit_test_setup_teardown(test_per_host_identity, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_absent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ignore_rule, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_version_rule, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_probe_split_in_domain,
		    setup, teardown),
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
