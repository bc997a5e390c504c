/*
 * fleet.c: `envparity fleet`'s engine (fleet.h).  The order: read every
 * node (fleet_load.c); account for the nodes expected; compare each node
 * with the golden and run the checks that need none, once per distinct
 * set of facts (a fleet is mostly identical nodes, and a comparison
 * depends on the facts alone, so 10,000 nodes cost a handful of
 * comparisons); then odd-node-out over the fleet (fleet_odd.c).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "checks.h"
#include "clean.h"
#include "compare.h"
#include "fleet_int.h"
#include "errors.h"
#include "xalloc.h"

static int
node_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct fl_node *)elem)->name);
}

static void
add(struct ep_results *rs, const char *key, const char *node, int status,
    const char *rule, char *msg)
{
	struct ep_result r = { 0 };

	r.key = (char *)key;
	r.node = (char *)node;
	r.status = status;
	r.rule = (char *)rule;
	r.message = msg;
	ep_results_add(rs, &r);
	free(msg);
}

/* Mark the nodes expected, add those that did not report. */
static void
expect(struct ep_results *rs, struct fl_fleet *f,
    const struct ep_fleet_opts *o)
{
	struct fl_node *n;
	size_t had = f->n;

	for (size_t i = 0; i < o->nexpect; i++) {
		n = bsearch(o->expect[i], f->nodes, had, sizeof *f->nodes,
		    node_cmp);
		if (n != NULL) {
			n->expected = 1;
			continue;
		}
		/* Duplicates in the list are one node. */
		for (size_t j = had; j < f->n; j++)
			if (strcmp(f->nodes[j].name, o->expect[i]) == 0)
				goto next;
		if (f->n == f->cap) {
			f->cap = f->cap ? f->cap * 2 : 64;
			f->nodes = xreallocarray(f->nodes, f->cap,
			    sizeof *f->nodes);
		}
		n = &f->nodes[f->n++];
		memset(n, 0, sizeof *n);
		n->name = xstrdup(o->expect[i]);
		n->state = EP_NODE_MISSING;
		n->expected = 1;
		n->error = xstrdup("expected, but no manifest names it "
		    "(the node is down, drained, or its capture failed)");
next:		;
	}
	for (size_t i = 0; i < had; i++)
		if (!f->nodes[i].expected)
			add(rs, "node.expected", f->nodes[i].name, EP_WARN,
			    "fleet:expect", xasprintf("node.expected: %s "
			    "reported but is not in the expected nodes (%s)",
			    f->nodes[i].name, o->expect_text));
}

static int
row_order(const void *a, const void *b)
{
	const struct fl_node *x = *(struct fl_node *const *)a;
	const struct fl_node *y = *(struct fl_node *const *)b;

	if (x->rowhash != y->rowhash)
		return x->rowhash < y->rowhash ? -1 : 1;
	if (x->nrow != y->nrow)
		return x->nrow < y->nrow ? -1 : 1;
	return memcmp(x->row, y->row, x->nrow * sizeof *x->row);
}

/* One set of facts and the nodes that have it. */
struct rowgroup {
	struct fl_node *const *nodes;
	size_t n;
	struct ep_results rs;	/* its findings (not its passes) */
	size_t npass;
};

