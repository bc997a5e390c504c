/*
 * vercmp.c: versions parsed and ordered (vercmp.h; ranges are in
 * verrange.c).  Numbers are compared as digit strings, never converted,
 * so no component is too long for the comparison; a version keeps spans
 * into the string it was parsed from.  Letters and digits are ASCII
 * whatever the locale: a version is ASCII (PEP 440 reads "1.0+\u0130" as
 * no version).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "vercmp_int.h"
#include "str.h"
#include "xalloc.h"

int
ep_ver_num_cmp(struct ep_verspan a, struct ep_verspan b)
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

static struct ep_verspan
digits(const char **pp)
{
	struct ep_verspan s = { *pp, 0 };

	while (ep_ascii_digit((unsigned char)s.p[s.n]))
		s.n++;
	*pp += s.n;
	return s;
}

static int
is_sep(int c)
{
	return c == '-' || c == '_' || c == '.';
}

static void
skip_sep(const char **pp)
{
	if (is_sep(**pp))
		(*pp)++;
}

static int
lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

/* Match one of words (ASCII, case-insensitive) at *pp, in list order;
 * returns its index and advances, or -1. */
int
ep_ver_word(const char **pp, const char *const *words)
{
	for (int i = 0; words[i] != NULL; i++) {
		size_t n = 0;

		while (words[i][n] != '\0' && lower((unsigned char)(*pp)[n]) ==
		    words[i][n])
			n++;
		if (words[i][n] == '\0') {
			*pp += n;
			return i;
		}
	}
	return -1;
}

/* The PEP 440 suffixes after the release, up to e; -1 if [p, e) is not
 * one. */
static int
suffixes(struct ep_ver *v, const char *p, const char *e)
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
	if ((i = ep_ver_word(&q, pre_words)) >= 0) {
		v->pre = pre_kind[i];
		skip_sep(&q);
		v->pre_n = digits(&q);
		p = q;
	}
	q = p;
	if (q[0] == '-' && ep_ascii_digit((unsigned char)q[1])) {
		q++;
		v->post = 1;
		v->post_n = digits(&q);
		p = q;
	} else {
		skip_sep(&q);
		if (ep_ver_word(&q, post_words) >= 0) {
			v->post = 1;
			skip_sep(&q);
			v->post_n = digits(&q);
			p = q;
		}
	}
	q = p;
	skip_sep(&q);
	if (ep_ver_word(&q, dev_words) >= 0) {
		v->dev = 1;
		skip_sep(&q);
		v->dev_n = digits(&q);
		p = q;
	}
	if (p < e && *p == '+') {
		q = ++p;
		for (;;) {
			if (!ep_ascii_alnum((unsigned char)*q))
				return -1;
			while (ep_ascii_alnum((unsigned char)*q))
				q++;
			if (is_sep((unsigned char)*q) &&
			    ep_ascii_alnum((unsigned char)q[1]))
				q++;
			else
				break;
		}
		v->local.p = p;
		v->local.n = (size_t)(q - p);
		p = q;
	}
	return p == e ? 0 : -1;
}

/*
 * What may follow the release where the rest is not PEP 440: runs of
 * letters and digits, each after at most one separator (. - _ ~ or +),
 * none at the end; a '+' at most once, and after it a PEP 440 local label
 * ("-fc-v657-gpu", ".DA.00.0C", ".el8_8.x86_64", "~rc1", "-9+deb12u4").
 * Not a blank, a control or a non-ASCII byte, not "..", not "1.0+1+1":
 * packaging refuses those, and so do we.
 */
static int
tail_valid(const char *p, const char *e)
{
	int plus = 0;

	while (p < e) {
		if (*p == '+' || *p == '~' || is_sep((unsigned char)*p)) {
			if (*p == '+' && plus++)
				return 0;
			if (*p == '~' && plus)
				return 0;
			p++;
		}
		if (p == e || !ep_ascii_alnum((unsigned char)*p))
			return 0;
		while (p < e && ep_ascii_alnum((unsigned char)*p))
			p++;
	}
	return 1;
}

