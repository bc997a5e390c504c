/*
 * fleet_cause.c: the likely cause next to a probe split.  When a
 * domain's hashes set some nodes apart, the facts whose values set apart
 * exactly those nodes are named: "the nodes that differ are exactly those
 * with: lib.cublas.version=13.1.0.9".  A fact is a candidate when its
 * values differ at all over the fleet (ignored facts too: a cause may be
 * one the policy does not compare), never a probe hash.
 *
 * A node that computes other bits usually does so for every hash, and
 * the search is the same each time, so its outcome is remembered for
 * each set of nodes and minority: the cost is the candidates times the
 * nodes once per distinct minority, not once per hash.
 */
#include <stdlib.h>
#include <string.h>

#include "clean.h"
#include "fleet_int.h"
#include "str.h"
#include "xalloc.h"

#define CAUSES_MAX	5

/* What one search found: the keys and the minority's value of each. */
struct fl_cause_memo {
	uint64_t h;
	size_t n, ng;
	uint32_t *kid, *want;
	size_t nfound;
};

void
ep_fl_causes_free(struct fl_causes *k)
{
	for (size_t i = 0; i < k->nmemo; i++) {
		free(k->memo[i].kid);
		free(k->memo[i].want);
	}
	free(k->memo);
	free(k->slot);
	memset(k, 0, sizeof *k);
}

static uint64_t
mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

static int
is_probe_hash(const char *key)
{
	return (ep_startswith(key, "probe.") ||
	    ep_startswith(key, "workload.")) && ep_endswith(key, ".sha256");
}

/* The search: every candidate key whose value is the minority's on each
 * of its nodes and another on every other node.  order[] lists the
 * minority first, so that most keys are refused at their first node. */
static void
search(struct fl_cause_memo *e, const struct fl_fleet *f,
    const struct fl_cols *c, const uint32_t *order, size_t n, size_t ng)
{
	size_t cap = 0, i;
	uint32_t want;

	for (uint32_t kid = 0; kid < f->keys.n; kid++) {
		if (!c->split[kid] || is_probe_hash(f->keys.s[kid]))
			continue;
		want = ep_fl_value(&f->nodes[c->ok[order[0]]], kid);
		for (i = 1; i < n; i++)
			if ((ep_fl_value(&f->nodes[c->ok[order[i]]], kid) ==
			    want) != (i < ng))
				break;
		if (i < n)
			continue;
		if (e->nfound == cap) {
			cap = cap ? cap * 2 : 8;
			e->kid = xreallocarray(e->kid, cap, sizeof *e->kid);
			e->want = xreallocarray(e->want, cap, sizeof *e->want);
		}
		e->kid[e->nfound] = kid;
		e->want[e->nfound++] = want;
	}
}

/* The memo's entry for (h, n, ng), a new empty one (n 0) if none. */
static struct fl_cause_memo *
memo_get(struct fl_causes *k, uint64_t h, size_t n, size_t ng)
{
	size_t i, j;
	struct fl_cause_memo *e;

	if ((k->nmemo + 1) * 2 > k->nslot) {
		size_t ns = k->nslot ? k->nslot * 2 : 64;

		free(k->slot);
		k->slot = xcalloc(ns, sizeof *k->slot);
		k->nslot = ns;
		for (i = 0; i < k->nmemo; i++) {
			j = (size_t)k->memo[i].h & (ns - 1);
			while (k->slot[j] != 0)
				j = (j + 1) & (ns - 1);
			k->slot[j] = i + 1;
		}
	}
	j = (size_t)h & (k->nslot - 1);
	while (k->slot[j] != 0) {
		e = &k->memo[k->slot[j] - 1];
		if (e->h == h && e->n == n && e->ng == ng)
			return e;
		j = (j + 1) & (k->nslot - 1);
	}
	k->memo = xreallocarray(k->memo, k->nmemo + 1, sizeof *k->memo);
	e = &k->memo[k->nmemo];
	memset(e, 0, sizeof *e);
	e->h = h;
	k->slot[j] = ++k->nmemo;
	return e;
}

void
ep_fl_causes(struct ep_fleet_split *s, struct fl_causes *k,
    const struct fl_fleet *f, const struct fl_cols *c, uint32_t kid,
    const uint32_t *all, const uint8_t *in, size_t n)
{
	uint32_t *order = xcalloc(n ? n : 1, sizeof *order);
	struct fl_cause_memo *e = NULL;
	uint64_t hall = 0, hin = 0;
	size_t ng = 0, o, more = 0;

	(void)kid;	/* a probe hash: never a candidate */
	for (size_t i = 0; i < n; i++) {
		hall += mix(all[i]);
		if (in[i]) {
			hin += mix(all[i]);
			order[ng++] = all[i];
		}
	}
	o = ng;
	for (size_t i = 0; i < n; i++)
		if (!in[i])
			order[o++] = all[i];
	if (ng == 0)
		goto done;
	hall = mix(hall ^ mix(hin) ^ n);
	e = memo_get(k, hall, n, ng);
	if (e->n == 0) {
		e->n = n;
		e->ng = ng;
		search(e, f, c, order, n, ng);
	}
	for (size_t i = 0; i < e->nfound; i++) {
		const char *key = f->keys.s[e->kid[i]];

		if (s->ncauses == CAUSES_MAX) {
			more++;
			continue;
		}
		s->causes = xreallocarray(s->causes, s->ncauses + 1,
		    sizeof *s->causes);
		s->causes[s->ncauses++] = e->want[i] == FL_NONE ?
		    xasprintf("%s absent", key) :
		    xasprintf("%s=%s", key, f->vals.s[e->want[i]]);
	}
	if (more > 0) {
		s->causes = xreallocarray(s->causes, s->ncauses + 1,
		    sizeof *s->causes);
		s->causes[s->ncauses++] = xasprintf("and %zu more", more);
	}
done:
	free(order);
}
