/*
 * childspawn.c: one child forked, confined (childjail.c) and executed,
 * never left running in the fork's copy of our memory: between fork and
 * exec only system calls, and why it could not exec, if it could not,
 * told back through a pipe that closes on exec (child_int.h).
 */
#include "child_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Why the child could not exec, written to the report pipe. */
struct spawn_fail {
	int err;
	char step[48];
};

/* In the fork: confine and exec s->path, or write why not to the report
 * pipe and exit 127. */
static void __attribute__((noreturn))
spawn_child(const struct ep_child_spawn *s)
{
	struct sigaction dfl;
	struct spawn_fail f;
	const char *step = "its standard streams";
	sigset_t none;

	/* Its own group; default signal dispositions, whatever ours are. */
	(void)setpgid(0, 0);
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &dfl, NULL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(s->nullfd, 0) < 0 || dup2(s->outfd, 1) < 0 ||
	    dup2(s->errfd, 2) < 0)
		goto fail;
	step = "its directory";
	if (s->dir != NULL && chdir(s->dir) < 0)
		goto fail;
	if ((f.err = ep_child_jail_enter(s->jail, &step)) < 0) {
		errno = -f.err;
		goto fail;
	}
	/* Nothing else of ours (a CI runner's descriptors included) may be
	 * held open by a stray grandchild; the report pipe closes on exec
	 * too, which is how the parent learns that it succeeded. */
#ifdef SYS_close_range
	if (syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) < 0)
#endif
		for (int fd = 3; fd < 65536; fd++)
			(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	execve(s->path, s->argv, s->envp);
	step = NULL;
fail:
	memset(&f, 0, sizeof f);
	f.err = errno;
	if (step != NULL)
		strncpy(f.step, step, sizeof f.step - 1);
	(void)!write(s->report, &f, sizeof f);
	_exit(127);
}

int
ep_child_spawn(pid_t *pid, const struct ep_child_spawn *s, char *step,
    size_t stepsize)
{
	struct spawn_fail f;
	struct ep_child_spawn c = *s;
	int rp[2], e;
	ssize_t n;

	if (pipe2(rp, O_CLOEXEC) < 0)
		return errno;
	c.report = rp[1];
	if ((*pid = fork()) < 0) {
		e = errno;
		close(rp[0]);
		close(rp[1]);
		return e;
	}
	if (*pid == 0)
		spawn_child(&c);
	close(rp[1]);
	/* Its group exists before we may need to kill it. */
	(void)setpgid(*pid, *pid);
	while ((n = read(rp[0], &f, sizeof f)) < 0 && errno == EINTR)
		;
	close(rp[0]);
	if (n <= 0)
		return 0;		/* closed by exec */
	if (n != (ssize_t)sizeof f)
		f.err = EIO, f.step[0] = '\0';
	waitpid(*pid, NULL, 0);
	*pid = -1;
	f.step[sizeof f.step - 1] = '\0';
	snprintf(step, stepsize, "%s", f.step);
	return f.err != 0 ? f.err : EIO;
}
