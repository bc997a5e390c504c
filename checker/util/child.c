/*
 * child.c: run a program as a child of ours with a deadline, and kill a
 * child together with everything it started (child.h).
 *
 * A process group is not enough to find what a child started: a
 * grandchild can call setsid() and leave both its group and its session,
 * then outlive its parent.  So envparity makes itself the subreaper of its
 * descendants: an orphan is re-parented to us rather than to init, and
 * one scan of /proc finds every process whose parents lead back to the
 * child, or to us through an orphan that started after the child did.
 */
#include "child.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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
	char path[64], buf[1024], *s;
	ssize_t r;
	int fd;

	snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	r = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (r <= 0)
		return -1;
	buf[r] = '\0';
	/* The command name is in parentheses and may hold anything. */
	if ((s = strrchr(buf, ')')) == NULL ||
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

void
ep_child_result_clear(struct ep_child_result *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof *r);
}

/* Append n bytes to *buf (length *len); keep only the last keep bytes
 * when keep is not 0 (trimmed in bulk, not on every read). */
static void
append(char **buf, size_t *len, const char *data, size_t n, size_t keep)
{
	*buf = xrealloc(*buf, *len + n + 1);
	memcpy(*buf + *len, data, n);
	*len += n;
	(*buf)[*len] = '\0';
	if (keep > 0 && *len > 4 * keep) {
		memmove(*buf, *buf + *len - keep, keep);
		*len = keep;
		(*buf)[*len] = '\0';
	}
}

/* Read what fd has; 1 at end of file (or a read error), 0 otherwise.
 * Standard output beyond max is counted, not kept. */
static int
drain(int fd, char **buf, size_t *len, size_t max, size_t keep,
    int *overflow)
{
	char chunk[8192];
	ssize_t n = read(fd, chunk, sizeof chunk);

	if (n < 0)
		return (errno == EINTR || errno == EAGAIN) ? 0 : 1;
	if (n == 0)
		return 1;
	if (max > 0 && *len + (size_t)n > max) {
		*overflow = 1;
		return 0;
	}
	append(buf, len, chunk, (size_t)n, keep);
	return 0;
}

/* Wait for pid until deadline (ns, monotonic); 1 when it exited, 0 when
 * the deadline came first.  pidfd may be -1 (polled instead). */
static int
wait_exit(pid_t pid, int pidfd, uint64_t deadline)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	uint64_t now;
	int ms;

	for (;;) {
		if (ep_child_exited(pid))
			return 1;
		if ((now = ep_now_ns()) >= deadline)
			return 0;
		ms = (int)((deadline - now) / 1000000) + 1;
		if (pidfd < 0 && ms > 10)
			ms = 10;
		(void)poll(pidfd >= 0 ? &pfd : NULL, pidfd >= 0 ? 1 : 0, ms);
	}
}

static int
spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[],
    const char *dir, int outfd, int errfd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, outfd, 1);
	posix_spawn_file_actions_adddup2(&fa, errfd, 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
	/* Nothing else of ours (a CI runner's descriptors included) may be
	 * held open by a stray grandchild. */
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 29)
	if (dir != NULL)
		posix_spawn_file_actions_addchdir_np(&fa, dir);
#else
	(void)dir;
#endif
	posix_spawnattr_init(&at);
	/* Its own group; default signal dispositions, whatever ours are. */
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
	    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	rc = posix_spawn(pid, path, &fa, &at, argv, envp);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

/* One child of ep_child_run_all at work. */
struct job {
	pid_t pid;		/* -1: not started, or reaped */
	int outp, errp, pidfd;
	int exited;
	unsigned long long since;
};

/* Kill job j's tree, keeping the other jobs not yet reaped and theirs:
 * a sibling is an orphan of ours by its parentage, and one that started
 * after j did would otherwise be taken for j's. */
static void
end_job(struct job *jobs, size_t n, size_t j, int grace_ms)
{
	pid_t *keep = xcalloc(n, sizeof *keep);
	size_t nkeep = 0;

	for (size_t i = 0; i < n; i++)
		if (i != j && jobs[i].pid > 0)
			keep[nkeep++] = jobs[i].pid;
	ep_child_kill_tree(jobs[j].pid, jobs[j].since, keep, nkeep, grace_ms);
	free(keep);
}

/* Reap job j (killed or exited) into r within grace_ms; a sibling's
 * zombie is never reaped by the kill of another (see end_job). */
static void
reap_job(struct job *jb, struct ep_child_result *r, int grace_ms)
{
	if (jb->exited || wait_exit(jb->pid, jb->pidfd, ep_now_ns() +
	    (uint64_t)grace_ms * 1000000u))
		r->reaped = waitpid(jb->pid, &r->status, 0) == jb->pid;
	jb->pid = -1;
}

