/*
 * test_cache.c: the persistent cache: round trips through save and open,
 * what makes a lookup miss, damaged files read as empty, git's racy rule,
 * kinds kept apart, and the size bound.
 *
 * Most tests describe files with hand-made struct stat values: the cache
 * only ever reads device, inode, size, mtime and ctime from them, and a
 * real file's ctime cannot be set into the past.
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
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "errors.h"
#include "files.h"
#include "xalloc.h"

static char tmpdir[64];

static int
setup(void **state)
{
	(void)state;
	return tu_scratch_make(tmpdir, sizeof tmpdir, "cache");
}

static int
teardown(void **state)
{
	(void)state;
	return tu_scratch_remove(tmpdir);
}

/* A stat of a file last changed in 2020. */
static struct stat
fake(uint64_t ino, off_t size)
{
	struct stat st;

	memset(&st, 0, sizeof st);
	st.st_dev = 2049;
	st.st_ino = ino;
	st.st_size = size;
	st.st_mode = S_IFREG | 0644;
	st.st_mtim.tv_sec = 1577836800;		/* 2020-01-01 */
	st.st_mtim.tv_nsec = 123456789;
	st.st_ctim.tv_sec = 1577836801;
	st.st_ctim.tv_nsec = 5;
	return st;
}

static char *
cache_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static void
write_raw(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	if (len > 0)
		assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static char *
read_raw(const char *path, size_t *len)
{
	char *buf;
	struct ep_err err = { 0 };

	assert_int_equal(ep_read_file(&buf, len, path, 1 << 30, &err), 0);
	return buf;
}

/* Values of every awkward shape survive save and open unchanged. */
static void
test_round_trip(void **state)
{
	static const char *const values[] = {
		("e3b0c44298fc1c149afbf4c8996fb924"
		    "27ae41e4649b934ca495991b7852b855"),
		"",
		"two words  and trailing space ",
		"line one\nline two\n",
		"back\\slash \\n not a newline \\",
		"\xff\xfe not UTF-8 \x01\x7f\t",
		"end 1 0000000000000000",
	};
	size_t nv = sizeof values / sizeof values[0];
	char *path = cache_path("rt");
	struct ep_cache *c = ep_cache_open(path);
	struct ep_err err = { 0 };
	struct stat st;

	(void)state;
	for (size_t i = 0; i < nv; i++) {
		st = fake(100 + i, (off_t)i * 1000);
		ep_cache_put(c, "sha256", &st, values[i]);
		assert_string_equal(ep_cache_get(c, "sha256", &st), values[i]);
	}
	assert_int_equal(ep_cache_save(c, &err), 0);
	ep_cache_free(c);

	c = ep_cache_open(path);
	for (size_t i = 0; i < nv; i++) {
		st = fake(100 + i, (off_t)i * 1000);
		assert_non_null(ep_cache_get(c, "sha256", &st));
		assert_string_equal(ep_cache_get(c, "sha256", &st), values[i]);
	}
	ep_cache_free(c);
	free(path);
}

/* Any change of size, mtime or ctime (to the nanosecond), inode or
 * device misses. */
static void
test_changes_miss(void **state)
{
	struct ep_cache *c = ep_cache_open(NULL);
	struct stat st = fake(7, 4096), s2;

	(void)state;
	ep_cache_put(c, "sha256", &st, "v");
	s2 = st;
	assert_string_equal(ep_cache_get(c, "sha256", &s2), "v");
	s2.st_size++;
	assert_null(ep_cache_get(c, "sha256", &s2));
	s2 = st;
	s2.st_mtim.tv_sec++;
	assert_null(ep_cache_get(c, "sha256", &s2));
	s2 = st;
	s2.st_mtim.tv_nsec++;
	assert_null(ep_cache_get(c, "sha256", &s2));
	s2 = st;
	s2.st_ctim.tv_sec++;
	assert_null(ep_cache_get(c, "sha256", &s2));
	s2 = st;
	s2.st_ctim.tv_nsec++;
	assert_null(ep_cache_get(c, "sha256", &s2));
	s2 = st;
	s2.st_ino++;
	assert_null(ep_cache_get(c, "sha256", &s2));
	s2 = st;
	s2.st_dev++;
	assert_null(ep_cache_get(c, "sha256", &s2));
	ep_cache_free(c);
}

/* The same file under two kinds holds two values; an unknown kind and
 * kinds that cannot be stored miss. */
static void
test_kinds_separate(void **state)
{
	char *path = cache_path("kinds");
	struct ep_cache *c = ep_cache_open(path);
	struct stat st = fake(9, 10);
	struct ep_err err = { 0 };

	(void)state;
	ep_cache_put(c, "sha256", &st, "digest");
	ep_cache_put(c, "libver", &st, "9.19.0");
	ep_cache_put(c, "", &st, "no kind");
	ep_cache_put(c, "two words", &st, "bad kind");
	ep_cache_put(c, "end", &st, "reserved");
	assert_int_equal(ep_cache_save(c, &err), 0);
	ep_cache_free(c);

	c = ep_cache_open(path);
	assert_string_equal(ep_cache_get(c, "sha256", &st), "digest");
	assert_string_equal(ep_cache_get(c, "libver", &st), "9.19.0");
	assert_null(ep_cache_get(c, "other", &st));
	assert_null(ep_cache_get(c, "", &st));
	assert_null(ep_cache_get(c, "two words", &st));
	assert_null(ep_cache_get(c, "end", &st));
	ep_cache_free(c);
	free(path);
}

/* A new value for the same file replaces the old one instead of adding
 * a second entry. */
static void
test_replace(void **state)
{
	char *path = cache_path("replace"), *text;
	struct ep_cache *c = ep_cache_open(path);
	struct stat st = fake(11, 1), st2 = fake(11, 2);
	struct ep_err err = { 0 };
	size_t len, lines = 0;

	(void)state;
	ep_cache_put(c, "sha256", &st, "old");
	ep_cache_put(c, "sha256", &st2, "new");
	assert_null(ep_cache_get(c, "sha256", &st));
	assert_string_equal(ep_cache_get(c, "sha256", &st2), "new");
	assert_int_equal(ep_cache_save(c, &err), 0);
	ep_cache_free(c);

	text = read_raw(path, &len);
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	assert_int_equal(lines, 3);	/* header, one entry, trailer */
	free(text);
	c = ep_cache_open(path);
	assert_string_equal(ep_cache_get(c, "sha256", &st2), "new");
	ep_cache_free(c);
	free(path);
}

/* Garbage, an empty file, a directory, a fifo, another program's file, a
 * file cut at any byte, or one flipped byte: an empty cache, and the next
 * save replaces it with a good one. */
static void
test_corrupt_is_empty(void **state)
{
	char *good = cache_path("good"), *bad = cache_path("bad");
	char *dir = cache_path("dir");
	struct ep_cache *c = ep_cache_open(good);
	struct stat st = fake(21, 21), st2 = fake(22, 22);
	struct ep_err err = { 0 };
	char *text, *copy;
	size_t len;

	(void)state;
	ep_cache_put(c, "sha256", &st, "first");
	ep_cache_put(c, "sha256", &st2, "second\nline");
	assert_int_equal(ep_cache_save(c, &err), 0);
	ep_cache_free(c);
	text = read_raw(good, &len);

	/* Every proper prefix, including the empty file. */
	for (size_t cut = 0; cut < len; cut++) {
		write_raw(bad, text, cut);
		c = ep_cache_open(bad);
		assert_null(ep_cache_get(c, "sha256", &st));
		assert_null(ep_cache_get(c, "sha256", &st2));
		ep_cache_free(c);
	}
	/* Every byte changed. */
	copy = xmalloc(len);
	for (size_t i = 0; i < len; i++) {
		memcpy(copy, text, len);
		copy[i] ^= 0x01;
		write_raw(bad, copy, len);
		c = ep_cache_open(bad);
		assert_null(ep_cache_get(c, "sha256", &st2));
		ep_cache_free(c);
	}
	/* Something after the trailer. */
	memcpy(copy, text, len);
	write_raw(bad, copy, len);
	{
		FILE *f = fopen(bad, "ab");

		assert_non_null(f);
		fputs("x\n", f);
		fclose(f);
	}
	c = ep_cache_open(bad);
	assert_null(ep_cache_get(c, "sha256", &st));
	ep_cache_free(c);
	free(copy);

	write_raw(bad, "\x00\x01garbage\xff\n\n", 12);
	c = ep_cache_open(bad);
	assert_null(ep_cache_get(c, "sha256", &st));
	/* Not fatal: it can be written over. */
	ep_cache_put(c, "sha256", &st, "again");
	assert_int_equal(ep_cache_save(c, &err), 0);
	ep_cache_free(c);
	c = ep_cache_open(bad);
	assert_string_equal(ep_cache_get(c, "sha256", &st), "again");
	ep_cache_free(c);

	write_raw(bad, "envparity-cache 2\nend 0 0\n", 26);
	c = ep_cache_open(bad);
	assert_null(ep_cache_get(c, "sha256", &st));
	ep_cache_free(c);

	assert_int_equal(mkdir(dir, 0755), 0);
	c = ep_cache_open(dir);
	assert_null(ep_cache_get(c, "sha256", &st));
	ep_cache_free(c);

	/* A fifo with no writer: reading it would block forever. */
	assert_int_equal(unlink(bad), 0);
	assert_int_equal(mkfifo(bad, 0644), 0);
	c = ep_cache_open(bad);
	assert_null(ep_cache_get(c, "sha256", &st));
	ep_cache_free(c);

	free(text);
	free(good);
	free(bad);
	free(dir);
}

/* A file changed within 2 seconds (or in the future) is not stored:
 * a second change within the same timestamp tick could not be seen. */
static void
test_racy_not_stored(void **state)
{
	struct ep_cache *c = ep_cache_open(NULL);
	time_t now = time(NULL);
	struct stat st;
	char *path = cache_path("fresh");
	struct stat real;

	(void)state;
	st = fake(31, 1);
	st.st_mtim.tv_sec = now;
	ep_cache_put(c, "sha256", &st, "v");
	assert_null(ep_cache_get(c, "sha256", &st));

	/* The current second, read again: were it "now - 1", a clock tick
	 * between time() above and the put would make it 2 s old. */
	st = fake(32, 1);
	st.st_ctim.tv_sec = time(NULL);
	ep_cache_put(c, "sha256", &st, "v");
	assert_null(ep_cache_get(c, "sha256", &st));

	st = fake(33, 1);
	st.st_mtim.tv_sec = now + 3600;
	ep_cache_put(c, "sha256", &st, "v");
	assert_null(ep_cache_get(c, "sha256", &st));

	st = fake(34, 1);
	st.st_mtim.tv_sec = now - 60;
	st.st_ctim.tv_sec = now - 60;
	ep_cache_put(c, "sha256", &st, "v");
	assert_string_equal(ep_cache_get(c, "sha256", &st), "v");

	/* A real file written just now. */
	write_raw(path, "x", 1);
	assert_int_equal(stat(path, &real), 0);
	ep_cache_put(c, "sha256", &real, "v");
	assert_null(ep_cache_get(c, "sha256", &real));
	ep_cache_free(c);
	free(path);
}

/* Nothing stored, nothing written; the same value again is not a
 * change either. */
static void
test_save_only_when_dirty(void **state)
{
	char *path = cache_path("dirty");
	struct ep_cache *c = ep_cache_open(path);
	struct stat st = fake(41, 1), before, after;
	struct ep_err err = { 0 };

	(void)state;
	assert_int_equal(ep_cache_save(c, &err), 0);
	assert_int_equal(access(path, F_OK), -1);
	ep_cache_put(c, "sha256", &st, "v");
	assert_int_equal(ep_cache_save(c, &err), 0);
	ep_cache_free(c);
	assert_int_equal(stat(path, &before), 0);

	c = ep_cache_open(path);
	assert_string_equal(ep_cache_get(c, "sha256", &st), "v");
	ep_cache_put(c, "sha256", &st, "v");
	assert_int_equal(ep_cache_save(c, &err), 0);
	ep_cache_free(c);
	/* An atomic rewrite would have given the file a new inode. */
	assert_int_equal(stat(path, &after), 0);
	assert_int_equal(before.st_ino, after.st_ino);
	free(path);
}

/* A cache that cannot be written fails the save with EP_E_IO naming the
 * path, and nothing else.  A missing directory is made; a directory that
 * cannot be (a regular file is in the way) is the error. */
static void
test_save_error(void **state)
{
	char *blocker = cache_path("blocker");
	char *path = cache_path("blocker/dir/cache");
	char *made = cache_path("made/on/save/cache");
	struct ep_cache *c, *m = ep_cache_open(made);
	struct stat st = fake(51, 1), mst;
	struct ep_err err = { 0 };
	FILE *f;

	(void)state;
	ep_cache_put(m, "sha256", &st, "v");
	assert_int_equal(ep_cache_save(m, &err), 0);
	assert_int_equal(stat(made, &mst), 0);
	ep_cache_free(m);
	free(made);
	assert_non_null(f = fopen(blocker, "w"));
	fclose(f);
	free(blocker);
	c = ep_cache_open(path);
	ep_cache_put(c, "sha256", &st, "v");
	assert_int_equal(ep_cache_save(c, &err), -1);
	assert_int_equal(err.kind, EP_E_IO);
	assert_non_null(strstr(err.msg, path));
	assert_string_equal(ep_cache_get(c, "sha256", &st), "v");
	ep_cache_free(c);
	free(path);
}

/* Ten thousand entries load and answer; past the bound of 100,000 the
 * oldest stored are the ones dropped. */
static void
test_many_and_bound(void **state)
{
	char *path = cache_path("many"), v[32];
	struct ep_cache *c = ep_cache_open(path);
	struct stat st;
	struct ep_err err = { 0 };
	const uint64_t n = 100005;

	(void)state;
	for (uint64_t i = 0; i < n; i++) {
		st = fake(1000 + i, (off_t)i);
		snprintf(v, sizeof v, "value-%ju", (uintmax_t)i);
		ep_cache_put(c, "sha256", &st, v);
	}
	assert_int_equal(ep_cache_save(c, &err), 0);
	ep_cache_free(c);

	c = ep_cache_open(path);
	for (uint64_t i = 0; i < n; i++) {
		const char *got;

		st = fake(1000 + i, (off_t)i);
		got = ep_cache_get(c, "sha256", &st);
		if (i < 5) {
			assert_null(got);
			continue;
		}
		snprintf(v, sizeof v, "value-%ju", (uintmax_t)i);
		assert_non_null(got);
		assert_string_equal(got, v);
	}
	ep_cache_free(c);
	free(path);
}

static void
test_null_cache(void **state)
{
	struct stat st = fake(61, 1);
	struct ep_err err = { 0 };

	(void)state;
	assert_null(ep_cache_get(NULL, "sha256", &st));
	ep_cache_put(NULL, "sha256", &st, "v");
	assert_int_equal(ep_cache_save(NULL, &err), 0);
	ep_cache_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_changes_miss),
		cmocka_unit_test(test_kinds_separate),
		cmocka_unit_test(test_replace),
		cmocka_unit_test(test_corrupt_is_empty),
		cmocka_unit_test(test_racy_not_stored),
		cmocka_unit_test(test_save_only_when_dirty),
		cmocka_unit_test(test_save_error),
		cmocka_unit_test(test_many_and_bound),
		cmocka_unit_test(test_null_cache),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
