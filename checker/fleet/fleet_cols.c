/*
 * fleet_cols.c: the nodes' facts turned by key (fleet_int.h's fl_cols).
 * A node is a sorted row of (key, value); odd-node-out asks the other
 * question, which nodes have this key and with what value.  Asking each
 * row for each key costs the keys times the nodes, and one node with a
 * hundred thousand facts no other node has makes that a hundred thousand
 * times the fleet; a counting sort of every (key, node, value) into one
 * column per key costs the facts once.
 */
#include <stdlib.h>
#include <string.h>

#include "fleet_int.h"
#include "str.h"
#include "xalloc.h"

/* Which keys differ at all: absent on a node read, or two values. */
static uint8_t *
differ(const struct fl_fleet *f, size_t nok, size_t *count)
{
	size_t nk = f->keys.n;
	uint32_t *first = xcalloc(nk ? nk : 1, sizeof *first);
	uint8_t *split = xcalloc(nk ? nk : 1, 1);
	const struct fl_node *n;

	for (size_t i = 0; i < f->n; i++) {
		n = &f->nodes[i];
		if (n->state != EP_NODE_OK)
			continue;
		for (size_t j = 0; j < n->nrow; j++) {
			uint32_t k = FL_KID(n->row[j]), v = FL_VID(n->row[j]);

			if (count[k]++ == 0)
				first[k] = v;
			else if (first[k] != v)
				split[k] = 1;
		}
	}
	for (size_t k = 0; k < nk; k++)
		if (count[k] > 0 && count[k] < nok)
			split[k] = 1;
	free(first);
	return split;
}

static int
is_domain(const char *key)
{
	return (ep_startswith(key, "probe.") && ep_endswith(key, "domain")) ||
	    strcmp(key, "workload.domain") == 0;
}

void
ep_fl_cols_build(struct fl_cols *c, const struct fl_fleet *f)
{
	size_t nk = f->keys.n, *at, *count;
	const struct fl_node *n;

	memset(c, 0, sizeof *c);
	c->ok = xcalloc(f->n ? f->n : 1, sizeof *c->ok);
	for (size_t i = 0; i < f->n; i++)
		if (f->nodes[i].state == EP_NODE_OK)
			c->ok[c->nok++] = i;
	count = xcalloc(nk ? nk : 1, sizeof *count);
	c->split = differ(f, c->nok, count);
	/* Columns for the keys that differ, which are judged, and for the
	 * domain keys, which group the others; a key every node has alike
	 * is never asked about. */
	c->start = xcalloc(nk + 1, sizeof *c->start);
	for (size_t k = 0; k < nk; k++)
		c->start[k + 1] = c->start[k] + (c->split[k] ||
		    is_domain(f->keys.s[k]) ? count[k] : 0);
	free(count);
	c->pos = xcalloc(c->start[nk] ? c->start[nk] : 1, sizeof *c->pos);
	c->vid = xcalloc(c->start[nk] ? c->start[nk] : 1, sizeof *c->vid);
	at = xcalloc(nk ? nk : 1, sizeof *at);
	memcpy(at, c->start, nk * sizeof *at);
	/* Nodes in order, so each column is in node order. */
	for (size_t p = 0; p < c->nok; p++) {
		n = &f->nodes[c->ok[p]];
		for (size_t j = 0; j < n->nrow; j++) {
			uint32_t k = FL_KID(n->row[j]);

			if (at[k] == c->start[k + 1])
				continue;
			c->pos[at[k]] = (uint32_t)p;
			c->vid[at[k]++] = FL_VID(n->row[j]);
		}
	}
	free(at);
}

void
ep_fl_cols_free(struct fl_cols *c)
{
	free(c->ok);
	free(c->split);
	free(c->start);
	free(c->pos);
	free(c->vid);
	memset(c, 0, sizeof *c);
}

