/*
 * test_imgtar.c: the tar reader docker-archive: uses, on archives written
 * here header by header: members found by name ("./" or not), a member
 * twice refused wherever the second one lies, and the time the index
 * takes growing as n log n, not n squared, with the number of members
 * (a crafted archive of 100000 empty members once took a minute).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "imgtar.h"

static char dir[256];

static int
setup(void **state)
{
	(void)state;
	return tu_scratch_make(dir, sizeof dir, "imgtar");
}

static int
teardown(void **state)
{
	(void)state;
	return tu_scratch_remove(dir);
}

/* One ustar header for a regular file name (at most 100 bytes) of size
 * bytes, then its content (size bytes of c), padded to the block. */
static void
put_member(FILE *f, const char *name, size_t size, int c)
{
	unsigned char h[512];
	unsigned sum = 0;

	memset(h, 0, sizeof h);
	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "%07o", 0644);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011zo", size);
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (size_t i = 0; i < sizeof h; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	fwrite(h, 1, sizeof h, f);
	for (size_t i = 0; i < size; i++)
		fputc(c, f);
	for (size_t i = size; i % 512 != 0; i++)
		fputc(0, f);
}

static void
put_end(FILE *f)
{
	static const unsigned char zero[1024];

	fwrite(zero, 1, sizeof zero, f);
}

/* dir/name, new. */
static char *
path_of(const char *name)
{
	return xasprintf("%s/%s", dir, name);
}

static void
test_find(void **state)
{
	char *p = path_of("find.tar"), *buf;
	struct ep_tar t;
	struct ep_err err = { 0 };
	const struct ep_tar_member *m;
	size_t len;
	FILE *f;

	(void)state;
	assert_non_null(f = fopen(p, "w"));
	put_member(f, "./manifest.json", 3, 'm');
	put_member(f, "zz/last", 1, 'z');
	put_member(f, "blobs/sha256/ab", 700, 'b');
	put_member(f, "a", 0, 0);
	put_end(f);
	fclose(f);
	assert_int_equal(ep_tar_open(&t, p, &err), 0);
	assert_int_equal(t.n, 4);
	/* Every member, with or without "./". */
	assert_non_null(m = ep_tar_find(&t, "manifest.json"));
	assert_int_equal(m->size, 3);
	assert_non_null(ep_tar_find(&t, "./zz/last"));
	assert_non_null(m = ep_tar_find(&t, "blobs/sha256/ab"));
	assert_int_equal(m->size, 700);
	assert_non_null(ep_tar_find(&t, "a"));
	assert_null(ep_tar_find(&t, "b"));
	assert_null(ep_tar_find(&t, "blobs/sha256"));
	assert_null(ep_tar_find(&t, ""));
	assert_int_equal(ep_tar_read(&t, "zz/last", 10, &buf, &len, &err), 0);
	assert_string_equal(buf, "z");
	free(buf);
	assert_int_equal(ep_tar_read(&t, "blobs/sha256/ab", 10, &buf, &len,
	    &err), -1);
	assert_non_null(strstr(err.msg, "member 'blobs/sha256/ab' is larger "
	    "than 10 bytes"));
	ep_tar_close(&t);
	free(p);
}

static void
test_twice(void **state)
{
	char *p = path_of("twice.tar"), *want;
	struct ep_tar t;
	struct ep_err err = { 0 };
	FILE *f;

	(void)state;
	/* The second copy far from the first, spelt with "./". */
	assert_non_null(f = fopen(p, "w"));
	put_member(f, "repositories", 2, 'r');
	for (int i = 0; i < 50; i++) {
		char name[32];

		snprintf(name, sizeof name, "layer%02d/layer.tar", i);
		put_member(f, name, 0, 0);
	}
	put_member(f, "./repositories", 3, 's');
	put_end(f);
	fclose(f);
	assert_int_equal(ep_tar_open(&t, p, &err), -1);
	want = xasprintf("%s: member 'repositories' appears twice", p);
	assert_string_equal(err.msg, want);
	assert_int_equal(err.kind, EP_E_INPUT);
	free(want);
	free(p);
}

/* An archive of n empty members with long, distinct names that share a
 * prefix (what makes comparing names cost the most); the CPU seconds
 * ep_tar_open takes, the best of three. */
static double
index_time(size_t n)
{
	char *p = path_of("many.tar");
	double best = 1e9;
	FILE *f;

	assert_non_null(f = fopen(p, "w"));
	for (size_t i = 0; i < n; i++) {
		char name[128];

		/* Spread over the order, so no sort sees it sorted. */
		snprintf(name, sizeof name, "%s/%08zu",
		    "layers/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		    "aaaaaaaaaaaaaaaaaaaa", (i * 7919) % n);
		put_member(f, name, 0, 0);
	}
	put_end(f);
	fclose(f);
	for (int k = 0; k < 3; k++) {
		struct timespec a, b;
		struct ep_tar t;
		struct ep_err err = { 0 };
		double s;

		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
		assert_int_equal(ep_tar_open(&t, p, &err), 0);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		assert_int_equal(t.n, n);
		ep_tar_close(&t);
		s = (double)(b.tv_sec - a.tv_sec) +
		    (double)(b.tv_nsec - a.tv_nsec) / 1e9;
		if (s < best)
			best = s;
	}
	free(p);
	return best;
}

static void
test_index_time(void **state)
{
	size_t n = 10000;
	double small, large;

	(void)state;
	small = index_time(n);
	large = index_time(4 * n);
	/* Four times the members: about four times the time for n log n
	 * (4.6 here), sixteen for n squared.  A ratio, not a wall-clock
	 * bound: the machine may be slow or busy. */
	print_message("tar index: %zu members %.4f s, %zu members %.4f s, "
	    "ratio %.1f\n", n, small, 4 * n, large, large / small);
	assert_true(large < 8 * small);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_twice),
		cmocka_unit_test(test_index_time),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