/* [*b, *e) without white space at either end. */
static void
strip(const char **b, const char **e)
{
	const unsigned char *p = (const unsigned char *)*b,
	    *q = (const unsigned char *)*e;
	size_t n;

	while ((n = ep_pyspace_len(p, q)) > 0)
		p += n;
	for (;;) {
		n = 0;
		for (size_t k = 1; k <= 3 && k <= (size_t)(q - p); k++)
			if (ep_pyspace_len(q - k, q) == k) {
				n = k;
				break;
			}
		if (n == 0)
			break;
		q -= n;
	}
	*b = (const char *)p;
	*e = (const char *)q;
}

int
ep_ver_parse(struct ep_ver *v, const char *s)
{
	const char *p = s, *e = s + strlen(s), *q;

	memset(v, 0, sizeof *v);
	strip(&p, &e);
	if (p < e && (*p == 'v' || *p == 'V'))
		p++;
	if (p == e || !ep_ascii_digit((unsigned char)*p))
		return -1;
	q = p;
	while (ep_ascii_digit((unsigned char)*q))
		q++;
	if (*q == '!') {
		v->epoch = digits(&p);
		p++;
		if (!ep_ascii_digit((unsigned char)*p))
			return -1;
	}
	for (;;) {
		if (v->nrel == MAXREL)
			return -1;
		v->rel[v->nrel++] = digits(&p);
		if (p[0] == '.' && ep_ascii_digit((unsigned char)p[1]))
			p++;
		else
			break;
	}
	if (p == e || suffixes(v, p, e) == 0)
		return 0;

	/* Not PEP 440 after the release: keep the rest as an opaque tail. */
	if (!tail_valid(p, e))
		return -1;
	v->pre = v->post = v->dev = 0;
	memset(&v->pre_n, 0, sizeof v->pre_n);
	memset(&v->post_n, 0, sizeof v->post_n);
	memset(&v->dev_n, 0, sizeof v->dev_n);
	v->local.p = p;
	v->local.n = (size_t)(e - p);
	v->opaque = 1;
	return 0;
}

/* Epoch and release, the shorter padded with zeros. */
int
ep_ver_release_cmp(const struct ep_ver *a, const struct ep_ver *b)
{
	static const struct ep_verspan zero = { "0", 1 };
	size_t n = a->nrel > b->nrel ? a->nrel : b->nrel;
	int c;

	if ((c = ep_ver_num_cmp(a->epoch, b->epoch)) != 0)
		return c;
	for (size_t i = 0; i < n; i++) {
		c = ep_ver_num_cmp(i < a->nrel ? a->rel[i] : zero,
		    i < b->nrel ? b->rel[i] : zero);
		if (c != 0)
			return c;
	}
	return 0;
}

/* Where the pre-release puts a version within its release: a dev release
 * of the release itself first, then a, b, rc, then none. */
static int
pre_rank(const struct ep_ver *v)
{
	if (v->pre == PRE_NONE)
		return v->dev && !v->post ? -1 : PRE_RC + 1;
	return v->pre;
}

/* The next segment of a local label or tail: a run of digits or of
 * letters; other characters separate.  0 at the end. */
static int
segment(struct ep_verspan *seg, int *numeric, struct ep_verspan *rest)
{
	while (rest->n > 0 && !ep_ascii_alnum((unsigned char)*rest->p)) {
		rest->p++;
		rest->n--;
	}
	if (rest->n == 0)
		return 0;
	seg->p = rest->p;
	seg->n = 0;
	*numeric = ep_ascii_digit((unsigned char)*rest->p);
	while (seg->n < rest->n && ep_ascii_alnum((unsigned char)seg->p[seg->n]) &&
	    ep_ascii_digit((unsigned char)seg->p[seg->n]) == *numeric)
		seg->n++;
	rest->p += seg->n;
	rest->n -= seg->n;
	return 1;
}

static int
local_cmp(struct ep_verspan a, struct ep_verspan b)
{
	struct ep_verspan sa, sb;
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
			c = ep_ver_num_cmp(sa, sb);
		else {
			size_t n = sa.n < sb.n ? sa.n : sb.n;

			if ((c = strncasecmp(sa.p, sb.p, n)) == 0)
				c = (sa.n > sb.n) - (sa.n < sb.n);
		}
		if (c != 0)
			return c;
	}
}

