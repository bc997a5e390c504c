/*
 * verrange.c: version ranges (verrange.h), clauses of PEP 440 operators
 * matched as pypa/packaging matches them, over the versions vercmp.c
 * parses and orders.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vercmp_int.h"
#include "verrange.h"
#include "errors.h"
#include "str.h"
#include "xalloc.h"

enum { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_COMPAT, OP_ARB };

struct clause {
	int op;
	int prefix;		/* ==V.* or !=V.* */
	char *text;		/* the version, which v points into */
	struct ep_ver v;
};

struct ep_verrange {
	char *text;
	struct clause *c;
	size_t n;
};

/* The same release and the same pre-release (kind and number): a and b
 * differ at most in post, dev and local. */
static int
same_pre(const struct ep_ver *a, const struct ep_ver *b)
{
	return ep_ver_release_cmp(a, b) == 0 && a->pre == b->pre &&
	    (a->pre == PRE_NONE || ep_ver_num_cmp(a->pre_n, b->pre_n) == 0);
}

static int
prefix_match(const struct ep_ver *c, const struct ep_ver *s, size_t n)
{
	static const struct ep_verspan zero = { "0", 1 };

	if (ep_ver_num_cmp(c->epoch, s->epoch) != 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (ep_ver_num_cmp(i < c->nrel ? c->rel[i] : zero,
		    s->rel[i]) != 0)
			return 0;
	return 1;
}

/*
 * <V and >V as PEP 440 says and packaging does, on whole versions:
 * <V holds no pre-release of V unless V is one itself, so below a final
 * or post-release V it means below V.dev0 (1.0rc1 is not in <1.0 but is in
 * <1.0.post1); >V holds no post-release of V unless V is one (1.0.post1 is
 * not in >1.0, 1.0a1.post1 not in >1.0a1, but 1.0.post0 is in >1.0.dev1).
 */
static int
less_than(const struct ep_ver *c, const struct ep_ver *s)
{
	static const struct ep_verspan zero = { "0", 1 };
	struct ep_ver b;

	if (s->pre != PRE_NONE || s->dev)
		return ep_ver_cmp(c, s, 0) < 0;
	b = *s;
	b.dev = 1;
	b.dev_n = zero;
	memset(&b.local, 0, sizeof b.local);
	b.opaque = 0;
	return ep_ver_cmp(c, &b, 0) < 0;
}

static int
greater_than(const struct ep_ver *c, const struct ep_ver *s)
{
	if (s->dev || s->post)
		return ep_ver_cmp(c, s, 1) > 0;
	return ep_ver_cmp(c, s, 1) > 0 && !same_pre(c, s);
}

static int
clause_match(const struct clause *k, const struct ep_ver *c, const char *text)
{
	const struct ep_ver *s = &k->v;
	int ign = s->local.n == 0, cmp = ep_ver_cmp(c, s, ign);

	switch (k->op) {
	case OP_EQ:
		return k->prefix ? prefix_match(c, s, s->nrel) : cmp == 0;
	case OP_NE:
		return k->prefix ? !prefix_match(c, s, s->nrel) : cmp != 0;
	case OP_LE:
		return cmp <= 0;
	case OP_GE:
		return cmp >= 0;
	case OP_LT:
		return less_than(c, s);
	case OP_GT:
		return greater_than(c, s);
	case OP_COMPAT:
		return cmp >= 0 && prefix_match(c, s, s->nrel - 1);
	case OP_ARB:
		return strcasecmp(text, k->text) == 0;
	}
	return 0;
}

int
ep_verrange_match(const struct ep_verrange *r, const char *version)
{
	struct ep_ver c;
	size_t arb = 0;

	if (ep_ver_parse(&c, version) < 0) {
		/* === compares strings: "foobar" is in ===foobar. */
		for (size_t i = 0; i < r->n; i++)
			if (r->c[i].op == OP_ARB)
				arb++;
		if (arb < r->n)
			return -1;
		for (size_t i = 0; i < r->n; i++)
			if (strcasecmp(version, r->c[i].text) != 0)
				return 0;
		return 1;
	}
	for (size_t i = 0; i < r->n; i++)
		if (!clause_match(&r->c[i], &c, version))
			return 0;
	return 1;
}

const char *
ep_verrange_text(const struct ep_verrange *r)
{
	return r->text;
}

void
ep_verrange_free(struct ep_verrange *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->n; i++)
		free(r->c[i].text);
	free(r->c);
	free(r->text);
	free(r);
}

