/* test_hostlist_compress.c: Slurm hostlists compressed
 * (hostlist_compress.c), compressed then expanded again on random sets,
 * and compared with Slurm's own scontrol where it is installed.
 * Expansion alone is in test_hostlist.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hostlist.h"
#include "hostlistfixture.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

static char tmpdir[64];

static int
setup(void **state)
{
	(void)state;
	return tu_scratch_make(tmpdir, sizeof tmpdir, "hostlist");
}

static int
teardown(void **state)
{
	(void)state;
	return tu_scratch_remove(tmpdir);
}

/* Compress the space-separated names. */
static void
check_compress(const char *names, const char *want)
{
	struct ep_strv sv = { 0 };
	char *copy = xstrdup(names), *save = NULL, *got;

	for (char *t = strtok_r(copy, " ", &save); t != NULL;
	    t = strtok_r(NULL, " ", &save))
		ep_strv_push(&sv, t);
	got = ep_hostlist_compress((const char *const *)sv.v, sv.n);
	if (strcmp(got, want) != 0)
		fail_msg("compress \"%s\": got \"%s\", want \"%s\"", names, got,
		    want);
	free(got);
	free(copy);
	ep_strv_clear(&sv);
}

static void
test_compress(void **state)
{
	char *s;

	(void)state;
	s = ep_hostlist_compress(NULL, 0);
	assert_string_equal(s, "");
	free(s);
	check_compress("n3", "n3");
	check_compress("n3 n1 n2 n5", "n[1-3,5]");
	check_compress("n1 n1 n2 n2", "n[1-2]");
	check_compress("x y x", "x,y");
	check_compress("login n2 alpha n1", "alpha,login,n[1-2]");
	check_compress("b1 a2 a1", "a[1-2],b1");
	check_compress("1 2 3", "[1-3]");
	/* Widths: padded, unpadded, and both in one bracket. */
	check_compress("n08 n09 n10 n11", "n[08-11]");
	check_compress("n9 n10", "n[9-10]");
	check_compress("n099 n100", "n[099-100]");
	check_compress("n1 n01", "n[1,01]");
	check_compress("n0 n00 n000", "n[0,00,000]");
	check_compress("n1 n02 n003", "n[1,02,003]");
	check_compress("n2 n01 n1 n02 n3", "n[1-3,01-02]");
	check_compress("n001 n002 n1000", "n[001-002,1000]");
	check_compress("n08 n9 n10", "n[9-10,08]");
	check_compress("n08 n09 n10 n11 n13", "n[08-11,13]");
	check_compress("n05 n50", "n[05,50]");
	check_compress("n0998 n0999 n1000 n1001 n999", "n[999,0998-1001]");
	check_compress("n007", "n007");
	/* The last run of digits; what follows is a suffix. */
	check_compress("gpu2-ib gpu1-ib gpu1", "gpu1,gpu[1-2]-ib");
	check_compress("r1n01 r1n02 r2n01", "r1n[01-02],r2n01");
	check_compress("a1b a2b a3c", "a[1-2]b,a3c");
	/* Prefixes in natural order, as Slurm sorts them. */
	check_compress("r2n1 r10n1 r1n1", "r1n1,r2n1,r10n1");
	check_compress("a10b1 a9b1", "a9b1,a10b1");
	check_compress("ab a a1", "a,a1,ab");
	check_compress("a01b1 a1b1 a1b2", "a01b1,a1b[1-2]");
	/* Numbers at the ends of 64 bits, and past them. */
	check_compress("n18446744073709551615 n18446744073709551614",
	    "n[18446744073709551614-18446744073709551615]");
	check_compress("n18446744073709551616 n1", "n1,n18446744073709551616");
	/* The brief's example, backwards. */
	check_compress("login gpu2-ib gpu1-ib n007 n003 n002 n001",
	    "gpu[1-2]-ib,login,n[001-003,007]");
}

