/*
 * test_dynload.c: the child protocol's parser, the version decoders, and
 * real children: CUDA's own libraries from /usr/local/cuda/lib64 (skipped
 * where absent) answer with the versions their headers name, a missing
 * file is an error line and not a crash, and a library file that blocks
 * inside dlopen (a FIFO) is killed at the deadline.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dynload.h"
#include "errors.h"
#include "files.h"
#include "xalloc.h"

#define CUDA "/usr/local/cuda"

static void
test_parse(void **state)
{
	static const char text[] =
	    "cudnn\tcode\t91900\n"
	    "cudnn\tcudart_code\t13010\n"
	    "gpu\t0.name\tNVIDIA H100 80GB HBM3\n"
	    "gpu\tempty\t\n"
	    "no tabs here\n"
	    "one\ttab\n"
	    "\tfield\tno name\n"
	    "name\t\tno field\n"
	    "\n"
	    "x\ty\tcut off mid-li";
	struct ep_dlrecs r = { 0 };

	(void)state;
	ep_dynload_parse(&r, text, sizeof text - 1);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.bad, 6);
	assert_string_equal(r.v[0].name, "cudnn");
	assert_string_equal(r.v[0].field, "code");
	assert_string_equal(r.v[0].value, "91900");
	assert_string_equal(r.v[2].value, "NVIDIA H100 80GB HBM3");
	assert_string_equal(r.v[3].value, "");
	ep_dlrecs_clear(&r);

	/* A NUL inside a line is garbage, not a shorter line. */
	ep_dynload_parse(&r, "a\tb\tc\0d\n", 8);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.bad, 1);
	ep_dlrecs_clear(&r);
	ep_dynload_parse(&r, "", 0);
	assert_int_equal(r.n + r.bad, 0);
	ep_dlrecs_clear(&r);
}

static void
test_versions(void **state)
{
	char b[32];

	(void)state;
	ep_version_cuda(b, sizeof b, 13010);
	assert_string_equal(b, "13.1");
	ep_version_cuda(b, sizeof b, 13000);
	assert_string_equal(b, "13.0");
	ep_version_cuda(b, sizeof b, 12080);
	assert_string_equal(b, "12.8");
	ep_version_cuda(b, sizeof b, 0);	/* cudaDriverGetVersion, no GPU */
	assert_string_equal(b, "");
	ep_version_code(b, sizeof b, 130100);
	assert_string_equal(b, "13.1.0");
	ep_version_code(b, sizeof b, 91900);
	assert_string_equal(b, "9.19.0");
	ep_version_code(b, sizeof b, 90001);
	assert_string_equal(b, "9.0.1");
	ep_version_code(b, sizeof b, 8902);	/* cuDNN 8.9.2 */
	assert_string_equal(b, "8.9.2");
	ep_version_code(b, sizeof b, 22809);	/* NCCL 2.28.9 */
	assert_string_equal(b, "2.28.9");
	ep_version_code(b, sizeof b, 2708);	/* NCCL 2.7.8 */
	assert_string_equal(b, "2.7.8");
	ep_version_code(b, sizeof b, -1);
	assert_string_equal(b, "");
	ep_version_packed(b, sizeof b, 0x091300);
	assert_string_equal(b, "9.19.0");
	ep_version_packed(b, sizeof b, 594688);
	assert_string_equal(b, "9.19.0");
	ep_version_packed(b, sizeof b, 0x7fffffff);
	assert_string_equal(b, "");
}

static void
test_describe(void **state)
{
	struct ep_dynload_job j = { 0 };
	char b[128];

	(void)state;
	j.status = EP_DL_OK;
	ep_dynload_describe(b, sizeof b, &j);
	assert_string_equal(b, "");
	j.status = EP_DL_SIGNAL;
	j.code = SIGSEGV;
	ep_dynload_describe(b, sizeof b, &j);
	assert_non_null(strstr(b, "crashed (signal 11"));
	j.status = EP_DL_TIMEOUT;
	j.limit_ms = 500;
	ep_dynload_describe(b, sizeof b, &j);
	assert_string_equal(b, "did not finish within 500 ms");
	j.status = EP_DL_EXIT;
	j.code = 3;
	ep_dynload_describe(b, sizeof b, &j);
	assert_string_equal(b, "crashed (exit status 3)");
}

static const char *
rec(const struct ep_dlrecs *r, const char *name, const char *field)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].name, name) == 0 &&
		    strcmp(r->v[i].field, field) == 0)
			return r->v[i].value;
	return NULL;
}

/* The value of "#define NAME value" in a header, or -1. */
static long
header_define(const char *path, const char *name)
{
	struct ep_err err = { 0 };
	char *text = NULL, *p, *want;
	long v = -1;

	if (ep_read_file(&text, NULL, path, 8 << 20, &err) < 0)
		return -1;
	want = xasprintf("#define %s ", name);
	if ((p = strstr(text, want)) != NULL)
		v = strtol(p + strlen(want), NULL, 10);
	free(want);
	free(text);
	return v;
}

