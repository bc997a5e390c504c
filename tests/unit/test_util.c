/* test_util.c: errors, string vectors, file helpers, UTF-8 repair. */
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

#include "outfile.h"
#include "cachedir.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

static char tmpdir[64];

static int
setup(void **state)
{
	(void)state;
	return tu_scratch_make(tmpdir, sizeof tmpdir, "util");
}

static int
teardown(void **state)
{
	(void)state;
	return tu_scratch_remove(tmpdir);
}

static void
test_err_set(void **state)
{
	struct ep_err err = { 0 };

	(void)state;
	assert_int_equal(ep_err_set(&err, EP_E_INPUT, "%s: bad %d", "x", 3), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_string_equal(err.msg, "x: bad 3");
	assert_int_equal(ep_err_set(NULL, EP_E_IO, "ignored"), -1);
}

static void
test_strv(void **state)
{
	struct ep_strv sv = { 0 };

	(void)state;
	for (int i = 20; i > 0; i--) {
		char *s = xasprintf("k%02d", i);
		ep_strv_push_owned(&sv, s);
	}
	ep_strv_push(&sv, "a");
	assert_int_equal(sv.n, 21);
	assert_null(sv.v[21]);
	ep_strv_sort(&sv);
	assert_string_equal(sv.v[0], "a");
	assert_string_equal(sv.v[1], "k01");
	assert_string_equal(sv.v[20], "k20");
	assert_true(ep_strv_contains(&sv, "k07"));
	assert_false(ep_strv_contains(&sv, "k21"));
	ep_strv_clear(&sv);
	assert_int_equal(sv.n, 0);
	assert_null(sv.v);
}

static void
test_read_file(void **state)
{
	struct ep_err err = { 0 };
	char *path = xasprintf("%s/f", tmpdir), *buf;
	size_t len;
	FILE *f = fopen(path, "w");

	(void)state;
	assert_non_null(f);
	fputs("hello\nworld", f);
	fclose(f);
	assert_int_equal(ep_read_file(&buf, &len, path, 100, &err), 0);
	assert_int_equal(len, 11);
	assert_string_equal(buf, "hello\nworld");
	free(buf);

	/* Over the limit: an error naming the path, nothing returned. */
	assert_int_equal(ep_read_file(&buf, &len, path, 5, &err), -1);
	assert_null(buf);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "too large"));

	assert_int_equal(ep_read_file(&buf, &len, tmpdir, 100, &err), -1);
	assert_non_null(strstr(err.msg, "is a directory"));

	free(path);
	path = xasprintf("%s/missing", tmpdir);
	assert_int_equal(ep_read_file(&buf, NULL, path, 100, &err), -1);
	assert_non_null(strstr(err.msg, "No such file"));
	free(path);
}

static void
test_write_atomic(void **state)
{
	struct ep_err err = { 0 };
	char *path = xasprintf("%s/out.json", tmpdir), *buf;
	char *bad = xasprintf("%s/nodir/out.json", tmpdir);
	struct stat st;

	(void)state;
	assert_int_equal(ep_write_atomic(path, "one", 3, &err), 0);
	assert_int_equal(ep_write_atomic(path, "two!", 4, &err), 0);
	assert_int_equal(ep_read_file(&buf, NULL, path, 100, &err), 0);
	assert_string_equal(buf, "two!");
	free(buf);
	/* The umask, not mkstemp's 0600, decides the mode. */
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0666 & ~(unsigned)umask(022));
	umask(022);

	assert_int_equal(ep_write_atomic(bad, "x", 1, &err), -1);
	assert_int_equal(err.kind, EP_E_IO);
	assert_non_null(strstr(err.msg, bad));

	/* Nothing but the file itself is left in the directory. */
	char *cmd = xasprintf("test $(ls -A '%s' | wc -l) -eq 2", tmpdir);
	assert_int_equal(system(cmd), 0);	/* f and out.json */
	free(cmd);
	free(path);
	free(bad);
}

