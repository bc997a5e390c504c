/*
 * test_hash.c: SHA-256 of buffers and files against published vectors and
 * against coreutils' sha256sum, files of every awkward size, per-job
 * errors (directory, fifo, missing file), thread counts, and the cache.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cache.h"
#include "hash.h"

#define SHA_EMPTY \
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define SHA_ABC \
	"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
/* FIPS 180-2 appendix B.2: the 448-bit two-block message. */
#define MSG_2BLOCK \
	"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
#define SHA_2BLOCK \
	"248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"

static char tmpdir[64];

/* Sizes around every block and buffer boundary the hasher may use. */
static const size_t sizes[] = {
	0, 1, 55, 56, 63, 64, 65, 4095, 4096, 4097, 65535, 65536, 65537,
	131071, 131072, 131073, 262143, 262144, 262145, 524288, 1048575,
	1048576, 1048577, 3 * 1048576 + 7,
};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static int
setup(void **state)
{
	(void)state;
	return tu_scratch_make(tmpdir, sizeof tmpdir, "hash");
}

static int
teardown(void **state)
{
	(void)state;
	return tu_scratch_remove(tmpdir);
}

/* A byte pattern that does not repeat on any power-of-two period. */
static unsigned char *
pattern(size_t len, unsigned seed)
{
	unsigned char *p = xmalloc(len ? len : 1);
	uint32_t x = 2463534242u ^ seed;

	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (unsigned char)x;
	}
	return p;
}

