/*
 * test_libwheel.c: finding the wheel that installed a library.  Temporary
 * trees in both layouts (pip's site-packages, and a relocated install
 * with ROOT/dist-info beside ROOT/lib) with RECORDs written as pip writes
 * them, RECORDs that do not list the file or are garbage, the cache, the
 * version rule, base64url to hex against known digests, and the real
 * /usr/local/cuda, whose libraries came from NVIDIA's wheels (skipped
 * where it does not exist).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libwheel.h"
#include "outfile.h"
#include "errors.h"
#include "files.h"
#include "xalloc.h"

#define CUDART "/usr/local/cuda/lib64/libcudart.so.13"
#define RUNTIME_RECORD "/usr/local/cuda/dist-info/" \
    "nvidia_cuda_runtime-13.0.96.dist-info/RECORD"

static char tmpdir[PATH_MAX];

static int
setup(void **state)
{
	(void)state;
	/* Real paths, as the collector passes them. */
	return tu_scratch_make(tmpdir, sizeof tmpdir, "libwheel");
}

static int
teardown(void **state)
{
	(void)state;
	return tu_scratch_remove(tmpdir);
}

static char *
tpath(const char *rel)
{
	return xasprintf("%s/%s", tmpdir, rel);
}

static void
put(const char *rel, const char *text)
{
	char *p = tpath(rel), *dir = xstrdup(p);
	struct ep_err err = { 0 };

	*strrchr(dir, '/') = '\0';
	assert_int_equal(ep_mkdirs(dir, &err), 0);
	assert_int_equal(ep_write_atomic(p, text, strlen(text), &err), 0);
	free(dir);
	free(p);
}

/* urlsafe_b64encode(digest).rstrip("="), as pip writes RECORD. */
static void
b64url(char *out, const unsigned char *in, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrst"
	    "uvwxyz0123456789-_";
	unsigned acc = 0;
	int bits = 0;

	for (size_t i = 0; i < n; i++) {
		acc = (acc << 8 | in[i]) & 0xffff;
		for (bits += 8; bits >= 6; bits -= 6)
			*out++ = a[(acc >> (bits - 6)) & 63];
	}
	if (bits > 0)
		*out++ = a[(acc << (6 - bits)) & 63];
	*out = '\0';
}

/* A library file and the RECORD line pip would write for it at rel. */
static char *
lib_and_line(char hex[EP_SHA256_HEX], const char *librel,
    const char *recrel, const char *content)
{
	unsigned char digest[32];
	char b64[48];

	put(librel, content);
	ep_hash_buf(hex, content, strlen(content));
	for (int i = 0; i < 32; i++) {
		unsigned v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		digest[i] = (unsigned char)v;
	}
	b64url(b64, digest, sizeof digest);
	return xasprintf("%s,sha256=%s,%zu\n", recrel, b64, strlen(content));
}

static int
find(struct ep_libwheel *w, const char *librel, struct ep_cache *cache)
{
	char *p = tpath(librel);
	int rc = ep_libwheel_find(w, p, cache);

	free(p);
	return rc;
}

static void
test_digest_hex(void **state)
{
	char hex[EP_SHA256_HEX], small[8];

	(void)state;
	/* SHA-256 of "" and of "abc", as RECORD files write them. */
	assert_int_equal(ep_libwheel_digest_hex(hex, sizeof hex,
	    "47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU", 43), 32);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb924"
	    "27ae41e4649b934ca495991b7852b855");
	assert_int_equal(ep_libwheel_digest_hex(hex, sizeof hex,
	    "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0", 43), 32);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223"
	    "b00361a396177a9cb410ff61f20015ad");
	assert_int_equal(ep_libwheel_digest_hex(hex, sizeof hex, "TWFu", 4),
	    3);
	assert_string_equal(hex, "4d616e");
	assert_int_equal(ep_libwheel_digest_hex(hex, sizeof hex, "", 0), 0);
	assert_string_equal(hex, "");
	/* RECORD's base64 is URL-safe without padding (PEP 376, PEP 427):
	 * the standard alphabet, padding, or both are not a RECORD hash. */
	assert_int_equal(ep_libwheel_digest_hex(hex, sizeof hex,
	    "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=", 44), -1);
	assert_int_equal(ep_libwheel_digest_hex(hex, sizeof hex,
	    "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0", 43), -1);
	assert_int_equal(ep_libwheel_digest_hex(hex, sizeof hex,
	    "ungWv48Bz-pBQUDeXa4iI7ADYaOWF3qctBD_YfIAFa0=", 44), -1);
	/* Not base64, a length base64 cannot have, bits left over, two
	 * alphabets, no room. */
	assert_int_equal(ep_libwheel_digest_hex(hex, sizeof hex, "ab$d", 4),
	    -1);
	assert_int_equal(ep_libwheel_digest_hex(hex, sizeof hex, "abcde", 5),
	    -1);
	assert_int_equal(ep_libwheel_digest_hex(hex, sizeof hex, "TWFv", 4),
	    3);
	assert_int_equal(ep_libwheel_digest_hex(hex, sizeof hex, "TWE", 3),
	    2);
	assert_int_equal(ep_libwheel_digest_hex(hex, sizeof hex, "TWF", 3),
	    -1);
	assert_int_equal(ep_libwheel_digest_hex(hex, sizeof hex, "a+b_", 4),
	    -1);
	assert_int_equal(ep_libwheel_digest_hex(small, sizeof small,
	    "TWFuTWFu", 8), -1);
	assert_int_equal(ep_libwheel_digest_hex(small, 0, "", 0), -1);
}