/* The golden comparison and the checks for g's facts. */
static void
judge_row(struct rowgroup *g, const struct fl_fleet *f,
    const struct ep_fleet_opts *o)
{
	struct ep_manifest *cur = ep_manifest_new();
	struct ep_results tmp = { 0 }, checks = { 0 };
	const struct fl_node *first = g->nodes[0];

	for (size_t i = 0; i < first->nrow; i++)
		ep_manifest_set(cur, f->keys.s[FL_KID(first->row[i])],
		    f->vals.s[FL_VID(first->row[i])]);
	/* The same facts, the same digest: once for every node that has
	 * them. */
	ep_manifest_facts_sha256(g->nodes[0]->facts_sha256, cur);
	for (size_t i = 1; i < g->n; i++)
		memcpy(g->nodes[i]->facts_sha256, g->nodes[0]->facts_sha256,
		    sizeof g->nodes[i]->facts_sha256);
	if (o->golden != NULL)
		ep_compare(&tmp, o->golden, cur, o->policy, o->now);
	/* What a built-in rule kept out (os.kernel), said per node as
	 * check says it. */
	for (size_t i = 0; i < g->n; i++)
		for (size_t k = 0; k < tmp.nign; k++)
			ep_results_ignored_add(&g->nodes[i]->ignored,
			    tmp.ign[k].key, tmp.ign[k].expected,
			    tmp.ign[k].actual, tmp.ign[k].reason);
	/* The checks that need no golden, but not their skips: "not set
	 * here" ten thousand times says nothing a node's capture does not. */
	ep_checks_run(&checks, cur, o->policy, o->now);
	for (size_t i = 0; i < checks.n; i++)
		if (checks.v[i].status != EP_SKIP)
			ep_results_add(&tmp, &checks.v[i]);
	for (size_t i = 0; i < tmp.n; i++) {
		if (tmp.v[i].status == EP_PASS)
			g->npass++;
		else
			ep_results_add(&g->rs, &tmp.v[i]);
	}
	ep_results_clear(&tmp);
	ep_results_clear(&checks);
	ep_manifest_free(cur);
}

static int
same_result(const struct ep_result *a, const struct ep_result *b)
{
	const char *x[] = { a->key, a->expected, a->actual, a->message };
	const char *y[] = { b->key, b->expected, b->actual, b->message };

	if (a->status != b->status)
		return 0;
	for (size_t i = 0; i < 4; i++)
		if ((x[i] == NULL) != (y[i] == NULL) ||
		    (x[i] != NULL && strcmp(x[i], y[i]) != 0))
			return 0;
	return 1;
}

static uint64_t
result_hash(const struct ep_result *r)
{
	const char *x[] = { r->key, r->expected, r->actual, r->message };
	uint64_t h = 0xcbf29ce484222325ULL ^ (uint64_t)r->status;

	for (size_t i = 0; i < 4; i++) {
		h = (h ^ (x[i] == NULL ? 0x100 : 0x200)) * 0x100000001b3ULL;
		for (const char *p = x[i]; p != NULL && *p; p++)
			h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	}
	return h;
}

/* The first group's findings, to ask of any finding whether every group
 * has it (so every node does): one pass over every group's findings,
 * not every finding against every group's. */
struct common {
	const struct ep_results *first;
	size_t *slot, nslot;	/* open addressing: index + 1 */
	size_t *groups;		/* by index: groups besides the first
				   that have it */
	size_t *last;		/* the last group counted, + 1 */
};

static size_t
common_find(const struct common *c, const struct ep_result *r)
{
	size_t j = (size_t)result_hash(r) & (c->nslot - 1);

	for (; c->slot[j] != 0; j = (j + 1) & (c->nslot - 1))
		if (same_result(&c->first->v[c->slot[j] - 1], r))
			return c->slot[j] - 1;
	return SIZE_MAX;
}

static void
common_init(struct common *c, const struct rowgroup *g, size_t ng)
{
	size_t n = g[0].rs.n, j, at;

	c->first = &g[0].rs;
	for (c->nslot = 16; c->nslot < 2 * n; c->nslot *= 2)
		;
	c->slot = xcalloc(c->nslot, sizeof *c->slot);
	c->groups = xcalloc(n ? n : 1, sizeof *c->groups);
	c->last = xcalloc(n ? n : 1, sizeof *c->last);
	for (size_t i = 0; i < n; i++) {
		if (common_find(c, &g[0].rs.v[i]) != SIZE_MAX)
			continue;
		j = (size_t)result_hash(&g[0].rs.v[i]) & (c->nslot - 1);
		while (c->slot[j] != 0)
			j = (j + 1) & (c->nslot - 1);
		c->slot[j] = i + 1;
	}
	for (size_t k = 1; k < ng; k++)
		for (size_t i = 0; i < g[k].rs.n; i++) {
			at = common_find(c, &g[k].rs.v[i]);
			if (at != SIZE_MAX && c->last[at] != k + 1) {
				c->last[at] = k + 1;
				c->groups[at]++;
			}
		}
}

