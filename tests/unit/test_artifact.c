/*
 * test_artifact.c: the pure parts of --artifact (the key a path gets, the
 * digest of a directory's lines, written out byte by byte as sha256sum
 * writes them), and the collector on a scratch directory: its files
 * queued as parts, hashed, and made one digest; what it refuses.
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
#include <unistd.h>

#include "collect.h"
#include "hash.h"

#define SHA_EMPTY \
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
#define HEX_A \
	"ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb"
#define HEX_B \
	"3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d"

static char tmpdir[64];

static int
setup(void **state)
{
	(void)state;
	return tu_scratch_make(tmpdir, sizeof tmpdir, "artifact");
}

static int
teardown(void **state)
{
	(void)state;
	return tu_scratch_remove(tmpdir);
}

static void
key_is(const char *path, const char *want)
{
	char *k = ep_artifact_key(path);

	assert_string_equal(k, want);
	free(k);
}

static void
test_key(void **state)
{
	(void)state;
	/* One spelling per path as given. */
	key_is("models/bert", "models/bert");
	key_is("./models/bert/", "models/bert");
	key_is("models//bert///", "models/bert");
	key_is("./././models/./bert/.", "models/bert");
	key_is("/models/bert", "/models/bert");
	key_is("//models/bert/", "/models/bert");
	key_is("/./models/bert", "/models/bert");
	key_is("/", "/");
	key_is("///", "/");
	key_is(".", ".");
	key_is("./", ".");
	key_is("", ".");
	/* ".." is kept: beside a link it is not the parent of the name. */
	key_is("../models/../bert", "../models/../bert");
	key_is("a/..", "a/..");
	/* Names that start with a dot are names. */
	key_is(".models/..bert/.x", ".models/..bert/.x");
	/* White space, controls, '%' and every byte past ASCII: %XX. */
	key_is("my model", "my%20model");
	key_is("a\tb\nc\rd\x7f", "a%09b%0Ac%0Dd%7F");
	key_is("100%", "100%25");
	key_is("100%25", "100%2525");
	key_is("mod\xc3\xa8le", "mod%C3%A8le");
	key_is("bad\xff", "bad%FF");
	/* Glob and dotted-key characters stay readable. */
	key_is("m*[x]?.v1", "m*[x]?.v1");
}

static void
digest_is(const char *const *names, const char *const *hexes, size_t n,
    const char *text)
{
	char got[EP_SHA256_HEX], want[EP_SHA256_HEX];

	ep_artifact_digest(got, names, hexes, n);
	ep_hash_buf(want, text, strlen(text));
	assert_string_equal(got, want);
}

static void
test_digest(void **state)
{
	const char *names[] = { "./a", "./dir/b" };
	const char *hexes[] = { HEX_A, HEX_B };
	const char *esc[] = { "./a\\b", "./c\nd", "./e\rf", "./plain" };
	const char *hex4[] = { HEX_A, HEX_B, HEX_A, HEX_B };
	char got[EP_SHA256_HEX];

	(void)state;
	/* No files: the digest of no bytes (xargs -r runs nothing). */
	ep_artifact_digest(got, NULL, NULL, 0);
	assert_string_equal(got, SHA_EMPTY);
	/* sha256sum's lines, as they are. */
	digest_is(names, hexes, 2,
	    HEX_A "  ./a\n"
	    HEX_B "  ./dir/b\n");
	/* A name with '\\', newline or CR: the line starts with '\\' and
	 * those are written \\\\, \\n, \\r (GNU coreutils 9). */
	digest_is(esc, hex4, 4,
	    "\\" HEX_A "  ./a\\\\b\n"
	    "\\" HEX_B "  ./c\\nd\n"
	    "\\" HEX_A "  ./e\\rf\n"
	    HEX_B "  ./plain\n");
}