/* Real CUDA libraries, each in its own child, two at a time. */
static void
test_real_libraries(void **state)
{
	struct ep_dynload_job jobs[5];
	struct ep_dlrecs r = { 0 };
	struct ep_err err = { 0 };
	char want[32], got[32];
	long v;

	(void)state;
	if (access(CUDA "/lib64/libcudart.so.13", R_OK) != 0 ||
	    access(CUDA "/lib64/libcudnn.so.9", R_OK) != 0)
		skip();
	memset(jobs, 0, sizeof jobs);
	jobs[0].name = "cudart";
	jobs[0].path = CUDA "/lib64/libcudart.so.13";
	jobs[1].name = "cudnn";
	jobs[1].path = CUDA "/lib64/libcudnn.so.9";
	jobs[2].name = "cudnn_ops";
	jobs[2].path = CUDA "/lib64/libcudnn_ops.so.9";
	jobs[3].name = "cudnn_graph";
	jobs[3].path = CUDA "/lib64/libcudnn_graph.so.9";
	jobs[4].name = "nccl";
	jobs[4].path = "/nonexistent/libnccl.so.2";
	assert_int_equal(ep_dynload_run(jobs, 5, 2, 60000, NULL, &err), 0);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(jobs[i].status, EP_DL_OK);
		ep_dynload_parse(&r, jobs[i].out, jobs[i].len);
	}
	assert_int_equal(r.bad, 0);

	if ((v = header_define(CUDA "/include/cuda_runtime_api.h",
	    "CUDART_VERSION")) > 0) {
		snprintf(want, sizeof want, "%ld", v);
		assert_string_equal(rec(&r, "cudart", "runtime"), want);
	}
	if ((v = header_define(CUDA "/include/cudnn_version.h",
	    "CUDNN_MAJOR")) > 0) {
		snprintf(want, sizeof want, "%ld.%ld.%ld", v,
		    header_define(CUDA "/include/cudnn_version.h",
		    "CUDNN_MINOR"), header_define(CUDA
		    "/include/cudnn_version.h", "CUDNN_PATCHLEVEL"));
		ep_version_code(got, sizeof got,
		    strtol(rec(&r, "cudnn", "code"), NULL, 10));
		assert_string_equal(got, want);
		/* The sub-libraries agree with the dispatcher. */
		ep_version_packed(got, sizeof got,
		    strtoul(rec(&r, "cudnn_ops", "packed"), NULL, 10));
		assert_string_equal(got, want);
		ep_version_code(got, sizeof got,
		    strtol(rec(&r, "cudnn_graph", "code"), NULL, 10));
		assert_string_equal(got, want);
	}
	assert_non_null(rec(&r, "cudnn", "cudart_code"));
	assert_string_equal(rec(&r, "cudnn_ops", "check"), "0");
	/* libcudnn_ops.so.9 cannot answer cudnnGetVersion itself: the one
	 * dlsym finds is libcudnn_graph's, which must not be reported. */
	assert_null(rec(&r, "cudnn_ops", "code"));
	assert_non_null(strstr(rec(&r, "cudnn_ops", "dep"), "libcudnn_graph"));
	assert_non_null(strstr(rec(&r, "nccl", "error"), "dlopen: "));
	ep_dlrecs_clear(&r);
	ep_dynload_jobs_clear(jobs, 5);
}

/* dlopen of a FIFO blocks in open() until someone writes: a real hang
 * inside the loader, which the deadline must end. */
static void
test_hang_killed(void **state)
{
	struct ep_dynload_job jobs[2];
	struct ep_err err = { 0 };
	char dir[] = "/tmp/ep-dynload.XXXXXX", *fifo;

	(void)state;
	assert_non_null(mkdtemp(dir));
	fifo = xasprintf("%s/libhang.so.1", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	memset(jobs, 0, sizeof jobs);
	jobs[0].name = "cudart";
	jobs[0].path = fifo;
	jobs[1].name = "nccl";
	jobs[1].path = "/nonexistent/libnccl.so.2";
	assert_int_equal(ep_dynload_run(jobs, 2, 1, 300, NULL, &err), 0);
	assert_int_equal(jobs[0].status, EP_DL_TIMEOUT);
	assert_int_equal(jobs[0].limit_ms, 300);
	assert_true(jobs[0].ms >= 300);
	assert_string_equal(jobs[0].out, "");
	/* The next job still ran, after the first was killed. */
	assert_int_equal(jobs[1].status, EP_DL_OK);
	assert_non_null(strstr(jobs[1].out, "nccl\terror\tdlopen: "));
	ep_dynload_jobs_clear(jobs, 2);
	unlink(fifo);
	rmdir(dir);
	free(fifo);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_versions),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_real_libraries),
		cmocka_unit_test(test_hang_killed),
	};

	/* The helpers are this binary executed again, as in envparity. */
	if (argc > 1 && strcmp(argv[1], EP_DYNLOAD_HELPER) == 0)
		return ep_dynload_main(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
