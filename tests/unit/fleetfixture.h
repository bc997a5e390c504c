/*
 * fleetfixture.h: what the fleet engine's unit tests share (test_fleet.c,
 * test_fleet_nodes.c): node manifests written to a scratch directory,
 * ep_fleet_run on them under a policy, and finding results, splits and
 * nodes in what it returns.  Header-only: each test is its own program.
 */
#ifndef EP_FLEETFIXTURE_H
#define EP_FLEETFIXTURE_H

#define FLFX_UNUSED __attribute__((unused))

#include "fleet_int.h"
#include "testutil.h"

/* 2026-11-22T12:00:00Z */
#define NOV22	((time_t)1795348800)

#define SCHEMA	"\"schema\": \"envparity/manifest@1\""

/* What every node of the engine's tests has unless a test changes it. */
#define BASE	"\"os.id\": \"debian\", \"os.kernel\": \"6.1.0-1\", " \
	"\"python.pkg.numpy\": \"1.26.4\", " \
	"\"lib.cublas.version\": \"13.1.0.3\", \"env.NCCL_ALGO\": \"Ring\""

struct fleet {
	char dir[256];
	struct ep_results rs;
	struct ep_fleet_view *v;
	struct ep_policy *policy;
};

static FLFX_UNUSED void
write_file(const char *dir, const char *file, const char *text)
{
	char *path = xasprintf("%s/%s", dir, file);
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	free(path);
}

static FLFX_UNUSED void
rm_node(struct fleet *fl, const char *name)
{
	char *path = xasprintf("%s/%s.json", fl->dir, name);

	assert_int_equal(unlink(path), 0);
	free(path);
}

/* <dir>/<node>.json naming node in meta, with facts (the inside of the
 * facts object). */
static FLFX_UNUSED void
node(struct fleet *fl, const char *name, const char *facts)
{
	char *file = xasprintf("%s.json", name);
	char *text = xasprintf("{\"facts\": {%s}, \"meta\": {\"node\": "
	    "\"%s\", \"host\": \"vm\"}, " SCHEMA "}\n", facts, name);

	write_file(fl->dir, file, text);
	free(text);
	free(file);
}

static FLFX_UNUSED int
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

static FLFX_UNUSED int
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

static FLFX_UNUSED void
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
static FLFX_UNUSED void
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

static FLFX_UNUSED void
run(struct fleet *fl)
{
	run_with(fl, NULL, NULL);
}

/* The one result for key about node (NULL: the fleet's); NULL if none,
 * a failure if more than one. */
static FLFX_UNUSED const struct ep_result *
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

static FLFX_UNUSED const struct ep_result *
must_find(const struct fleet *fl, const char *key, const char *nd)
{
	const struct ep_result *r = find(fl, key, nd);

	if (r == NULL)
		fail_msg("no result for %s on %s", key, nd ? nd : "the fleet");
	return r;
}

/* How many results have status on nodes (not the fleet's own). */
static FLFX_UNUSED size_t
node_results(const struct fleet *fl, int status)
{
	size_t n = 0;

	for (size_t i = 0; i < fl->rs.n; i++)
		if (fl->rs.v[i].node != NULL && fl->rs.v[i].status == status)
			n++;
	return n;
}

/* The split of key (in domain, for probe hashes), or NULL. */
static FLFX_UNUSED const struct ep_fleet_split *
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

static FLFX_UNUSED const struct ep_fleet_node *
vnode(const struct fleet *fl, const char *name)
{
	for (size_t i = 0; i < fl->v->nnodes; i++)
		if (strcmp(fl->v->nodes[i].name, name) == 0)
			return &fl->v->nodes[i];
	fail_msg("no node %s in the view", name);
	return NULL;
}

static FLFX_UNUSED void
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

#endif
