/*
 * hostlist_compress.c: node names compressed into one Slurm hostlist
 * (hostlist.h).  The names are sorted twice: once by the length of their
 * runs of digits, to choose each number's width (so that n10 can join
 * n09), once by width and number, to make ranges; each bracket's few
 * ranges are then sorted as Slurm writes them.
 */
#include "hostlist.h"
#include "hostlist_int.h"
#include "str.h"
#include "xalloc.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		    rec[k].cls ? rec[k].cls : ep_hostlist_ndigits(rec[k].v), rec[k].v,
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