static void
test_refine(void **state)
{
	char v[64];

	(void)state;
	assert_int_equal(ep_libwheel_refine(v, sizeof v, "13.0", "13.0.96"), 1);
	assert_string_equal(v, "13.0.96");
	assert_int_equal(ep_libwheel_refine(v, sizeof v, "13.0", "13.0.88.1"),
	    1);
	assert_string_equal(v, "13.0.88");
	assert_int_equal(ep_libwheel_refine(v, sizeof v, "12.4", "12.4.127"),
	    1);
	assert_string_equal(v, "12.4.127");
	/* A pre-release comes before the release it names. */
	assert_int_equal(ep_libwheel_refine(v, sizeof v, "13.0", "13.0.96rc1"),
	    0);
	assert_int_equal(ep_libwheel_refine(v, sizeof v, "13.0",
	    "13.0.96.dev1"), 0);
	/* Another release, an already full version, no X.Y. */
	assert_int_equal(ep_libwheel_refine(v, sizeof v, "13.0", "13.1.0"), 0);
	assert_int_equal(ep_libwheel_refine(v, sizeof v, "13.0", "13.01.2"), 0);
	assert_int_equal(ep_libwheel_refine(v, sizeof v, "9.19.0",
	    "9.19.0.56"), 0);
	assert_int_equal(ep_libwheel_refine(v, sizeof v, "13", "13.0.1"), 0);
	assert_int_equal(ep_libwheel_refine(v, sizeof v, "13.0", "13.0"), 0);
	assert_int_equal(ep_libwheel_refine(v, sizeof v, "13.0", "13.0."), 0);
	assert_int_equal(ep_libwheel_refine(v, sizeof v, "", "13.0.1"), 0);
	assert_int_equal(ep_libwheel_refine(v, 4, "13.0", "13.0.96"), 0);
}

/* pip's layout: site/nvidia/x/lib, site/nvidia_x-1.2.3.dist-info. */
static void
test_site_packages(void **state)
{
	struct ep_libwheel w;
	char hex[EP_SHA256_HEX], *line, *rec;

	(void)state;
	line = lib_and_line(hex, "site/nvidia/x/lib/libfoo.so.1",
	    "nvidia/x/lib/libfoo.so.1", "foo library bytes\n");
	rec = xasprintf("nvidia/__init__.py,,\n%s"
	    "nvidia_x-1.2.3.dist-info/METADATA,sha256=abc,10\n"
	    "nvidia_x-1.2.3.dist-info/RECORD,,\n", line);
	put("site/nvidia_x-1.2.3.dist-info/RECORD", rec);
	put("site/nvidia_x-1.2.3.dist-info/METADATA", "Metadata-Version: 2.1\n"
	    "Name: nvidia_X\nVersion: 1.2.3\n\nLong text.\n");
	/* Distractors: a wheel not named nvidia* that lists the file
	 * (never read), and one whose same-named file is elsewhere. */
	put("site/cupy_cuda13x-9.9.dist-info/RECORD", line);
	put("site/cupy_cuda13x-9.9.dist-info/METADATA",
	    "Name: cupy-cuda13x\nVersion: 9.9\n");
	put("site/nvidia_a-0.1.dist-info/RECORD",
	    "nvidia/a/lib/libfoo.so.1,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMp"
	    "JWZG3hSuFU,18\n");
	put("site/nvidia_a-0.1.dist-info/METADATA", "Name: nvidia-a\n"
	    "Version: 0.1\n");

	assert_int_equal(find(&w, "site/nvidia/x/lib/libfoo.so.1", NULL), 1);
	assert_string_equal(w.name, "nvidia-x");
	assert_string_equal(w.version, "1.2.3");
	assert_string_equal(w.sha256, hex);
	assert_int_equal(w.relocated, 0);
	ep_libwheel_clear(&w);

	/* A file the RECORDs do not list. */
	put("site/nvidia/x/lib/libother.so.1", "other\n");
	assert_int_equal(find(&w, "site/nvidia/x/lib/libother.so.1", NULL), 0);
	assert_null(w.name);
	/* Four directories up is within reach, five is not. */
	put("deep/nvidia_q-1.0.dist-info/RECORD", "1/2/3/4/libq.so.1,,2\n"
	    "1/2/3/4/5/libq.so.1,,2\n");
	put("deep/nvidia_q-1.0.dist-info/METADATA", "Name: nvidia-q\n"
	    "Version: 1.0\n");
	put("deep/1/2/3/4/libq.so.1", "q\n");
	put("deep/1/2/3/4/5/libq.so.1", "q\n");
	assert_int_equal(find(&w, "deep/1/2/3/4/libq.so.1", NULL), 1);
	assert_string_equal(w.name, "nvidia-q");
	ep_libwheel_clear(&w);
	assert_int_equal(find(&w, "deep/1/2/3/4/5/libq.so.1", NULL), 0);
	free(rec);
	free(line);
}

