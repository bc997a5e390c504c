/*
 * test_version.c: version ordering (not string order), release
 * components, and ranges at their boundaries and when malformed.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "vercmp.h"
#include "verrange.h"

static void
test_order(void **state)
{
	/* Strictly increasing, each against every later one. */
	static const char *const v[] = {
		"0.9", "1.0.dev1", "1.0a1", "1.0a2.dev1", "1.0a2", "1.0b1",
		"1.0rc1", "1.0", "1.0+cu118", "1.0+cu121", "1.0.post1.dev1",
		"1.0.post1", "1.0.1", "1.26.4", "2.0.0", "2.1.0",
		"2.1.0+cu121", "9.19.0", "9.19.0.56", "13.0.96", "13.1",
		"580.65.06", "580.159.04", "1!0.1",
	};
	size_t n = sizeof v / sizeof v[0];

	(void)state;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(ep_vercmp(v[i], v[i]), 0);
		for (size_t j = i + 1; j < n; j++) {
			if (ep_vercmp(v[i], v[j]) >= 0 ||
			    ep_vercmp(v[j], v[i]) <= 0)
				fail_msg("expected %s < %s", v[i], v[j]);
		}
	}
}

static void
test_equal_spellings(void **state)
{
	static const char *const eq[][2] = {
		{ "580.65", "580.65.0" }, { "580.65.06", "580.65.6" },
		{ "1.0RC1", "1.0rc1" }, { "1.0-rc.1", "1.0rc1" },
		{ "1.0alpha1", "1.0a1" }, { "1.0c1", "1.0rc1" },
		{ "1.0-1", "1.0.post1" }, { "1.0rev1", "1.0.post1" },
		{ "v1.2", "1.2" }, { "1.0.dev", "1.0.dev0" },
		{ "0!1.0", "1.0" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof eq / sizeof eq[0]; i++)
		if (ep_vercmp(eq[i][0], eq[i][1]) != 0)
			fail_msg("expected %s == %s", eq[i][0], eq[i][1]);
}

static void
test_tails_and_garbage(void **state)
{
	(void)state;
	/* A kernel release: numbers first, then an opaque tail. */
	assert_true(ep_version_valid("6.18.44-fc-v657-gpu"));
	assert_true(ep_vercmp("6.18.44-fc-v657-gpu", "6.18.44") > 0);
	assert_true(ep_vercmp("6.18.44-fc-v657-gpu", "6.18.45") < 0);
	assert_true(ep_vercmp("6.1.0-v9", "6.1.0-v10") < 0);
	/* Local labels compare numbers as numbers. */
	assert_true(ep_vercmp("2.1.0+cu92", "2.1.0+cu121") < 0);
	assert_true(ep_vercmp("1.0+abc", "1.0+1") < 0);
	/* Not versions: before every version, among themselves bytewise. */
	assert_false(ep_version_valid(""));
	assert_false(ep_version_valid("abc"));
	assert_false(ep_version_valid("v"));
	assert_false(ep_version_valid("1!"));
	assert_true(ep_vercmp("abc", "0") < 0);
	assert_true(ep_vercmp("abc", "abd") < 0);
	assert_int_equal(ep_vercmp("abc", "abc"), 0);
	/* Components longer than any integer still compare. */
	assert_true(ep_vercmp("1.99999999999999999999999",
	    "1.100000000000000000000000") < 0);
}

/* What packaging takes and refuses: blanks around a version are not part
 * of it, blanks and stray separators inside make it no version, and an
 * opaque tail is ASCII runs with one separator each. */
static void
test_pep440_edges(void **state)
{
	(void)state;
	assert_int_equal(ep_vercmp("  v1.0\t\n", "1.0"), 0);
	/* U+202F before, U+2029 after: Python's str.isspace() blanks. */
	assert_int_equal(ep_vercmp("\xe2\x80\xaf" "1.0\t\xe2\x80\xa9\n ",
	    "1.0"), 0);
	assert_true(ep_version_valid(" 1.0 "));
	assert_false(ep_version_valid("1. 0"));
	assert_false(ep_version_valid("1.0 a1"));
	assert_false(ep_version_valid("1..0"));
	assert_false(ep_version_valid("1.0."));
	assert_false(ep_version_valid("1.0+a+"));
	assert_false(ep_version_valid("1.0+1+1"));
	assert_false(ep_version_valid("1.0+_foobar"));
	assert_false(ep_version_valid("1.0+\xc4\xb0"));
	/* Tails of kernels, firmware and distribution packages stay. */
	assert_true(ep_version_valid("4.18.0-477.10.1.el8_8.x86_64"));
	assert_true(ep_version_valid("2.36-9+deb12u4"));
	assert_true(ep_version_valid("1.2.3~rc1"));
	assert_true(ep_version_valid("96.00.DA.00.0C"));
	/* ...but only PEP 440 is PEP 440. */
	assert_true(ep_version_pep440("1!1.0b2.post345.dev456+abc.5"));
	assert_true(ep_version_pep440(" v1.0 "));
	assert_false(ep_version_pep440("1.0.org1"));
	assert_false(ep_version_pep440("6.18.44-fc-v657-gpu"));
	assert_false(ep_version_pep440("1..0"));
}

static void
test_release(void **state)
{
	unsigned long p[3] = { 0, 0, 0 };

	(void)state;
	assert_int_equal(ep_version_release(p, 3, "580.159.04"), 3);
	assert_int_equal(p[0], 580);
	assert_int_equal(p[1], 159);
	assert_int_equal(p[2], 4);
	assert_int_equal(ep_version_release(p, 2, "13.0.96"), 3);
	assert_int_equal(p[0], 13);
	assert_int_equal(p[1], 0);
	assert_int_equal(ep_version_release(p, 3, "13.1"), 2);
	assert_int_equal(p[1], 1);
	assert_int_equal(ep_version_release(p, 3, "not"), 0);
}

/* 1 in, 0 out, -1 not a version; fails the test on a parse error. */
static int
in(const char *range, const char *v)
{
	struct ep_verrange *r;
	struct ep_err err = { 0 };
	int m;

	if (ep_verrange_parse(&r, range, &err) < 0)
		fail_msg("%s: %s", range, err.msg);
	m = ep_verrange_match(r, v);
	ep_verrange_free(r);
	return m;
}

static void
test_range_boundaries(void **state)
{
	(void)state;
	assert_int_equal(in(">=580.65", "580.65"), 1);
	assert_int_equal(in(">=580.65", "580.65.0"), 1);
	assert_int_equal(in(">=580.65", "580.64.99"), 0);
	assert_int_equal(in(">=580.65", "580.65.06"), 1);
	assert_int_equal(in(">=580.65", "580.159.04"), 1);
	assert_int_equal(in(">=580.65,<590", "589.99.99"), 1);
	assert_int_equal(in(">=580.65,<590", "590"), 0);
	assert_int_equal(in(">=580.65,<590", "590.0"), 0);
	assert_int_equal(in(">=580.65,<590", "590.12"), 0);
	/* <590 keeps out the 590 series' pre-releases... */
	assert_int_equal(in("<590", "590.0rc1"), 0);
	assert_int_equal(in("<590", "590.dev3"), 0);
	assert_int_equal(in("<590rc2", "590rc1"), 1);
	/* ...and >1.7 its post-releases. */
	assert_int_equal(in(">1.7", "1.7.post2"), 0);
	assert_int_equal(in(">1.7", "1.7.1"), 1);
	assert_int_equal(in(">1.7.post1", "1.7.post2"), 1);
	assert_int_equal(in("<=580.65", "580.65.0"), 1);
	assert_int_equal(in("<=580.65", "580.65.1"), 0);
	assert_int_equal(in(">580.65", "580.65"), 0);
	assert_int_equal(in(" >= 1.0 , < 2 ", "1.5"), 1);
	assert_int_equal(in(">=1", "garbage"), -1);
	assert_int_equal(in(">=1", "1..0"), -1);
}

/* <V and >V on whole versions: the pre-releases kept out of <V are V's
 * own, the post-releases kept out of >V are V's own. */
static void
test_range_exclusive(void **state)
{
	(void)state;
	assert_int_equal(in(">1.0.dev1", "1.0.post0"), 1);
	assert_int_equal(in(">1.0a1", "1.0.post0"), 1);
	assert_int_equal(in(">1.0a1", "1.0a1.post0"), 0);
	assert_int_equal(in(">1.0a1", "1.0a2.post0"), 1);
	assert_int_equal(in(">1.0", "1.0.post0"), 0);
	assert_int_equal(in(">1.0", "1.0+local"), 0);
	assert_int_equal(in(">1.0.dev1", "1.0.dev1+local"), 0);
	assert_int_equal(in(">1.0.post1", "1.0.post1+local"), 0);
	assert_int_equal(in(">1.0.post1", "1.0.post2"), 1);
	assert_int_equal(in("<1.0.post1", "1.0rc1"), 1);
	assert_int_equal(in("<1.0.post1", "1.0.post1.dev0"), 0);
	assert_int_equal(in("<1.0.post1", "1.0.post0.dev0"), 1);
	assert_int_equal(in("==1.0.dev0,<1.0.post1", "1.0.dev0"), 1);
	assert_int_equal(in("<1.0", "1.0.dev0"), 0);
	assert_int_equal(in("<1.0a2", "1.0a1"), 1);
	/* === compares text, a version or not. */
	assert_int_equal(in("===foobar", "foobar"), 1);
	assert_int_equal(in("===foobar", "FOOBAR"), 1);
	assert_int_equal(in("===foobar", "baz"), 0);
	assert_int_equal(in("===foobar,!=1.0", "foobar"), -1);
}

static void
test_range_operators(void **state)
{
	(void)state;
	assert_int_equal(in("==13.*", "13.0.96"), 1);
	assert_int_equal(in("==13.*", "13"), 1);
	assert_int_equal(in("==13.*", "12.9"), 0);
	assert_int_equal(in("==13.*", "130.0"), 0);
	assert_int_equal(in("==13.0.*", "13.0.96"), 1);
	assert_int_equal(in("==13.0.*", "13.1.0"), 0);
	assert_int_equal(in("!=13.*", "12.8"), 1);
	assert_int_equal(in("!=13.*", "13.2"), 0);
	assert_int_equal(in("~=2.1", "2.1"), 1);
	assert_int_equal(in("~=2.1", "2.9.3"), 1);
	assert_int_equal(in("~=2.1", "3.0"), 0);
	assert_int_equal(in("~=2.1", "2.0.9"), 0);
	assert_int_equal(in("~=2.1.0", "2.1.7"), 1);
	assert_int_equal(in("~=2.1.0", "2.2.0"), 0);
	assert_int_equal(in("!=2.0.0", "2.0"), 0);
	assert_int_equal(in("!=2.0.0", "2.0.1"), 1);
	/* A local label counts only where the clause names one. */
	assert_int_equal(in("==2.1.0", "2.1.0+cu121"), 1);
	assert_int_equal(in("==2.1.0+cu121", "2.1.0"), 0);
	assert_int_equal(in("==2.1.0+cu121", "2.1.0+cu121"), 1);
	assert_int_equal(in(">2.1.0", "2.1.0+cu121"), 0);
	assert_int_equal(in(">=2.1.0", "2.1.0+cu121"), 1);
	assert_int_equal(in("===2.1.0+CU121", "2.1.0+cu121"), 1);
	assert_int_equal(in("===2.1.0", "2.1"), 0);
	assert_int_equal(in("==9.19.0", "9.19.0"), 1);
	assert_int_equal(in("==9.19.0", "9.19.0.56"), 0);
}

/* The error text of a range that must not parse. */
static void
bad(const char *range, const char *want)
{
	struct ep_verrange *r = (struct ep_verrange *)1;
	struct ep_err err = { 0 };

	if (ep_verrange_parse(&r, range, &err) == 0)
		fail_msg("%s: parsed", range);
	assert_null(r);
	assert_int_equal(err.kind, EP_E_INPUT);
	if (strcmp(err.msg, want) != 0)
		fail_msg("%s: got '%s', want '%s'", range, err.msg, want);
}

static void
test_range_malformed(void **state)
{
	(void)state;
	bad("", "range \"\": empty");
	bad("   ", "range \"\": empty");
	bad(">=580.65,x590", "range \">=580.65,x590\": clause \"x590\": no "
	    "operator (one of ==, !=, <, <=, >, >=, ~=, ===)");
	bad("580", "range \"580\": clause \"580\": no operator (one of ==, "
	    "!=, <, <=, >, >=, ~=, ===)");
	bad(">=1,", "range \">=1,\": empty clause");
	bad(">=", "range \">=\": clause \">=\": no version after \">=\"");
	bad(">=abc", "range \">=abc\": clause \">=abc\": \"abc\" is not a "
	    "version");
	bad("<=1.*", "range \"<=1.*\": clause \"<=1.*\": \".*\" goes only "
	    "with == and !=");
	bad("==1.0rc1.*", "range \"==1.0rc1.*\": clause \"==1.0rc1.*\": only "
	    "a release (digits and dots) goes before \".*\"");
	bad("~=2", "range \"~=2\": clause \"~=2\": ~= needs a release of two "
	    "or more components and no local label");
	bad(">=1, <2, =>3", "range \">=1, <2, =>3\": clause \"=>3\": no "
	    "operator (one of ==, !=, <, <=, >, >=, ~=, ===)");
	bad(">=1.0+abc", "range \">=1.0+abc\": clause \">=1.0+abc\": a local "
	    "label (+abc) goes only with ==, != and ===");
	bad("<1.0+1.0", "range \"<1.0+1.0\": clause \"<1.0+1.0\": a local "
	    "label (+1.0) goes only with ==, != and ===");
	bad("==1.0.*+5", "range \"==1.0.*+5\": clause \"==1.0.*+5\": "
	    "\"1.0.*+5\" is not a version");
}

static void
test_range_text(void **state)
{
	struct ep_verrange *r;
	struct ep_err err = { 0 };

	(void)state;
	assert_int_equal(ep_verrange_parse(&r, "  >=580.65,<590 ", &err), 0);
	assert_string_equal(ep_verrange_text(r), ">=580.65,<590");
	ep_verrange_free(r);
	ep_verrange_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order),
		cmocka_unit_test(test_equal_spellings),
		cmocka_unit_test(test_tails_and_garbage),
		cmocka_unit_test(test_pep440_edges),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_range_boundaries),
		cmocka_unit_test(test_range_operators),
		cmocka_unit_test(test_range_exclusive),
		cmocka_unit_test(test_range_malformed),
		cmocka_unit_test(test_range_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
