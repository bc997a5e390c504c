/*
 * hostlist.c: Slurm hostlist syntax, expanded and compressed (the rules
 * and where they part from Slurm's are in hostlist.h).
 *
 * Expansion reads the whole list first, checking everything and counting
 * the names each host gives (saturating, without making any), so that
 * "n[0-999999999]" is refused before a byte is allocated for it and a
 * failed call leaves out as it was; only then are the names written.
 * Compression sorts the names twice: once by the length of their runs
 * of digits, to choose each number's width (so that n10 can join n09),
 * once by width and number, to make ranges; each bracket's few ranges
 * are then sorted as Slurm writes them.
 */
#include "hostlist.h"

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

static size_t
ndigits(uint64_t v)
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
		if (ndigits(hi) > *widest)
			*widest = ndigits(hi);
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

/* ---- compression ---- */

/* A name split at its last run of digits; a name without one (or whose
 * run exceeds 2^64-1) is all prefix, with digits == 0. */
struct rec {
	const char *name;
	size_t plen;		/* prefix: name[0 .. plen) */
	size_t soff, slen;	/* suffix: name[soff .. soff + slen) */
	size_t digits;		/* length of the run */
	int padded;		/* it has a leading zero */
	size_t cls;		/* 0 unpadded, else the padded width */
	uint64_t v;
};

/* One range of a bracket, and the width its lower bound is written in
 * (what Slurm orders a bracket's ranges by). */
struct crange {
	size_t cls, width;
	uint64_t lo, hi;
};

/* Natural order, as Slurm sorts prefixes (strnatcmp): runs of digits
 * compare as numbers, so r2n1 comes before r10n1; texts that differ only
 * in leading zeros then compare byte by byte, so that only equal texts
 * are equal. */
static int
cmp_nat(const char *a, size_t an, const char *b, size_t bn)
{
	size_t i = 0, j = 0;
	int c;

	while (i < an && j < bn) {
		if (ep_ascii_digit((unsigned char)a[i]) &&
		    ep_ascii_digit((unsigned char)b[j])) {
			size_t ie, je;

			while (i + 1 < an && a[i] == '0' &&
			    ep_ascii_digit((unsigned char)a[i + 1]))
				i++;
			while (j + 1 < bn && b[j] == '0' &&
			    ep_ascii_digit((unsigned char)b[j + 1]))
				j++;
			for (ie = i; ie < an &&
			    ep_ascii_digit((unsigned char)a[ie]); ie++)
				;
			for (je = j; je < bn &&
			    ep_ascii_digit((unsigned char)b[je]); je++)
				;
			if (ie - i != je - j)
				return ie - i < je - j ? -1 : 1;
			if ((c = memcmp(a + i, b + j, ie - i)) != 0)
				return c;
			i = ie;
			j = je;
			continue;
		}
		if (a[i] != b[j])
			return (unsigned char)a[i] < (unsigned char)b[j] ? -1 : 1;
		i++;
		j++;
	}
	if (i < an || j < bn)
		return (i < an) - (j < bn);
	c = memcmp(a, b, an < bn ? an : bn);
	return c != 0 ? c : (an > bn) - (an < bn);
}

/* Prefix, suffix, then numbered after not. */
static int
cmp_block(const struct rec *a, const struct rec *b)
{
	int c;

	if ((c = cmp_nat(a->name, a->plen, b->name, b->plen)) != 0)
		return c;
	if ((c = cmp_nat(a->name + a->soff, a->slen, b->name + b->soff,
	    b->slen)) != 0)
		return c;
	return (a->digits > 0) - (b->digits > 0);
}

/* For choosing widths: block, run length, padded first, number. */
static int
cmp_len(const void *pa, const void *pb)
{
	const struct rec *a = pa, *b = pb;
	int c;

	if ((c = cmp_block(a, b)) != 0)
		return c;
	if (a->digits != b->digits)
		return a->digits < b->digits ? -1 : 1;
	if (a->padded != b->padded)
		return b->padded - a->padded;
	return (a->v > b->v) - (a->v < b->v);
}

/* For making ranges: block, width (unpadded first), number.  Names
 * without digits are their block: the whole name is the prefix. */
static int
cmp_out(const void *pa, const void *pb)
{
	const struct rec *a = pa, *b = pb;
	int c;

	if ((c = cmp_block(a, b)) != 0)
		return c;
	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	return (a->v > b->v) - (a->v < b->v);
}

/* A bracket's ranges as Slurm sorts them: by the width the lower bound
 * is written in, then by number. */
static int
cmp_crange(const void *pa, const void *pb)
{
	const struct crange *a = pa, *b = pb;

	if (a->width != b->width)
		return a->width < b->width ? -1 : 1;
	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return (a->cls > b->cls) - (a->cls < b->cls);
}