/* Whether every one of the ng groups has r. */
static int
everywhere(const struct common *c, size_t ng, const struct ep_result *r)
{
	size_t at = common_find(c, r);

	return at != SIZE_MAX && c->groups[at] == ng - 1;
}

static void
common_free(struct common *c)
{
	free(c->slot);
	free(c->groups);
	free(c->last);
}

/* Each distinct set of facts judged once; a finding every node has is
 * said once, for the fleet ("on all N nodes"), the others per node. */
static void
judge_rows(struct ep_results *rs, struct fl_fleet *f,
    const struct ep_fleet_opts *o)
{
	struct fl_node **ok = xcalloc(f->n ? f->n : 1, sizeof *ok);
	struct rowgroup *g = NULL;
	struct common com = { 0 };
	size_t n = 0, ng = 0, cap = 0, i, j;

	for (i = 0; i < f->n; i++)
		if (f->nodes[i].state == EP_NODE_OK)
			ok[n++] = &f->nodes[i];
	qsort(ok, n, sizeof *ok, row_order);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && row_order(&ok[i], &ok[j]) == 0; j++)
			;
		if (ng == cap) {
			cap = cap ? cap * 2 : 16;
			g = xreallocarray(g, cap, sizeof *g);
		}
		memset(&g[ng], 0, sizeof *g);
		g[ng].nodes = ok + i;
		g[ng].n = j - i;
		judge_row(&g[ng++], f, o);
	}
	if (ng > 0)
		common_init(&com, g, ng);
	for (size_t k = 0; k < ng; k++) {
		for (i = 0; i < g[k].rs.n; i++) {
			struct ep_result r = g[k].rs.v[i];
			char *msg;

			if (n > 1 && everywhere(&com, ng, &r)) {
				if (k > 0)
					continue;
				msg = xasprintf("%s (on all %zu nodes)",
				    r.message != NULL ? r.message : r.key, n);
				r.message = msg;
				ep_results_add(rs, &r);
				free(msg);
				continue;
			}
			for (j = 0; j < g[k].n; j++) {
				r.node = g[k].nodes[j]->name;
				ep_results_add(rs, &r);
			}
		}
		if (o->golden != NULL && g[k].rs.n == 0)
			for (j = 0; j < g[k].n; j++)
				add(rs, "node.golden", g[k].nodes[j]->name,
				    EP_PASS, "fleet:golden",
				    xasprintf("node.golden: all %zu results "
				    "as blessed", g[k].npass));
	}
	if (com.slot != NULL)
		common_free(&com);
	for (size_t k = 0; k < ng; k++)
		ep_results_clear(&g[k].rs);
	free(g);
	free(ok);
}

static int
split_order(const void *a, const void *b)
{
	const struct ep_fleet_split *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c != 0)
		return c;
	return strcmp(x->domain ? x->domain : "", y->domain ? y->domain : "");
}

static int
vnode_order(const void *a, const void *b)
{
	return strcmp(((const struct ep_fleet_node *)a)->name,
	    ((const struct ep_fleet_node *)b)->name);
}

static int
vnode_cmp(const void *key, const void *elem)
{
	return strcmp(key, ((const struct ep_fleet_node *)elem)->name);
}

