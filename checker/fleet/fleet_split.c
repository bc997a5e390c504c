/*
 * fleet_split.c: one fact judged over a set of nodes (fleet_odd.c says
 * which facts and which sets).  The nodes are grouped by value, the
 * largest group first; a node outside the majority gets a result of its
 * own, and the fleet one per split, fleet.odd.<key>, naming the groups
 * in hostlist syntax.  The nodes that lack the fact are listed only when
 * they are a minority (so no more than those that have it) or when the
 * split is listed, so a fact costs the nodes that have it.
 *
 * The bounds (fleetview.h): a run lists at most EP_FLEET_SPLITS_MAX
 * splits, at most EP_FLEET_SPLITS_SAME of them setting apart the same
 * nodes, and a node at most EP_FLEET_NODE_ODD_MAX results of its own odd
 * facts; past them a split or a result is judged all the same (waivers
 * included) and counted by status, and fleet.splits_omitted and
 * node.odd_omitted say so, as bad as the worst they stand for.  So one
 * node's thousands of facts of its own neither cost the fleet more than
 * their number nor push another node's drift out of a report.
 */
#include <stdlib.h>
#include <string.h>

#include "clean.h"
#include "fleet_int.h"
#include "hostlist.h"
#include "xalloc.h"

#define MSG_GROUPS	8

struct fl_grp {
	uint32_t vid;		/* FL_NONE: the nodes that lack the key */
	size_t from, count;	/* present: m[from .. from+count) */
};

static const struct fl_fleet *order_fleet;

int
ep_fl_member_order(const void *a, const void *b)
{
	const struct fl_member *x = a, *y = b;

	if (x->vid != y->vid)
		return x->vid < y->vid ? -1 : 1;
	return (x->pos > y->pos) - (x->pos < y->pos);
}

static int
grp_order(const void *a, const void *b)
{
	const struct fl_grp *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->vid == FL_NONE || y->vid == FL_NONE)
		return (x->vid == FL_NONE) - (y->vid == FL_NONE);
	return strcmp(order_fleet->vals.s[x->vid],
	    order_fleet->vals.s[y->vid]);
}

static const char *
val(const struct fl_fleet *f, uint32_t vid)
{
	return vid == FL_NONE ? NULL : f->vals.s[vid];
}

/* A value for a message: cleaned, cut, quoted; "absent" for none. */
static char *
show(const char *value)
{
	char *c, *s;

	if (value == NULL)
		return xstrdup("absent");
	c = ep_text_clean(value, 0);
	if (strlen(c) > 80)
		strcpy(c + 77, "...");
	s = xasprintf("'%s'", c);
	free(c);
	return s;
}

static int
worst(int a, int b)
{
	static const int rank[EP_NSTATUS] = {
		[EP_PASS] = 0, [EP_SKIP] = 1, [EP_WAIVED] = 2, [EP_WARN] = 3,
		[EP_FAIL] = 4, [EP_ERROR] = 5,
	};
	return rank[a] >= rank[b] ? a : b;
}

static void
judged_free(struct fl_judged *j)
{
	free(j->m);
	free(j->absent);
	free(j->g);
}

/* A buffer for the nodes of any group but the first: as large as the
 * largest of them that has the key, never the whole set (one node's fact
 * of its own must not cost the fleet's size). */
static uint32_t *
minority_buf(const struct fl_judged *j)
{
	size_t most = 1;

	for (size_t i = 1; i < j->ng; i++)
		if (j->g[i].vid != FL_NONE && j->g[i].count > most)
			most = j->g[i].count;
	return xcalloc(most, sizeof(uint32_t));
}

/* The nodes (positions) of group i: the absent ones, or the present
 * ones copied into buf. */
static const uint32_t *
group_nodes(struct fl_judged *j, size_t i, uint32_t *buf)
{
	if (j->g[i].vid == FL_NONE)
		return j->absent;
	for (size_t k = 0; k < j->g[i].count; k++)
		buf[k] = j->m[j->g[i].from + k].pos;
	return buf;
}

