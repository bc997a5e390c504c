/*
 * test_collect_extra.c: the facts a policy's "capture" and --env,
 * --file-sha256, --file-line add (collect_env.c, collect_files.c): a
 * prefix's variables recorded, one whose name looks like a credential's
 * left out and said (by name, never its value), a file's SHA-256 and
 * first line, a missing file said, a FIFO and a directory refused at
 * once, a file through a symbolic link read.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "collect.h"

static char dir[] = "/tmp/ep-collect-extra-XXXXXX";

static int
setup(void **state)
{
	(void)state;
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char *cmd = NULL;
	int rc;

	(void)state;
	if (asprintf(&cmd, "rm -rf '%s'", dir) < 0)
		return -1;
	rc = system(cmd);
	free(cmd);
	return rc == 0 ? 0 : -1;
}

/* dir/name (static). */
static const char *
at(const char *name)
{
	static char buf[512];

	snprintf(buf, sizeof buf, "%s/%s", dir, name);
	return buf;
}

static void
test_env(void **state)
{
	struct ep_manifest *m = ep_manifest_new();
	struct ep_capture_opts o = { 0 };
	struct ep_collect c = { .opts = &o, .m = m };
	char *dump;

	(void)state;
	ep_strv_push(&c.extra.env, "EPX_NCCL_*");
	ep_strv_push(&c.extra.env, "EPX_ONE");
	ep_strv_push(&c.extra.not_secret, "EPX_NCCL_TOKEN_PATH");
	setenv("EPX_NCCL_HCA", "mlx5_0", 1);
	setenv("EPX_NCCL_AUTH_TOKEN", "hunter2", 1);
	setenv("EPX_NCCL_TOKEN_PATH", "/run/t", 1);
	setenv("EPX_ONE", "1", 1);
	setenv("EPX_TWO", "2", 1);
	setenv("CUBLAS_WORKSPACE_CONFIG", ":4096:8", 1);
	assert_int_equal(ep_collect_env(&c, NULL), 0);
	assert_string_equal(ep_manifest_get(m, "env.EPX_NCCL_HCA"), "mlx5_0");
	assert_string_equal(ep_manifest_get(m, "env.EPX_ONE"), "1");
	assert_string_equal(ep_manifest_get(m, "env.EPX_NCCL_TOKEN_PATH"),
	    "/run/t");
	assert_null(ep_manifest_get(m, "env.EPX_TWO"));
	assert_null(ep_manifest_get(m, "env.EPX_NCCL_AUTH_TOKEN"));
	/* The allowlisted ones as before. */
	assert_string_equal(ep_manifest_get(m, "env.CUBLAS_WORKSPACE_CONFIG"),
	    ":4096:8");
	/* Said by name; the value nowhere. */
	dump = json_dumps(m->meta, 0);
	assert_non_null(strstr(dump, "environment variable "
	    "EPX_NCCL_AUTH_TOKEN not recorded: its name looks like a "
	    "credential's (TOKEN)"));
	free(dump);
	dump = json_dumps(m->facts, 0);
	assert_null(strstr(dump, "hunter2"));
	free(dump);
	ep_extra_clear(&c.extra);
	ep_manifest_free(m);
}

static void
test_files(void **state)
{
	struct ep_manifest *m = ep_manifest_new();
	struct ep_capture_opts o = { 0 };
	struct ep_collect c = { .opts = &o, .m = m };
	struct ep_err err = { 0 };
	char key[600], *dump;
	FILE *f;

	(void)state;
	f = fopen(at("nccl.conf"), "w");
	assert_non_null(f);
	fputs("NCCL_IB_HCA=mlx5\r\n# second\n", f);
	fclose(f);
	snprintf(key, sizeof key, "%s", at("nccl.conf"));
	assert_int_equal(symlink(key, at("link.conf")), 0);
	f = fopen(at("empty"), "w");
	assert_non_null(f);
	fclose(f);
	ep_strv_push(&c.extra.sha256, at("nccl.conf"));
	ep_strv_push(&c.extra.line, at("link.conf"));
	ep_strv_push(&c.extra.line, at("empty"));
	ep_strv_push(&c.extra.sha256, at("missing"));
	if (ep_collect_files(&c, &err) != 0)
		fail_msg("%s", err.msg);
	snprintf(key, sizeof key, "file.%s.sha256", at("nccl.conf"));
	/* sha256sum of "NCCL_IB_HCA=mlx5\r\n# second\n" */
	assert_string_equal(ep_manifest_get(m, key),
	    "8325e5909e25fcdaf28bca6a52cf1f93f438a4230a4413bcd18a036a6b6619cb");
	snprintf(key, sizeof key, "file.%s.line", at("link.conf"));
	assert_string_equal(ep_manifest_get(m, key), "NCCL_IB_HCA=mlx5");
	snprintf(key, sizeof key, "file.%s.line", at("empty"));
	assert_string_equal(ep_manifest_get(m, key), "");
	snprintf(key, sizeof key, "file.%s.sha256", at("missing"));
	assert_null(ep_manifest_get(m, key));
	dump = json_dumps(m->meta, 0);
	assert_non_null(strstr(dump, "no such file"));
	free(dump);
	ep_extra_clear(&c.extra);

	/* A FIFO and a directory: refused at once, naming the path. */
	assert_int_equal(mkfifo(at("fifo"), 0600), 0);
	ep_strv_push(&c.extra.line, at("fifo"));
	assert_int_equal(ep_collect_files(&c, &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, "a FIFO"));
	assert_non_null(strstr(err.msg, at("fifo")));
	ep_extra_clear(&c.extra);
	ep_strv_push(&c.extra.sha256, dir);
	memset(&err, 0, sizeof err);
	assert_int_equal(ep_collect_files(&c, &err), -1);
	assert_non_null(strstr(err.msg, "a directory"));
	ep_extra_clear(&c.extra);
	ep_manifest_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_env),
		cmocka_unit_test(test_files),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