int
ep_child_run_all(struct ep_child_run_job *v, size_t n,
    const struct ep_child_opts *o, struct ep_err *err)
{
	struct ep_strv env = { 0 };
	struct pollfd *pfd = xcalloc(3 * n + 1, sizeof *pfd);
	struct job *jobs = xcalloc(n + 1, sizeof *jobs);
	int *slot = xcalloc(3 * n + 1, sizeof *slot), open, nfd, e, rc = -1;
	struct ep_child_result *r;
	uint64_t deadline, now;
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&v[i].r, 0, sizeof v[i].r);
		jobs[i] = (struct job){ -1, -1, -1, -1, 0, 0 };
	}
	ep_child_env(&env);
	ep_child_reaper();
	for (i = 0; i < n; i++) {
		int outp[2], errp[2];

		if (pipe2(outp, O_CLOEXEC) < 0) {
			ep_err_set(err, EP_E_IO, "%s: pipe: %s", v[i].path,
			    strerror(errno));
			goto done;
		}
		if (pipe2(errp, O_CLOEXEC) < 0) {
			ep_err_set(err, EP_E_IO, "%s: pipe: %s", v[i].path,
			    strerror(errno));
			close(outp[0]);
			close(outp[1]);
			goto done;
		}
		jobs[i].outp = outp[0];
		jobs[i].errp = errp[0];
		e = spawn(&jobs[i].pid, v[i].path, v[i].argv, v[i].envp != NULL ?
		    v[i].envp : env.v, o->dir, outp[1], errp[1]);
		close(outp[1]);
		close(errp[1]);
		if (e != 0) {
			jobs[i].pid = -1;
			ep_err_set(err, EP_E_IO, "%s: cannot run: %s",
			    v[i].path, strerror(e));
			goto done;
		}
		jobs[i].since = ep_child_start_time(jobs[i].pid);
#ifdef SYS_pidfd_open
		jobs[i].pidfd = (int)syscall(SYS_pidfd_open, jobs[i].pid, 0);
#endif
	}
	deadline = ep_now_ns() + (uint64_t)o->timeout_ms * 1000000u;

	for (;;) {
		int nopidfd = 0;

		nfd = open = 0;
		for (i = 0; i < n; i++) {
			struct job *jb = &jobs[i];

			if (jb->outp >= 0) {
				slot[nfd] = (int)i;
				pfd[nfd++] = (struct pollfd){ jb->outp, POLLIN, 0 };
			}
			if (jb->errp >= 0) {
				slot[nfd] = (int)(n + i);
				pfd[nfd++] = (struct pollfd){ jb->errp, POLLIN, 0 };
			}
			if (!jb->exited && jb->pidfd >= 0) {
				slot[nfd] = (int)(2 * n + i);
				pfd[nfd++] = (struct pollfd){ jb->pidfd, POLLIN, 0 };
			}
			if (!jb->exited && jb->pidfd < 0)
				nopidfd = 1;
			open += !jb->exited || jb->outp >= 0 || jb->errp >= 0;
		}
		if (open == 0 || (now = ep_now_ns()) >= deadline)
			break;
		if (poll(pfd, (nfds_t)nfd, nopidfd ? 10 :
		    (int)((deadline - now) / 1000000) + 1) < 0 &&
		    errno != EINTR) {
			ep_err_set(err, EP_E_IO, "%s: poll: %s", v[0].path,
			    strerror(errno));
			goto done;
		}
		for (int k = 0; k < nfd; k++) {
			struct job *jb = &jobs[slot[k] % (int)n];

			r = &v[slot[k] % (int)n].r;
			if (pfd[k].revents == 0 || slot[k] >= 2 * (int)n)
				continue;
			if (slot[k] < (int)n && drain(jb->outp, &r->out,
			    &r->out_len, o->out_max, 0, &r->overflow)) {
				close(jb->outp);
				jb->outp = -1;
			} else if (slot[k] >= (int)n && drain(jb->errp,
			    &r->err, &r->err_len, 0, o->err_keep,
			    &r->overflow)) {
				close(jb->errp);
				jb->errp = -1;
			}
		}
		for (i = 0; i < n; i++) {
			struct job *jb = &jobs[i];

			r = &v[i].r;
			if (r->overflow && jb->outp >= 0) {
				/* Nothing more of it is wanted. */
				close(jb->outp);
				jb->outp = -1;
				end_job(jobs, n, i, o->grace_ms);
			}
			if (!jb->exited && ep_child_exited(jb->pid)) {
				/* Whatever it left behind would hold the
				 * pipes open, and must not outlive it. */
				jb->exited = 1;
				end_job(jobs, n, i, o->grace_ms);
				reap_job(jb, r, o->grace_ms);
			}
		}
	}
	for (i = 0; i < n; i++) {
		if (jobs[i].pid <= 0)
			continue;
		v[i].r.timed_out = 1;
		end_job(jobs, n, i, o->grace_ms);
		reap_job(&jobs[i], &v[i].r, o->grace_ms);
	}
	for (i = 0; i < n; i++) {
		r = &v[i].r;
		if (!r->timed_out && !r->reaped) {
			/* Only when waitpid itself failed. */
			ep_err_set(err, EP_E_IO, "%s: waitpid: %s", v[i].path,
			    strerror(errno));
			goto done;
		}
	}
	rc = 0;
done:
	for (i = 0; i < n; i++) {
		struct job *jb = &jobs[i];

		if (jb->pid > 0) {
			/* Only on a failure: none may run on without us. */
			end_job(jobs, n, i, o->grace_ms);
			if (wait_exit(jb->pid, jb->pidfd, ep_now_ns() +
			    (uint64_t)o->grace_ms * 1000000u))
				waitpid(jb->pid, NULL, 0);
			jb->pid = -1;
		}
		if (jb->outp >= 0)
			close(jb->outp);
		if (jb->errp >= 0)
			close(jb->errp);
		if (jb->pidfd >= 0)
			close(jb->pidfd);
		r = &v[i].r;
		if (r->out == NULL)
			r->out = xstrdup("");
		if (r->err == NULL)
			r->err = xstrdup("");
		if (rc < 0)
			ep_child_result_clear(r);
	}
	ep_strv_clear(&env);
	free(pfd);
	free(jobs);
	free(slot);
	return rc;
}

int
ep_child_run(struct ep_child_result *r, const char *path,
    char *const argv[], const struct ep_child_opts *o, struct ep_err *err)
{
	struct ep_child_run_job j = { .path = path, .argv = argv,
	    .envp = o->envp };
	int rc = ep_child_run_all(&j, 1, o, err);

	*r = j.r;
	return rc;
}
