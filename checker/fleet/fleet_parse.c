/*
 * fleet_parse.c: reading a node manifest fast.  A fleet of 10,000 nodes
 * is 10,000 manifests of about a thousand facts; jansson builds a tree
 * of every one only to be read once (about 0.85 ms a manifest here), so
 * the fleet reads the form envparity itself writes with a scanner that
 * copies each fact's key and value into one buffer and hands meta, which
 * is small, to jansson.  Anything the scanner does not take for certain
 * (a \u escape, a byte above 0x7f, a key it does not know, a syntax
 * error, a duplicate) sends the whole text to ep_manifest_parse, so what
 * is accepted, and every error message, is exactly the manifest's own.
 */
#include <stdlib.h>
#include <string.h>

#include "fleet_int.h"
#include "errors.h"
#include "xalloc.h"

#define DEPTH_MAX	64

struct scan {
	const char *p, *end;
	struct fl_pairs *out;
};

static void
ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' ||
	    *s->p == '\t' || *s->p == '\r'))
		s->p++;
}

static int
expect(struct scan *s, char c)
{
	ws(s);
	if (s->p >= s->end || *s->p != c)
		return -1;
	s->p++;
	return 0;
}

static void
buf_put(struct fl_pairs *o, const char *b, size_t n)
{
	if (o->len + n + 1 > o->cap) {
		while (o->len + n + 1 > o->cap)
			o->cap = o->cap ? o->cap * 2 : 65536;
		o->buf = xrealloc(o->buf, o->cap);
	}
	memcpy(o->buf + o->len, b, n);
	o->len += n;
}

/* A string at s->p (after ws): decoded into o->buf when o is not NULL,
 * then a NUL; its offset and length in *off and *n.  -1: not one the
 * scanner takes. */
static int
string(struct scan *s, struct fl_pairs *o, size_t *off, size_t *n)
{
	const char *run;
	char c;

	ws(s);
	if (s->p >= s->end || *s->p != '"')
		return -1;
	s->p++;
	if (o != NULL)
		*off = o->len;
	run = s->p;
	for (;;) {
		if (s->p >= s->end)
			return -1;
		c = *s->p;
		if (c == '"' || c == '\\') {
			if (o != NULL)
				buf_put(o, run, (size_t)(s->p - run));
			s->p++;
			if (c == '"')
				break;
			if (s->p >= s->end)
				return -1;
			switch (*s->p++) {
			case '"': c = '"'; break;
			case '\\': c = '\\'; break;
			case '/': c = '/'; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			default: return -1;	/* \u and what is not JSON */
			}
			if (o != NULL)
				buf_put(o, &c, 1);
			run = s->p;
			continue;
		}
		if ((unsigned char)c < 0x20 || (unsigned char)c > 0x7f)
			return -1;
		s->p++;
	}
	if (o != NULL) {
		*n = o->len - *off;
		buf_put(o, "", 1);	/* each string ends in a NUL */
	}
	return 0;
}

static int
value(struct scan *s, int depth)
{
	size_t off, n;

	if (depth > DEPTH_MAX)
		return -1;
	ws(s);
	if (s->p >= s->end)
		return -1;
	switch (*s->p) {
	case '"':
		return string(s, NULL, &off, &n);
	case '{':
		s->p++;
		ws(s);
		if (s->p < s->end && *s->p == '}') {
			s->p++;
			return 0;
		}
		for (;;) {
			if (string(s, NULL, &off, &n) < 0 || expect(s, ':') < 0 ||
			    value(s, depth + 1) < 0)
				return -1;
			ws(s);
			if (s->p < s->end && *s->p == ',') {
				s->p++;
				continue;
			}
			return expect(s, '}');
		}
	case '[':
		s->p++;
		ws(s);
		if (s->p < s->end && *s->p == ']') {
			s->p++;
			return 0;
		}
		for (;;) {
			if (value(s, depth + 1) < 0)
				return -1;
			ws(s);
			if (s->p < s->end && *s->p == ',') {
				s->p++;
				continue;
			}
			return expect(s, ']');
		}
	default:
		/* A number or a literal; jansson judges meta's own. */
		if (strchr("-0123456789tfn", *s->p) == NULL)
			return -1;
		while (s->p < s->end && strchr("+-.0123456789eEtrufalsn",
		    *s->p) != NULL && *s->p != '\0')
			s->p++;
		return 0;
	}
}