static void
need_absent(struct fl_judged *j)
{
	if (j->absent == NULL)
		j->absent = ep_fl_set_less(&j->set, j->present,
		    j->npresent, &j->nabsent);
}

/* The nodes of positions p[0..n) in hostlist syntax. */
static char *
hostlist_of(const struct fl_odd *c, const uint32_t *p, size_t n)
{
	const char **names = xcalloc(n ? n : 1, sizeof *names);
	char *s;

	for (size_t i = 0; i < n; i++)
		names[i] = c->f->nodes[c->cols->ok[p[i]]].name;
	s = ep_hostlist_compress(names, n);
	free(names);
	return s;
}

/* An order-free hash of the nodes outside the first group: the nodes a
 * split sets apart. */
static uint64_t
pattern(struct fl_judged *j)
{
	uint32_t *buf = minority_buf(j);
	const uint32_t *p;
	uint64_t h = 0, x;

	for (size_t i = 1; i < j->ng; i++) {
		if (j->g[i].vid == FL_NONE)
			need_absent(j);
		p = group_nodes(j, i, buf);
		for (size_t k = 0; k < j->g[i].count; k++) {
			x = (uint64_t)p[k] + 0x9e3779b97f4a7c15ULL;
			x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
			x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
			h += x ^ (x >> 31);
		}
	}
	free(buf);
	return h ^ j->n;
}

/* Whether a split that sets apart these nodes is still listed, counting
 * it if so. */
static int
listed(struct fl_odd *c, uint64_t h)
{
	size_t i = (size_t)h & (FL_PATTERN_SLOTS - 1);

	if (c->nlisted >= EP_FLEET_SPLITS_MAX)
		return 0;
	while (c->pat_count[i] != 0 && c->pat_hash[i] != h)
		i = (i + 1) & (FL_PATTERN_SLOTS - 1);
	if (c->pat_count[i] >= EP_FLEET_SPLITS_SAME)
		return 0;
	c->pat_hash[i] = h;
	c->pat_count[i]++;
	c->nlisted++;
	return 1;
}

/* Group j's nodes by value; 0 when they all agree (no split). */
static int
group(struct fl_odd *c, struct fl_judged *j)
{
	size_t i, k, np = j->npresent, nabs;

	j->rule = ep_policy_match(c->policy, c->f->keys.s[j->kid]);
	nabs = j->rule->missing == EP_MISSING_FAIL ? j->set.n - np : 0;
	j->n = np + nabs;
	if (j->n < 2 || np == 0)
		return 0;
	j->m = xcalloc(np, sizeof *j->m);
	memcpy(j->m, j->present, np * sizeof *j->m);
	qsort(j->m, np, sizeof *j->m, ep_fl_member_order);
	if (j->m[0].vid == j->m[np - 1].vid && nabs == 0)
		return 0;
	j->g = xcalloc(np + 1, sizeof *j->g);
	for (i = 0; i < np; i = k) {
		for (k = i + 1; k < np && j->m[k].vid == j->m[i].vid; k++)
			;
		j->g[j->ng++] = (struct fl_grp){ j->m[i].vid, i, k - i };
	}
	if (nabs > 0)
		j->g[j->ng++] = (struct fl_grp){ FL_NONE, 0, nabs };
	order_fleet = c->f;
	qsort(j->g, j->ng, sizeof *j->g, grp_order);
	return 1;
}

/* The odd nodes' own results, waivable like check's; their worst
 * status.  A node's results past EP_FLEET_NODE_ODD_MAX are judged the
 * same, then only counted. */
