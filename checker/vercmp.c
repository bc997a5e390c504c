/*
 * vercmp.c: version ordering and version ranges (vercmp.h).  Numbers are
 * compared as digit strings, never converted, so no component is too
 * long for the comparison; a version keeps spans into the string it was
 * parsed from.
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vercmp.h"

#define MAXREL 32		/* release components; more is not a version */

struct span {
	const char *p;
	size_t n;
};

enum { PRE_NONE, PRE_A, PRE_B, PRE_RC };

struct ver {
	struct span epoch;
	struct span rel[MAXREL];
	size_t nrel;
	int pre;		/* PRE_* */
	struct span pre_n;
	int post;
	struct span post_n;
	int dev;
	struct span dev_n;
	struct span local;	/* after '+', or the opaque tail; n 0: none */
};

enum { OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_COMPAT, OP_ARB };

struct clause {
	int op;
	int prefix;		/* ==V.* or !=V.* */
	char *text;		/* the version, which v points into */
	struct ver v;
};

struct ep_verrange {
	char *text;
	struct clause *c;
	size_t n;
};

static int
num_cmp(struct span a, struct span b)
{
	while (a.n > 0 && *a.p == '0') {
		a.p++;
		a.n--;
	}
	while (b.n > 0 && *b.p == '0') {
		b.p++;
		b.n--;
	}
	if (a.n != b.n)
		return a.n < b.n ? -1 : 1;
	return a.n == 0 ? 0 : memcmp(a.p, b.p, a.n);
}

static struct span
digits(const char **pp)
{
	struct span s = { *pp, 0 };

	while (isdigit((unsigned char)s.p[s.n]))
		s.n++;
	*pp += s.n;
	return s;
}

static void
skip_sep(const char **pp)
{
	if (**pp == '-' || **pp == '_' || **pp == '.')
		(*pp)++;
}

/* Match one of words (case-insensitive) at *pp, in list order; returns
 * its index and advances, or -1. */
static int
word(const char **pp, const char *const *words)
{
	for (int i = 0; words[i] != NULL; i++) {
		size_t n = strlen(words[i]);

		if (strncasecmp(*pp, words[i], n) == 0) {
			*pp += n;
			return i;
		}
	}
	return -1;
}

/* The PEP 440 suffixes after the release; -1 if p is not one. */
static int
suffixes(struct ver *v, const char *p)
{
	static const char *const pre_words[] = { "alpha", "a", "beta", "b",
	    "preview", "pre", "rc", "c", NULL };
	static const int pre_kind[] = { PRE_A, PRE_A, PRE_B, PRE_B, PRE_RC,
	    PRE_RC, PRE_RC, PRE_RC };
	static const char *const post_words[] = { "post", "rev", "r", NULL };
	static const char *const dev_words[] = { "dev", NULL };
	const char *q = p;
	int i;

	skip_sep(&q);
	if ((i = word(&q, pre_words)) >= 0) {
		v->pre = pre_kind[i];
		skip_sep(&q);
		v->pre_n = digits(&q);
		p = q;
	}
	q = p;
	if (q[0] == '-' && isdigit((unsigned char)q[1])) {
		q++;
		v->post = 1;
		v->post_n = digits(&q);
		p = q;
	} else {
		skip_sep(&q);
		if (word(&q, post_words) >= 0) {
			v->post = 1;
			skip_sep(&q);
			v->post_n = digits(&q);
			p = q;
		}
	}
	q = p;
	skip_sep(&q);
	if (word(&q, dev_words) >= 0) {
		v->dev = 1;
		skip_sep(&q);
		v->dev_n = digits(&q);
		p = q;
	}
	if (*p == '+') {
		q = ++p;
		for (;;) {
			if (!isalnum((unsigned char)*q))
				return -1;
			while (isalnum((unsigned char)*q))
				q++;
			if ((*q == '-' || *q == '_' || *q == '.') &&
			    isalnum((unsigned char)q[1]))
				q++;
			else
				break;
		}
		v->local.p = p;
		v->local.n = (size_t)(q - p);
		p = q;
	}
	return *p == '\0' ? 0 : -1;
}

static int
ver_parse(struct ver *v, const char *s)
{
	const char *p = s, *q;

	memset(v, 0, sizeof *v);
	if (*p == 'v' || *p == 'V')
		p++;
	if (!isdigit((unsigned char)*p))
		return -1;
	q = p;
	while (isdigit((unsigned char)*q))
		q++;
	if (*q == '!') {
		v->epoch = digits(&p);
		p++;
		if (!isdigit((unsigned char)*p))
			return -1;
	}
	for (;;) {
		if (v->nrel == MAXREL)
			return -1;
		v->rel[v->nrel++] = digits(&p);
		if (p[0] == '.' && isdigit((unsigned char)p[1]))
			p++;
		else
			break;
	}
	if (*p == '\0' || suffixes(v, p) == 0)
		return 0;

	/* Not PEP 440 after the release: keep the rest as an opaque tail. */
	v->pre = v->post = v->dev = 0;
	memset(&v->pre_n, 0, sizeof v->pre_n);
	memset(&v->post_n, 0, sizeof v->post_n);
	memset(&v->dev_n, 0, sizeof v->dev_n);
	v->local.p = p;
	v->local.n = strlen(p);
	return 0;
}

/* Epoch and release, the shorter padded with zeros. */
static int
release_cmp(const struct ver *a, const struct ver *b)
{
	static const struct span zero = { "0", 1 };
	size_t n = a->nrel > b->nrel ? a->nrel : b->nrel;
	int c;

	if ((c = num_cmp(a->epoch, b->epoch)) != 0)
		return c;
	for (size_t i = 0; i < n; i++) {
		c = num_cmp(i < a->nrel ? a->rel[i] : zero,
		    i < b->nrel ? b->rel[i] : zero);
		if (c != 0)
			return c;
	}
	return 0;
}

