/*
 * test_reap.c: ep_reap_all leaves no process of ours: children asleep,
 * one that ignores SIGTERM, a zombie, and the orphan a child left when
 * it exited (ours, as subreaper), all gone, and waitpid has no child
 * left to wait for.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "child.h"
#include "reap.h"

static pid_t
sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGTERM, SIG_IGN);
		for (;;)
			pause();
	}
	assert_true(pid > 0);
	return pid;
}

static void
test_reap_all(void **state)
{
	struct ep_err err = { 0 };
	int fds[2], st;
	pid_t a, b, z, parent, orphan = 0;

	(void)state;
	ep_child_reaper();
	a = sleeper();
	b = sleeper();
	/* A zombie: exited, not waited for. */
	if ((z = fork()) == 0)
		_exit(0);
	/* A child that leaves an orphan in a session of its own, and says
	 * its pid. */
	assert_int_equal(pipe(fds), 0);
	if ((parent = fork()) == 0) {
		pid_t g = fork();

		if (g == 0) {
			setsid();
			for (;;)
				pause();
		}
		(void)!write(fds[1], &g, sizeof g);
		_exit(0);
	}
	assert_int_equal(read(fds[0], &orphan, sizeof orphan),
	    (ssize_t)sizeof orphan);
	close(fds[0]);
	close(fds[1]);
	assert_int_equal(waitpid(parent, &st, 0), parent);

	assert_int_equal(ep_reap_all(5000, &err), 0);
	/* Nothing is left to wait for, and none of them lives. */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	assert_int_equal(kill(a, 0), -1);
	assert_int_equal(kill(b, 0), -1);
	assert_int_equal(kill(z, 0), -1);
	assert_int_equal(kill(orphan, 0), -1);
	/* Again, with nothing left: at once. */
	assert_int_equal(ep_reap_all(0, &err), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reap_all),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
