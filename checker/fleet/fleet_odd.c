/*
 * fleet_odd.c: odd-node-out.  For every fact the policy compares, the
 * nodes that reported are grouped by value; the largest group is the
 * majority and every other node is odd (a node's result, and the
 * fleet's "fleet.odd.<key>"), unless two groups are as large, a tie,
 * which is named as such.  An absent fact is a value of its own, unless
 * the rule's "missing" is skip or ignore.
 *
 * Probe output hashes (probe.<b>.<w>.sha256) bind only within one
 * determinism domain (probe.domain for the GPU backends,
 * probe.cpu.domain for the CPU, probe.gpu<N>.domain for a GPU's own
 * probe.<b>.gpu<N>.<w>.sha256): they are grouped within each domain,
 * and nodes in different domains are said (EP_SPLIT_DOMAIN), never
 * failed.  When a domain's hashes split, the facts whose values set
 * apart exactly the same nodes are named next to it: the likely cause.
 *
 * What a split's status is: an exact rule's drift fails (or warns, with
 * severity warn); a version, present or absent rule accepts more than
 * one value, so nodes that differ under it are a warning; so is a fact
 * with a different value on every node (three or more), which is an
 * identity, not drift.
 */
#include <stdlib.h>
#include <string.h>

#include "clean.h"
#include "fleet_int.h"
#include "hostlist.h"

#define CAUSES_MAX	5
#define MSG_GROUPS	8

struct member {
	uint32_t vid;		/* FL_NONE: absent */
	size_t node;		/* index into f->nodes */
};

struct grp {
	uint32_t vid;
	size_t from, count;	/* members[from .. from+count) */
};

static int
member_order(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	if (x->vid != y->vid)
		return x->vid < y->vid ? -1 : 1;
	return (x->node > y->node) - (x->node < y->node);
}

static const struct fl_fleet *order_fleet;