static int
odd_results(struct fl_odd *c, struct fl_judged *j, int status, size_t *nodd)
{
	struct fl_fleet *f = c->f;
	const char *key = f->keys.s[j->kid];
	uint32_t *buf = minority_buf(j);
	const uint32_t *p;
	size_t from = c->rs->n;
	uint32_t *over_pos = NULL;
	size_t nover = 0;
	char *a, *b;

	a = show(val(f, j->g[0].vid));
	for (size_t i = 1; i < j->ng; i++) {
		if (j->g[i].vid == FL_NONE)
			need_absent(j);
		p = group_nodes(j, i, buf);
		b = show(val(f, j->g[i].vid));
		for (size_t k = 0; k < j->g[i].count; k++) {
			struct ep_result r = { 0 };
			struct fl_node *n = &f->nodes[c->cols->ok[p[k]]];
			int listed_here = c->node_listed[p[k]] <
			    EP_FLEET_NODE_ODD_MAX;

			r.key = (char *)key;
			r.node = n->name;
			r.status = status;
			r.expected = (char *)val(f, j->g[0].vid);
			r.actual = (char *)val(f, j->g[i].vid);
			r.rule = (char *)ep_fleet_split_rule(j->kind);
			r.message = xasprintf("%s: %s here, %s on the fleet's "
			    "majority (%zu of %zu nodes%s%s)", key, b, a,
			    j->g[0].count, j->n, j->domain ? " in domain " : "",
			    j->domain ? j->domain : "");
			if (listed_here) {
				ep_results_add(c->rs, &r);
				c->node_listed[p[k]]++;
			} else {
				ep_results_add(&c->over, &r);
				over_pos = xreallocarray(over_pos, nover + 1,
				    sizeof *over_pos);
				over_pos[nover++] = p[k];
			}
			free(r.message);
			n->odd++;
			(*nodd)++;
		}
		free(b);
	}
	free(a);
	free(buf);
	ep_results_waive(c->rs, from, c->policy, c->now);
	ep_results_waive(&c->over, 0, c->policy, c->now);
	status = EP_PASS;
	for (size_t i = from; i < c->rs->n; i++)
		status = worst(status, c->rs->v[i].status);
	for (size_t i = 0; i < nover; i++) {
		status = worst(status, c->over.v[i].status);
		c->node_over[over_pos[i]][c->over.v[i].status]++;
	}
	ep_results_clear(&c->over);
	free(over_pos);
	return status;
}

/* Each node's odd facts past the bound, said: node.odd_omitted. */
static void
node_omitted(struct fl_odd *c)
{
	for (size_t p = 0; p < c->cols->nok; p++) {
		const size_t *o = c->node_over[p];
		struct ep_result r = { 0 };
		size_t total = 0;
		int status = EP_PASS;

		for (int s = 0; s < EP_NSTATUS; s++)
			if (o[s] > 0) {
				total += o[s];
				status = worst(status, s);
			}
		if (total == 0)
			continue;
		r.key = "node.odd_omitted";
		r.node = c->f->nodes[c->cols->ok[p]].name;
		r.status = status;
		r.rule = "fleet:bound";
		r.message = xasprintf("node.odd_omitted: %zu more facts where "
		    "this node differs from the fleet's majority are not "
		    "listed (a node lists at most %d): %zu fail, %zu warn, %zu "
		    "waived", total, EP_FLEET_NODE_ODD_MAX, o[EP_FAIL],
		    o[EP_WARN], o[EP_WAIVED]);
		ep_results_add(c->rs, &r);
		free(r.message);
	}
}

/* The fleet's message for a split: the groups, the majority first. */
static char *
split_message(const struct fl_judged *j, const struct ep_fleet_split *s,
    size_t nodd)
{
	const char *key = s->key, *dom = j->domain;
	char *msg, *t, *a;

	if (s->kind == EP_SPLIT_TIE && j->ng == j->n && j->n >= 3 &&
	    j->rule->kind == EP_RULE_EXACT)
		msg = xasprintf("%s: no majority among %zu nodes, a different "
		    "value on each (only a fact the policy calls per host, "
		    "with an ignore or present rule, may differ on every "
		    "node):", key, j->n);
	else if (s->kind == EP_SPLIT_TIE && j->ng == j->n && j->n >= 3)
		msg = xasprintf("%s: a different value on each of the %zu "
		    "nodes, which its %s rule accepts:", key, j->n,
		    ep_rule_kind_name(j->rule->kind));
	else if (s->kind == EP_SPLIT_TIE)
		msg = xasprintf("%s: no majority among %zu nodes:", key, j->n);
	else if (s->kind == EP_SPLIT_DOMAIN)
		msg = xasprintf("%s: %zu determinism domains (hashes are "
		    "compared within each, never across):", key, j->ng);
	else
		msg = xasprintf("%s: %zu of %zu nodes%s%s differ from the "
		    "majority:", key, nodd, j->n, dom ? " in domain " : "",
		    dom ? dom : "");
	for (size_t i = 0; i < s->ngroups && i < MSG_GROUPS; i++) {
		a = show(s->groups[i].value);
		t = xasprintf("%s%s %s on %s (%zu)", msg, i ? ";" : "", a,
		    s->groups[i].nodes, s->groups[i].count);
		free(a);
		free(msg);
		msg = t;
	}
	if (j->ng > MSG_GROUPS) {
		t = xasprintf("%s; and %zu more values", msg,
		    j->ng - MSG_GROUPS);
		free(msg);
		msg = t;
	}
	for (size_t i = 0; i < s->ncauses; i++) {
		t = xasprintf("%s%s%s", msg, i ? ", " : "; the nodes that "
		    "differ are exactly those with: ", s->causes[i]);
		free(msg);
		msg = t;
	}
	return msg;
}

