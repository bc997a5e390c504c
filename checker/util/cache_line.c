/*
 * cache_line.c: the hash cache file's text (cache_int.h): one entry line
 * read and written, and the checksum of the body that the trailer holds.
 * The map itself (memory, look-ups, load and save) is cache.c's.
 */
#include "cache_int.h"
#include "xalloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t
ep_cache_mix64(uint64_t x)
{
	/* splitmix64's finalizer: every input bit moves every output bit. */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

/*
 * The file's checksum, eight bytes at a step.  Each step is a bijection of
 * the state for a given word and of the word for a given state, so any
 * change confined to one word always changes the result.
 */
uint64_t
ep_cache_checksum(const char *p, size_t len)
{
	uint64_t h = 0x243f6a8885a308d3ULL ^ len, w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, p, len);
	h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	return ep_cache_mix64(h);
}

/* A kind is one word; "end" would read as the trailer. */
int
ep_cache_kind_valid(const char *kind)
{
	const unsigned char *p = (const unsigned char *)kind;

	if (*p == '\0' || strcmp(kind, "end") == 0)
		return 0;
	for (; *p != '\0'; p++)
		if (*p <= ' ' || *p == 0x7f)
			return 0;
	return 1;
}

uint32_t
ep_cache_kind_hash(const char *kind)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *kind != '\0'; kind++)
		h = (h ^ (unsigned char)*kind) * 0x100000001b3ULL;
	return (uint32_t)(h ^ (h >> 32));
}

/* Parse an unsigned 64-bit decimal ending at stop. */
static int
parse_dec(uint64_t *out, char **pp, char stop)
{
	char *p = *pp;
	uint64_t v = 0, d;

	if (*p < '0' || *p > '9')
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		d = (uint64_t)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	if (*p != stop)
		return -1;
	*out = v;
	*pp = p + 1;
	return 0;
}

static int
parse_signed(int64_t *out, char **pp, char stop)
{
	uint64_t v;
	int neg = **pp == '-';

	*pp += neg;
	if (parse_dec(&v, pp, stop) < 0 || v > INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int
parse_time(int64_t *sec, int32_t *nsec, char **pp)
{
	uint64_t ns;

	if (parse_signed(sec, pp, '.') < 0 || parse_dec(&ns, pp, ' ') < 0 ||
	    ns > 999999999)
		return -1;
	*nsec = (int32_t)ns;
	return 0;
}

/* Parse one entry line (NUL-terminated in place of its newline); kind
 * and value are cut and unescaped where they lie. */
int
ep_cache_line_parse(struct ep_cache_entry *e, char *p)
{
	char *sp = strchr(p, ' '), *o;
	uint64_t size;

	memset(e, 0, sizeof *e);
	if (sp == NULL)
		return -1;
	*sp = '\0';
	if (!ep_cache_kind_valid(p))
		return -1;
	e->kind = p;
	e->khash = ep_cache_kind_hash(p);
	p = sp + 1;
	if (parse_dec(&e->dev, &p, ' ') < 0 ||
	    parse_dec(&e->ino, &p, ' ') < 0 ||
	    parse_dec(&size, &p, ' ') < 0 || size > INT64_MAX ||
	    parse_time(&e->msec, &e->mnsec, &p) < 0 ||
	    parse_time(&e->csec, &e->cnsec, &p) < 0)
		return -1;
	e->size = (int64_t)size;
	e->value = o = p;
	for (; *p != '\0'; p++) {
		if (*p != '\\') {
			*o++ = *p;
			continue;
		}
		if (p[1] == '\\')
			*o++ = '\\';
		else if (p[1] == 'n')
			*o++ = '\n';
		else
			return -1;
		p++;
	}
	*o = '\0';
	return 0;
}

void
ep_cache_buf_add(struct ep_cache_buf *b, const char *s, size_t len)
{
	if (b->n + len + 1 > b->cap) {
		while (b->n + len + 1 > b->cap)
			b->cap = b->cap ? b->cap * 2 : 65536;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, s, len);
	b->n += len;
	b->p[b->n] = '\0';
}

void
ep_cache_line_write(struct ep_cache_buf *b, const struct ep_cache_entry *e)
{
	char num[160];
	const char *v, *run;
	int len;

	len = snprintf(num, sizeof num, " %" PRIu64 " %" PRIu64 " %" PRId64
	    " %" PRId64 ".%09" PRId32 " %" PRId64 ".%09" PRId32 " ", e->dev,
	    e->ino, e->size, e->msec, e->mnsec, e->csec, e->cnsec);
	ep_cache_buf_add(b, e->kind, strlen(e->kind));
	ep_cache_buf_add(b, num, (size_t)len);
	for (v = run = e->value; *v != '\0'; v++) {
		if (*v != '\\' && *v != '\n')
			continue;
		ep_cache_buf_add(b, run, (size_t)(v - run));
		ep_cache_buf_add(b, *v == '\\' ? "\\\\" : "\\n", 2);
		run = v + 1;
	}
	ep_cache_buf_add(b, run, (size_t)(v - run));
	ep_cache_buf_add(b, "\n", 1);
}