static char *
write_file(const char *name, const void *data, size_t len)
{
	char *path = xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	if (len > 0)
		assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* The digest coreutils computes for path. */
static void
sha256sum(char hex[EP_SHA256_HEX], const char *path)
{
	char *cmd = xasprintf("sha256sum '%s'", path);
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	assert_int_equal(fscanf(p, "%64s", hex), 1);
	assert_int_equal(pclose(p), 0);
	free(cmd);
}

static void
test_buf_vectors(void **state)
{
	char hex[EP_SHA256_HEX];

	(void)state;
	ep_hash_buf(hex, "", 0);
	assert_string_equal(hex, SHA_EMPTY);
	ep_hash_buf(hex, "abc", 3);
	assert_string_equal(hex, SHA_ABC);
	ep_hash_buf(hex, MSG_2BLOCK, strlen(MSG_2BLOCK));
	assert_string_equal(hex, SHA_2BLOCK);
}

static void
test_file_vectors(void **state)
{
	char hex[EP_SHA256_HEX];
	struct ep_err err = { 0 };
	char *empty = write_file("empty", "", 0);
	char *abc = write_file("abc", "abc", 3);

	(void)state;
	assert_int_equal(ep_hash_file(hex, empty, &err), 0);
	assert_string_equal(hex, SHA_EMPTY);
	assert_int_equal(ep_hash_file(hex, abc, &err), 0);
	assert_string_equal(hex, SHA_ABC);
	free(empty);
	free(abc);
}

/* 1 MiB of a pattern: the buffer, the file and sha256sum agree. */
static void
test_mebibyte_pattern(void **state)
{
	size_t len = 1048576;
	unsigned char *data = pattern(len, 1);
	char *path = write_file("mib", data, len);
	char a[EP_SHA256_HEX], b[EP_SHA256_HEX], c[EP_SHA256_HEX];
	struct ep_err err = { 0 };

	(void)state;
	ep_hash_buf(a, data, len);
	assert_int_equal(ep_hash_file(b, path, &err), 0);
	sha256sum(c, path);
	assert_string_equal(a, c);
	assert_string_equal(b, c);
	free(data);
	free(path);
}

static char **
make_sized_files(void)
{
	char **paths = xcalloc(NSIZES, sizeof *paths);

	for (size_t i = 0; i < NSIZES; i++) {
		unsigned char *data = pattern(sizes[i], (unsigned)i);
		char *name = xasprintf("size-%zu", sizes[i]);

		paths[i] = write_file(name, data, sizes[i]);
		free(name);
		free(data);
	}
	return paths;
}

static void
free_paths(char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(paths);
}

/* Every size, on 1, 2, 3, 8 and "all CPUs" workers, equals sha256sum. */
static void
test_sizes_and_threads(void **state)
{
	static const unsigned threads[] = { 1, 2, 3, 8, 0 };
	char **paths = make_sized_files();
	char want[NSIZES][EP_SHA256_HEX];
	struct ep_hash_job jobs[NSIZES];
	struct ep_hash_stats st;
	struct ep_err err = { 0 };
	unsigned long long total = 0;

	(void)state;
	for (size_t i = 0; i < NSIZES; i++) {
		sha256sum(want[i], paths[i]);
		total += sizes[i];
	}
	for (size_t t = 0; t < sizeof threads / sizeof threads[0]; t++) {
		memset(jobs, 0, sizeof jobs);
		for (size_t i = 0; i < NSIZES; i++)
			jobs[i].path = paths[i];
		assert_int_equal(ep_hash_files(jobs, NSIZES, NULL, threads[t],
		    &st, &err), 0);
		assert_int_equal(st.files, NSIZES);
		assert_int_equal(st.cached, 0);
		assert_int_equal(st.bytes, total);
		for (size_t i = 0; i < NSIZES; i++) {
			assert_null(jobs[i].error);
			assert_int_equal(jobs[i].cached, 0);
			assert_string_equal(jobs[i].hex, want[i]);
		}
		ep_hash_jobs_clear(jobs, NSIZES);
	}
	free_paths(paths, NSIZES);
}

/* A directory, a fifo and a missing file fail alone, naming their path;
 * the files around them are still hashed. */
static void
test_job_errors(void **state)
{
	char *good = write_file("good", "abc", 3);
	char *dir = xasprintf("%s/adir", tmpdir);
	char *fifo = xasprintf("%s/afifo", tmpdir);
	char *missing = xasprintf("%s/missing", tmpdir);
	struct ep_hash_job jobs[5] = {
		{ .path = dir }, { .path = good }, { .path = fifo },
		{ .path = missing }, { .path = good },
	};
	struct ep_hash_stats st;
	struct ep_err err = { 0 };
	char *want;

	(void)state;
	assert_int_equal(mkdir(dir, 0755), 0);
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(ep_hash_files(jobs, 5, NULL, 2, &st, &err), 0);
	assert_int_equal(st.files, 5);
	assert_int_equal(st.bytes, 3);	/* one file twice: read once */

	want = xasprintf("%s: not a regular file", dir);
	assert_string_equal(jobs[0].error, want);
	assert_string_equal(jobs[0].hex, "");
	free(want);
	want = xasprintf("%s: not a regular file", fifo);
	assert_string_equal(jobs[2].error, want);
	free(want);
	want = xasprintf("%s: %s", missing, strerror(ENOENT));
	assert_string_equal(jobs[3].error, want);
	assert_string_equal(jobs[3].hex, "");
	free(want);
	assert_null(jobs[1].error);
	assert_string_equal(jobs[1].hex, SHA_ABC);
	assert_null(jobs[4].error);
	assert_string_equal(jobs[4].hex, SHA_ABC);
	ep_hash_jobs_clear(jobs, 5);
	assert_null(jobs[0].error);

	free(good);
	free(dir);
	free(fifo);
	free(missing);
}

/* ep_hash_file opens a fifo without blocking on it (no writer exists;
 * a blocking open would hang here) and says what it is. */
static void
test_file_fifo_and_dir(void **state)
{
	char *fifo = xasprintf("%s/fifo2", tmpdir);
	char hex[EP_SHA256_HEX];
	struct ep_err err = { 0 };
	char *want = xasprintf("%s: a FIFO, not a regular file", fifo);

	(void)state;
	assert_int_equal(mkfifo(fifo, 0644), 0);
	assert_int_equal(ep_hash_file(hex, fifo, &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_string_equal(err.msg, want);
	free(want);

	want = xasprintf("%s: a directory, not a regular file", tmpdir);
	assert_int_equal(ep_hash_file(hex, tmpdir, &err), -1);
	assert_string_equal(err.msg, want);
	free(want);
	free(fifo);
}

/* A "regular" file of /proc is not a file: /proc/kmsg's read blocks (and
 * as root consumes the kernel's log), so nothing there is read. */
static void
test_file_proc_refused(void **state)
{
	char hex[EP_SHA256_HEX];
	struct ep_err err = { 0 };

	(void)state;
	assert_int_equal(ep_hash_file(hex, "/proc/self/status", &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_string_equal(err.msg,
	    "/proc/self/status: a file of proc, not a regular file");
}

/* A symbolic link is followed: the caller resolves and names paths. */
static void
test_symlink_followed(void **state)
{
	char *target = write_file("target", "abc", 3);
	char *link = xasprintf("%s/link", tmpdir);
	char hex[EP_SHA256_HEX];
	struct ep_err err = { 0 };

	(void)state;
	assert_int_equal(symlink(target, link), 0);
	assert_int_equal(ep_hash_file(hex, link, &err), 0);
	assert_string_equal(hex, SHA_ABC);
	free(target);
	free(link);
}

/* Paths to one file (the file, a symbolic link, a hard link) are read
 * once, and each gets the digest. */
static void
test_same_file_once(void **state)
{
	size_t len = 300000;
	unsigned char *data = pattern(len, 7);
	char *file = write_file("one", data, len);
	char *sym = xasprintf("%s/one-sym", tmpdir);
	char *hard = xasprintf("%s/one-hard", tmpdir);
	char *other = write_file("other", "abc", 3);
	struct ep_hash_job jobs[4];
	struct ep_hash_stats st;
	struct ep_err err = { 0 };
	char want[EP_SHA256_HEX];

	(void)state;
	assert_int_equal(symlink(file, sym), 0);
	assert_int_equal(link(file, hard), 0);
	sha256sum(want, file);
	memset(jobs, 0, sizeof jobs);
	jobs[0].path = sym;
	jobs[1].path = other;
	jobs[2].path = hard;
	jobs[3].path = file;
	assert_int_equal(ep_hash_files(jobs, 4, NULL, 2, &st, &err), 0);
	assert_int_equal(st.bytes, len + 3);
	assert_string_equal(jobs[0].hex, want);
	assert_string_equal(jobs[1].hex, SHA_ABC);
	assert_string_equal(jobs[2].hex, want);
	assert_string_equal(jobs[3].hex, want);
	for (size_t i = 0; i < 4; i++)
		assert_null(jobs[i].error);
	ep_hash_jobs_clear(jobs, 4);
	free(data);
	free(file);
	free(sym);
	free(hard);
	free(other);
}

/* A file whose mtime and ctime are old enough to trust: a real CUDA
 * library where the machine has one, else a system file. */
static const char *
old_file(void)
{
	static const char *const candidates[] = {
		"/usr/local/cuda/lib64/libcudart.so.13",
		"/usr/bin/sha256sum",
		"/etc/os-release",
		NULL,
	};
	struct stat st;

	for (size_t i = 0; candidates[i] != NULL; i++)
		if (stat(candidates[i], &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_ctime < time(NULL) - 10 && st.st_mtime <
		    time(NULL) - 10)
			return candidates[i];
	return NULL;
}

/* An old file is answered by the cache the second time, with the same
 * digest and no bytes read; a file written just now is hashed again. */
static void
test_cache_hits(void **state)
{
	const char *old = old_file();
	char *fresh = write_file("fresh", "abc", 3);
	struct ep_cache *cache = ep_cache_open(NULL);
	struct ep_hash_job jobs[2];
	struct ep_hash_stats st;
	struct ep_err err = { 0 };
	struct stat sb;
	char want[EP_SHA256_HEX];

	(void)state;
	assert_non_null(old);
	assert_int_equal(stat(old, &sb), 0);
	sha256sum(want, old);
	for (int round = 0; round < 3; round++) {
		memset(jobs, 0, sizeof jobs);
		jobs[0].path = old;
		jobs[1].path = fresh;
		assert_int_equal(ep_hash_files(jobs, 2, cache, 0, &st, &err),
		    0);
		assert_string_equal(jobs[0].hex, want);
		assert_string_equal(jobs[1].hex, SHA_ABC);
		assert_int_equal(jobs[0].cached, round > 0);
		assert_int_equal(jobs[1].cached, 0);
		assert_int_equal(st.cached, round > 0 ? 1 : 0);
		assert_int_equal(st.bytes, round > 0 ? 3 :
		    (unsigned long long)sb.st_size + 3);
		ep_hash_jobs_clear(jobs, 2);
	}
	assert_string_equal(ep_cache_get(cache, "sha256", &sb), want);
	ep_cache_free(cache);
	free(fresh);
}

/* A cached value that is not a digest is not believed. */
static void
test_cache_bad_value(void **state)
{
	const char *old = old_file();
	struct ep_cache *cache = ep_cache_open(NULL);
	struct ep_hash_job job = { .path = old };
	struct ep_hash_stats st;
	struct ep_err err = { 0 };
	struct stat sb;
	char want[EP_SHA256_HEX];

	(void)state;
	assert_non_null(old);
	assert_int_equal(stat(old, &sb), 0);
	ep_cache_put(cache, "sha256", &sb, "not-a-digest");
	assert_string_equal(ep_cache_get(cache, "sha256", &sb),
	    "not-a-digest");
	sha256sum(want, old);
	assert_int_equal(ep_hash_files(&job, 1, cache, 1, &st, &err), 0);
	assert_int_equal(job.cached, 0);
	assert_string_equal(job.hex, want);
	assert_string_equal(ep_cache_get(cache, "sha256", &sb), want);
	ep_hash_jobs_clear(&job, 1);
	ep_cache_free(cache);
}

static void
test_empty_and_version(void **state)
{
	struct ep_hash_stats st = { 1, 1, 1 };
	struct ep_err err = { 0 };

	(void)state;
	assert_int_equal(ep_hash_files(NULL, 0, NULL, 0, &st, &err), 0);
	assert_int_equal(st.files, 0);
	assert_int_equal(st.cached, 0);
	assert_int_equal(st.bytes, 0);
	assert_true(strncmp(ep_hash_library_version(), "OpenSSL ", 8) == 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf_vectors),
		cmocka_unit_test(test_file_vectors),
		cmocka_unit_test(test_mebibyte_pattern),
		cmocka_unit_test(test_sizes_and_threads),
		cmocka_unit_test(test_job_errors),
		cmocka_unit_test(test_file_fifo_and_dir),
		cmocka_unit_test(test_file_proc_refused),
		cmocka_unit_test(test_symlink_followed),
		cmocka_unit_test(test_same_file_once),
		cmocka_unit_test(test_cache_hits),
		cmocka_unit_test(test_cache_bad_value),
		cmocka_unit_test(test_empty_and_version),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