/* One clause (trimmed, NUL-terminated) into k; the message names it. */
static int
clause_parse(struct clause *k, char *s, const char *range,
    struct ep_err *err)
{
	static const char *const ops[] = { "===", "==", "!=", "<=", ">=",
	    "~=", "<", ">", NULL };
	static const int opv[] = { OP_ARB, OP_EQ, OP_NE, OP_LE, OP_GE,
	    OP_COMPAT, OP_LT, OP_GT };
	const char *p = s;
	char *v;
	size_t n;
	int i;

	if (*s == '\0')
		return ep_err_set(err, EP_E_INPUT, "range \"%s\": empty clause",
		    range);
	if ((i = ep_ver_word(&p, ops)) < 0)
		return ep_err_set(err, EP_E_INPUT, "range \"%s\": clause "
		    "\"%s\": no operator (one of ==, !=, <, <=, >, >=, ~=, "
		    "===)", range, s);
	k->op = opv[i];
	v = ep_trim(xstrdup(p));
	k->text = v;
	if (*v == '\0')
		return ep_err_set(err, EP_E_INPUT, "range \"%s\": clause "
		    "\"%s\": no version after \"%s\"", range, s, ops[i]);
	/* One version per clause: ">1.0 <2", ">=1.26;<2", "> 1 and < 2" and
	 * "a || b" are one clause whose "version" would swallow the rest,
	 * so that only the first operator counted.  PEP 440's grammar
	 * allows letters, digits and . _ + ! - (and .* for == and !=). */
	if (v[strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789._+!-*")] != '\0')
		return ep_err_set(err, EP_E_INPUT, "range \"%s\": clause "
		    "\"%s\": \"%s\" is not one version (clauses are "
		    "separated by commas, all must hold: \">=1.26,<2\")", range,
		    s, v);
	if (k->op == OP_ARB)
		return 0;
	n = strlen(v);
	if (n >= 2 && strcmp(v + n - 2, ".*") == 0) {
		if (k->op != OP_EQ && k->op != OP_NE)
			return ep_err_set(err, EP_E_INPUT, "range \"%s\": "
			    "clause \"%s\": \".*\" goes only with == and !=",
			    range, s);
		k->prefix = 1;
		v[n - 2] = '\0';
	}
	if (ep_ver_parse(&k->v, v) < 0)
		return ep_err_set(err, EP_E_INPUT, "range \"%s\": clause "
		    "\"%s\": \"%s\" is not a version", range, s, v);
	if (k->prefix && (k->v.pre || k->v.post || k->v.dev ||
	    k->v.local.n > 0))
		return ep_err_set(err, EP_E_INPUT, "range \"%s\": clause "
		    "\"%s\": only a release (digits and dots) goes before "
		    "\".*\"", range, s);
	if (k->v.local.n > 0 && !k->v.opaque && (k->op == OP_LT ||
	    k->op == OP_LE || k->op == OP_GT || k->op == OP_GE))
		return ep_err_set(err, EP_E_INPUT, "range \"%s\": clause "
		    "\"%s\": a local label (+%.*s) goes only with ==, != and "
		    "===", range, s, (int)k->v.local.n, k->v.local.p);
	if (k->op == OP_COMPAT && (k->v.nrel < 2 || k->v.local.n > 0))
		return ep_err_set(err, EP_E_INPUT, "range \"%s\": clause "
		    "\"%s\": ~= needs a release of two or more components "
		    "and no local label", range, s);
	return 0;
}

int
ep_verrange_parse(struct ep_verrange **out, const char *text,
    struct ep_err *err)
{
	struct ep_verrange *r = xcalloc(1, sizeof *r);
	char *copy = NULL, *p, *comma;
	size_t cap = 0;
	int rc = -1;

	*out = NULL;
	r->text = ep_trim(xstrdup(text));
	if (r->text[0] == '\0') {
		ep_err_set(err, EP_E_INPUT, "range \"\": empty");
		goto done;
	}
	copy = xstrdup(r->text);
	for (p = copy; p != NULL; p = comma) {
		if ((comma = strchr(p, ',')) != NULL)
			*comma++ = '\0';
		if (r->n == cap) {
			cap = cap ? cap * 2 : 4;
			r->c = xreallocarray(r->c, cap, sizeof *r->c);
		}
		memset(&r->c[r->n], 0, sizeof r->c[r->n]);
		r->n++;
		if (clause_parse(&r->c[r->n - 1], ep_trim(p), r->text,
		    err) < 0)
			goto done;
	}
	*out = r;
	r = NULL;
	rc = 0;
done:
	free(copy);
	ep_verrange_free(r);
	return rc;
}