static int
grp_order(const void *a, const void *b)
{
	const struct grp *x = a, *y = b;

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

/* The nodes of members[from .. from+n) in hostlist syntax. */
static char *
hostlist_of(const struct fl_fleet *f, const struct member *m, size_t n)
{
	const char **names = xcalloc(n ? n : 1, sizeof *names);
	char *s;

	for (size_t i = 0; i < n; i++)
		names[i] = f->nodes[m[i].node].name;
	s = ep_hostlist_compress(names, n);
	free(names);
	return s;
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

struct ctx {
	struct ep_results *rs;
	struct ep_fleet_view *v;
	struct fl_fleet *f;
	const struct ep_policy *policy;
	time_t now;
	const uint8_t *split_key;	/* keys whose values differ */
};

/* The facts whose value sets apart exactly the nodes of g within the
 * domain's members (all of m): "key=value" each. */
static void
causes(struct ctx *c, struct ep_fleet_split *s, uint32_t skip,
    const struct member *m, size_t n, const struct grp *g)
{
	const struct fl_fleet *f = c->f;
	uint32_t kid, want;
	size_t i, more = 0;
	int in;

	for (kid = 0; kid < f->keys.n; kid++) {
		if (!c->split_key[kid] || kid == skip ||
		    (ep_startswith(f->keys.s[kid], "probe.") &&
		    ep_endswith(f->keys.s[kid], ".sha256")))
			continue;
		want = ep_fl_value(&f->nodes[m[g->from].node], kid);
		for (i = 0; i < n; i++) {
			in = i >= g->from && i < g->from + g->count;
			if ((ep_fl_value(&f->nodes[m[i].node], kid) ==
			    want) != in)
				break;
		}
		if (i < n)
			continue;
		if (s->ncauses == CAUSES_MAX) {
			more++;
			continue;
		}
		s->causes = xreallocarray(s->causes, s->ncauses + 1,
		    sizeof *s->causes);
		s->causes[s->ncauses++] = want == FL_NONE ?
		    xasprintf("%s absent", f->keys.s[kid]) :
		    xasprintf("%s=%s", f->keys.s[kid], f->vals.s[want]);
	}
	if (more > 0) {
		s->causes = xreallocarray(s->causes, s->ncauses + 1,
		    sizeof *s->causes);
		s->causes[s->ncauses++] = xasprintf("and %zu more", more);
	}
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

/* Judge one key over members m[0..n) (sorted by value here): a split
 * when they do not all agree. */
static void
judge(struct ctx *c, uint32_t kid, struct member *m, size_t n, int kind,
    const char *domain)
{
	struct fl_fleet *f = c->f;
	const char *key = f->keys.s[kid];
	const struct ep_rule *rule = ep_policy_match(c->policy, key);
	struct ep_fleet_split s = { 0 };
	struct grp *g = NULL;
	size_t ng = 0, i, j, nodd = 0, from;
	char *msg = NULL, *t, *a, *b, *fkey;
	int status;

	if (rule->missing != EP_MISSING_FAIL) {
		for (i = j = 0; i < n; i++)
			if (m[i].vid != FL_NONE)
				m[j++] = m[i];
		n = j;
	}
	if (n < 2)
		return;
	qsort(m, n, sizeof *m, member_order);
	if (m[0].vid == m[n - 1].vid)
		return;
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && m[j].vid == m[i].vid; j++)
			;
		g = xreallocarray(g, ng + 1, sizeof *g);
		g[ng].vid = m[i].vid;
		g[ng].from = i;
		g[ng].count = j - i;
		ng++;
	}
	order_fleet = f;
	qsort(g, ng, sizeof *g, grp_order);

	s.key = xstrdup(key);
	s.domain = domain != NULL ? xstrdup(domain) : NULL;
	s.kind = kind == EP_SPLIT_DOMAIN ? EP_SPLIT_DOMAIN :
	    g[0].count == g[1].count ? EP_SPLIT_TIE : kind;
	s.groups = xcalloc(ng, sizeof *s.groups);
	s.ngroups = ng;
	for (i = 0; i < ng; i++) {
		s.groups[i].value = val(f, g[i].vid) != NULL ?
		    xstrdup(val(f, g[i].vid)) : NULL;
		s.groups[i].count = g[i].count;
		s.groups[i].nodes = hostlist_of(f, m + g[i].from, g[i].count);
	}
	status = rule->kind != EP_RULE_EXACT ||
	    rule->severity == EP_SEVERITY_WARN ? EP_WARN : EP_FAIL;

	/* The odd nodes' own results, waivable like check's. */
	from = c->rs->n;
	if (s.kind == EP_SPLIT_ODD || s.kind == EP_SPLIT_PROBE) {
		a = show(s.groups[0].value);
		for (i = 1; i < ng; i++)
			for (j = g[i].from; j < g[i].from + g[i].count; j++) {
				struct ep_result r = { 0 };

				r.key = (char *)key;
				r.node = f->nodes[m[j].node].name;
				r.status = status;
				r.expected = s.groups[0].value;
				r.actual = s.groups[i].value;
				r.rule = kind == EP_SPLIT_PROBE ?
				    "fleet:probe" : "fleet:majority";
				b = show(s.groups[i].value);
				r.message = xasprintf("%s: %s here, %s on the "
				    "fleet's majority (%zu of %zu nodes%s%s)",
				    key, b, a, g[0].count, n,
				    domain ? " in domain " : "",
				    domain ? domain : "");
				free(b);
				ep_results_add(c->rs, &r);
				free(r.message);
				f->nodes[m[j].node].odd++;
				nodd++;
			}
		free(a);
		ep_results_waive(c->rs, from, c->policy, c->now);
		status = EP_PASS;
		for (i = from; i < c->rs->n; i++)
			status = worst(status, c->rs->v[i].status);
		if (kind == EP_SPLIT_PROBE)
			for (i = 1; i < ng; i++)
				causes(c, &s, kid, m, n, &g[i]);
	} else if (s.kind == EP_SPLIT_DOMAIN)
		status = EP_PASS;

	/* The fleet's result: the groups, the majority first. */
	if (s.kind == EP_SPLIT_TIE && ng == n && n >= 3)
		msg = xasprintf("%s: a different value on each of the %zu "
		    "nodes (a per-host fact? an ignore rule in the policy "
		    "says so):", key, n);
	else if (s.kind == EP_SPLIT_TIE)
		msg = xasprintf("%s: no majority among %zu nodes:", key, n);
	else if (s.kind == EP_SPLIT_DOMAIN)
		msg = xasprintf("%s: %zu determinism domains (hashes are "
		    "compared within each, never across):", key, ng);
	else
		msg = xasprintf("%s: %zu of %zu nodes%s%s differ from the "
		    "majority:", key, nodd, n, domain ? " in domain " : "",
		    domain ? domain : "");
	for (i = 0; i < ng && i < MSG_GROUPS; i++) {
		a = show(s.groups[i].value);
		t = xasprintf("%s%s %s on %s (%zu)", msg, i ? ";" : "", a,
		    s.groups[i].nodes, s.groups[i].count);
		free(a);
		free(msg);
		msg = t;
	}
	if (ng > MSG_GROUPS) {
		t = xasprintf("%s; and %zu more values", msg, ng - MSG_GROUPS);
		free(msg);
		msg = t;
	}
	for (i = 0; i < s.ncauses; i++) {
		t = xasprintf("%s%s%s", msg, i ? ", " : "; the nodes that "
		    "differ are exactly those with: ", s.causes[i]);
		free(msg);
		msg = t;
	}
	{
		struct ep_result r = { 0 };

		fkey = xasprintf("fleet.odd.%s", key);
		r.key = fkey;
		r.area = "fleet";
		/* A value per node is an identity (a serial, a host key), not
		 * a split the fleet could have a majority in: seen, not
		 * failed. */
		r.status = s.kind == EP_SPLIT_TIE ? (rule->kind ==
		    EP_RULE_EXACT && rule->severity == EP_SEVERITY_FAIL &&
		    !(ng == n && n >= 3) ? EP_FAIL : EP_WARN) : status;
		r.expected = s.kind == EP_SPLIT_TIE ||
		    s.kind == EP_SPLIT_DOMAIN ? NULL : s.groups[0].value;
		r.rule = s.kind == EP_SPLIT_DOMAIN ? "fleet:domain" :
		    s.kind == EP_SPLIT_TIE ? "fleet:tie" :
		    kind == EP_SPLIT_PROBE ? "fleet:probe" : "fleet:majority";
		r.message = msg;
		from = c->rs->n;
		ep_results_add(c->rs, &r);
		if (s.kind == EP_SPLIT_TIE)
			ep_results_waive(c->rs, from, c->policy, c->now);
		s.status = c->rs->v[from].status;
		free(fkey);
	}
	free(msg);
	split_push(c->v, &s);
	free(g);
}

static int
is_probe_hash(const char *key)
{
	return ep_startswith(key, "probe.") && ep_endswith(key, ".sha256");
}

static int
is_domain(const char *key)
{
	return ep_startswith(key, "probe.") && ep_endswith(key, "domain");
}

/* The domain of a per-GPU probe hash (probe.<b>.gpu<N>.<w>.sha256):
 * probe.gpu<N>.domain's key id, else fallback.  A GPU binds within its
 * own domain: on a node of two models, GPU 5 may be another. */
static uint32_t
gpu_domain(const struct fl_fleet *f, const char *key, uint32_t fallback)
{
	const char *p = strchr(key + 6, '.');
	char *end, *dkey;
	uint32_t kid;
	long n;

	if (p == NULL || !ep_startswith(++p, "gpu") || p[3] < '0' ||
	    p[3] > '9')
		return fallback;
	n = strtol(p + 3, &end, 10);
	if (*end != '.')
		return fallback;
	dkey = xasprintf("probe.gpu%ld.domain", n);
	for (kid = 0; kid < f->keys.n; kid++)
		if (strcmp(f->keys.s[kid], dkey) == 0)
			break;
	free(dkey);
	return kid < f->keys.n ? kid : fallback;
}

void
ep_fl_odd(struct ep_results *rs, struct ep_fleet_view *v,
    struct fl_fleet *f, const struct ep_policy *policy, time_t now)
{
	struct ctx c = { rs, v, f, policy, now, NULL };
	struct member *m = xcalloc(f->n ? f->n : 1, sizeof *m), *dm;
	uint8_t *split = xcalloc(f->keys.n ? f->keys.n : 1, 1);
	uint32_t kid, first, dkid, cpu_dkid, gpu_dkid;
	size_t n, i, j;
	const char *key;

	c.split_key = split;
	/* Which keys differ at all, ignored ones too: a cause may be a
	 * fact the policy does not compare. */
	for (kid = 0; kid < f->keys.n; kid++) {
		first = FL_NONE;
		n = 0;
		for (i = 0; i < f->n; i++) {
			if (f->nodes[i].state != EP_NODE_OK)
				continue;
			if (n++ == 0)
				first = ep_fl_value(&f->nodes[i], kid);
			else if (ep_fl_value(&f->nodes[i], kid) != first) {
				split[kid] = 1;
				break;
			}
		}
	}
	cpu_dkid = gpu_dkid = FL_NONE;
	for (kid = 0; kid < f->keys.n; kid++) {
		if (strcmp(f->keys.s[kid], "probe.cpu.domain") == 0)
			cpu_dkid = kid;
		else if (strcmp(f->keys.s[kid], "probe.domain") == 0)
			gpu_dkid = kid;
	}
	for (kid = 0; kid < f->keys.n; kid++) {
		key = f->keys.s[kid];
		if (!split[kid] || ep_policy_match(policy, key)->kind ==
		    EP_RULE_IGNORE)
			continue;
		for (i = n = 0; i < f->n; i++)
			if (f->nodes[i].state == EP_NODE_OK) {
				m[n].node = i;
				m[n].vid = ep_fl_value(&f->nodes[i], kid);
				n++;
			}
		if (is_domain(key)) {
			judge(&c, kid, m, n, EP_SPLIT_DOMAIN, NULL);
			continue;
		}
		if (!is_probe_hash(key)) {
			judge(&c, kid, m, n, EP_SPLIT_ODD, NULL);
			continue;
		}
		/* Within each domain: order the members by domain, then
		 * judge each run of one domain on its own. */
		dkid = ep_startswith(key, "probe.cpu.") ? cpu_dkid :
		    gpu_domain(f, key, gpu_dkid);
		dm = xcalloc(n ? n : 1, sizeof *dm);
		for (i = 0; i < n; i++) {
			dm[i].node = m[i].node;
			dm[i].vid = dkid == FL_NONE ? FL_NONE :
			    ep_fl_value(&f->nodes[m[i].node], dkid);
		}
		qsort(dm, n, sizeof *dm, member_order);
		for (i = 0; i < n; i = j) {
			for (j = i + 1; j < n && dm[j].vid == dm[i].vid; j++)
				;
			for (size_t k = i; k < j; k++) {
				m[k - i].node = dm[k].node;
				m[k - i].vid = ep_fl_value(
				    &f->nodes[dm[k].node], kid);
			}
			judge(&c, kid, m, j - i, EP_SPLIT_PROBE,
			    dm[i].vid == FL_NONE ? "(none recorded)" :
			    f->vals.s[dm[i].vid]);
		}
		free(dm);
	}
	free(split);
	free(m);
}
