/*
 * reap.c: kill and reap every child left (reap.h).  Children are found
 * by their parent in /proc/PID/stat, as child.c finds a tree: a pid we
 * have not waited for cannot be reused, so what is killed is ours.
 */
#include "reap.h"
#include "clock.h"
#include "errors.h"
#include "procstat.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The parent and state of pid, from /proc/PID/stat; -1 when gone. */
static int
parent_of(pid_t *ppid, char *state, pid_t pid)
{
	char buf[512];
	const char *s;
	int p;

	if ((s = ep_proc_stat(buf, sizeof buf, pid)) == NULL ||
	    sscanf(s + 1, " %c %d", state, &p) != 2)
		return -1;
	*ppid = (pid_t)p;
	return 0;
}

/* One pass: kill and try to reap each child; how many were found, or -1
 * when /proc cannot be read.  *alive gets one still running. */
static long
pass(pid_t self, pid_t *alive)
{
	struct dirent *de;
	long found = 0;
	DIR *d;

	if ((d = opendir("/proc")) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		pid_t pid, ppid;
		char *end, state;
		long v;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		v = strtol(de->d_name, &end, 10);
		pid = (pid_t)v;
		if (*end != '\0' || v <= 0 || parent_of(&ppid, &state,
		    pid) < 0 || ppid != self)
			continue;
		found++;
		if (state != 'Z') {
			kill(pid, SIGKILL);
			*alive = pid;
		}
		waitpid(pid, NULL, WNOHANG);
	}
	closedir(d);
	return found;
}

int
ep_reap_all(int grace_ms, struct ep_err *err)
{
	uint64_t deadline = ep_now_ns() + (uint64_t)grace_ms * 1000000u;
	struct timespec ts = { 0, 1000000 };
	pid_t self = getpid(), alive = 0;
	long found;

	for (;;) {
		if ((found = pass(self, &alive)) < 0)
			return ep_err_set(err, EP_E_IO, "cannot tell whether a "
			    "process of ours is left: /proc: %s",
			    strerror(errno));
		if (found == 0)
			return 0;
		if (ep_now_ns() >= deadline)
			return ep_err_set(err, EP_E_IO, "process %d, started "
			    "by the environment checked, would not end",
			    (int)alive);
		nanosleep(&ts, NULL);
	}
}
