/*
 * lockreach.c: where a poetry.lock without markers of its own installs
 * each package, from its dependency edges (lockreach.h): a walk from the
 * roots, each name's reach growing at most twice (0, 1, 2).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "lockreach.h"
#include "xalloc.h"

/* A walk under way. */
struct reach {
	const struct ep_pins *pins;
	const struct ep_markerenv *env;
	json_t *ix;		/* name -> its number */
	size_t *node;		/* pin -> name */
	size_t *head, *next;	/* name -> its first pin -> the next one */
	unsigned char *r;	/* name -> reach */
	unsigned char *child;	/* name -> some pin depends on it */
	size_t *queue, qt;
};

/* How surely an edge installs its package here: 2 (no marker, or one
 * true here), 1 (a marker not decided here, or only an extra asks for
 * it), 0 (its marker is false here). */
static int
edge_strength(const struct reach *w, const char *marker, int optional)
{
	struct ep_err err = { 0 };
	struct ep_marker *mk;
	int mv, r = 2;

	if (*marker != '\0') {
		if (w->env == NULL || ep_marker_parse(&mk, marker, &err) < 0)
			return 1;
		mv = ep_marker_eval(mk, w->env, &err);
		ep_marker_free(mk);
		r = mv == EP_MARKER_TRUE ? 2 : mv == EP_MARKER_FALSE ? 0 : 1;
	}
	return optional && r > 1 ? 1 : r;
}

/* Each edge of pin p ("NAME\tO\tMARKER" lines) whose target is a name
 * of the file: follow set, its reach from name u grows the target's;
 * else the target is marked a child. */
static void
pin_edges(struct reach *w, const struct ep_pin *p, size_t u, int follow)
{
	const char *l = p->deps, *t1, *nl;
	char *name, *marker;
	json_t *ref;
	size_t v;
	int s;

	for (; l != NULL && *l != '\0'; l = *nl != '\0' ? nl + 1 : nl) {
		nl = l + strcspn(l, "\n");
		if ((t1 = memchr(l, '\t', (size_t)(nl - l))) == NULL ||
		    nl - t1 < 3)
			continue;
		name = xstrndup(l, (size_t)(t1 - l));
		ref = json_object_get(w->ix, name);
		free(name);
		if (ref == NULL)
			continue;
		v = (size_t)json_integer_value(ref);
		if (!follow) {
			w->child[v] = 1;
			continue;
		}
		marker = xstrndup(t1 + 3, (size_t)(nl - t1 - 3));
		s = edge_strength(w, marker, t1[1] == '1');
		free(marker);
		if (w->r[u] < s)
			s = w->r[u];
		if (s > w->r[v]) {
			w->r[v] = (unsigned char)s;
			w->queue[w->qt++] = v;
		}
	}
}

unsigned char *
ep_lock_reach(size_t **node, const struct ep_pins *pins,
    const unsigned char *root, const struct ep_markerenv *env)
{
	struct reach w = { .pins = pins, .env = env, .ix = json_object() };
	size_t n = 0, qh = 0, u, i, none = (size_t)-1;
	json_t *ref;

	w.node = xcalloc(pins->n + 1, sizeof *w.node);
	w.next = xcalloc(pins->n + 1, sizeof *w.next);
	for (i = 0; i < pins->n; i++) {
		if ((ref = json_object_get(w.ix, pins->v[i].name)) == NULL) {
			ref = json_integer((json_int_t)n++);
			json_object_set_new(w.ix, pins->v[i].name, ref);
		}
		w.node[i] = (size_t)json_integer_value(ref);
	}
	w.head = xcalloc(n + 1, sizeof *w.head);
	for (u = 0; u < n; u++)
		w.head[u] = none;
	for (i = pins->n; i-- > 0;) {
		w.next[i] = w.head[w.node[i]];
		w.head[w.node[i]] = i;
	}
	w.r = xcalloc(n + 1, 1);
	w.child = xcalloc(n + 1, 1);
	/* Each name queued at most three times: a root, then 0 -> 1 -> 2. */
	w.queue = xcalloc(3 * n + 1, sizeof *w.queue);
	for (i = 0; i < pins->n; i++)
		pin_edges(&w, &pins->v[i], w.node[i], 0);
	for (i = 0; i < pins->n; i++)
		if (root[i] && !w.child[w.node[i]] && w.r[w.node[i]] < 2) {
			w.r[w.node[i]] = 2;
			w.queue[w.qt++] = w.node[i];
		}
	while (qh < w.qt) {
		u = w.queue[qh++];
		for (i = w.head[u]; i != none; i = w.next[i])
			pin_edges(&w, &pins->v[i], u, 1);
	}
	json_decref(w.ix);
	free(w.head);
	free(w.next);
	free(w.child);
	free(w.queue);
	*node = w.node;
	return w.r;
}