/* A file of text under the scratch directory. */
static void
put(const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", tmpdir, rel);
	FILE *f = fopen(p, "w");

	free(p);
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* tmpdir/rel, in one of a few static buffers (no test holds more). */
static const char *
at(const char *rel)
{
	static char buf[4][256];
	static unsigned next;
	char *b = buf[next++ % 4];

	snprintf(b, sizeof buf[0], "%s/%s", tmpdir, rel);
	return b;
}

/* Run the collector on paths, hash its queue as capture.c does, and
 * finish: 0 with the facts in *mp, or -1 with err. */
static int
collect(struct ep_manifest **mp, struct ep_err *err, const char *const *paths,
    size_t n)
{
	struct ep_capture_opts o = { 0 };
	struct ep_collect c = { 0 };
	struct ep_hash_job *jobs = NULL;
	int rc;

	for (size_t i = 0; i < n; i++)
		ep_strv_push(&o.artifacts, paths[i]);
	c.opts = &o;
	c.m = ep_manifest_new();
	rc = ep_collect_artifacts(&c, err);
	if (rc == 0) {
		jobs = xcalloc(c.hash_paths.n + 1, sizeof *jobs);
		for (size_t i = 0; i < c.hash_paths.n; i++) {
			assert_string_equal(c.hash_keys.v[i], "");
			jobs[i].path = c.hash_paths.v[i];
		}
		assert_int_equal(ep_hash_files(jobs, c.hash_paths.n, NULL, 2,
		    NULL, err), 0);
		rc = ep_collect_artifacts_finish(&c, jobs, err);
		ep_hash_jobs_clear(jobs, c.hash_paths.n);
		free(jobs);
	}
	ep_collect_artifacts_clear(&c);
	ep_strv_clear(&c.hash_keys);
	ep_strv_clear(&c.hash_paths);
	ep_strv_clear(&o.artifacts);
	if (rc == 0)
		*mp = c.m;
	else
		ep_manifest_free(c.m);
	return rc;
}

static void
test_collect(void **state)
{
	struct ep_manifest *m = NULL;
	struct ep_err err = { 0 };
	char *dir = xasprintf("%s/sm", tmpdir), *key, *fact;
	char *file = xasprintf("%s/sm/saved_model.pb", tmpdir);
	char want[EP_SHA256_HEX], line[512];
	const char *paths[3];

	(void)state;
	assert_int_equal(mkdir(dir, 0755), 0);
	put("sm/saved_model.pb", "a");
	assert_int_equal(mkdir(at("sm/variables"), 0755), 0);
	put("sm/variables/variables.index", "b");
	assert_int_equal(symlink("../saved_model.pb", at("sm/variables/pb")),
	    0);
	assert_int_equal(mkdir(at("sm/empty"), 0755), 0);

	/* The directory twice (one key), the file once. */
	paths[0] = dir;
	paths[1] = file;
	paths[2] = xasprintf("%s/./", dir);
	assert_int_equal(collect(&m, &err, paths, 3), 0);
	free((char *)paths[2]);
	snprintf(line, sizeof line, HEX_A "  ./saved_model.pb\n"
	    HEX_A "  ./variables/pb\n" HEX_B "  ./variables/variables.index\n");
	ep_hash_buf(want, line, strlen(line));
	key = ep_artifact_key(dir);
	fact = xasprintf("artifact.%s.sha256", key);
	assert_string_equal(ep_manifest_get(m, fact), want);
	free(fact);
	fact = xasprintf("artifact.%s.files", key);
	assert_string_equal(ep_manifest_get(m, fact), "3");
	free(fact);
	free(key);
	fact = xasprintf("artifact.%s.sha256", file);
	assert_string_equal(ep_manifest_get(m, fact), HEX_A);
	free(fact);
	fact = xasprintf("artifact.%s.files", file);
	assert_string_equal(ep_manifest_get(m, fact), "1");
	free(fact);
	assert_int_equal(json_object_size(m->facts), 4);
	ep_manifest_free(m);
	m = NULL;

	/* An empty directory: no bytes. */
	paths[0] = at("sm/empty");
	assert_int_equal(collect(&m, &err, paths, 1), 0);
	key = xasprintf("artifact.%s/sm/empty.sha256", tmpdir);
	assert_string_equal(ep_manifest_get(m, key), SHA_EMPTY);
	free(key);
	ep_manifest_free(m);
	m = NULL;

	/* Refused, naming the entry. */
	assert_int_equal(symlink("/etc/hostname", at("sm/abs")), 0);
	paths[0] = dir;
	assert_int_equal(collect(&m, &err, paths, 1), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, "sm/abs -> /etc/hostname: an absolute "
	    "symbolic link"));
	assert_int_equal(unlink(at("sm/abs")), 0);

	assert_int_equal(symlink("../../x", at("sm/variables/up")), 0);
	memset(&err, 0, sizeof err);
	assert_int_equal(collect(&m, &err, paths, 1), -1);
	assert_non_null(strstr(err.msg, "sm/variables/up -> ../../x: a symbolic "
	    "link that leaves the artifact"));
	assert_int_equal(unlink(at("sm/variables/up")), 0);

	/* Out and back in, as written: still refused. */
	assert_int_equal(symlink("../../sm/saved_model.pb", at("sm/variables/"
	    "back")), 0);
	memset(&err, 0, sizeof err);
	assert_int_equal(collect(&m, &err, paths, 1), -1);
	assert_non_null(strstr(err.msg, "leaves the artifact"));
	assert_int_equal(unlink(at("sm/variables/back")), 0);

	assert_int_equal(symlink("..", at("sm/variables/loop")), 0);
	memset(&err, 0, sizeof err);
	assert_int_equal(collect(&m, &err, paths, 1), -1);
	assert_non_null(strstr(err.msg, "sm/variables/loop -> ..: a symbolic "
	    "link to a directory that holds it"));
	assert_int_equal(unlink(at("sm/variables/loop")), 0);

	assert_int_equal(symlink("nothing", at("sm/dangling")), 0);
	memset(&err, 0, sizeof err);
	assert_int_equal(collect(&m, &err, paths, 1), -1);
	assert_non_null(strstr(err.msg, "sm/dangling -> nothing: a symbolic "
	    "link to nothing"));
	assert_int_equal(unlink(at("sm/dangling")), 0);

	assert_int_equal(mkfifo(at("sm/fifo"), 0644), 0);
	memset(&err, 0, sizeof err);
	assert_int_equal(collect(&m, &err, paths, 1), -1);
	assert_non_null(strstr(err.msg, "sm/fifo: a FIFO (refused"));
	assert_int_equal(unlink(at("sm/fifo")), 0);

	/* The cap on files (and directories), from the environment. */
	setenv("ENVPARITY_ARTIFACT_MAX_FILES", "2", 1);
	memset(&err, 0, sizeof err);
	assert_int_equal(collect(&m, &err, paths, 1), -1);
	assert_non_null(strstr(err.msg, "more than 2 directories "
	    "(ENVPARITY_ARTIFACT_MAX_FILES raises the limit)"));
	assert_int_equal(rmdir(at("sm/empty")), 0);
	memset(&err, 0, sizeof err);
	assert_int_equal(collect(&m, &err, paths, 1), -1);
	assert_non_null(strstr(err.msg, "more than 2 files "
	    "(ENVPARITY_ARTIFACT_MAX_FILES raises the limit)"));
	setenv("ENVPARITY_ARTIFACT_MAX_FILES", "3", 1);
	assert_int_equal(collect(&m, &err, paths, 1), 0);
	ep_manifest_free(m);
	m = NULL;
	unsetenv("ENVPARITY_ARTIFACT_MAX_FILES");

	paths[0] = "/nonexistent/model";
	memset(&err, 0, sizeof err);
	assert_int_equal(collect(&m, &err, paths, 1), -1);
	assert_string_equal(err.msg, "--artifact /nonexistent/model: No such "
	    "file or directory");
	free(dir);
	free(file);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_key),
		cmocka_unit_test(test_digest),
		cmocka_unit_test(test_collect),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
