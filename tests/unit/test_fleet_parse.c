/*
 * test_fleet_parse.c: ep_fl_parse, the fleet's fast manifest reader
 * (checker/fleet/fleet_parse.c), on hand-written manifests against the
 * manifest's own parser; the fuzz target fuzz_fleet_parse holds it to
 * that on any input.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "fleet_int.h"

#define SCHEMA	"\"schema\": \"envparity/manifest@1\""

struct kv {
	const char *k, *v;
	size_t vn;
};

static int
kv_order(const void *a, const void *b)
{
	return strcmp(((const struct kv *)a)->k, ((const struct kv *)b)->k);
}

/* The facts of o into out, sorted by key; how many. */
static size_t
pairs_sorted(struct kv *out, size_t cap, const struct fl_pairs *o)
{
	assert_true(o->n <= cap);
	for (size_t i = 0; i < o->n; i++) {
		out[i].k = o->buf + o->v[i].koff;
		out[i].v = o->buf + o->v[i].voff;
		out[i].vn = o->v[i].vlen;
		assert_int_equal(strlen(out[i].k), o->v[i].klen);
	}
	qsort(out, o->n, sizeof *out, kv_order);
	return o->n;
}

/* ep_fl_parse of text succeeds, and gives what ep_manifest_parse gives. */
static void
parse_both(const char *text, json_t **meta, struct fl_pairs *o)
{
	struct ep_manifest *m = NULL;
	struct ep_err err = { 0 };
	const char *k;
	json_t *v;

	if (ep_fl_parse(meta, o, text, strlen(text), "m.json", &err) < 0)
		fail_msg("%s", err.msg);
	if (ep_manifest_parse(&m, text, strlen(text), "m.json", &err) < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(o->n, json_object_size(m->facts));
	for (size_t i = 0; i < o->n; i++) {
		k = o->buf + o->v[i].koff;
		v = json_object_get(m->facts, k);
		assert_non_null(v);
		assert_int_equal(o->v[i].vlen, json_string_length(v));
		assert_memory_equal(o->buf + o->v[i].voff,
		    json_string_value(v), o->v[i].vlen);
	}
	assert_true(json_is_object(*meta));
	assert_true(json_equal(*meta, m->meta));
	ep_manifest_free(m);
}

/* The scanner's form (ASCII, no \u escape, the three known keys) and
 * the same manifest written so that only the fallback takes it (\u
 * escapes, another order) give the same facts, decoded, and metas that
 * are equal. */
static void
test_parse_fast_and_fallback(void **state)
{
	static const char fast[] = "{" SCHEMA ", \"meta\": {\"node\": "
	    "\"n1\", \"runs\": [1, 2.5, true, null, {\"a\": []}]}, "
	    "\"facts\": {\"b\": \"tab\\there\", \"a\\\"q\": \"x\\/y\\\\z\", "
	    "\"c\": \"\", \"e\": \"cafe\"}}";
	static const char slow[] = "{\"facts\": {\"c\": \"\", \"a\\\"q\": "
	    "\"x/y\\\\z\", \"e\": \"caf\\u0065\", \"b\": "
	    "\"tab\\u0009here\"}, \"meta\": {\"runs\": [1, 2.5, true, null, "
	    "{\"a\": []}], \"node\": \"n\\u0031\"}, " SCHEMA "}";
	struct fl_pairs o = { 0 }, o2 = { 0 };
	struct kv a[8], b[8];
	json_t *m1, *m2;

	(void)state;
	parse_both(fast, &m1, &o);
	assert_int_equal(pairs_sorted(a, 8, &o), 4);
	assert_string_equal(a[0].k, "a\"q");
	assert_string_equal(a[0].v, "x/y\\z");
	assert_string_equal(a[1].k, "b");
	assert_string_equal(a[1].v, "tab\there");
	assert_string_equal(a[2].k, "c");
	assert_string_equal(a[2].v, "");
	assert_int_equal(a[2].vn, 0);
	assert_string_equal(a[3].k, "e");
	assert_string_equal(a[3].v, "cafe");

	parse_both(slow, &m2, &o2);
	assert_int_equal(pairs_sorted(b, 8, &o2), 4);
	for (size_t i = 0; i < 4; i++) {
		assert_string_equal(a[i].k, b[i].k);
		assert_int_equal(a[i].vn, b[i].vn);
		assert_memory_equal(a[i].v, b[i].v, a[i].vn);
	}
	assert_true(json_equal(m1, m2));
	assert_string_equal(json_string_value(json_object_get(m2, "node")),
	    "n1");
	assert_int_equal(json_array_size(json_object_get(m2, "runs")), 5);
	json_decref(m1);
	json_decref(m2);
	ep_fl_pairs_free(&o2);

	/* The pairs reused, as the loader reuses them: only this
	 * manifest's facts; no meta is an empty object, on either path. */
	parse_both("{" SCHEMA ", \"facts\": {\"z\": \"1\"}}", &m1, &o);
	assert_int_equal(o.n, 1);
	assert_string_equal(o.buf + o.v[0].koff, "z");
	assert_string_equal(o.buf + o.v[0].voff, "1");
	assert_int_equal(json_object_size(m1), 0);
	json_decref(m1);
	parse_both("{\"facts\": {\"k\": \"\\u0041\"}, " SCHEMA "}", &m1, &o);
	assert_int_equal(o.n, 1);
	assert_string_equal(o.buf + o.v[0].voff, "A");
	assert_int_equal(json_object_size(m1), 0);
	json_decref(m1);

	/* UTF-8, raw and escaped (the fallback's): the same bytes. */
	parse_both("{" SCHEMA ", \"facts\": {\"k\\u00e9\": \"caf\xc3\xa9\", "
	    "\"s\": \"\\ud83d\\ude00\"}}", &m1, &o);
	assert_int_equal(pairs_sorted(a, 8, &o), 2);
	assert_string_equal(a[0].k, "k\xc3\xa9");
	assert_string_equal(a[0].v, "caf\xc3\xa9");
	assert_string_equal(a[1].k, "s");
	assert_string_equal(a[1].v, "\xf0\x9f\x98\x80");
	json_decref(m1);
	ep_fl_pairs_free(&o);
}

/* ep_fl_parse refuses text with ep_manifest_parse's message. */
static void
refused(const char *text, const char *msg)
{
	struct fl_pairs o = { 0 };
	struct ep_manifest *m = NULL;
	struct ep_err err = { 0 }, err2 = { 0 };
	json_t *meta = NULL;

	assert_int_equal(ep_fl_parse(&meta, &o, text, strlen(text),
	    "m.json", &err), -1);
	assert_null(meta);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_string_equal(err.msg, msg);
	assert_int_equal(ep_manifest_parse(&m, text, strlen(text), "m.json",
	    &err2), -1);
	assert_string_equal(err2.msg, msg);
	ep_fl_pairs_free(&o);
}

static void
test_parse_refused(void **state)
{
	(void)state;
	/* Cut short inside a value. */
	refused("{" SCHEMA ", \"facts\": {\"a\": \"1\", \"b\": \"2",
	    "m.json: not a manifest: line 1 column 62: premature end of "
	    "input near '\"2'");
	refused("{\"schema\": \"envparity/manifest@2\", \"facts\": {}}",
	    "m.json: unsupported manifest schema \"envparity/manifest@2\" "
	    "(this envparity reads \"envparity/manifest@1\")");
	refused("{\"facts\": {}}", "m.json: unsupported manifest schema "
	    "\"(none)\" (this envparity reads \"envparity/manifest@1\")");
	refused("{" SCHEMA ", \"meta\": {}}", "m.json: not a manifest: "
	    "\"facts\" and \"meta\" must be objects");
	refused("{" SCHEMA ", \"facts\": {\"\": \"v\"}}",
	    "m.json: a fact key is empty");
	refused("{" SCHEMA ", \"facts\": {\"a\": \"1\", \"b\": 2}}",
	    "m.json: fact \"b\" is not a string");
	refused("{" SCHEMA ", \"facts\": {}} x", "m.json: not a manifest: "
	    "line 1 column 49: end of file expected near 'x'");
	refused("{" SCHEMA ", \"meta\": {\"a\": 1, \"a\": 2}, \"facts\": {}}",
	    "m.json: not a manifest: line 1 column 55: duplicate object key "
	    "near '\"a\"'");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_fast_and_fallback),
		cmocka_unit_test(test_parse_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
