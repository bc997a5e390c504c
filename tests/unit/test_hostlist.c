/* test_hostlist.c: Slurm hostlists expanded (hostlist.c): lists,
 * zero padding, malformed lists and their messages, the cap on names, and
 * which node names are allowed.  Compression, the round trip and Slurm's
 * own scontrol are in test_hostlist_compress.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hostlist.h"
#include "hostlistfixture.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"

static void
check_expand(const char *text, const char *want)
{
	char *got = expand_joined(text, BIG);

	if (strcmp(got, want) != 0)
		fail_msg("expand \"%s\": got \"%s\", want \"%s\"", text, got,
		    want);
	free(got);
}

static void
test_expand(void **state)
{
	struct ep_strv sv = { 0 };
	struct ep_err err = { 0 };

	(void)state;
	check_expand("n[001-003,007],gpu[1-2]-ib,login",
	    "n001 n002 n003 n007 gpu1-ib gpu2-ib login");
	/* Several brackets: their product, the leftmost slowest. */
	check_expand("r[1-2]n[01-02]", "r1n01 r1n02 r2n01 r2n02");
	check_expand("n[1-2][3-4]", "n13 n14 n23 n24");
	check_expand("a[1-2]b[7]c", "a1b7c a2b7c");
	check_expand("n[9-10]x[1-2]", "n9x1 n9x2 n10x1 n10x2");
	/* Ranges in the order written; duplicates kept. */
	check_expand("n[3,1-2]", "n3 n1 n2");
	check_expand("n[1-2],n1,n[5,5]", "n1 n2 n1 n5 n5");
	check_expand("n[1-1]", "n1");
	/* No prefix, no brackets, names Slurm allows. */
	check_expand("[1-3]", "1 2 3");
	check_expand("login", "login");
	check_expand("a-b,c.d,e_f,...", "a-b c.d e_f ...");
	/* White space around hosts, and between them as Slurm reads it. */
	check_expand("  n1 ,\tn2\n", "n1 n2");
	check_expand("n1 n2", "n1 n2");
	check_expand("n[1-2] n3", "n1 n2 n3");

	/* Appended to what out holds. */
	ep_strv_push(&sv, "first");
	assert_int_equal(ep_hostlist_expand(&sv, "n[1-2]", "x", 10, &err), 0);
	assert_int_equal(sv.n, 3);
	assert_string_equal(sv.v[0], "first");
	assert_string_equal(sv.v[2], "n2");
	assert_null(sv.v[3]);
	ep_strv_clear(&sv);
}

static void
test_expand_padding(void **state)
{
	(void)state;
	/* The width is that of the lower bound as written. */
	check_expand("n[08-11]", "n08 n09 n10 n11");
	check_expand("n[8-11]", "n8 n9 n10 n11");
	check_expand("n[1-010]", "n1 n2 n3 n4 n5 n6 n7 n8 n9 n10");
	check_expand("n[0001-3]", "n0001 n0002 n0003");
	check_expand("n[1-00003]", "n1 n2 n3");
	check_expand("n[098-101]", "n098 n099 n100 n101");
	check_expand("n[007]", "n007");
	check_expand("n[000-000]", "n000");
	/* Each range its own width. */
	check_expand("n[1,02,003]", "n1 n02 n003");
	/* Digits before a bracket are text. */
	check_expand("n0[1-2]", "n01 n02");
	/* The largest numbers, without wrapping around (Slurm 22.05's
	 * scontrol crashes on this one). */
	check_expand("n[18446744073709551614-18446744073709551615]",
	    "n18446744073709551614 n18446744073709551615");
	check_expand("n[00000000000000000000000000000001]",
	    "n00000000000000000000000000000001");
}

/* text is refused with a message holding each of the NULL-terminated
 * strings, printable ASCII only; out keeps what it held. */
