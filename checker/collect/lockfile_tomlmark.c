/*
 * lockfile_tomlmark.c: the values lockfile_toml.c reads whole out of a
 * poetry.lock's inline tables, with the TOML reader of lockfile_tomlsyn.c:
 * a dependency's constraints and markers (its edge: where it applies, and
 * whether only an extra asks for it), poetry 2's markers per group.
 */
#include "lockfile_toml.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"

#include <stdlib.h>
#include <string.h>

/* One inline table at t->p ('{'): each KEY = VALUE's key and, for a
 * string, its value, to fn; a value that is no string gets NULL, and its
 * raw text [v, t->p) for a boolean. */
typedef void (*tp_pair_fn)(void *arg, const char *key, const char *str,
    const char *v, const char *e);

static int
tp_table_walk(struct ep_toml *t, tp_pair_fn fn, void *arg)
{
	struct ep_strv segs = { 0 };
	const char *v;
	char *str = NULL;
	int rc = -1;

	for (t->p++;;) {
		if (ep_toml_space(t) < 0)
			goto done;
		if (t->p >= t->end || *t->p == '}')
			break;
		if (ep_toml_key(t, &segs) < 0 || !ep_toml_at(t, '='))
			goto done;
		t->p++;
		ep_toml_blank(t);
		v = t->p;
		if (ep_toml_value(t, &str, NULL, NULL, 1) < 0)
			goto done;
		if (segs.n == 1)
			fn(arg, segs.v[0], t->nul ? NULL : str, v, t->p);
		ep_strv_clear(&segs);
		free(str);
		str = NULL;
		if (ep_toml_space(t) < 0)
			goto done;
		if (ep_toml_at(t, ','))
			t->p++;
	}
	if (t->p < t->end)
		t->p++;
	rc = 0;
done:
	ep_strv_clear(&segs);
	free(str);
	return rc;
}

/* A reader of [v, e) alone, errors to a throw-away struct ep_err. */
static void
tp_sub(struct ep_toml *t, struct ep_err *err, const char *v, const char *e)
{
	memset(t, 0, sizeof *t);
	t->p = v;
	t->end = e;
	t->line = 1;
	t->name = "value";
	t->err = err;
}

/* "(A) or (B)" of the markers seen: any is NULL once one is missing. */
struct tp_or {
	char *or;
	int n;
	int bare;		/* a constraint without a marker */
	int optional;		/* every constraint only an extra's */
	int marker, opt;	/* of the table being read */
};

static void
tp_or_add(struct tp_or *o, const char *m)
{
	char *or = xasprintf("%s%s(%s)", o->or != NULL ? o->or : "",
	    o->n++ > 0 ? " or " : "", m);

	free(o->or);
	o->or = or;
}

/* The markers joined, a new string: one alone without its parentheses. */
static char *
tp_or_take(struct tp_or *o)
{
	char *s = o->or;
	size_t n = strlen(s);

	o->or = NULL;
	if (o->n == 1) {
		memmove(s, s + 1, n - 2);
		s[n - 2] = '\0';
	}
	return s;
}

static void
tp_any_str(void *arg, const char *key, const char *str, const char *v,
    const char *e)
{
	(void)key, (void)v, (void)e;
	if (str != NULL && *str != '\0')
		tp_or_add(arg, str);
	else
		((struct tp_or *)arg)->bare = 1;
}

char *
ep_toml_markers_or(const char *v, const char *e)
{
	struct ep_err err = { 0 };
	struct tp_or o = { 0 };
	struct ep_toml t;

	tp_sub(&t, &err, v, e);
	if (!ep_toml_at(&t, '{') || tp_table_walk(&t, tp_any_str, &o) < 0 ||
	    o.bare || o.n == 0) {
		free(o.or);
		return NULL;
	}
	return tp_or_take(&o);
}

static void
tp_edge_pair(void *arg, const char *key, const char *str, const char *v,
    const char *e)
{
	struct tp_or *o = arg;

	if (strcmp(key, "markers") == 0 && str != NULL && *str != '\0') {
		tp_or_add(o, str);
		o->marker = 1;
	} else if (strcmp(key, "optional") == 0 && e - v == 4 &&
	    memcmp(v, "true", 4) == 0)
		o->opt = 1;
}

int
ep_toml_edge(char **marker, int *optional, const char *v, const char *e)
{
	struct ep_err err = { 0 };
	struct tp_or o = { .optional = 1 };
	struct ep_toml t;
	int rc = -1, arr, ntab = 0;

	*marker = NULL;
	*optional = 0;
	tp_sub(&t, &err, v, e);
	if (ep_toml_at(&t, '"') || ep_toml_at(&t, '\'')) {
		rc = 0;
		goto done;
	}
	if ((arr = ep_toml_at(&t, '[')))
		t.p++;
	for (;;) {
		if (ep_toml_space(&t) < 0)
			goto done;
		if (t.p >= t.end || *t.p == ']')
			break;
		if (!ep_toml_at(&t, '{'))
			goto done;
		o.marker = o.opt = 0;
		if (tp_table_walk(&t, tp_edge_pair, &o) < 0)
			goto done;
		o.bare |= !o.marker;
		o.optional &= o.opt;
		ntab++;
		if (!arr)
			break;
		if (ep_toml_space(&t) < 0)
			goto done;
		if (ep_toml_at(&t, ','))
			t.p++;
	}
	*optional = ntab > 0 && o.optional;
	if (ntab > 0 && !o.bare && o.n > 0) {
		*marker = tp_or_take(&o);
	}
	rc = 0;
done:
	free(o.or);
	return rc;
}