static void
split(struct rec *r, const char *name)
{
	size_t len = strlen(name), end = len, start, i;
	uint64_t v = 0;

	*r = (struct rec){ .name = name, .plen = len, .soff = len };
	while (end > 0 && !ep_ascii_digit((unsigned char)name[end - 1]))
		end--;
	if (end == 0)
		return;
	start = end;
	while (start > 0 && ep_ascii_digit((unsigned char)name[start - 1]))
		start--;
	for (i = start; i < end; i++) {
		unsigned d = (unsigned)(name[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return;		/* listed as it is */
		v = v * 10 + d;
	}
	r->plen = start;
	r->soff = end;
	r->slen = len - end;
	r->digits = end - start;
	r->padded = r->digits > 1 && name[start] == '0';
	r->v = v;
}

/* The widths of the names rec[i .. j), one block's runs of one length
 * (sorted by cmp_len): the padded have theirs; the unpadded are unpadded,
 * except that the run 10, 11, ... (100, 101, ...) continues a padded 09
 * (099), as Slurm joins n09 and n10 into n[09-10]. */
static void
set_widths(struct rec *rec, size_t i, size_t j)
{
	size_t k, len = rec[i].digits;
	uint64_t next = 1;

	for (k = i; k < j && rec[k].padded; k++)
		rec[k].cls = len;
	for (size_t m = k; m < j; m++)
		rec[m].cls = 0;
	/* 10^(len-1), the first unpadded number of this length; any
	 * unpadded run of more than 20 digits is above 2^64-1. */
	if (k == i || len > 20)
		return;
	for (size_t d = 1; d < len; d++)
		next *= 10;
	if (rec[k - 1].v != next - 1)
		return;
	for (; k < j && (rec[k].v == next || rec[k].v + 1 == next); k++) {
		rec[k].cls = len;
		next = rec[k].v == UINT64_MAX ? 0 : rec[k].v + 1;
	}
}

struct buf {
	char *s;
	size_t len, cap;
};

static void
put(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		while (b->len + n + 1 > b->cap)
			b->cap = b->cap ? 2 * b->cap : 256;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void
put_num(struct buf *b, size_t cls, uint64_t v)
{
	char num[EP_HOSTLIST_NAME_MAX + 24];
	int n = snprintf(num, sizeof num, "%0*" PRIu64, (int)cls, v);

	put(b, num, (size_t)n);
}

/* The numbered names rec[i .. j) of one block (sorted by cmp_out,
 * duplicates included) as prefix[ranges]suffix, or bare when there is
 * one name; cr is scratch room for j - i ranges. */
static void
put_block(struct buf *b, const struct rec *rec, size_t i, size_t j,
    struct crange *cr)
{
	const struct rec *r = &rec[i];
	size_t k, nr = 0;

	for (k = i; k < j;) {
		size_t m = k;

		/* On while the next is the same width and the same number
		 * (a duplicate) or the next one. */
		while (m + 1 < j && rec[m + 1].cls == rec[k].cls &&
		    (rec[m + 1].v == rec[m].v || (rec[m].v != UINT64_MAX &&
		    rec[m + 1].v == rec[m].v + 1)))
			m++;
		cr[nr++] = (struct crange){ rec[k].cls,
		    rec[k].cls ? rec[k].cls : ndigits(rec[k].v), rec[k].v,
		    rec[m].v };
		k = m + 1;
	}
	if (nr == 1 && cr[0].lo == cr[0].hi) {
		put(b, r->name, strlen(r->name));
		return;
	}
	qsort(cr, nr, sizeof *cr, cmp_crange);
	put(b, r->name, r->plen);
	put(b, "[", 1);
	for (k = 0; k < nr; k++) {
		if (k > 0)
			put(b, ",", 1);
		put_num(b, cr[k].cls, cr[k].lo);
		if (cr[k].hi != cr[k].lo) {
			put(b, "-", 1);
			put_num(b, cr[k].cls, cr[k].hi);
		}
	}
	put(b, "]", 1);
	put(b, r->name + r->soff, r->slen);
}

char *
ep_hostlist_compress(const char *const *names, size_t n)
{
	struct buf b = { 0 };
	struct crange *cr;
	struct rec *rec;
	size_t i, j;

	put(&b, "", 0);
	if (n == 0)
		return b.s;
	rec = xreallocarray(NULL, n, sizeof *rec);
	cr = xreallocarray(NULL, n, sizeof *cr);
	for (i = 0; i < n; i++)
		split(&rec[i], names[i]);

	qsort(rec, n, sizeof *rec, cmp_len);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && cmp_block(&rec[i], &rec[j]) == 0 &&
		    rec[j].digits == rec[i].digits; j++)
			;
		if (rec[i].digits > 0)
			set_widths(rec, i, j);
	}

	qsort(rec, n, sizeof *rec, cmp_out);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && cmp_block(&rec[i], &rec[j]) == 0; j++)
			;
		if (i > 0)
			put(&b, ",", 1);
		if (rec[i].digits > 0)
			put_block(&b, rec, i, j, cr);
		else	/* one name, maybe repeated */
			put(&b, rec[i].name, rec[i].plen);
	}
	free(cr);
	free(rec);
	return b.s;
}
