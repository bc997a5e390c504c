/*
 * fleet_odd.c: odd-node-out.  For every fact the policy compares, the
 * nodes that reported are grouped by value (fleet_split.c); the largest
 * group is the majority and every other node is odd (a node's result,
 * and the fleet's "fleet.odd.<key>"), unless two groups are as large, a
 * tie, which is named as such.  An absent fact is a value of its own,
 * unless the rule's "missing" is skip or ignore.
 *
 * Probe output hashes (probe.<b>.<w>.sha256) bind only within one
 * determinism domain (probe.domain for the GPU backends,
 * probe.cpu.domain for the CPU, probe.gpu<N>.domain for a GPU's own
 * probe.<b>.gpu<N>.<w>.sha256), and a team's workload hashes
 * (workload.<NAME>.sha256) within workload.domain: they are grouped within each domain,
 * and nodes in different domains are said (EP_SPLIT_DOMAIN), never
 * failed.  When a domain's hashes split, the facts whose values set
 * apart exactly the same nodes are named next to it: the likely cause
 * (fleet_cause.c).
 *
 * What a split's status is: an exact rule's drift fails (or warns, with
 * severity warn), a tie too, even a different value on every node (8
 * nodes, 8 numpy versions: no majority, not an identity); a version,
 * present or absent rule accepts more than one value, so nodes that
 * differ under it are a warning.  Only the policy calls a fact per host:
 * an ignore rule (not judged) or a present rule (any value).
 *
 * Only the keys whose values differ are visited, in key order (so that
 * the bounds keep the same splits whatever order the manifests came in),
 * each from its column (fleet_cols.c): the cost is the facts', never the
 * keys' times the nodes'.
 */
#include <stdlib.h>
#include <string.h>

#include "clean.h"
#include "fleet_int.h"
#include "str.h"
#include "xalloc.h"

static const struct fl_fleet *order_fleet;

static int
kid_order(const void *a, const void *b)
{
	return strcmp(order_fleet->keys.s[*(const uint32_t *)a],
	    order_fleet->keys.s[*(const uint32_t *)b]);
}

/* A probe's or a workload's output hash (workload.h). */
static int
is_probe_hash(const char *key)
{
	return (ep_startswith(key, "probe.") ||
	    ep_startswith(key, "workload.")) && ep_endswith(key, ".sha256");
}

static int
is_domain(const char *key)
{
	return (ep_startswith(key, "probe.") && ep_endswith(key, "domain")) ||
	    strcmp(key, "workload.domain") == 0;
}

/* The domain key of a per-GPU probe hash (probe.<b>.gpu<N>.<w>.sha256):
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
	kid = ep_fl_lookup(&f->keys, dkey, strlen(dkey));
	free(dkey);
	return kid != FL_NONE ? kid : fallback;
}

/* A probe hash within each determinism domain of dkid: the nodes that
 * have the hash, ordered by domain, judged a domain at a time against
 * every node of that domain. */
static void
judge_domains(struct fl_odd *c, uint32_t kid, uint32_t dkid,
    const struct fl_member *col, size_t n)
{
	struct fl_member *dm = xcalloc(n ? n : 1, sizeof *dm);
	size_t i, k;

	/* dm[i].vid is the node's domain here. */
	for (i = 0; i < n; i++) {
		dm[i].pos = col[i].pos;
		dm[i].vid = dkid == FL_NONE ? FL_NONE : ep_fl_value(
		    &c->f->nodes[c->cols->ok[col[i].pos]], dkid);
	}
	qsort(dm, n, sizeof *dm, ep_fl_member_order);
	for (i = 0; i < n; i = k) {
		struct fl_judged j = { 0 };
		struct fl_member *run;
		uint32_t d = dm[i].vid;

		for (k = i + 1; k < n && dm[k].vid == d; k++)
			;
		run = xcalloc(k - i, sizeof *run);
		for (size_t x = i; x < k; x++) {
			run[x - i].pos = dm[x].pos;
			run[x - i].vid = ep_fl_value(
			    &c->f->nodes[c->cols->ok[dm[x].pos]], kid);
		}
		j.kid = kid;
		j.kind = EP_SPLIT_PROBE;
		j.domain = d == FL_NONE ? "(none recorded)" : c->f->vals.s[d];
		j.present = run;
		j.npresent = k - i;
		j.set = ep_fl_domain_set(&c->doms, c->cols, dkid, d);
		ep_fl_judge(c, &j);
		free(run);
	}
	free(dm);
}

void
ep_fl_odd(struct ep_results *rs, struct ep_fleet_view *v,
    struct fl_fleet *f, const struct ep_policy *policy, time_t now)
{
	struct fl_odd *c = xcalloc(1, sizeof *c);
	struct fl_cols cols;
	uint32_t *kids = xcalloc(f->keys.n ? f->keys.n : 1, sizeof *kids);
	struct fl_member *col = NULL;
	uint32_t cpu_dkid, gpu_dkid, wl_dkid, dkid;
	const char *key;
	size_t n, ncol = 0;

	ep_fl_cols_build(&cols, f);
	*c = (struct fl_odd){ .rs = rs, .v = v, .f = f, .cols = &cols,
	    .policy = policy, .now = now };
	c->node_listed = xcalloc(cols.nok ? cols.nok : 1,
	    sizeof *c->node_listed);
	c->node_over = xcalloc(cols.nok ? cols.nok : 1, sizeof *c->node_over);
	cpu_dkid = ep_fl_lookup(&f->keys, "probe.cpu.domain", 16);
	gpu_dkid = ep_fl_lookup(&f->keys, "probe.domain", 12);
	wl_dkid = ep_fl_lookup(&f->keys, "workload.domain", 15);
	for (uint32_t k = 0; k < f->keys.n; k++)
		kids[k] = k;
	order_fleet = f;
	qsort(kids, f->keys.n, sizeof *kids, kid_order);
	for (size_t x = 0; x < f->keys.n; x++) {
		uint32_t kid = kids[x];
		struct fl_judged j = { 0 };

		if (!cols.split[kid])
			continue;
		key = f->keys.s[kid];
		if (ep_policy_match(policy, key)->kind == EP_RULE_IGNORE)
			continue;
		n = cols.start[kid + 1] - cols.start[kid];
		if (n > ncol) {
			free(col);
			col = xcalloc(n, sizeof *col);
			ncol = n;
		}
		for (size_t i = 0; i < n; i++) {
			col[i].pos = cols.pos[cols.start[kid] + i];
			col[i].vid = cols.vid[cols.start[kid] + i];
		}
		if (!is_probe_hash(key) || is_domain(key)) {
			j.kid = kid;
			j.kind = is_domain(key) ? EP_SPLIT_DOMAIN :
			    EP_SPLIT_ODD;
			j.present = col;
			j.npresent = n;
			j.set = ep_fl_domain_set(&c->doms, &cols, FL_NONE, 0);
			ep_fl_judge(c, &j);
			continue;
		}
		dkid = ep_startswith(key, "workload.") ? wl_dkid :
		    ep_startswith(key, "probe.cpu.") ? cpu_dkid :
		    gpu_domain(f, key, gpu_dkid);
		judge_domains(c, kid, dkid, col, n);
	}
	ep_fl_bounds_said(c);
	free(c->node_listed);
	free(c->node_over);
	free(col);
	free(kids);
	ep_fl_causes_free(&c->causes);
	ep_fl_domains_free(&c->doms);
	ep_fl_cols_free(&cols);
	free(c);
}
