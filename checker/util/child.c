/*
 * child.c: kill a child of ours together with everything it started
 * (child.h); child_run.c runs them.
 *
 * A process group is not enough to find what a child started: a
 * grandchild can call setsid() and leave both its group and its session,
 * then outlive its parent.  So envparity makes itself the subreaper of its
 * descendants: an orphan is re-parented to us rather than to init, and
 * one scan of /proc finds every process whose parents lead back to the
 * child, or to us through an orphan that started after the child did.
 */
#include "child.h"
#include "clock.h"
#include "procstat.h"
#include "xalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void
ep_child_reaper(void)
{
	static int done;

	if (!done && prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
		done = 1;
}

struct proc {
	pid_t pid, ppid;
	unsigned long long start;
};

/* Read /proc/PID/stat: parent (field 4) and start time (field 22). */
static int
read_stat(struct proc *p, pid_t pid)
{
	char buf[1024];
	const char *s;

	if ((s = ep_proc_stat(buf, sizeof buf, pid)) == NULL ||
	    sscanf(s + 1, " %*c %d", &p->ppid) != 1)
		return -1;
	/* The k-th space after ')' opens field k + 2. */
	for (int k = 0; k < 20 && s != NULL; k++)
		s = strchr(s + 1, ' ');
	if (s == NULL || sscanf(s, " %llu", &p->start) != 1)
		return -1;
	p->pid = pid;
	return 0;
}

unsigned long long
ep_child_start_time(pid_t pid)
{
	struct proc p;

	return read_stat(&p, pid) == 0 ? p.start : 0;
}

int
ep_child_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) ==
	    0 && si.si_pid == pid;
}

static int
proc_cmp(const void *a, const void *b)
{
	pid_t x = ((const struct proc *)a)->pid;
	pid_t y = ((const struct proc *)b)->pid;

	return (x > y) - (x < y);
}

/* Every process we can see, sorted by pid; *n of them. */
static struct proc *
scan(size_t *n)
{
	struct proc *v = NULL;
	size_t cap = 0;
	struct dirent *de;
	DIR *d;

	*n = 0;
	if ((d = opendir("/proc")) == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		char *end;
		long pid;

		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid = strtol(de->d_name, &end, 10);
		if (*end != '\0' || pid <= 0)
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 256;
			v = xreallocarray(v, cap, sizeof *v);
		}
		if (read_stat(&v[*n], (pid_t)pid) == 0)
			(*n)++;
	}
	closedir(d);
	if (*n > 1)
		qsort(v, *n, sizeof *v, proc_cmp);
	return v;
}

static int
in_list(const pid_t *v, size_t n, pid_t pid)
{
	for (size_t i = 0; i < n; i++)
		if (v[i] == pid)
			return 1;
	return 0;
}

struct victims {
	const struct proc *ps;
	size_t n;
	pid_t root, self;
	unsigned long long since;
	const pid_t *keep;
	size_t nkeep;
};

/* 1 when p descends from root, or from an orphan of root's time that we
 * adopted. */
static int
doomed(const struct victims *w, const struct proc *p)
{
	const struct proc *q = p;
	struct proc key;

	/* A chain longer than the process table is a loop: not ours. */
	for (size_t depth = 0; q != NULL && depth <= w->n; depth++) {
		if (q->pid == w->self || in_list(w->keep, w->nkeep, q->pid))
			return 0;
		if (q->ppid == w->root)
			return 1;
		if (q->ppid == w->self)
			return q->start >= w->since;
		key.pid = q->ppid;
		q = bsearch(&key, w->ps, w->n, sizeof *w->ps, proc_cmp);
	}
	return 0;
}

void
ep_child_kill_tree(pid_t root, unsigned long long since,
    const pid_t *keep, size_t nkeep, int grace_ms)
{
	struct victims w = { .root = root, .self = getpid(), .since = since,
	    .keep = keep, .nkeep = nkeep };
	uint64_t deadline = ep_now_ns() + (uint64_t)grace_ms * 1000000u;
	struct timespec ts = { 0, 1000000 };
	struct proc *ps;
	size_t found;

	/* Never init, nor "every process" (-1), nor our own group (0). */
	if (root <= 1)
		return;
	kill(-root, SIGKILL);
	kill(root, SIGKILL);
	/* Killing a parent hands its children to us, and a child killed
	 * between two looks may have forked: look until nothing is left. */
	for (;;) {
		ps = scan(&w.n);
		w.ps = ps;
		found = 0;
		for (size_t i = 0; i < w.n; i++) {
			const struct proc *p = &ps[i];

			if (p->pid == root || !doomed(&w, p))
				continue;
			found++;
			kill(p->pid, SIGKILL);
			if (p->ppid == w.self)
				waitpid(p->pid, NULL, WNOHANG);
		}
		free(ps);
		if (found == 0 || ep_now_ns() >= deadline)
			break;
		nanosleep(&ts, NULL);
	}
}
