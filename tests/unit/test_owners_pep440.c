/*
 * test_owners_pep440.c: pypa/packaging's own cases for versions and
 * specifiers (tests/fixtures/owners/packaging), run through vercmp: which
 * strings are versions, which spellings are equal, the order of packaging's
 * sorted VERSIONS list, which ranges parse, and which versions a range
 * holds.  envparity admits pre-releases in every range (a policy checks a
 * machine's version, it does not choose one), so the rows whose answer
 * rests on prereleases=False are left out when the table is extracted.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "owners.h"
#include "vercmp.h"
#include "verrange.h"

static json_t *versions, *specifiers;

static int
setup(void **state)
{
	(void)state;
	versions = ow_load("packaging/versions.json");
	specifiers = ow_load("packaging/specifiers.json");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	json_decref(versions);
	json_decref(specifiers);
	return 0;
}

static void
versions_valid(void **state)
{
	struct ow_tally t = { .owner = "packaging",
	    .table = "versions valid" };
	json_t *v;
	size_t i;

	(void)state;
	json_array_foreach(ow_array(versions, "valid"), i, v) {
		const char *s = json_string_value(v);
		char *q = ow_quote(s);

		ow_case(&t, ep_version_valid(s) && ep_version_pep440(s), 0,
		    "%s is a version", q);
		free(q);
	}
	ow_done(&t);
}

static void
versions_invalid(void **state)
{
	struct ow_tally t = { .owner = "packaging",
	    .table = "versions invalid" };
	json_t *v;
	size_t i;

	(void)state;
	json_array_foreach(ow_array(versions, "invalid"), i, v) {
		const char *s = json_string_value(v);
		char *q = ow_quote(s);

		ow_case(&t, !ep_version_valid(s) && !ep_version_pep440(s), 0,
		    "%s is not a version", q);
		free(q);
	}
	ow_done(&t);
}

static void
versions_equal(void **state)
{
	struct ow_tally t = { .owner = "packaging",
	    .table = "versions equal" };
	json_t *row;
	size_t i;

	(void)state;
	json_array_foreach(ow_array(versions, "equal"), i, row) {
		const char *a = json_string_value(json_array_get(row, 0));
		const char *b = json_string_value(json_array_get(row, 1));
		char *qa = ow_quote(a), *qb = ow_quote(b);

		ow_case(&t, ep_vercmp(a, b) == 0 && ep_vercmp(b, a) == 0, 0,
		    "%s == %s (%s)", qa, qb,
		    json_string_value(json_array_get(row, 2)));
		free(qa);
		free(qb);
	}
	ow_done(&t);
}

/* Every pair of packaging's VERSIONS, which are listed in order. */
static void
versions_order(void **state)
{
	struct ow_tally t = { .owner = "packaging",
	    .table = "versions order (pairs)" };
	json_t *list = ow_array(versions, "sorted");
	size_t n = json_array_size(list);

	(void)state;
	for (size_t i = 0; i < n; i++) {
		const char *a = json_string_value(json_array_get(list, i));

		for (size_t j = i; j < n; j++) {
			const char *b = json_string_value(json_array_get(list,
			    j));
			int want = i == j ? 0 : -1, c1 = ep_vercmp(a, b),
			    c2 = ep_vercmp(b, a);

			ow_case(&t, c1 == want && c2 == -want, 0, "%s %s %s",
			    a, want == 0 ? "==" : "<", b);
		}
	}
	ow_done(&t);
}

static void
specifiers_valid(void **state)
{
	struct ow_tally t = { .owner = "packaging",
	    .table = "specifiers valid" };
	struct ep_verrange *r;
	json_t *v;
	size_t i;

	(void)state;
	json_array_foreach(ow_array(specifiers, "valid"), i, v) {
		struct ep_err err = { 0 };
		const char *s = json_string_value(v);
		int ok = ep_verrange_parse(&r, s, &err) == 0;

		ow_case(&t, ok, 0, "%s parses: %s", s, err.msg);
		ep_verrange_free(r);
	}
	ow_done(&t);
}

static void
specifiers_invalid(void **state)
{
	struct ow_tally t = { .owner = "packaging",
	    .table = "specifiers invalid" };
	struct ep_verrange *r;
	json_t *v;
	size_t i;

	(void)state;
	json_array_foreach(ow_array(specifiers, "invalid"), i, v) {
		struct ep_err err = { 0 };
		const char *s = json_string_value(v);
		char *q = ow_quote(s);

		ow_case(&t, ep_verrange_parse(&r, s, &err) < 0, 0,
		    "%s is refused", q);
		ep_verrange_free(r);
		free(q);
	}
	ow_done(&t);
}

/* [range, version, expected, table]: a version that is not a version is
 * in no range but one of === clauses only, as packaging says. */
static void
specifiers_contains(void **state)
{
	struct ow_tally t = { .owner = "packaging",
	    .table = "specifiers contains" };
	struct ep_verrange *r;
	json_t *row;
	size_t i;

	(void)state;
	json_array_foreach(ow_array(specifiers, "contains"), i, row) {
		struct ep_err err = { 0 };
		const char *spec = json_string_value(json_array_get(row, 0));
		const char *ver = json_string_value(json_array_get(row, 1));
		int want = json_is_true(json_array_get(row, 2)), got = -2;

		if (ep_verrange_parse(&r, spec, &err) == 0) {
			got = ep_verrange_match(r, ver) == 1;
			ep_verrange_free(r);
		}
		ow_case(&t, got == want, 0, "%s %s %s (%s)%s%s", ver, want ?
		    "in" : "not in", spec,
		    json_string_value(json_array_get(row, 3)),
		    got == -2 ? ": " : "", got == -2 ? err.msg : "");
	}
	ow_done(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(versions_valid),
		cmocka_unit_test(versions_invalid),
		cmocka_unit_test(versions_equal),
		cmocka_unit_test(versions_order),
		cmocka_unit_test(specifiers_valid),
		cmocka_unit_test(specifiers_invalid),
		cmocka_unit_test(specifiers_contains),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
