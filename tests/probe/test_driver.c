/*
 * test_driver.c: the driver's version (gpu_probes/driver.c): the first
 * line of /proc/driver/nvidia/version parsed as the proprietary and the
 * open kernel module write it, and everything else refused, so that the
 * probe falls back to NVML; then the order: the kernel module's file,
 * else NVML, and NVML alone when --lib nvml names it.  NVML is the test
 * double ($(B)/probe/doubles/libnvidia-ml.so.1, tests/doubles/fake_nvml.c,
 * which says "580.159.04"), loaded by path before any test so that the
 * probe's search by soname finds it, on any host.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu.h"
#include "probeutil.h"

#define FAKE_NVML_VERSION	"580.159.04"

static const char proprietary[] =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  "
    "Tue Sep 30 10:21:29 UTC 2025\n"
    "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n";
static const char open_x86[] =
    "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.65.06  "
    "Release Build  (dvs-builder@U16-I3-B03-4-3)  "
    "Sun Jul 27 06:54:38 UTC 2025\n"
    "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n";
static const char open_arm[] =
    "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  570.124.06  "
    "Release Build  (dvs-builder@U16-I1-N08-12-1)  "
    "Wed Feb 26 01:03:48 UTC 2025\n";
static const char proprietary_arm[] =
    "NVRM version: NVIDIA UNIX aarch64 Kernel Module  570.124.06  "
    "Wed Feb 26 00:52:38 UTC 2025\n";
static const char two_part[] =
    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  390.157  "
    "Wed Oct 12 09:19:07 UTC 2022\n";

/* Short enough that every path made in it fits PATH_MAX. */
static char dir[256], fake_nvml[PATH_MAX];
static void *nvml_handle;

static int
setup(void **state)
{
	const char *t = getenv("TMPDIR");

	(void)state;
	if (pu_build_path(fake_nvml, "probe/doubles/libnvidia-ml.so.1") == -1)
		return -1;
	/* Loaded by path: dlopen("libnvidia-ml.so.1") now finds this one
	 * by its soname, never a real NVML of the host. */
	if ((nvml_handle = dlopen(fake_nvml, RTLD_NOW | RTLD_LOCAL)) == NULL)
		return -1;
	if (snprintf(dir, sizeof dir, "%s/test_driver.XXXXXX",
	    t != NULL && *t != '\0' ? t : "/tmp") >= (int)sizeof dir)
		return -1;
	return mkdtemp(dir) != NULL ? 0 : -1;
}

static int
teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		return -1;
	dlclose(nvml_handle);
	return 0;
}

