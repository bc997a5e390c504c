/*
 * test_child_run.c: several children at once with at most so many at
 * work (child.h, ep_child_run_all's max_jobs): the cap holds and is used,
 * each child's deadline runs from its own start, one that hangs frees its
 * place for the next, on_end is told of each as it ends, and on_wait is
 * called while none does.  Running one
 * child, killing trees and the environment are test_child.c's.
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
#include <sys/wait.h>

#include "child.h"
#include "testutil.h"
#include "clock.h"
#include "errors.h"
#include "xalloc.h"

static char tmp[256];

/* The children mark themselves in tmp: a directory they may write. */
static int
setup_tmp(void **state)
{
	(void)state;
	if (tu_scratch_make(tmp, sizeof tmp, "childrun") < 0)
		return -1;
	return setenv(EP_CHILD_DIRS_VAR, tmp, 1);
}

static int
teardown_tmp(void **state)
{
	(void)state;
	unsetenv(EP_CHILD_DIRS_VAR);
	return tu_scratch_remove(tmp);
}

#define NJOBS	6

struct ends {
	size_t order[NJOBS], n;
};

static void
on_end(void *arg, size_t i)
{
	struct ends *e = arg;

	assert_true(e->n < NJOBS);
	e->order[e->n++] = i;
}

static void
jobs_init(struct ep_child_run_job *v, char *(*argv)[4], char **script,
    size_t n)
{
	for (size_t i = 0; i < n; i++) {
		argv[i][0] = (char *)"/bin/sh";
		argv[i][1] = (char *)"-c";
		argv[i][2] = script[i];
		argv[i][3] = NULL;
		v[i] = (struct ep_child_run_job){ .path = "/bin/sh",
		    .argv = argv[i] };
	}
}

/* Each job marks itself at work, prints how many were at work then,
 * stays a while, and leaves: never more than the cap at once, and the
 * cap reached. */
static void
test_cap(void **state)
{
	struct ends e = { 0 };
	struct ep_child_opts o = { .timeout_ms = 20000, .out_max = 4096,
	    .err_keep = 256, .grace_ms = 2000, .max_jobs = 2,
	    .on_end = on_end, .on_end_arg = &e };
	struct ep_child_run_job v[NJOBS];
	struct ep_err err = { 0 };
	char *script[NJOBS], *argv[NJOBS][4];
	int seen[NJOBS], most = 0, done[NJOBS] = { 0 };

	(void)state;
	for (size_t i = 0; i < NJOBS; i++)
		script[i] = xasprintf("touch %s/at.%zu; ls %s | grep -c "
		    "'^at\\.'; sleep 0.3; rm %s/at.%zu", tmp, i, tmp, tmp, i);
	jobs_init(v, argv, script, NJOBS);
	assert_int_equal(ep_child_run_all(v, NJOBS, &o, &err), 0);
	for (size_t i = 0; i < NJOBS; i++) {
		assert_true(WIFEXITED(v[i].r.status));
		assert_int_equal(WEXITSTATUS(v[i].r.status), 0);
		seen[i] = atoi(v[i].r.out);
		assert_true(seen[i] >= 1);
		assert_true(seen[i] <= 2);
		if (seen[i] > most)
			most = seen[i];
		ep_child_result_clear(&v[i].r);
		free(script[i]);
	}
	assert_int_equal(most, 2);
	/* on_end: each job once. */
	assert_int_equal(e.n, NJOBS);
	for (size_t i = 0; i < NJOBS; i++) {
		assert_false(done[e.order[i]]);
		done[e.order[i]] = 1;
	}
	/* Started in order: job 0 ends before job 5 starts. */
	assert_true(e.order[0] < 2);
}

/* Groups of at most one at once (a GPU that takes one process at a
 * time): jobs 0 and 1 in group 1, 2 and 3 in group 2, 4 in none.  Each
 * prints how many of its group and in all were at work as it started. */
static void
test_groups(void **state)
{
	struct ep_child_opts o = { .timeout_ms = 20000, .out_max = 4096,
	    .err_keep = 256, .grace_ms = 2000, .max_jobs = 0,
	    .group_max = 1 };
	static const size_t group[5] = { 1, 1, 2, 2, 0 };
	struct ep_child_run_job v[5];
	struct ep_err err = { 0 };
	char *script[5], *argv[5][4];
	int mine, all, most = 0;

	(void)state;
	for (size_t i = 0; i < 5; i++)
		script[i] = xasprintf("touch %s/at.%zu.%zu; "
		    "echo $(ls %s | grep -c '^at\\.%zu\\.') "
		    "$(ls %s | grep -c '^at\\.'); sleep 0.3; "
		    "rm %s/at.%zu.%zu", tmp, group[i], i, tmp, group[i], tmp,
		    tmp, group[i], i);
	jobs_init(v, argv, script, 5);
	for (size_t i = 0; i < 5; i++)
		v[i].group = group[i];
	assert_int_equal(ep_child_run_all(v, 5, &o, &err), 0);
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(sscanf(v[i].r.out, "%d %d", &mine, &all), 2);
		if (group[i] != 0)
			assert_int_equal(mine, 1);
		if (all > most)
			most = all;
		ep_child_result_clear(&v[i].r);
		free(script[i]);
	}
	/* One of each group and the one of none went together. */
	assert_int_equal(most, 3);
}