static void
check_error(const char *text, ...)
{
	struct ep_strv sv = { 0 };
	struct ep_err err = { 0 };
	const char *want;
	va_list ap;

	ep_strv_push(&sv, "kept");
	if (ep_hostlist_expand(&sv, text, "--expect", BIG, &err) == 0)
		fail_msg("\"%s\" expanded to %zu names", text, sv.n - 1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_int_equal(sv.n, 1);
	assert_string_equal(sv.v[0], "kept");
	assert_null(sv.v[1]);
	if (strncmp(err.msg, "--expect: ", 10) != 0)
		fail_msg("\"%s\": message does not name the input: %s", text,
		    err.msg);
	for (const char *p = err.msg; *p != '\0'; p++)
		if (*p < 0x20 || *p > 0x7e)
			fail_msg("\"%s\": byte 0x%02x in message: %s", text,
			    (unsigned char)*p, err.msg);
	va_start(ap, text);
	while ((want = va_arg(ap, const char *)) != NULL)
		if (strstr(err.msg, want) == NULL)
			fail_msg("\"%s\": \"%s\" not in: %s", text, want,
			    err.msg);
	va_end(ap);
	ep_strv_clear(&sv);
}

static void
test_expand_errors(void **state)
{
	char name[300];

	(void)state;
	check_error("", "--expect: empty hostlist", NULL);
	check_error(" \t\n", "empty hostlist", NULL);
	check_error("n1,,n2", "empty host", "column 4", "\"n1,,n2\"", NULL);
	check_error(",n1", "empty host", "column 1", NULL);
	check_error("n1,", "empty host", "column 4", NULL);
	check_error("n1, ,n2", "empty host", "column 5", NULL);
	check_error("n[1-3", "unclosed '['", "column 2", "\"n[1-3\"", NULL);
	check_error("n[1-3,", "unclosed '['", "column 2", NULL);
	check_error("n[1[2]]", "nested '['", "column 4", NULL);
	check_error("n1]", "']' without '['", "column 3", NULL);
	check_error("n[1-2]]", "']' without '['", "column 7", NULL);
	check_error("n[]", "empty range", "column 3", NULL);
	check_error("n[1,]", "empty range", "column 5", NULL);
	check_error("n[,1]", "empty range", "column 3", NULL);
	check_error("n[1-]", "range without an upper bound", NULL);
	check_error("n[-2]", "range without a lower bound", NULL);
	check_error("n[3-1]", "range 3-1 has its lower bound above its upper",
	    "column 3", NULL);
	check_error("n[010-1]", "range 010-1 has its lower bound above", NULL);
	check_error("n[1x]", "non-digit 'x' in a range", "column 4", NULL);
	check_error("n[a-b]", "non-digit 'a' in a range", NULL);
	check_error("n[1-3-5]", "non-digit '-' in a range", "column 6", NULL);
	/* Slurm's strtoul() would skip these; a typo here. */
	check_error("n[ 1-2]", "non-digit byte 0x20 in a range", NULL);
	check_error("n[+1-2]", "non-digit '+' in a range", NULL);
	check_error("n[18446744073709551616]", "number too large",
	    "column 3", NULL);
	check_error("n[1-99999999999999999999]", "number too large",
	    "column 5", NULL);
	check_error("a/b", "'/' not allowed in a node name", "column 2", NULL);
	check_error("n1,../etc", "'/' not allowed", NULL);
	check_error("a:b", "':' not allowed", NULL);
	check_error("caf\xc3\xa9", "byte 0xc3 not allowed", "column 4",
	    "\"caf\\xc3\\xa9\"", NULL);
	check_error("n1,a\x1b[31mb", "byte 0x1b not allowed", "a\\x1b", NULL);
	check_error(".", "\".\" is not a node name", NULL);
	check_error("n1, ..", "\"..\" is not a node name", "column 5", NULL);

	/* 255 bytes is a name; 256 is not, written out or expanded. */
	memset(name, 'x', 255);
	name[255] = '\0';
	check_expand(name, name);
	name[255] = 'y';
	name[256] = '\0';
	check_error(name, "a name longer than 255 bytes", "column 1", "...",
	    NULL);
	strcpy(name + 253, "[1-99]");
	free(expand_joined(name, BIG));
	strcpy(name + 253, "[1-100]");
	check_error(name, "a name longer than 255 bytes", NULL);
	strcpy(name + 253, "[001]");
	check_error(name, "a name longer than 255 bytes", NULL);

	/* A long list is quoted around the error, not whole. */
	{
		char *text = xasprintf("%0200d,n[2-1],%0200d", 1, 2);
		struct ep_err err = { 0 };
		struct ep_strv sv = { 0 };

		check_error(text, "lower bound above", "column 204", "...",
		    "n[2-1]", NULL);
		assert_int_equal(ep_hostlist_expand(&sv, text, "--expect",
		    BIG, &err), -1);
		assert_true(strlen(err.msg) < 200);
		free(text);
	}
}

static void
test_expand_max(void **state)
{
	struct ep_strv sv = { 0 };
	struct ep_err err = { 0 };
	struct timespec t0, t1;

	(void)state;
	/* Refused before anything is made for it. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(ep_hostlist_expand(&sv, "n[0-999999999]", "--expect",
	    100000, &err), -1);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_string_equal(err.msg, "--expect: expands to more than 100000 "
	    "names at column 1: \"n[0-999999999]\"");
	assert_null(sv.v);
	assert_int_equal(sv.n, 0);
	assert_true(t1.tv_sec - t0.tv_sec < 2);

	/* Counts that would wrap around saturate. */
	assert_int_equal(ep_hostlist_expand(&sv,
	    "n[0-18446744073709551615]", "x", BIG, &err), -1);
	assert_non_null(strstr(err.msg, "expands to more than 1000000 names"));
	assert_int_equal(ep_hostlist_expand(&sv,
	    "a[0-4294967296]b[0-4294967296]c[0-4294967296]", "x", BIG, &err),
	    -1);
	assert_non_null(strstr(err.msg, "expands to more than"));
	assert_int_equal(ep_hostlist_expand(&sv,
	    "n[0-18446744073709551615,0-18446744073709551615]", "x", BIG,
	    &err), -1);
	assert_non_null(strstr(err.msg, "expands to more than"));
	assert_null(sv.v);

	/* The cap is on the whole list: exactly max is fine. */
	assert_int_equal(ep_hostlist_expand(&sv, "n[1-5],m[1-5]", "x", 10,
	    &err), 0);
	assert_int_equal(sv.n, 10);
	ep_strv_clear(&sv);
	assert_int_equal(ep_hostlist_expand(&sv, "n[1-5],m[1-5]", "x", 9,
	    &err), -1);
	assert_string_equal(err.msg, "x: expands to more than 9 names at "
	    "column 8: \"n[1-5],m[1-5]\"");
	assert_int_equal(ep_hostlist_expand(&sv, "r[1-3]n[1-3]", "x", 8,
	    &err), -1);
	assert_int_equal(ep_hostlist_expand(&sv, "n1", "x", 0, &err), -1);
	assert_non_null(strstr(err.msg, "more than 0 names"));
	assert_null(sv.v);
}

static void
test_name_ok(void **state)
{
	char name[300];

	(void)state;
	assert_true(ep_hostlist_name_ok("n001"));
	assert_true(ep_hostlist_name_ok("gpu1-ib.example_2"));
	assert_true(ep_hostlist_name_ok("1"));
	assert_true(ep_hostlist_name_ok("..."));
	assert_true(ep_hostlist_name_ok(".hidden"));
	assert_false(ep_hostlist_name_ok(""));
	assert_false(ep_hostlist_name_ok("."));
	assert_false(ep_hostlist_name_ok(".."));
	assert_false(ep_hostlist_name_ok("a/b"));
	assert_false(ep_hostlist_name_ok("n[1]"));
	assert_false(ep_hostlist_name_ok("a,b"));
	assert_false(ep_hostlist_name_ok("a b"));
	assert_false(ep_hostlist_name_ok("caf\xc3\xa9"));
	memset(name, 'a', 255);
	name[255] = '\0';
	assert_true(ep_hostlist_name_ok(name));
	name[255] = 'a';
	name[256] = '\0';
	assert_false(ep_hostlist_name_ok(name));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expand),
		cmocka_unit_test(test_expand_padding),
		cmocka_unit_test(test_expand_errors),
		cmocka_unit_test(test_expand_max),
		cmocka_unit_test(test_name_ok),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