/* The view's nodes, with their counts and verdicts from rs. */
static void
view_nodes(struct ep_fleet_view *v, struct fl_fleet *f,
    const struct ep_results *rs)
{
	struct ep_fleet_node *vn;

	v->nodes = xcalloc(f->n ? f->n : 1, sizeof *v->nodes);
	for (size_t i = 0; i < f->n; i++) {
		struct fl_node *n = &f->nodes[i];

		vn = &v->nodes[v->nnodes++];
		vn->name = n->name;
		vn->file = n->file;
		vn->error = n->error;
		n->name = n->file = n->error = NULL;
		vn->state = n->state;
		vn->expected = n->expected;
		vn->nfacts = n->nrow;
		vn->odd = n->odd;
		memcpy(vn->facts_sha256, n->facts_sha256,
		    sizeof vn->facts_sha256);
		vn->ignored = n->ignored;
		memset(&n->ignored, 0, sizeof n->ignored);
		if (vn->ignored.nign > 0)
			v->nignored++;
		if (n->state == EP_NODE_OK)
			v->nreported++;
		else if (n->state == EP_NODE_MISSING)
			v->nmissing++;
		else
			v->nerror++;
		if (n->odd > 0)
			v->nodd++;
	}
	qsort(v->nodes, v->nnodes, sizeof *v->nodes, vnode_order);
	for (size_t i = 0; i < rs->n; i++) {
		if (rs->v[i].node == NULL)
			continue;
		vn = bsearch(rs->v[i].node, v->nodes, v->nnodes,
		    sizeof *v->nodes, vnode_cmp);
		if (vn != NULL)
			vn->counts[rs->v[i].status]++;
	}
	for (size_t i = 0; i < v->nnodes; i++) {
		vn = &v->nodes[i];
		vn->exit_status = vn->state == EP_NODE_ERROR ? EP_EXIT_USAGE :
		    vn->counts[EP_FAIL] || vn->counts[EP_ERROR] ?
		    EP_EXIT_DRIFT : EP_EXIT_OK;
	}
}

/* Distinct fact keys over the nodes read.  The key table is not that:
 * it also holds the keys of nodes refused after their facts were
 * interned (a fact key twice, a name another manifest has too). */
static size_t
keys_reported(const struct fl_fleet *f)
{
	uint8_t *seen = xcalloc(f->keys.n ? f->keys.n : 1, 1);
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++) {
		if (f->nodes[i].state != EP_NODE_OK)
			continue;
		for (size_t j = 0; j < f->nodes[i].nrow; j++)
			if (!seen[FL_KID(f->nodes[i].row[j])]) {
				seen[FL_KID(f->nodes[i].row[j])] = 1;
				n++;
			}
	}
	free(seen);
	return n;
}

int
ep_fleet_run(struct ep_results *rs, struct ep_fleet_view **view,
    const struct ep_fleet_opts *o, struct ep_err *err)
{
	struct fl_fleet f = { 0 };
	struct ep_fleet_view *v = xcalloc(1, sizeof *v);
	int rc = -1;

	*view = NULL;
	if (ep_fl_load(&f, o, o->now, err) < 0)
		goto done;
	if (o->expect != NULL) {
		expect(rs, &f, o);
		qsort(f.nodes, f.n, sizeof *f.nodes, ep_fl_node_order);
	}
	for (size_t i = 0; i < f.n; i++) {
		struct fl_node *n = &f.nodes[i];

		if (n->state == EP_NODE_OK)
			add(rs, "node.manifest", n->name, EP_PASS,
			    "fleet:manifest", xasprintf("node.manifest: %zu "
			    "facts from %s", n->nrow, n->file));
		else
			add(rs, "node.manifest", n->name, n->state ==
			    EP_NODE_MISSING ? EP_FAIL : EP_ERROR,
			    "fleet:manifest", xasprintf("node.manifest: %s",
			    n->error));
	}
	/* What each manifest said of its node, for the nodes taken. */
	for (size_t i = 0; i < f.own.n; i++) {
		struct fl_node *n = bsearch(f.own.v[i].node, f.nodes, f.n,
		    sizeof *f.nodes, node_cmp);

		if (n != NULL && n->state == EP_NODE_OK)
			ep_results_add(rs, &f.own.v[i]);
	}
	judge_rows(rs, &f, o);
	ep_fl_odd(rs, v, &f, o->policy, o->now);
	ep_waivers_review(rs, o->policy, o->now, o->expiry_days);
	if (v->nsplits > 1)
		qsort(v->splits, v->nsplits, sizeof *v->splits, split_order);
	v->nkeys = keys_reported(&f);
	v->expect = o->expect_text != NULL ? xstrdup(o->expect_text) : NULL;
	view_nodes(v, &f, rs);
	*view = v;
	v = NULL;
	rc = 0;
done:
	ep_fl_fleet_free(&f);
	ep_fleet_view_free(v);
	return rc;
}