int
ep_ver_cmp(const struct ep_ver *a, const struct ep_ver *b, int ignore_local)
{
	int c;

	if ((c = ep_ver_release_cmp(a, b)) != 0)
		return c;
	if ((c = pre_rank(a) - pre_rank(b)) != 0)
		return c;
	if (a->pre != PRE_NONE && (c = ep_ver_num_cmp(a->pre_n, b->pre_n)) != 0)
		return c;
	if (a->post != b->post)
		return a->post - b->post;
	if (a->post && (c = ep_ver_num_cmp(a->post_n, b->post_n)) != 0)
		return c;
	if (a->dev != b->dev)
		return b->dev - a->dev;	/* no dev part sorts last */
	if (a->dev && (c = ep_ver_num_cmp(a->dev_n, b->dev_n)) != 0)
		return c;
	return ignore_local ? 0 : local_cmp(a->local, b->local);
}

int
ep_vercmp(const char *a, const char *b)
{
	struct ep_ver va, vb;
	int oka = ep_ver_parse(&va, a) == 0, okb = ep_ver_parse(&vb, b) == 0;
	int c;

	if (!oka || !okb) {
		if (oka != okb)
			return oka ? 1 : -1;
		c = strcmp(a, b);
		return (c > 0) - (c < 0);
	}
	c = ep_ver_cmp(&va, &vb, 0);
	return (c > 0) - (c < 0);
}

int
ep_version_valid(const char *v)
{
	struct ep_ver x;

	return ep_ver_parse(&x, v) == 0;
}

int
ep_version_pep440(const char *v)
{
	struct ep_ver x;

	return ep_ver_parse(&x, v) == 0 && !x.opaque;
}

/* A run of digits without its leading zeros ("0" for none). */
static void
put_num(char **o, struct ep_verspan s)
{
	while (s.n > 1 && *s.p == '0') {
		s.p++;
		s.n--;
	}
	if (s.n == 0) {
		*(*o)++ = '0';
		return;
	}
	memcpy(*o, s.p, s.n);
	*o += s.n;
}

char *
ep_version_pep440_norm(const char *v)
{
	static const char *const pre[] = { "", "a", "b", "rc" };
	struct ep_ver x;
	char *out, *o;
	size_t n = strlen(v);

	if (ep_ver_parse(&x, v) < 0 || x.opaque)
		return NULL;
	/* Never longer than the text, plus the words and zeros it may
	 * leave out ("1a" is "1a0", "1-1" is "1.post1"). */
	out = o = xmalloc(n + 32);
	if (ep_ver_num_cmp(x.epoch, (struct ep_verspan){ "0", 1 }) != 0) {
		put_num(&o, x.epoch);
		*o++ = '!';
	}
	for (size_t i = 0; i < x.nrel; i++) {
		if (i > 0)
			*o++ = '.';
		put_num(&o, x.rel[i]);
	}
	if (x.pre != PRE_NONE) {
		o = stpcpy(o, pre[x.pre]);
		put_num(&o, x.pre_n);
	}
	if (x.post) {
		o = stpcpy(o, ".post");
		put_num(&o, x.post_n);
	}
	if (x.dev) {
		o = stpcpy(o, ".dev");
		put_num(&o, x.dev_n);
	}
	if (x.local.n > 0) {
		struct ep_verspan rest = x.local;

		*o++ = '+';
		for (size_t i = 0; i < rest.n; ) {
			size_t k = i;
			int digit = 1;

			if (is_sep((unsigned char)rest.p[i])) {
				*o++ = '.';
				i++;
				continue;
			}
			/* A part of digits alone is a number. */
			while (k < rest.n && !is_sep((unsigned char)rest.p[k]))
				digit &= ep_ascii_digit((unsigned char)
				    rest.p[k++]);
			if (digit)
				put_num(&o, (struct ep_verspan){ rest.p + i,
				    k - i });
			else
				for (; i < k; i++)
					*o++ = (char)lower((unsigned char)
					    rest.p[i]);
			i = k;
		}
	}
	*o = '\0';
	return out;
}

size_t
ep_version_release(unsigned long *parts, size_t max, const char *v)
{
	struct ep_ver x;

	if (ep_ver_parse(&x, v) < 0)
		return 0;
	for (size_t i = 0; i < x.nrel && i < max; i++) {
		struct ep_verspan s = x.rel[i];
		unsigned long n = 0;

		for (size_t k = 0; k < s.n; k++) {
			unsigned d = (unsigned)(s.p[k] - '0');

			n = n > (ULONG_MAX - d) / 10 ? ULONG_MAX : n * 10 + d;
		}
		parts[i] = n;
	}
	return x.nrel;
}