/* Where the pre-release puts a version within its release: a dev release
 * of the release itself first, then a, b, rc, then none. */
static int
pre_rank(const struct ver *v)
{
	if (v->pre == PRE_NONE)
		return v->dev && !v->post ? -1 : PRE_RC + 1;
	return v->pre;
}

/* The next segment of a local label or tail: a run of digits or of
 * letters; other characters separate.  0 at the end. */
static int
segment(struct span *seg, int *numeric, struct span *rest)
{
	while (rest->n > 0 && !isalnum((unsigned char)*rest->p)) {
		rest->p++;
		rest->n--;
	}
	if (rest->n == 0)
		return 0;
	seg->p = rest->p;
	seg->n = 0;
	*numeric = isdigit((unsigned char)*rest->p) != 0;
	while (seg->n < rest->n && isalnum((unsigned char)seg->p[seg->n]) &&
	    (isdigit((unsigned char)seg->p[seg->n]) != 0) == *numeric)
		seg->n++;
	rest->p += seg->n;
	rest->n -= seg->n;
	return 1;
}

static int
local_cmp(struct span a, struct span b)
{
	struct span sa, sb;
	int na, nb, c;

	if (a.n == 0 || b.n == 0)
		return (a.n != 0) - (b.n != 0);
	for (;;) {
		int ha = segment(&sa, &na, &a), hb = segment(&sb, &nb, &b);

		if (!ha || !hb)
			return ha - hb;
		if (na != nb)
			return na ? 1 : -1;	/* numbers after words */
		if (na)
			c = num_cmp(sa, sb);
		else {
			size_t n = sa.n < sb.n ? sa.n : sb.n;

			if ((c = strncasecmp(sa.p, sb.p, n)) == 0)
				c = (sa.n > sb.n) - (sa.n < sb.n);
		}
		if (c != 0)
			return c;
	}
}

static int
ver_cmp(const struct ver *a, const struct ver *b, int ignore_local)
{
	int c;

	if ((c = release_cmp(a, b)) != 0)
		return c;
	if ((c = pre_rank(a) - pre_rank(b)) != 0)
		return c;
	if (a->pre != PRE_NONE && (c = num_cmp(a->pre_n, b->pre_n)) != 0)
		return c;
	if (a->post != b->post)
		return a->post - b->post;
	if (a->post && (c = num_cmp(a->post_n, b->post_n)) != 0)
		return c;
	if (a->dev != b->dev)
		return b->dev - a->dev;	/* no dev part sorts last */
	if (a->dev && (c = num_cmp(a->dev_n, b->dev_n)) != 0)
		return c;
	return ignore_local ? 0 : local_cmp(a->local, b->local);
}

int
ep_vercmp(const char *a, const char *b)
{
	struct ver va, vb;
	int oka = ver_parse(&va, a) == 0, okb = ver_parse(&vb, b) == 0;
	int c;

	if (!oka || !okb) {
		if (oka != okb)
			return oka ? 1 : -1;
		c = strcmp(a, b);
		return (c > 0) - (c < 0);
	}
	c = ver_cmp(&va, &vb, 0);
	return (c > 0) - (c < 0);
}

int
ep_version_valid(const char *v)
{
	struct ver x;

	return ver_parse(&x, v) == 0;
}

size_t
ep_version_release(unsigned long *parts, size_t max, const char *v)
{
	struct ver x;

	if (ver_parse(&x, v) < 0)
		return 0;
	for (size_t i = 0; i < x.nrel && i < max; i++) {
		struct span s = x.rel[i];
		unsigned long n = 0;

		for (size_t k = 0; k < s.n; k++) {
			unsigned d = (unsigned)(s.p[k] - '0');

			n = n > (ULONG_MAX - d) / 10 ? ULONG_MAX : n * 10 + d;
		}
		parts[i] = n;
	}
	return x.nrel;
}

static int
same_release(const struct ver *a, const struct ver *b)
{
	return release_cmp(a, b) == 0;
}

static int
prefix_match(const struct ver *c, const struct ver *s, size_t n)
{
	static const struct span zero = { "0", 1 };

	if (num_cmp(c->epoch, s->epoch) != 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (num_cmp(i < c->nrel ? c->rel[i] : zero, s->rel[i]) != 0)
			return 0;
	return 1;
}

static int
clause_match(const struct clause *k, const struct ver *c, const char *text)
{
	const struct ver *s = &k->v;
	int ign = s->local.n == 0, cmp = ver_cmp(c, s, ign);

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
		/* <590 means before the 590 series, its pre-releases too. */
		if (s->pre == PRE_NONE && !s->dev && (c->pre || c->dev) &&
		    same_release(c, s))
			return 0;
		return cmp < 0;
	case OP_GT:
		if (!s->post && c->post && same_release(c, s))
			return 0;
		return cmp > 0;
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
	struct ver c;

	if (ver_parse(&c, version) < 0)
		return -1;
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
	if ((i = word(&p, ops)) < 0)
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
	if (ver_parse(&k->v, v) < 0)
		return ep_err_set(err, EP_E_INPUT, "range \"%s\": clause "
		    "\"%s\": \"%s\" is not a version", range, s, v);
	if (k->prefix && (k->v.pre || k->v.post || k->v.dev ||
	    k->v.local.n > 0))
		return ep_err_set(err, EP_E_INPUT, "range \"%s\": clause "
		    "\"%s\": only a release (digits and dots) goes before "
		    "\".*\"", range, s);
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