/* One domain key's nodes: its column by value, and those that lack it. */
struct fl_dom {
	uint32_t *vid, *pos;	/* by value, then position */
	size_t n;
	uint32_t *none;		/* the nodes without the key, once asked */
	size_t nnone;
	int none_done;
};

static const uint32_t *dom_sort_vid;

static int
dom_order(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint32_t vx = dom_sort_vid[x], vy = dom_sort_vid[y];

	if (vx != vy)
		return vx < vy ? -1 : 1;
	return (x > y) - (x < y);
}

static struct fl_dom *
dom_get(struct fl_domains *d, const struct fl_cols *c, uint32_t dkid)
{
	struct fl_dom *m;
	size_t from = c->start[dkid], n = c->start[dkid + 1] - from;
	uint32_t *ix;

	if (dkid >= d->n) {
		size_t nn = (size_t)dkid + 1 > d->n * 2 ? (size_t)dkid + 1 :
		    d->n * 2;

		d->by_kid = xreallocarray(d->by_kid, nn, sizeof *d->by_kid);
		memset(d->by_kid + d->n, 0, (nn - d->n) * sizeof *d->by_kid);
		d->n = nn;
	}
	if ((m = d->by_kid[dkid]) != NULL)
		return m;
	m = d->by_kid[dkid] = xcalloc(1, sizeof *m);
	m->n = n;
	m->vid = xcalloc(n ? n : 1, sizeof *m->vid);
	m->pos = xcalloc(n ? n : 1, sizeof *m->pos);
	ix = xcalloc(n ? n : 1, sizeof *ix);
	for (size_t i = 0; i < n; i++)
		ix[i] = (uint32_t)i;
	dom_sort_vid = c->vid + from;
	qsort(ix, n, sizeof *ix, dom_order);
	for (size_t i = 0; i < n; i++) {
		m->vid[i] = c->vid[from + ix[i]];
		m->pos[i] = c->pos[from + ix[i]];
	}
	free(ix);
	return m;
}

struct fl_set
ep_fl_domain_set(struct fl_domains *d, const struct fl_cols *c,
    uint32_t dkid, uint32_t d_vid)
{
	struct fl_set s = { NULL, c->nok };
	struct fl_dom *m;
	size_t lo = 0, hi, end;

	if (dkid == FL_NONE)
		return s;
	m = dom_get(d, c, dkid);
	if (d_vid == FL_NONE) {
		if (!m->none_done) {
			struct fl_member *col = xcalloc(m->n ? m->n : 1,
			    sizeof *col);
			size_t from = c->start[dkid];

			for (size_t i = 0; i < m->n; i++)
				col[i].pos = c->pos[from + i];
			m->none = ep_fl_set_less(&s, col, m->n, &m->nnone);
			m->none_done = 1;
			free(col);
		}
		s.pos = m->none;
		s.n = m->nnone;
		return s;
	}
	hi = m->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->vid[mid] < d_vid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < m->n && m->vid[end] == d_vid; end++)
		;
	s.pos = m->pos + lo;
	s.n = end - lo;
	return s;
}

void
ep_fl_domains_free(struct fl_domains *d)
{
	for (size_t i = 0; i < d->n; i++) {
		if (d->by_kid[i] == NULL)
			continue;
		free(d->by_kid[i]->vid);
		free(d->by_kid[i]->pos);
		free(d->by_kid[i]->none);
		free(d->by_kid[i]);
	}
	free(d->by_kid);
	memset(d, 0, sizeof *d);
}

uint32_t *
ep_fl_set_less(const struct fl_set *set, const struct fl_member *present,
    size_t np, size_t *n)
{
	uint32_t *out = xcalloc(set->n ? set->n : 1, sizeof *out);
	size_t k = 0, o = 0;

	for (size_t i = 0; i < set->n; i++) {
		uint32_t p = set->pos != NULL ? set->pos[i] : (uint32_t)i;

		while (k < np && present[k].pos < p)
			k++;
		if (k < np && present[k].pos == p)
			continue;
		out[o++] = p;
	}
	*n = o;
	return out;
}