static int
facts(struct scan *s, struct fl_pairs *o)
{
	struct fl_pair *pr;
	size_t koff, klen, voff, vlen;

	if (expect(s, '{') < 0)
		return -1;
	ws(s);
	if (s->p < s->end && *s->p == '}') {
		s->p++;
		return 0;
	}
	for (;;) {
		if (string(s, o, &koff, &klen) < 0 || klen == 0 ||
		    expect(s, ':') < 0 || string(s, o, &voff, &vlen) < 0)
			return -1;
		if (o->n == o->ncap) {
			o->ncap = o->ncap ? o->ncap * 2 : 1024;
			o->v = xreallocarray(o->v, o->ncap, sizeof *o->v);
		}
		pr = &o->v[o->n++];
		pr->koff = koff;
		pr->klen = klen;
		pr->voff = voff;
		pr->vlen = vlen;
		ws(s);
		if (s->p < s->end && *s->p == ',') {
			s->p++;
			continue;
		}
		return expect(s, '}');
	}
}

/* The fast path: 0, or -1 for "let ep_manifest_parse decide". */
static int
scan_manifest(json_t **meta, const char *text, size_t len,
    struct fl_pairs *o)
{
	struct scan s = { text, text + len, o };
	const char *mstart = NULL, *mend = NULL, *key;
	size_t off, n, mark;
	int seen = 0, bit;
	json_error_t je;

	if (expect(&s, '{') < 0)
		return -1;
	for (;;) {
		mark = o->len;
		if (string(&s, o, &off, &n) < 0 || expect(&s, ':') < 0)
			return -1;
		key = o->buf + off;
		bit = strcmp(key, "schema") == 0 ? 1 :
		    strcmp(key, "meta") == 0 ? 2 :
		    strcmp(key, "facts") == 0 ? 4 : 0;
		o->len = mark;
		if (bit == 0 || (seen & bit))
			return -1;
		seen |= bit;
		if (bit == 1) {
			if (string(&s, o, &off, &n) < 0)
				return -1;
			if (strcmp(o->buf + off, EP_MANIFEST_SCHEMA) != 0)
				return -1;
			o->len = mark;
		} else if (bit == 2) {
			ws(&s);
			mstart = s.p;
			if (s.p >= s.end || *s.p != '{' || value(&s, 0) < 0)
				return -1;
			mend = s.p;
		} else if (facts(&s, o) < 0)
			return -1;
		ws(&s);
		if (s.p < s.end && *s.p == ',') {
			s.p++;
			continue;
		}
		if (expect(&s, '}') < 0)
			return -1;
		break;
	}
	ws(&s);
	if (s.p != s.end || !(seen & 1) || !(seen & 4))
		return -1;
	*meta = mstart != NULL ? json_loadb(mstart, (size_t)(mend - mstart),
	    JSON_REJECT_DUPLICATES, &je) : json_object();
	return *meta != NULL ? 0 : -1;
}

void
ep_fl_pairs_reset(struct fl_pairs *o)
{
	o->n = 0;
	o->len = 0;
}

void
ep_fl_pairs_free(struct fl_pairs *o)
{
	free(o->v);
	free(o->buf);
	memset(o, 0, sizeof *o);
}

int
ep_fl_parse(json_t **meta, struct fl_pairs *o, const char *text, size_t len,
    const char *name, struct ep_err *err)
{
	struct ep_manifest *m = NULL;
	const char *k;
	size_t koff, voff;
	json_t *v;

	*meta = NULL;
	ep_fl_pairs_reset(o);
	if (scan_manifest(meta, text, len, o) == 0)
		return 0;
	/* ep_manifest_parse decides, and says why when it refuses. */
	ep_fl_pairs_reset(o);
	if (ep_manifest_parse(&m, text, len, name, err) < 0)
		return -1;
	json_object_foreach(m->facts, k, v) {
		struct fl_pair *pr;

		koff = o->len;
		buf_put(o, k, strlen(k) + 1);
		voff = o->len;
		buf_put(o, json_string_value(v), json_string_length(v) + 1);
		if (o->n == o->ncap) {
			o->ncap = o->ncap ? o->ncap * 2 : 1024;
			o->v = xreallocarray(o->v, o->ncap, sizeof *o->v);
		}
		pr = &o->v[o->n++];
		pr->koff = koff;
		pr->klen = strlen(k);
		pr->voff = voff;
		pr->vlen = json_string_length(v);
	}
	*meta = json_incref(m->meta);
	ep_manifest_free(m);
	return 0;
}