/* A file of dir holding text; its path into out (PATH_MAX). */
static void
put(char *out, const char *name, const char *text, size_t len)
{
	FILE *fp;

	snprintf(out, PATH_MAX, "%s/%s", dir, name);
	assert_non_null(fp = fopen(out, "w"));
	assert_int_equal(fwrite(text, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
}

/* probe_driver_parse on a C string, out starting dirty. */
static int
parse(char *out, size_t n, const char *text)
{
	snprintf(out, n, "dirty");
	return probe_driver_parse(out, n, text, strlen(text));
}

static void
refused(const char *text)
{
	char v[96];

	if (parse(v, sizeof v, text) != -1)
		fail_msg("accepted \"%s\" from: %s", v, text);
	assert_string_equal(v, "");
}

static void
test_parse_formats(void **state)
{
	char v[96];

	(void)state;
	assert_int_equal(parse(v, sizeof v, proprietary), 0);
	assert_string_equal(v, "580.95.05");
	assert_int_equal(parse(v, sizeof v, open_x86), 0);
	assert_string_equal(v, "580.65.06");
	assert_int_equal(parse(v, sizeof v, open_arm), 0);
	assert_string_equal(v, "570.124.06");
	assert_int_equal(parse(v, sizeof v, proprietary_arm), 0);
	assert_string_equal(v, "570.124.06");
	assert_int_equal(parse(v, sizeof v, two_part), 0);
	assert_string_equal(v, "390.157");
	/* Tabs are blanks too, and only the first line counts. */
	assert_int_equal(parse(v, sizeof v, "NVRM version:\tKernel\tModule\t"
	    "1.2\t\n"), 0);
	assert_string_equal(v, "1.2");
	/* The first version after "Module", past what is not one. */
	assert_int_equal(parse(v, sizeof v, "NVRM version: Kernel Module  "
	    "x86_64 4.5.6  7.8.9  Tue\n"), 0);
	assert_string_equal(v, "4.5.6");
}

/* Only len bytes are read: the text need not end in NUL, and what
 * follows the first line may be anything. */
static void
test_parse_len(void **state)
{
	char text[512], v[96];
	size_t line = strchr(proprietary, '\n') - proprietary + 1;

	(void)state;
	memset(text, 0xff, sizeof text);
	memcpy(text, proprietary, line);
	assert_int_equal(probe_driver_parse(v, sizeof v, text, line), 0);
	assert_string_equal(v, "580.95.05");
	assert_int_equal(probe_driver_parse(v, sizeof v, text, sizeof text),
	    0);
	assert_string_equal(v, "580.95.05");
	/* One byte short of the newline: cut short. */
	assert_int_equal(probe_driver_parse(v, sizeof v, text, line - 1), -1);
	assert_string_equal(v, "");
}

/* Every cut of the first line before its newline is refused: a file
 * read short could have cut the version ("580.9" of "580.95.05"). */
static void
test_parse_truncated(void **state)
{
	size_t line = strchr(open_x86, '\n') - open_x86, i;
	char v[96];

	(void)state;
	for (i = 0; i <= line; i++) {
		snprintf(v, sizeof v, "dirty");
		if (probe_driver_parse(v, sizeof v, open_x86, i) != -1)
			fail_msg("accepted \"%s\" from %zu bytes", v, i);
		assert_string_equal(v, "");
	}
	/* A version last on its line is not NVIDIA's format either. */
	refused("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.9\n");
	refused("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05\n");
	refused("");
	refused("\n");
}

static void
test_parse_no_version(void **state)
{
	(void)state;
	/* No token at all, or none with a dot. */
	refused("NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
	    "Tue Sep 30 10:21:29 UTC 2025\n");
	refused("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580  "
	    "Tue Sep 30 10:21:29 UTC 2025\n");
	refused("NVRM version: NVIDIA UNIX x86_64 Kernel Module\n");
	refused("NVRM version: NVIDIA UNIX x86_64 Kernel Module   \n");
	/* Not shaped like a version. */
	refused("NVRM version: Kernel Module  .580.95  x\n");
	refused("NVRM version: Kernel Module  580.  x\n");
	refused("NVRM version: Kernel Module  580..95  x\n");
	refused("NVRM version: Kernel Module  5a0.95  x\n");
	refused("NVRM version: Kernel Module  580.95.05-1  x\n");
	refused("NVRM version: Kernel Module  v580.95.05  x\n");
	refused("NVRM version: Kernel Module  .  x\n");
	/* Not after "Module" as a word of its own. */
	refused("NVRM version: 580.95.05 Kernel Module  Tue\n");
	refused("NVRM version: NVIDIA UNIX x86_64 Kernel Modules  580.95.05  "
	    "Tue\n");
	refused("NVRM version: NVIDIA UNIX x86_64 Kernel module  580.95.05  "
	    "Tue\n");
	/* Not the file's first line. */
	refused("GCC version:  gcc version 13.3.0\n"
	    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue\n");
	refused("nvrm version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  "
	    "Tue\n");
	refused(" NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  "
	    "Tue\n");
	refused("NVRM\n");
}

static void
test_parse_long(void **state)
{
	char line[256], v[96], small[8];
	char tok[64];

	(void)state;
	/* 32 bytes is the most. */
	memset(tok, '1', 30);
	memcpy(tok + 30, ".2", 3);
	snprintf(line, sizeof line, "NVRM version: Kernel Module  %s  x\n",
	    tok);
	assert_int_equal(parse(v, sizeof v, line), 0);
	assert_string_equal(v, tok);
	memset(tok, '1', 31);
	memcpy(tok + 31, ".2", 3);
	snprintf(line, sizeof line, "NVRM version: Kernel Module  %s  x\n",
	    tok);
	refused(line);
	memset(tok, '5', 60);
	memcpy(tok + 60, ".1", 3);
	snprintf(line, sizeof line, "NVRM version: Kernel Module  %s  x\n",
	    tok);
	refused(line);
	/* A version that does not fit out is refused, not cut. */
	assert_int_equal(parse(small, sizeof small, proprietary), -1);
	assert_string_equal(small, "");
	assert_int_equal(parse(small, sizeof small, two_part), 0);
	assert_string_equal(small, "390.157");
}

/* Anything but printable ASCII and tabs in the first line: the file is
 * not what we know, and nothing of it reaches a line of output. */
static void
test_parse_bytes(void **state)
{
	static const char *const bad[] = {
		"\xc3\xa9", "\x80", "\xff", "\x1b[31m", "\r", "\x7f", "\x01",
	};
	char line[256], v[96];
	size_t i, len;

	(void)state;
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(line, sizeof line, "NVRM version: NVIDIA UNIX x86_64 "
		    "Kernel Module  580.95.05  Tue Sep 30 %s UTC 2025\n",
		    bad[i]);
		refused(line);
		snprintf(line, sizeof line, "NVRM version: NVIDIA UNIX x86_64 "
		    "Kernel Module  580.95.05%s  Tue\n", bad[i]);
		refused(line);
	}
	/* A NUL inside the line. */
	len = (size_t)snprintf(line, sizeof line, "NVRM version: NVIDIA UNIX "
	    "x86_64 Kernel Module  580.95.05  Tue\n");
	line[5] = '\0';
	assert_int_equal(probe_driver_parse(v, sizeof v, line, len), -1);
	/* After the first line, bytes are not looked at. */
	snprintf(line, sizeof line, "%s", proprietary_arm);
	snprintf(line + strlen(line), sizeof line - strlen(line),
	    "GCC version:  \xc3\xa9\x1b\n");
	assert_int_equal(parse(v, sizeof v, line), 0);
	assert_string_equal(v, "570.124.06");
}

static void
test_read(void **state)
{
	char path[PATH_MAX], v[96], big[700];

	(void)state;
	put(path, "version", open_x86, sizeof open_x86 - 1);
	assert_int_equal(probe_driver_read(v, sizeof v, path), 0);
	assert_string_equal(v, "580.65.06");
	put(path, "empty", "", 0);
	assert_int_equal(probe_driver_read(v, sizeof v, path), -1);
	assert_string_equal(v, "");
	snprintf(path, sizeof path, "%s/missing", dir);
	assert_int_equal(probe_driver_read(v, sizeof v, path), -1);
	assert_int_equal(probe_driver_read(v, sizeof v, dir), -1);
	/* A first line longer than is read is cut short: refused. */
	memset(big, ' ', sizeof big);
	memcpy(big, "NVRM version: Kernel Module  1.2", 32);
	big[sizeof big - 1] = '\n';
	put(path, "long", big, sizeof big);
	assert_int_equal(probe_driver_read(v, sizeof v, path), -1);
	/* A FIFO is refused at once, not waited on. */
	snprintf(path, sizeof path, "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(probe_driver_read(v, sizeof v, path), -1);
	assert_string_equal(v, "");
}

/* The kernel module's file first; NVML (the double, by soname) when the
 * file says nothing we know. */
static void
test_version_order(void **state)
{
	char good[PATH_MAX], bad[PATH_MAX], missing[PATH_MAX], v[96];

	(void)state;
	put(good, "good", open_arm, sizeof open_arm - 1);
	put(bad, "bad", "NVRM version: something else\n", 29);
	snprintf(missing, sizeof missing, "%s/missing", dir);

	/* 570.124.06 is the file's; NVML would have said 580.159.04. */
	assert_int_equal(probe_driver_version(v, sizeof v, good, NULL), 0);
	assert_string_equal(v, "570.124.06");
	assert_int_equal(probe_driver_version(v, sizeof v, bad, NULL), 0);
	assert_string_equal(v, FAKE_NVML_VERSION);
	assert_int_equal(probe_driver_version(v, sizeof v, missing, NULL), 0);
	assert_string_equal(v, FAKE_NVML_VERSION);
	assert_int_equal(probe_driver_version(v, sizeof v, NULL, NULL), 0);
	assert_string_equal(v, FAKE_NVML_VERSION);
	/* NVML failing too: unknown, not an error. */
	setenv("FAKE_NVML_MODE", "init_fails", 1);
	assert_int_equal(probe_driver_version(v, sizeof v, bad, NULL), -1);
	assert_string_equal(v, "");
	assert_int_equal(probe_driver_version(v, sizeof v, good, NULL), 0);
	assert_string_equal(v, "570.124.06");
	unsetenv("FAKE_NVML_MODE");
}

/* --lib nvml=PATH: NVML is asked, as the user said, and the file not
 * read; an NVML named that fails leaves the version unknown. */
static void
test_version_nvml_named(void **state)
{
	char good[PATH_MAX], v[96];

	(void)state;
	put(good, "good", proprietary, sizeof proprietary - 1);
	assert_int_equal(probe_driver_version(v, sizeof v, good, fake_nvml),
	    0);
	assert_string_equal(v, FAKE_NVML_VERSION);
	snprintf(v, sizeof v, "dirty");
	assert_int_equal(probe_driver_version(v, sizeof v, good,
	    "/nonexistent/libnvidia-ml.so.1"), -1);
	assert_string_equal(v, "");
}

/* On a host with an NVIDIA kernel module, its real file is one we read:
 * a format we do not know would fall back to NVML unnoticed. */
static void
test_this_host(void **state)
{
	char v[96];

	(void)state;
	if (access(PROBE_DRIVER_PROC, R_OK) != 0)
		skip();
	assert_int_equal(probe_driver_read(v, sizeof v, PROBE_DRIVER_PROC), 0);
	print_message("%s: %s\n", PROBE_DRIVER_PROC, v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_formats),
		cmocka_unit_test(test_parse_len),
		cmocka_unit_test(test_parse_truncated),
		cmocka_unit_test(test_parse_no_version),
		cmocka_unit_test(test_parse_long),
		cmocka_unit_test(test_parse_bytes),
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_version_order),
		cmocka_unit_test(test_version_nvml_named),
		cmocka_unit_test(test_this_host),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
