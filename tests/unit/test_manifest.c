/* test_manifest.c: facts, meta, byte-stable serialization, parsing. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "errors.h"
#include "xalloc.h"

static void
test_set_get_replace(void **state)
{
	struct ep_manifest *m = ep_manifest_new();

	(void)state;
	ep_manifest_set(m, "python.pkg.numpy", "1.26.4");
	ep_manifest_setf(m, "cpu.count", "%d", 2);
	ep_manifest_set(m, "python.pkg.numpy", "2.0.0");
	assert_string_equal(ep_manifest_get(m, "python.pkg.numpy"), "2.0.0");
	assert_string_equal(ep_manifest_get(m, "cpu.count"), "2");
	assert_null(ep_manifest_get(m, "nope"));
	ep_manifest_free(m);
	ep_manifest_free(NULL);
}

static void
test_dump_sorted_and_stable(void **state)
{
	struct ep_manifest *a = ep_manifest_new(), *b = ep_manifest_new();
	char *sa, *sb;

	(void)state;
	/* Same facts, inserted in different orders, give the same bytes. */
	ep_manifest_set(a, "z.last", "1");
	ep_manifest_set(a, "a.first", "2");
	ep_manifest_set(a, "m.mid", "3");
	ep_manifest_set(b, "m.mid", "3");
	ep_manifest_set(b, "a.first", "2");
	ep_manifest_set(b, "z.last", "1");
	assert_int_equal(ep_manifest_dump(&sa, a, NULL), 0);
	assert_int_equal(ep_manifest_dump(&sb, b, NULL), 0);
	assert_string_equal(sa, sb);
	assert_string_equal(sa,
	    "{\n"
	    "  \"facts\": {\n"
	    "    \"a.first\": \"2\",\n"
	    "    \"m.mid\": \"3\",\n"
	    "    \"z.last\": \"1\"\n"
	    "  },\n"
	    "  \"meta\": {},\n"
	    "  \"schema\": \"envparity/manifest@1\"\n"
	    "}\n");
	free(sa);
	free(sb);
	ep_manifest_free(a);
	ep_manifest_free(b);
}

static void
test_invalid_utf8_becomes_replacement(void **state)
{
	struct ep_manifest *m = ep_manifest_new();

	(void)state;
	ep_manifest_set(m, "cpu.model", "bad \xff byte");
	assert_string_equal(ep_manifest_get(m, "cpu.model"),
	    "bad \xef\xbf\xbd byte");
	ep_manifest_free(m);
}

static void
test_meta(void **state)
{
	struct ep_manifest *m = ep_manifest_new();
	json_t *u, *w;

	(void)state;
	ep_manifest_unavailable(m, "gpu", "%s not found", "libnvidia-ml.so.1");
	ep_manifest_unavailable(m, "gpu", "a second reason is ignored");
	ep_manifest_warn(m, "one");
	ep_manifest_warn(m, "two %d", 2);
	u = json_object_get(m->meta, "unavailable");
	assert_string_equal(json_string_value(json_object_get(u, "gpu")),
	    "libnvidia-ml.so.1 not found");
	w = json_object_get(m->meta, "warnings");
	assert_int_equal(json_array_size(w), 2);
	assert_string_equal(json_string_value(json_array_get(w, 1)), "two 2");
	ep_manifest_free(m);
}

static void
test_parse_roundtrip(void **state)
{
	struct ep_manifest *m = ep_manifest_new(), *p;
	struct ep_err err = { 0 };
	char *s, *s2;

	(void)state;
	ep_manifest_set(m, "lib.cudnn.version", "9.19.0");
	ep_manifest_meta_set(m, "host", "h");
	assert_int_equal(ep_manifest_dump(&s, m, &err), 0);
	assert_int_equal(ep_manifest_parse(&p, s, strlen(s), "t", &err), 0);
	assert_string_equal(ep_manifest_get(p, "lib.cudnn.version"), "9.19.0");
	assert_int_equal(ep_manifest_dump(&s2, p, &err), 0);
	assert_string_equal(s, s2);
	free(s);
	free(s2);
	ep_manifest_free(m);
	ep_manifest_free(p);
}