/* The fleet's result for a split (fleet.odd.<key>); its final status. */
static int
fleet_result(struct fl_odd *c, struct fl_judged *j, int kind, int status,
    const char *expected, char *msg)
{
	struct ep_result r = { 0 };
	char *fkey = xasprintf("fleet.odd.%s", c->f->keys.s[j->kid]);
	size_t from = c->rs->n;
	const struct ep_rule *rule = j->rule;

	r.key = fkey;
	r.area = "fleet";
	/* No majority fails under an exact rule, a value on every node too
	 * (8 nodes, 8 numpy versions): only the policy may call a fact per
	 * host, by an ignore rule (never judged) or a present rule (any
	 * value), under which, as under a version rule, a spread warns. */
	r.status = kind == EP_SPLIT_TIE ? (rule->kind == EP_RULE_EXACT &&
	    rule->severity == EP_SEVERITY_FAIL ? EP_FAIL : EP_WARN) : status;
	r.expected = kind == EP_SPLIT_TIE || kind == EP_SPLIT_DOMAIN ? NULL :
	    (char *)expected;
	r.rule = (char *)ep_fleet_split_rule(kind);
	r.message = msg;
	ep_results_add(c->rs, &r);
	if (kind == EP_SPLIT_TIE)
		ep_results_waive(c->rs, from, c->policy, c->now);
	status = c->rs->v[from].status;
	free(fkey);
	return status;
}

/* The split as the view lists it: its largest groups with their nodes,
 * and for a probe hash the likely causes. */
static void
list_split(struct fl_odd *c, struct fl_judged *j, struct ep_fleet_split *s)
{
	uint32_t *buf = xcalloc(j->n, sizeof *buf);
	const uint32_t *p;

	s->ngroups = j->ng < EP_FLEET_GROUPS_MAX ? j->ng : EP_FLEET_GROUPS_MAX;
	s->groups_omitted = j->ng - s->ngroups;
	s->groups = xcalloc(s->ngroups, sizeof *s->groups);
	for (size_t i = 0; i < s->ngroups; i++) {
		if (j->g[i].vid == FL_NONE)
			need_absent(j);
		p = group_nodes(j, i, buf);
		s->groups[i].value = val(c->f, j->g[i].vid) != NULL ?
		    xstrdup(val(c->f, j->g[i].vid)) : NULL;
		s->groups[i].count = j->g[i].count;
		s->groups[i].nodes = hostlist_of(c, p, j->g[i].count);
	}
	if (j->kind == EP_SPLIT_PROBE && s->kind == EP_SPLIT_PROBE) {
		/* Every node judged, and which are in each minority. */
		uint8_t *in = xcalloc(j->n, 1);
		uint32_t *all = xcalloc(j->n, sizeof *all);
		size_t na = 0;

		need_absent(j);
		for (size_t i = 0; i < j->npresent; i++)
			all[na++] = j->present[i].pos;
		for (size_t i = 0; i < j->nabsent && na < j->n; i++)
			all[na++] = j->absent[i];
		for (size_t i = 1; i < j->ng; i++) {
			for (size_t k = 0; k < na; k++)
				in[k] = k < j->npresent ?
				    j->present[k].vid == j->g[i].vid :
				    j->g[i].vid == FL_NONE;
			ep_fl_causes(s, &c->causes, c->f, c->cols, j->kid, all,
			    in, na);
		}
		free(in);
		free(all);
	}
	free(buf);
}