/* The null device is written through (never replaced) and may take
 * several outputs; a link to it, and any other path, are as before.
 * /dev/null is the system's own: it must stay the device. */
static void
test_write_null(void **state)
{
	struct ep_err err = { 0 };
	char *link = xasprintf("%s/null-link", tmpdir);
	char *f = xasprintf("%s/f2", tmpdir);
	struct stat st;

	(void)state;
	if (stat("/dev/null", &st) < 0 || !S_ISCHR(st.st_mode))
		skip();
	assert_int_equal(ep_out_check("/dev/null", 0, &err), 0);
	assert_int_equal(ep_write_atomic("/dev/null", "x", 1, &err), 0);
	assert_int_equal(stat("/dev/null", &st), 0);
	assert_true(S_ISCHR(st.st_mode));
	assert_int_equal(ep_out_same("/dev/null", "/dev/null", 0), 0);
	assert_int_equal(ep_out_same("/dev/null", "/dev/../dev/null", 0), 0);
	assert_int_equal(ep_out_same(f, f, 0), 1);
	assert_int_equal(ep_out_same("-", "-", EP_OUT_STDOUT), 1);
	assert_int_equal(symlink("/dev/null", link), 0);
	assert_int_equal(ep_write_atomic(link, "x", 1, &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, "symbolic link"));
	/* Another device is refused, and says which one is written. */
	assert_int_equal(ep_out_check("/dev/zero", 0, &err), -1);
	assert_non_null(strstr(err.msg, "only the null device is written "
	    "through"));
	assert_int_equal(unlink(link), 0);
	free(link);
	free(f);
}

static void
test_mkdirs(void **state)
{
	struct ep_err err = { 0 };
	char *p = xasprintf("%s/a/b/c", tmpdir);
	struct stat st;

	(void)state;
	assert_int_equal(ep_mkdirs(p, &err), 0);
	assert_int_equal(ep_mkdirs(p, &err), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	free(p);
}

static void
test_utf8_sanitize(void **state)
{
	char *s;

	(void)state;
	s = ep_utf8_sanitize("caf\xc3\xa9", 5);
	assert_string_equal(s, "caf\xc3\xa9");
	free(s);
	s = ep_utf8_sanitize("a\xff" "b", 3);
	assert_string_equal(s, "a\xef\xbf\xbd" "b");
	free(s);
	/* Overlong encoding, surrogate, truncated sequence, embedded NUL. */
	s = ep_utf8_sanitize("\xc0\xaf|\xed\xa0\x80|\xe2\x82|\0z", 12);
	assert_string_equal(s, "\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd"
	    "\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbdz");
	free(s);
}

static void
test_strings(void **state)
{
	char buf[] = "  \t x y \n";

	(void)state;
	assert_string_equal(ep_trim(buf), "x y");
	assert_true(ep_startswith("requirements-dev.txt", "requirements"));
	assert_false(ep_startswith("req", "requirements"));
	assert_true(ep_endswith("poetry.lock", ".lock"));
	assert_false(ep_endswith("lock", "poetry.lock"));
}

static void
test_cache_dir(void **state)
{
	char *d;

	(void)state;
	setenv("XDG_CACHE_HOME", "/x/cache", 1);
	d = ep_cache_dir();
	assert_string_equal(d, "/x/cache/envparity");
	free(d);
	setenv("XDG_CACHE_HOME", "relative", 1);	/* ignored, as XDG says */
	setenv("HOME", "/home/u", 1);
	d = ep_cache_dir();
	assert_string_equal(d, "/home/u/.cache/envparity");
	free(d);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_err_set),
		cmocka_unit_test(test_strv),
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_write_atomic),
		cmocka_unit_test(test_write_null),
		cmocka_unit_test(test_mkdirs),
		cmocka_unit_test(test_utf8_sanitize),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_cache_dir),
	};

	umask(022);
	return cmocka_run_group_tests(tests, setup, teardown);
}