/* A relocated install: ROOT/lib/libbar.so.2, ROOT/dist-info/... */
static void
test_relocated(void **state)
{
	struct ep_libwheel w;
	char hex[EP_SHA256_HEX], *line;

	(void)state;
	line = lib_and_line(hex, "root/lib/libbar.so.2",
	    "nvidia/y/lib/libbar.so.2", "bar library\n");
	put("root/dist-info/nvidia_y-4.5.6.dist-info/RECORD", line);
	put("root/dist-info/nvidia_y-4.5.6.dist-info/METADATA",
	    "Name: nvidia-y\nVersion: 4.5.6\n");
	assert_int_equal(find(&w, "root/lib/libbar.so.2", NULL), 1);
	assert_string_equal(w.name, "nvidia-y");
	assert_string_equal(w.version, "4.5.6");
	assert_string_equal(w.sha256, hex);
	assert_int_equal(w.relocated, 1);
	ep_libwheel_clear(&w);

	/* The same name with another size is another file. */
	put("root/lib/libbar.so.2", "bar library, rebuilt\n");
	assert_int_equal(find(&w, "root/lib/libbar.so.2", NULL), 0);
	free(line);

	/* No METADATA: the directory's name tells. */
	line = lib_and_line(hex, "r2/lib/libbaz.so.3", "libbaz.so.3",
	    "baz\n");
	put("r2/dist-info/nvidia_z_cu13-7.8.dist-info/RECORD", line);
	assert_int_equal(find(&w, "r2/lib/libbaz.so.3", NULL), 1);
	assert_string_equal(w.name, "nvidia-z-cu13");
	assert_string_equal(w.version, "7.8");
	ep_libwheel_clear(&w);
	free(line);
}