/* One at a time: three of 0.3 s each under a 0.5 s deadline all finish,
 * since each deadline runs from that job's own start. */
static void
test_own_deadline(void **state)
{
	struct ep_child_opts o = { .timeout_ms = 500, .out_max = 4096,
	    .err_keep = 256, .grace_ms = 2000, .max_jobs = 1 };
	struct ep_child_run_job v[3];
	struct ep_err err = { 0 };
	char *script[3] = { (char *)"sleep 0.3; echo a",
	    (char *)"sleep 0.3; echo b", (char *)"sleep 0.3; echo c" };
	char *argv[3][4];
	uint64_t t0 = ep_now_ns();

	(void)state;
	(void)tmp;
	jobs_init(v, argv, script, 3);
	assert_int_equal(ep_child_run_all(v, 3, &o, &err), 0);
	/* One after the other, not together. */
	assert_true(ep_now_ns() - t0 >= 900000000u);
	for (int i = 0; i < 3; i++) {
		char want[3] = { (char)('a' + i), '\n', '\0' };

		assert_false(v[i].r.timed_out);
		assert_string_equal(v[i].r.out, want);
		ep_child_result_clear(&v[i].r);
	}
}

/* One at a time, the first hangs: killed at its deadline, with its
 * grandchild, and the next starts then and runs to its end. */
static void
test_hang_frees_place(void **state)
{
	struct ends e = { 0 };
	struct ep_child_opts o = { .timeout_ms = 300, .out_max = 4096,
	    .err_keep = 256, .grace_ms = 2000, .max_jobs = 1,
	    .on_end = on_end, .on_end_arg = &e };
	struct ep_child_run_job v[2];
	struct ep_err err = { 0 };
	char *script[2], *argv[2][4];
	char *pidfile = xasprintf("%s/stray.pid", tmp), buf[32] = "";
	FILE *f;
	pid_t stray;

	(void)state;
	script[0] = xasprintf("echo early; setsid sh -c 'echo $$ > %s; "
	    "exec sleep 100' & sleep 100", pidfile);
	script[1] = xstrdup("echo b");
	jobs_init(v, argv, script, 2);
	assert_int_equal(ep_child_run_all(v, 2, &o, &err), 0);
	assert_true(v[0].r.timed_out);
	assert_true(v[0].r.reaped);
	assert_false(v[1].r.timed_out);
	assert_string_equal(v[1].r.out, "b\n");
	assert_true(WIFEXITED(v[1].r.status));
	assert_int_equal(e.n, 2);
	assert_int_equal(e.order[0], 0);
	assert_int_equal(e.order[1], 1);
	/* The hung one's grandchild went with it. */
	assert_non_null(f = fopen(pidfile, "r"));
	assert_non_null(fgets(buf, sizeof buf, f));
	fclose(f);
	stray = (pid_t)atoi(buf);
	assert_true(stray > 1);
	assert_int_equal(kill(stray, 0), -1);
	for (int i = 0; i < 2; i++) {
		ep_child_result_clear(&v[i].r);
		free(script[i]);
	}
	free(pidfile);
}

static void
on_wait(void *arg)
{
	(*(int *)arg)++;
}

/* While nothing ends, on_wait is still called about every 100 ms. */
static void
test_on_wait(void **state)
{
	int waits = 0;
	struct ep_child_opts o = { .timeout_ms = 20000, .out_max = 4096,
	    .err_keep = 256, .grace_ms = 2000, .on_wait = on_wait,
	    .on_end_arg = &waits };
	struct ep_child_run_job v[1];
	struct ep_err err = { 0 };
	char *script[1] = { (char *)"sleep 0.6" }, *argv[1][4];

	(void)state;
	jobs_init(v, argv, script, 1);
	assert_int_equal(ep_child_run_all(v, 1, &o, &err), 0);
	assert_true(waits >= 4);
	assert_true(waits <= 60);
	ep_child_result_clear(&v[0].r);
}

/* A job that cannot start, after others have: the call fails naming it,
 * and none of those started runs on. */
static void
test_cannot_start(void **state)
{
	struct ep_child_opts o = { .timeout_ms = 20000, .out_max = 4096,
	    .err_keep = 256, .grace_ms = 2000, .max_jobs = 1 };
	struct ep_child_run_job v[2];
	struct ep_err err = { 0 };
	char *script[2] = { (char *)"echo a", (char *)"echo b" };
	char *argv[2][4];

	(void)state;
	jobs_init(v, argv, script, 2);
	v[1].path = "/nonexistent/prog";
	assert_int_equal(ep_child_run_all(v, 2, &o, &err), -1);
	assert_int_equal(err.kind, EP_E_IO);
	assert_string_equal(err.msg, "/nonexistent/prog: cannot run: "
	    "No such file or directory");
	assert_string_equal(v[0].r.out == NULL ? "" : v[0].r.out, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cap, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test_setup_teardown(test_groups, setup_tmp,
		    teardown_tmp),
		cmocka_unit_test(test_own_deadline),
		cmocka_unit_test_setup_teardown(test_hang_frees_place,
		    setup_tmp, teardown_tmp),
		cmocka_unit_test(test_on_wait),
		cmocka_unit_test(test_cannot_start),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