static void
split_push(struct ep_fleet_view *v, struct ep_fleet_split *s)
{
	size_t n = v->nsplits;

	/* Capacity 8, 16, 32, ...: grown when n reaches one of them. */
	if (n == 0 || (n >= 8 && (n & (n - 1)) == 0))
		v->splits = xreallocarray(v->splits, n ? n * 2 : 8,
		    sizeof *v->splits);
	v->splits[v->nsplits++] = *s;
}

/* Judge one key over one set of nodes: a split when they do not all
 * agree, listed in the view within the bounds, counted past them. */
void
ep_fl_judge(struct fl_odd *c, struct fl_judged *j)
{
	struct ep_fleet_split s = { 0 };
	size_t nodd = 0;
	int status, kind;
	char *msg;

	if (!group(c, j))
		goto done;
	kind = j->kind == EP_SPLIT_DOMAIN ? EP_SPLIT_DOMAIN :
	    j->g[0].count == j->g[1].count ? EP_SPLIT_TIE : j->kind;
	status = j->rule->kind != EP_RULE_EXACT ||
	    j->rule->severity == EP_SEVERITY_WARN ? EP_WARN : EP_FAIL;
	if (kind == EP_SPLIT_ODD || kind == EP_SPLIT_PROBE)
		status = odd_results(c, j, status, &nodd);
	else if (kind == EP_SPLIT_DOMAIN)
		status = EP_PASS;

	if (!listed(c, pattern(j))) {
		/* Past the bounds: its status counted, which for a tie is its
		 * own result's, waivers included. */
		if (kind == EP_SPLIT_TIE) {
			struct ep_results tmp = { 0 };
			struct ep_results *keep = c->rs;

			c->rs = &tmp;
			status = fleet_result(c, j, kind, status, NULL,
			    "(not listed)");
			c->rs = keep;
			ep_results_clear(&tmp);
		}
		c->omitted[status]++;
		c->nomitted++;
		goto done;
	}
	s.key = xstrdup(c->f->keys.s[j->kid]);
	s.domain = j->domain != NULL ? xstrdup(j->domain) : NULL;
	s.kind = kind;
	list_split(c, j, &s);
	msg = split_message(j, &s, nodd);
	s.status = fleet_result(c, j, kind, status, s.groups[0].value, msg);
	free(msg);
	split_push(c->v, &s);
done:
	judged_free(j);
}


/* What the bounds left out, said: fleet.splits_omitted, as bad as the
 * worst split it stands for. */
static void
omitted_result(struct fl_odd *c)
{
	struct ep_result r = { 0 };
	int status = EP_PASS;

	c->v->nsplits_omitted = c->nomitted;
	if (c->nomitted == 0)
		return;
	for (int s = 0; s < EP_NSTATUS; s++)
		if (c->omitted[s] > 0)
			status = worst(status, s);
	r.key = "fleet.splits_omitted";
	r.area = "fleet";
	r.status = status;
	r.rule = "fleet:bound";
	r.message = xasprintf("fleet.splits_omitted: %zu facts that differ "
	    "across nodes are not listed (%zu are; a run lists at most %d, "
	    "at most %d that set apart the same nodes): %zu fail, %zu warn, "
	    "%zu waived, %zu pass; the nodes' verdicts count them all",
	    c->nomitted, c->nlisted, EP_FLEET_SPLITS_MAX,
	    EP_FLEET_SPLITS_SAME, c->omitted[EP_FAIL], c->omitted[EP_WARN],
	    c->omitted[EP_WAIVED], c->omitted[EP_PASS]);
	ep_results_add(c->rs, &r);
	free(r.message);
}

void
ep_fl_bounds_said(struct fl_odd *c)
{
	omitted_result(c);
	node_omitted(c);
}