static void
test_compress_many(void **state)
{
	const size_t n = 10000;
	char **names = xcalloc(n + 1, sizeof *names);
	struct timespec t0, t1;
	uint32_t seed = 7;
	char *s;

	(void)state;
	for (size_t i = 0; i < n; i++)
		names[i] = xasprintf("n%05zu", i + 1);
	/* Shuffled, so that only sorting can find the range. */
	for (size_t i = n - 1; i > 0; i--) {
		size_t j;
		char *t;

		seed = seed * 1103515245 + 12345;
		j = (seed >> 8) % (i + 1);
		t = names[i];
		names[i] = names[j];
		names[j] = t;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	s = ep_hostlist_compress((const char *const *)names, n);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* 10000 has no leading zero: it continues 09999. */
	assert_string_equal(s, "n[00001-10000]");
	assert_true(t1.tv_sec - t0.tv_sec < 2);
	free(s);

	/* n001 to n048 (one twice), then with a gap, and 9952 more. */
	for (size_t i = 0; i < n; i++) {
		free(names[i]);
		names[i] = i < 48 ? xasprintf("n%03zu", i + 1) :
		    xasprintf("x%zu", 2 * i);
	}
	free(names[48]);
	names[48] = xstrdup("n001");
	s = ep_hostlist_compress((const char *const *)names, 48);
	assert_string_equal(s, "n[001-048]");
	free(s);
	free(names[47]);
	names[47] = xstrdup("n049");
	s = ep_hostlist_compress((const char *const *)names, n);
	assert_int_equal(strncmp(s, "n[001-047,049],x[98,100,", 24), 0);
	assert_true(ep_endswith(s, ",19998]"));
	free(s);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t
rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

/* sv sorted, each name once. */
static void
sort_uniq(struct ep_strv *sv)
{
	size_t o = 0;

	ep_strv_sort(sv);
	for (size_t i = 0; i < sv->n; i++) {
		if (o > 0 && strcmp(sv->v[o - 1], sv->v[i]) == 0) {
			free(sv->v[i]);
			continue;
		}
		sv->v[o++] = sv->v[i];
	}
	sv->n = o;
	if (sv->v != NULL)
		sv->v[o] = NULL;
}

/* Random sets of node names, compressed then expanded: the same set,
 * and compressing that set again writes the same text. */
static void
test_roundtrip(void **state)
{
	static const char *pre[] = { "", "n", "gpu", "r1n", "a-", "x.",
	    "n0", "rack10-node" };
	static const char *suf[] = { "", "-ib", "x", ".e", "b7c" };
	static const char *plain[] = { "login", "head", "a", "x.", "-" };

	(void)state;
	for (int round = 0; round < 400; round++) {
		struct ep_strv in = { 0 }, out = { 0 };
		struct ep_err err = { 0 };
		size_t n = 1 + rnd(round < 300 ? 40 : 400);
		char *c1, *c2;

		for (size_t i = 0; i < n; i++) {
			const char *p = pre[rnd(8)], *s = suf[rnd(5)];
			int width = (int)rnd(5);
			uint64_t v = rnd(4) == 0 ? rnd(100000) : 95 + rnd(20);

			if (rnd(10) == 0)
				ep_strv_push(&in, plain[rnd(5)]);
			else if (rnd(50) == 0)
				ep_strv_push_owned(&in, xasprintf("%s%" PRIu64
				    "%s", p, UINT64_MAX - rnd(3), s));
			else
				ep_strv_push_owned(&in, xasprintf("%s%0*" PRIu64
				    "%s", p, width, v, s));
			assert_true(ep_hostlist_name_ok(in.v[in.n - 1]));
		}
		c1 = ep_hostlist_compress((const char *const *)in.v, in.n);
		if (ep_hostlist_expand(&out, c1, "compressed", BIG, &err) < 0)
			fail_msg("round %d: %s", round, err.msg);
		sort_uniq(&in);
		sort_uniq(&out);
		if (in.n != out.n)
			fail_msg("round %d: %zu names, %zu back from \"%s\"",
			    round, in.n, out.n, c1);
		for (size_t i = 0; i < in.n; i++)
			if (strcmp(in.v[i], out.v[i]) != 0)
				fail_msg("round %d: \"%s\" back as \"%s\" "
				    "from \"%s\"", round, in.v[i], out.v[i],
				    c1);
		c2 = ep_hostlist_compress((const char *const *)out.v, out.n);
		assert_string_equal(c1, c2);
		free(c1);
		free(c2);
		ep_strv_clear(&in);
		ep_strv_clear(&out);
	}
}

/* What scontrol prints for "show WHAT ARG", newlines as spaces, or NULL
 * when it fails. */
static char *
scontrol(const char *conf, const char *what, const char *arg)
{
	char *cmd = xasprintf("SLURM_CONF='%s' scontrol show %s '%s' "
	    "2>/dev/null", conf, what, arg);
	char buf[8192];
	size_t n;
	FILE *p = popen(cmd, "r");

	free(cmd);
	if (p == NULL)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, p);
	if (pclose(p) != 0)
		return NULL;
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	for (char *q = buf; *q != '\0'; q++)
		if (*q == '\n')
			*q = ' ';
	return xstrdup(buf);
}

/* Slurm's own answers, where Slurm is installed: scontrol expands and
 * compresses without a cluster, given any configuration file.  Only
 * lists that every Slurm reads (no text after the last bracket) and
 * compressions of names without duplicates or suffixes, where Slurm and
 * this agree by design. */
static void
test_scontrol(void **state)
{
	static const char *lists[] = { "n[01-03]", "n[08-11]", "n[1-010]",
	    "n[0001-3]", "n[1-00003]", "n[1,02,003]", "r[1-2]n[01-02]",
	    "n[1-2][3-4]", "n[3,1-2],n1", "n[9-10]x[1-2]", "[1-3]",
	    "n0[1-2]", " n1 , n2 ", "n1 n2", "login,a-b,c.d",
	    "n[4294967295-4294967296]" };
	static const char *sets[] = { "n1,n01", "n08,n09,n10,n11", "n9,n10",
	    "n3,n1,n2,n5", "b1,a2,a1", "login,n1,n2,alpha", "n099,n100",
	    "n1,n02,n003", "n0,n00,n000", "n2,n01,n1,n02,n3",
	    "n001,n002,n1000", "n08,n9,n10", "n08,n09,n10,n11,n13",
	    "n0998,n0999,n1000,n1001,n999", "r2n1,r10n1,r1n1",
	    "a01b1,a1b1,a1b2", "1,2,3", "n007" };
	char *conf, *got, *want;
	FILE *f;

	(void)state;
	if (system("command -v scontrol >/dev/null 2>&1") != 0)
		skip();
	conf = xasprintf("%s/slurm.conf", tmpdir);
	assert_non_null(f = fopen(conf, "w"));
	fputs("ClusterName=ep\nSlurmctldHost=localhost\n"
	    "NodeName=n1 CPUs=1 State=UNKNOWN\n"
	    "PartitionName=p Nodes=n1 Default=YES\n", f);
	assert_int_equal(fclose(f), 0);
	if ((want = scontrol(conf, "hostnames", "n[1-2]")) == NULL) {
		free(conf);
		skip();
	}
	free(want);
	for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
		if ((want = scontrol(conf, "hostnames", lists[i])) == NULL)
			fail_msg("scontrol show hostnames '%s' failed",
			    lists[i]);
		got = expand_joined(lists[i], BIG);
		if (strcmp(got, want) != 0)
			fail_msg("\"%s\": scontrol \"%s\", here \"%s\"",
			    lists[i], want, got);
		free(got);
		free(want);
	}
	for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
		struct ep_strv sv = { 0 };
		struct ep_err err = { 0 };

		if ((want = scontrol(conf, "hostlistsorted", sets[i])) == NULL)
			fail_msg("scontrol show hostlistsorted '%s' failed",
			    sets[i]);
		assert_int_equal(ep_hostlist_expand(&sv, sets[i], "x", BIG,
		    &err), 0);
		got = ep_hostlist_compress((const char *const *)sv.v, sv.n);
		if (strcmp(got, want) != 0)
			fail_msg("\"%s\": scontrol \"%s\", here \"%s\"",
			    sets[i], want, got);
		free(got);
		free(want);
		ep_strv_clear(&sv);
	}
	free(conf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compress),
		cmocka_unit_test(test_compress_many),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_scontrol),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
