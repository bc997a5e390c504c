/*
 * fuzz_fleet_parse.c: the fleet's fast manifest reader (ep_fl_parse,
 * fleet_int.h) against the manifest's own parser (ep_manifest_parse),
 * its oracle.  fleet_int.h promises that ep_fl_parse accepts and refuses
 * exactly what ep_manifest_parse does, with its messages, and gives the
 * same facts and an equal meta.  One allowance, as the fleet's loader
 * makes it: a duplicate fact key may pass ep_fl_parse (its fast path does
 * not look), and load_file, finding it after interning, refuses the node
 * with ep_manifest_parse's own message; so "accepted with a duplicate
 * key" is held to be a refusal there, and ep_manifest_parse must refuse
 * it as a duplicate.
 *
 * One fl_pairs is kept across inputs, as the loader keeps one across
 * files: what one manifest left must not show in the next.
 */
#include <jansson.h>

#include "fleet_int.h"
#include "fuzz.h"
#include "manifest.h"

/* A fact as bytes with their lengths (a key or value may hold a NUL). */
struct fact {
	const char *k, *v;
	size_t kn, vn;
};

static int
bytes_cmp(const char *a, size_t an, const char *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	if (c != 0)
		return c;
	return (an > bn) - (an < bn);
}

static int
fact_order(const void *a, const void *b)
{
	const struct fact *x = a, *y = b;
	int c = bytes_cmp(x->k, x->kn, y->k, y->kn);

	return c != 0 ? c : bytes_cmp(x->v, x->vn, y->v, y->vn);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fl_pairs o;
	struct ep_manifest *m = NULL;
	struct ep_err e1 = { 0 }, e2 = { 0 };
	struct fact *fast = NULL, *slow = NULL;
	json_t *meta = (json_t *)&o;	/* must be set to NULL on refusal */
	const char *text = (const char *)data;
	size_t n = 0, i;
	void *it;
	int r1, r2, dup = 0;

	r1 = ep_fl_parse(&meta, &o, text, size, "fuzz", &e1);
	r2 = ep_manifest_parse(&m, text, size, "fuzz", &e2);
	FZ_CHECK(r1 == 0 || r1 == -1);
	FZ_CHECK((r2 == 0) == (m != NULL));

	if (r1 < 0) {
		/* Refused: by both, in the same words. */
		FZ_CHECK(meta == NULL);
		FZ_CHECK(r2 < 0);
		FZ_CHECK(e1.kind == EP_E_INPUT && e2.kind == EP_E_INPUT);
		FZ_CHECK(strcmp(e1.msg, e2.msg) == 0);
		return 0;
	}

	FZ_CHECK(json_is_object(meta));
	/* Each string lies in the buffer and ends in a NUL there. */
	fast = xcalloc(o.n ? o.n : 1, sizeof *fast);
	for (i = 0; i < o.n; i++) {
		const struct fl_pair *p = &o.v[i];

		FZ_CHECK(p->koff + p->klen < o.len);
		FZ_CHECK(p->voff + p->vlen < o.len);
		FZ_CHECK(o.buf[p->koff + p->klen] == '\0');
		FZ_CHECK(o.buf[p->voff + p->vlen] == '\0');
		FZ_CHECK(p->klen > 0);
		fast[i].k = o.buf + p->koff;
		fast[i].kn = p->klen;
		fast[i].v = o.buf + p->voff;
		fast[i].vn = p->vlen;
	}
	if (o.n > 1)
		qsort(fast, o.n, sizeof *fast, fact_order);
	for (i = 1; i < o.n; i++)
		if (bytes_cmp(fast[i - 1].k, fast[i - 1].kn, fast[i].k,
		    fast[i].kn) == 0)
			dup = 1;

	if (dup) {
		/* load_file refuses the node with ep_manifest_parse's
		 * message: it must have one, and be about the duplicate. */
		FZ_CHECK(r2 < 0);
		FZ_CHECK(strstr(e2.msg, "duplicate object key") != NULL);
		goto done;
	}

	/* Accepted by both: the same facts, an equal meta. */
	FZ_CHECK(r2 == 0);
	FZ_CHECK(json_object_size(m->facts) == o.n);
	slow = xcalloc(o.n ? o.n : 1, sizeof *slow);
	for (it = json_object_iter(m->facts); it != NULL;
	    it = json_object_iter_next(m->facts, it)) {
		json_t *v = json_object_iter_value(it);

		FZ_CHECK(n < o.n && json_is_string(v));
		slow[n].k = json_object_iter_key(it);
		slow[n].kn = json_object_iter_key_len(it);
		slow[n].v = json_string_value(v);
		slow[n].vn = json_string_length(v);
		n++;
	}
	FZ_CHECK(n == o.n);
	if (n > 1)
		qsort(slow, n, sizeof *slow, fact_order);
	for (i = 0; i < n; i++) {
		FZ_CHECK(fast[i].kn == slow[i].kn && memcmp(fast[i].k,
		    slow[i].k, fast[i].kn) == 0);
		FZ_CHECK(fast[i].vn == slow[i].vn && memcmp(fast[i].v,
		    slow[i].v, fast[i].vn) == 0);
	}
	FZ_CHECK(json_is_object(m->meta));
	FZ_CHECK(json_equal(meta, m->meta));
done:
	free(fast);
	free(slow);
	json_decref(meta);
	ep_manifest_free(m);
	return 0;
}
