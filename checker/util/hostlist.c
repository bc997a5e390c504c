/*
 * hostlist.c: Slurm hostlist syntax, expanded (the rules and where they
 * part from Slurm's are in hostlist.h): a name's check and the parser.
 *
 * Expansion reads the whole list first, checking everything and counting
 * the names each host gives (saturating, without making any), so that
 * "n[0-999999999]" is refused before a byte is allocated for it and a
 * failed call leaves out as it was; only then are the names written.
 * Compression is hostlist_compress.c's.
 */
#include "hostlist.h"
#include "hostlist_int.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text quoted around an error's column. */
#define SHOW_BEFORE	24
#define SHOW_AFTER	40

static int
is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' ||
	    c == '\v' || c == '\f';
}

static int
is_name(int c)
{
	return ep_ascii_alnum(c) || c == '.' || c == '_' || c == '-';
}

size_t
ep_hostlist_ndigits(uint64_t v)
{
	size_t n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t
sat_mul(uint64_t a, uint64_t b)
{
	if (a != 0 && b > UINT64_MAX / a)
		return UINT64_MAX;
	return a * b;
}

int
ep_hostlist_name_ok(const char *name)
{
	size_t n = 0;

	for (; name[n] != '\0'; n++)
		if (!is_name((unsigned char)name[n]) ||
		    n >= EP_HOSTLIST_NAME_MAX)
			return 0;
	return n > 0 && strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* ---- expansion ---- */

struct range {
	uint64_t lo, hi;
	size_t width;		/* digits of lo as written */
};

/* Literal text (nr == 0) or a bracket (its ranges r[r0 .. r0 + nr)). */
struct part {
	size_t off, len;	/* the literal, in the text */
	size_t r0, nr;
};

/* One host of the list: its parts p[p0 .. p0 + np). */
struct host {
	size_t p0, np;
};

struct parse {
	const char *text, *what;
	struct ep_err *err;
	struct range *r;
	size_t nr, rcap;
	struct part *p;
	size_t np, pcap;
	struct host *h;
	size_t nh, hcap;
};

/* The error: what, the problem, the column (1 for the first byte) and
 * the text around it, escaped to printable ASCII. */
static int
fail(struct parse *ps, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
fail(struct parse *ps, size_t at, const char *fmt, ...)
{
	char problem[256], shown[4 * (SHOW_BEFORE + SHOW_AFTER) + 8];
	size_t len = strlen(ps->text), from, to, o = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(problem, sizeof problem, fmt, ap);
	va_end(ap);
	from = at > SHOW_BEFORE ? at - SHOW_BEFORE : 0;
	to = len - at > SHOW_AFTER ? at + SHOW_AFTER : len;
	if (from > 0)
		o += (size_t)snprintf(shown + o, sizeof shown - o, "...");
	for (size_t i = from; i < to; i++) {
		unsigned char c = (unsigned char)ps->text[i];

		if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
			shown[o++] = (char)c;
		else
			o += (size_t)snprintf(shown + o, sizeof shown - o,
			    "\\x%02x", c);
	}
	if (to < len)
		o += (size_t)snprintf(shown + o, sizeof shown - o, "...");
	shown[o] = '\0';
	return ep_err_set(ps->err, EP_E_INPUT, "%s: %s at column %zu: \"%s\"",
	    ps->what, problem, at + 1, shown);
}

/* A byte as the messages name it. */
static const char *
show_byte(char *buf, size_t n, int c)
{
	if (c > 0x20 && c < 0x7f && c != '\'' && c != '\\')
		snprintf(buf, n, "'%c'", c);
	else
		snprintf(buf, n, "byte 0x%02x", (unsigned)c & 0xff);
	return buf;
}

static void
add_part(struct parse *ps, size_t off, size_t len, size_t r0, size_t nr)
{
	if (ps->np == ps->pcap) {
		ps->pcap = ps->pcap ? 2 * ps->pcap : 16;
		ps->p = xreallocarray(ps->p, ps->pcap, sizeof *ps->p);
	}
	ps->p[ps->np++] = (struct part){ off, len, r0, nr };
}

/* The digits at *i as a number (*v) and their count (*w, 0 when there
 * are none). */
static int
number(struct parse *ps, size_t *i, uint64_t *v, size_t *w)
{
	size_t start = *i;

	*v = 0;
	while (ep_ascii_digit((unsigned char)ps->text[*i])) {
		unsigned d = (unsigned)(ps->text[*i] - '0');

		if (*v > (UINT64_MAX - d) / 10)
			return fail(ps, start, "number too large (above %"
			    PRIu64 ")", UINT64_MAX);
		*v = *v * 10 + d;
		(*i)++;
	}
	*w = *i - start;
	return 0;
}

/* What stands where a range or its end should: the error for it. */
static int
bad_in_range(struct parse *ps, size_t at, size_t open, const char *missing)
{
	char b[16];
	int c = (unsigned char)ps->text[at];

	if (c == '\0')
		return fail(ps, open, "unclosed '['");
	if (c == '[')
		return fail(ps, at, "nested '['");
	if (missing != NULL && (c == ',' || c == ']' || c == '-'))
		return fail(ps, at, "%s", missing);
	return fail(ps, at, "non-digit %s in a range",
	    show_byte(b, sizeof b, c));
}

/* The bracket at *i ("[1-3,07]"): its ranges, its count of numbers
 * (saturating) and the widest number it writes. */
static int
bracket(struct parse *ps, size_t *i, uint64_t *count, size_t *widest)
{
	size_t open = *i, r0 = ps->nr, w, w2, at;
	uint64_t lo, hi;

	*count = 0;
	*widest = 0;
	(*i)++;
	for (;;) {
		at = *i;
		if (number(ps, i, &lo, &w) < 0)
			return -1;
		if (w == 0)
			return bad_in_range(ps, at, open,
			    ps->text[at] == '-' ? "range without a lower bound" :
			    "empty range");
		hi = lo;
		if (ps->text[*i] == '-') {
			(*i)++;
			at = *i;
			if (number(ps, i, &hi, &w2) < 0)
				return -1;
			if (w2 == 0)
				return bad_in_range(ps, at, open,
				    "range without an upper bound");
			if (lo > hi)
				return fail(ps, at - 1 - w, "range %.*s has "
				    "its lower bound above its upper",
				    (int)(*i - (at - 1 - w)),
				    ps->text + at - 1 - w);
		}
		if (ps->nr == ps->rcap) {
			ps->rcap = ps->rcap ? 2 * ps->rcap : 16;
			ps->r = xreallocarray(ps->r, ps->rcap, sizeof *ps->r);
		}
		ps->r[ps->nr++] = (struct range){ lo, hi, w };
		*count = sat_add(*count, sat_add(hi - lo, 1));
		if (w > *widest)
			*widest = w;
		if (ep_hostlist_ndigits(hi) > *widest)
			*widest = ep_hostlist_ndigits(hi);
		if (ps->text[*i] == ']')
			break;
		if (ps->text[*i] != ',')
			return bad_in_range(ps, *i, open, NULL);
		(*i)++;
	}
	(*i)++;
	add_part(ps, 0, 0, r0, ps->nr - r0);
	return 0;
}

/* The host at *i, up to a comma, white space or the end: its parts, and
 * how many names it gives added to *total, refused past max. */
static int
host(struct parse *ps, size_t *i, size_t max, uint64_t *total)
{
	size_t start = *i, p0 = ps->np, lit = *i, namelen = 0, widest;
	uint64_t count = 1, n;
	char b[16];
	int c;

	for (;;) {
		c = (unsigned char)ps->text[*i];
		if (c == '\0' || c == ',' || is_space(c) || c == '[') {
			if (*i > lit) {
				add_part(ps, lit, *i - lit, 0, 0);
				namelen += *i - lit;
			}
			if (c != '[')
				break;
			if (bracket(ps, i, &n, &widest) < 0)
				return -1;
			count = sat_mul(count, n);
			namelen += widest;
			lit = *i;
		} else if (c == ']')
			return fail(ps, *i, "']' without '['");
		else if (!is_name(c))
			return fail(ps, *i, "%s not allowed in a node name "
			    "(only A-Z a-z 0-9 . _ -)", show_byte(b, sizeof b, c));
		else
			(*i)++;
	}
	/* The longest name takes each bracket's widest number. */
	if (namelen > EP_HOSTLIST_NAME_MAX)
		return fail(ps, start, "a name longer than %d bytes",
		    EP_HOSTLIST_NAME_MAX);
	if (ps->np == p0 + 1 && ps->p[p0].nr == 0 &&
	    (namelen == 1 || namelen == 2) &&
	    strncmp(ps->text + start, "..", namelen) == 0)
		return fail(ps, start, "\"%.*s\" is not a node name",
		    (int)namelen, ps->text + start);
	*total = sat_add(*total, count);
	if (*total > max)
		return fail(ps, start, "expands to more than %zu names", max);
	if (ps->nh == ps->hcap) {
		ps->hcap = ps->hcap ? 2 * ps->hcap : 16;
		ps->h = xreallocarray(ps->h, ps->hcap, sizeof *ps->h);
	}
	ps->h[ps->nh++] = (struct host){ p0, ps->np - p0 };
	return 0;
}

/* Every name of host h from part k on, after the len bytes in buf. */
static void
emit(const struct parse *ps, const struct host *h, size_t k, char *buf,
    size_t len, struct ep_strv *out)
{
	const struct part *pt;

	if (k == h->np) {
		buf[len] = '\0';
		ep_strv_push(out, buf);
		return;
	}
	pt = &ps->p[h->p0 + k];
	if (pt->nr == 0) {
		memcpy(buf + len, ps->text + pt->off, pt->len);
		emit(ps, h, k + 1, buf, len + pt->len, out);
		return;
	}
	for (size_t j = pt->r0; j < pt->r0 + pt->nr; j++) {
		const struct range *r = &ps->r[j];

		for (uint64_t v = r->lo;; v++) {
			int w = snprintf(buf + len, EP_HOSTLIST_NAME_MAX + 1 - len,
			    "%0*" PRIu64, (int)r->width, v);

			emit(ps, h, k + 1, buf, len + (size_t)w, out);
			if (v == r->hi)
				break;
		}
	}
}

int
ep_hostlist_expand(struct ep_strv *out, const char *text, const char *what,
    size_t max, struct ep_err *err)
{
	struct parse ps = { .text = text ? text : "", .what = what,
	    .err = err };
	char buf[EP_HOSTLIST_NAME_MAX + 1];
	uint64_t total = 0;
	size_t i = 0;
	int want = 1, rc = -1;

	for (;;) {
		while (is_space((unsigned char)ps.text[i]))
			i++;
		if (ps.text[i] == '\0') {
			if (ps.nh == 0) {
				ep_err_set(err, EP_E_INPUT, "%s: empty hostlist",
				    what);
				goto done;
			}
			if (want) {
				fail(&ps, i, "empty host after ','");
				goto done;
			}
			break;
		}
		if (ps.text[i] == ',') {
			if (want) {
				fail(&ps, i, "empty host before ','");
				goto done;
			}
			want = 1;
			i++;
			continue;
		}
		if (host(&ps, &i, max, &total) < 0)
			goto done;
		want = 0;
	}
	for (size_t k = 0; k < ps.nh; k++)
		emit(&ps, &ps.h[k], 0, buf, 0, out);
	rc = 0;
done:
	free(ps.r);
	free(ps.p);
	free(ps.h);
	return rc;
}