/* How many facts a waiver's glob names: 0 is the typo waive warns of. */
static void
test_matching(void **state)
{
	struct ep_manifest *m = ep_manifest_new();

	(void)state;
	assert_int_equal(ep_manifest_matching(m, "python.pkg.click"), 0);
	ep_manifest_set(m, "python.pkg.click", "8.1.7");
	ep_manifest_set(m, "lib.cudnn.sha256", "ab");
	ep_manifest_set(m, "lib.cublas.sha256", "cd");
	assert_int_equal(ep_manifest_matching(m, "python.pkg.click"), 1);
	assert_int_equal(ep_manifest_matching(m, "python.pkg.clik"), 0);
	assert_int_equal(ep_manifest_matching(m, "python.pkg.click*"), 1);
	assert_int_equal(ep_manifest_matching(m, "lib.*.sha256"), 2);
	assert_int_equal(ep_manifest_matching(m, "lib.cu[bd]*.sha256"), 2);
	assert_int_equal(ep_manifest_matching(m, "lib.*.version"), 0);
	/* A glob matches whole keys: a prefix is no match. */
	assert_int_equal(ep_manifest_matching(m, "python.pkg"), 0);
	ep_manifest_free(m);
}

static void
expect_parse_error(const char *text, const char *needle)
{
	struct ep_manifest *p = (void *)1;
	struct ep_err err = { 0 };

	assert_int_equal(ep_manifest_parse(&p, text, strlen(text), "golden.json",
	    &err), -1);
	assert_null(p);
	assert_int_equal(err.kind, EP_E_INPUT);
	if (strstr(err.msg, needle) == NULL || strstr(err.msg, "golden.json") == NULL)
		fail_msg("message \"%s\" lacks \"%s\" or the input name",
		    err.msg, needle);
}

static void
test_parse_errors(void **state)
{
	(void)state;
	expect_parse_error("{\"schema\": ", "line 1");
	expect_parse_error("[]", "not an object");
	expect_parse_error("{\"schema\": \"envparity/manifest@0\", \"facts\": {}}",
	    "unsupported manifest schema \"envparity/manifest@0\"");
	expect_parse_error("{\"facts\": {}}", "(none)");
	expect_parse_error("{\"schema\": \"envparity/manifest@1\", \"facts\": []}",
	    "must be objects");
	expect_parse_error("{\"schema\": \"envparity/manifest@1\", "
	    "\"facts\": {\"cpu.count\": 2}}", "fact \"cpu.count\" is not a string");
	expect_parse_error("{\"schema\": \"envparity/manifest@1\", "
	    "\"facts\": {\"\": \"x\"}}", "a fact key is empty");
	expect_parse_error("{\"schema\": \"envparity/manifest@1\", \"facts\": "
	    "{\"a.b\": \"1\", \"a.b\": \"2\"}}", "duplicate");
}

/* meta.warnings: bounded in count and size, URLs' passwords never kept. */
static void
test_warnings_capped(void **state)
{
	struct ep_manifest *m = ep_manifest_new();
	json_t *w;
	char *big = xmalloc(5000);

	(void)state;
	memset(big, 'a', 4999);
	big[4999] = '\0';
	ep_manifest_warn(m, "%s", big);
	ep_manifest_warn(m, "index https://user:s3cret@pypi.example/simple");
	for (int i = 0; i < EP_WARNINGS_MAX + 48; i++)
		ep_manifest_warn(m, "warning %d", i);
	w = json_object_get(m->meta, "warnings");
	assert_int_equal(json_array_size(w), EP_WARNINGS_MAX + 1);
	assert_true(strlen(json_string_value(json_array_get(w, 0))) <=
	    EP_WARNING_BYTES + 3);
	assert_string_equal(json_string_value(json_array_get(w, 1)),
	    "index https://***@pypi.example/simple");
	assert_string_equal(json_string_value(json_array_get(w,
	    EP_WARNINGS_MAX)), "and 50 more warnings not recorded (at most "
	    "200 are)");
	free(big);
	ep_manifest_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_get_replace),
		cmocka_unit_test(test_dump_sorted_and_stable),
		cmocka_unit_test(test_invalid_utf8_becomes_replacement),
		cmocka_unit_test(test_meta),
		cmocka_unit_test(test_parse_roundtrip),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_warnings_capped),
		cmocka_unit_test(test_matching),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