/* Garbage must cost nothing but the answer. */
static void
test_garbage(void **state)
{
	static const char bin[] = "\0\xff\"\n,,,\n\"unterminated,\n"
	    "\"libg.so.1\"\"x,\n";
	struct ep_libwheel w;
	struct ep_err err = { 0 };
	char *p, big[600];

	(void)state;
	put("g/lib/libg.so.1", "g\n");
	p = tpath("g/dist-info/nvidia_bin-1.dist-info/RECORD");
	put("g/dist-info/nvidia_bin-1.dist-info/METADATA", "Name: x\n");
	assert_int_equal(ep_write_atomic(p, bin, sizeof bin - 1, &err), 0);
	free(p);
	memset(big, '9', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	p = xasprintf("libg.so.1\nlibg.so.1,\nlibg.so.1,sha256=,\n"
	    "libg.so.1,sha256=$$$,2x\nlibg.so.1,sha256=%s,%s\n"
	    "\"lib/libg.so.1,sha256=,2\n", big, big);
	put("g/dist-info/nvidia_junk-1.dist-info/RECORD", p);
	free(p);
	put("g/dist-info/nvidia_junk-1.dist-info/METADATA", "\0");
	/* A RECORD that is a directory; a dist-info that is a file. */
	put("g/dist-info/nvidia_dir-1.dist-info/RECORD/x", "");
	put("g/dist-info/nvidia_file-1.dist-info", "not a directory\n");
	/* A METADATA with a bad Name and a version with a space. */
	put("g/dist-info/nvidia_bad-1.dist-info/RECORD", "lib/libg.so.1,,2\n");
	put("g/dist-info/nvidia_bad-1.dist-info/METADATA", "Name: -bad-\n"
	    "Version: 1 2\n");
	assert_int_equal(find(&w, "g/lib/libg.so.1", NULL), 0);
	assert_null(w.name);

	/* A quoted path, and an entry with no digest: found, no sha. */
	put("g/dist-info/nvidia_ok-2.0.dist-info/RECORD",
	    "\"nvidia/g,\"\"q\"\"/lib/libg.so.1\",,2\n");
	assert_int_equal(find(&w, "g/lib/libg.so.1", NULL), 1);
	assert_string_equal(w.name, "nvidia-ok");
	assert_string_equal(w.version, "2.0");
	assert_string_equal(w.sha256, "");
	ep_libwheel_clear(&w);

	/* Not a regular file. */
	assert_int_equal(find(&w, "g/lib", NULL), 0);
	assert_int_equal(find(&w, "g/lib/none.so", NULL), 0);
}

/* The real CUDA install of the build machines, from NVIDIA's wheels. */
static void
test_real_cuda(void **state)
{
	struct ep_libwheel w;
	struct ep_manifest *m;
	struct ep_err err = { 0 };
	char real[PATH_MAX], hex[EP_SHA256_HEX];

	(void)state;
	if (realpath(CUDART, real) == NULL || access(RUNTIME_RECORD, R_OK) != 0)
		skip();
	assert_int_equal(ep_libwheel_find(&w, real, NULL), 1);
	assert_string_equal(w.name, "nvidia-cuda-runtime");
	assert_string_equal(w.version, "13.0.96");
	assert_int_equal(ep_hash_file(hex, real, &err), 0);
	assert_string_equal(w.sha256, hex);

	/* What the collector makes of it, after cudart said "13.0". */
	m = ep_manifest_new();
	ep_manifest_set(m, "lib.cudart.version", "13.0");
	ep_libwheel_apply(m, "cudart", &w);
	assert_string_equal(ep_manifest_get(m, "lib.cudart.version"),
	    "13.0.96");
	assert_string_equal(ep_manifest_get(m, "lib.cudart.wheel"),
	    "nvidia-cuda-runtime==13.0.96");
	assert_string_equal(ep_manifest_get(m, "lib.cudart.record_sha256"),
	    hex);
	/* A full version is left alone. */
	ep_manifest_set(m, "lib.cudart.version", "13.0.95");
	ep_libwheel_apply(m, "cudart", &w);
	assert_string_equal(ep_manifest_get(m, "lib.cudart.version"),
	    "13.0.95");
	ep_manifest_free(m);
	ep_libwheel_clear(&w);
}

/* The cache answers for an unchanged file, and only while what the
 * answer rests on is unchanged.  On the real cudart: a file created now
 * is too recent for the cache to keep. */
static void
test_cache(void **state)
{
	struct ep_libwheel w;
	struct ep_cache *c;
	struct stat st;
	char real[PATH_MAX], *v;
	const char *got;

	(void)state;
	if (realpath(CUDART, real) == NULL || stat(real, &st) < 0 ||
	    access("/usr/local/cuda/dist-info", R_OK) != 0)
		skip();
	c = ep_cache_open(NULL);
	assert_int_equal(ep_libwheel_find(&w, real, c), 1);
	ep_libwheel_clear(&w);
	got = ep_cache_get(c, "wheel1", &st);
	assert_non_null(got);
	assert_non_null(strstr(got, "wheel\tnvidia-cuda-runtime\t13.0.96\t"));
	assert_non_null(strstr(got, "dist-info/RECORD\t"));

	/* A stored answer is taken without looking. */
	ep_cache_put(c, "wheel1", &st, "wheel\tnvidia-planted\t1.0\t-\t0\n");
	assert_int_equal(ep_libwheel_find(&w, real, c), 1);
	assert_string_equal(w.name, "nvidia-planted");
	assert_string_equal(w.sha256, "");
	ep_libwheel_clear(&w);
	ep_cache_put(c, "wheel1", &st, "none\n");
	assert_int_equal(ep_libwheel_find(&w, real, c), 0);

	/* One changed dependency, or a malformed entry: looked for again. */
	v = xasprintf("none\ndep\t%s\t1:2:3:4.000000000:5.000000000\n", real);
	ep_cache_put(c, "wheel1", &st, v);
	free(v);
	assert_int_equal(ep_libwheel_find(&w, real, c), 1);
	assert_string_equal(w.name, "nvidia-cuda-runtime");
	ep_libwheel_clear(&w);
	ep_cache_put(c, "wheel1", &st, "wheel\tBad Name\t1\t-\t0\n");
	assert_int_equal(ep_libwheel_find(&w, real, c), 1);
	assert_string_equal(w.name, "nvidia-cuda-runtime");
	ep_libwheel_clear(&w);
	ep_cache_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_digest_hex),
		cmocka_unit_test(test_refine),
		cmocka_unit_test_setup_teardown(test_site_packages, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_relocated, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_garbage, setup, teardown),
		cmocka_unit_test(test_real_cuda),
		cmocka_unit_test(test_cache),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
