/*
 * child_run.c: run programs as children of ours (child.h): each forked,
 * confined (childjail.c) and executed, never left running in the copy of
 * our memory; pipes for their output, a deadline each, at most so many
 * at once, and when one ends, by itself or killed, everything it started
 * is killed with it (child.c).
 */
#include "child.h"
#include "clock.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* What a child needs between fork and exec, all made before the fork:
 * after it, only system calls (another thread of ours may hold a lock of
 * the C library's, or the allocator's, forever in the copy). */
struct spawn {
	const char *path;
	char *const *argv, *const *envp;
	const char *dir;
	const struct ep_child_jail *jail;
	int nullfd, outfd, errfd, report;
};

/* Why the child could not exec, written to the report pipe. */
struct spawn_fail {
	int err;
	char step[48];
};

static void __attribute__((noreturn))
spawn_child(const struct spawn *s)
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

/* Fork, confine, exec; 0, or an errno with *step ("" for the exec
 * itself) when it could not start. */
static int
spawn(pid_t *pid, const struct spawn *s, char *step, size_t stepsize)
{
	struct spawn_fail f;
	struct spawn c = *s;
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

/* How often on_wait is called while the children run. */
#define WAIT_TICK_NS	(100u * 1000000u)

/* One child of ep_child_run_all. */
struct job {
	pid_t pid;		/* -1: not started, or reaped */
	int outp, errp, pidfd;
	int started, exited, ended;	/* ended: reaped, pipes closed */
	unsigned long long since;
	uint64_t deadline;	/* ns, monotonic, from its own start */
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

static void
close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* What every job of one call shares. */
struct shared {
	const struct ep_child_jail *jail;
	char *const *env;	/* for a job without its own */
	int nullfd;
};

/* Start job v (its environment envp, or sh->env when NULL, with TMPDIR
 * the jail's) as jb. */
static int
start_job(struct job *jb, const struct ep_child_run_job *v,
    const struct shared *sh, const struct ep_child_opts *o,
    struct ep_err *err)
{
	struct ep_strv env = { 0 };
	struct spawn sp;
	char step[64];
	int outp[2], errp[2], e;

	if (pipe2(outp, O_CLOEXEC) < 0)
		return ep_err_set(err, EP_E_IO, "%s: pipe: %s", v->path,
		    strerror(errno));
	if (pipe2(errp, O_CLOEXEC) < 0) {
		e = errno;
		close(outp[0]);
		close(outp[1]);
		return ep_err_set(err, EP_E_IO, "%s: pipe: %s", v->path,
		    strerror(e));
	}
	jb->outp = outp[0];
	jb->errp = errp[0];
	jb->started = 1;
	ep_strv_push_owned(&env, NULL);		/* an envp even when empty */
	env.n = 0;
	for (char *const *p = v->envp != NULL ? v->envp : sh->env;
	    p != NULL && *p != NULL; p++)
		if (!ep_startswith(*p, "TMPDIR="))
			ep_strv_push(&env, *p);
	if (sh->jail->tmpdir != NULL)
		ep_child_env_set(&env, "TMPDIR", sh->jail->tmpdir);
	sp = (struct spawn){ .path = v->path, .argv = v->argv,
	    .envp = env.v, .dir = o->dir, .jail = sh->jail,
	    .nullfd = sh->nullfd, .outfd = outp[1], .errfd = errp[1] };
	e = spawn(&jb->pid, &sp, step, sizeof step);
	ep_strv_clear(&env);
	close(outp[1]);
	close(errp[1]);
	if (e != 0) {
		jb->pid = -1;
		return ep_err_set(err, EP_E_IO, "%s: cannot run: %s%s%s",
		    v->path, step, *step ? ": " : "", strerror(e));
	}
	jb->since = ep_child_start_time(jb->pid);
	jb->deadline = ep_now_ns() + (uint64_t)o->timeout_ms * 1000000u;
#ifdef SYS_pidfd_open
	jb->pidfd = (int)syscall(SYS_pidfd_open, jb->pid, 0);
#endif
	return 0;
}

/* The first job of v from `from` on not started whose group has room,
 * or n. */
static size_t
next_job(const struct ep_child_run_job *v, const struct job *jobs,
    size_t from, size_t n, const struct ep_child_opts *o,
    const size_t *ingroup)
{
	for (size_t i = from; i < n; i++)
		if (!jobs[i].started && (v[i].group == 0 ||
		    o->group_max == 0 || ingroup[v[i].group] < o->group_max))
			return i;
	return n;
}

/* Job i ended as far as we are concerned: say so once. */
static void
job_ended(struct job *jb, size_t i, const struct ep_child_opts *o,
    size_t *running, size_t *ingroup, size_t group)
{
	if (jb->ended || !jb->started || jb->pid > 0 || jb->outp >= 0 ||
	    jb->errp >= 0)
		return;
	jb->ended = 1;
	close_fd(&jb->pidfd);	/* a long list must not run out of them */
	(*running)--;
	ingroup[group]--;
	if (o->on_end != NULL)
		o->on_end(o->on_end_arg, i);
}

int
ep_child_run_all(struct ep_child_run_job *v, size_t n,
    const struct ep_child_opts *o, struct ep_err *err)
{
	struct ep_strv env = { 0 };
	struct ep_child_jail own = { .ruleset = -1 };
	struct shared sh = { .nullfd = -1 };
	struct pollfd *pfd = xcalloc(3 * n + 1, sizeof *pfd);
	struct job *jobs = xcalloc(n + 1, sizeof *jobs);
	int *slot = xcalloc(3 * n + 1, sizeof *slot), nfd, rc = -1;
	size_t i, next = 0, running = 0, max = o->max_jobs, ngroups = 0;
	size_t *ingroup;
	struct ep_child_result *r;
	uint64_t now, wake;

	if (max == 0 || max > n)
		max = n;
	for (i = 0; i < n; i++) {
		memset(&v[i].r, 0, sizeof v[i].r);
		jobs[i] = (struct job){ .pid = -1, .outp = -1, .errp = -1,
		    .pidfd = -1 };
		if (v[i].group >= ngroups)
			ngroups = v[i].group + 1;
	}
	ingroup = xcalloc(ngroups + 1, sizeof *ingroup);
	ep_child_env(&env, o->kind);
	ep_child_reaper();
	if (o->jail == NULL && ep_child_jail_init(&own, o->kind, NULL,
	    err) < 0)
		goto done;
	sh.jail = o->jail != NULL ? o->jail : &own;
	sh.env = env.v;
	if ((sh.nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		ep_err_set(err, EP_E_IO, "/dev/null: %s", strerror(errno));
		goto done;
	}

	for (;;) {
		int nopidfd = 0;

		/* As many at work as allowed, in order. */
		while (running < max && (i = next_job(v, jobs, next, n,
		    o, ingroup)) < n) {
			if (start_job(&jobs[i], &v[i], &sh, o, err) < 0)
				goto done;
			ingroup[v[i].group]++;
			running++;
			while (next < n && jobs[next].started)
				next++;
		}
		if (running == 0 && next == n)
			break;
		now = ep_now_ns();
		wake = UINT64_MAX;
		nfd = 0;
		for (i = 0; i < n; i++) {
			struct job *jb = &jobs[i];

			if (!jb->started || jb->ended)
				continue;
			if (now >= jb->deadline) {
				/* Its time is up: killed if it still runs,
				 * and what it has not written is lost. */
				if (jb->pid > 0) {
					v[i].r.timed_out = 1;
					end_job(jobs, n, i, o->grace_ms);
					reap_job(jb, &v[i].r, o->grace_ms);
				}
				close_fd(&jb->outp);
				close_fd(&jb->errp);
				job_ended(jb, i, o, &running, ingroup,
				    v[i].group);
				continue;
			}
			if (jb->deadline < wake)
				wake = jb->deadline;
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
		}
		if (running < max && next_job(v, jobs, next, n, o, ingroup) < n)
			continue;	/* a timed-out job freed a place */
		if (running == 0 && next == n)
			break;
		if (wake == UINT64_MAX)
			wake = now;
		if (o->on_wait != NULL) {
			o->on_wait(o->on_end_arg);
			if (wake - now > WAIT_TICK_NS)
				wake = now + WAIT_TICK_NS;
		}
		if (poll(pfd, (nfds_t)nfd, nopidfd ? 10 :
		    (int)((wake - now) / 1000000) + 1) < 0 && errno != EINTR) {
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
			    &r->out_len, o->out_max, 0, &r->overflow))
				close_fd(&jb->outp);
			else if (slot[k] >= (int)n && drain(jb->errp,
			    &r->err, &r->err_len, 0, o->err_keep,
			    &r->overflow))
				close_fd(&jb->errp);
		}
		for (i = 0; i < n; i++) {
			struct job *jb = &jobs[i];

			r = &v[i].r;
			if (!jb->started || jb->ended)
				continue;
			if (r->overflow && jb->outp >= 0) {
				/* Nothing more of it is wanted. */
				close_fd(&jb->outp);
				if (jb->pid > 0)
					end_job(jobs, n, i, o->grace_ms);
			}
			if (jb->pid > 0 && !jb->exited &&
			    ep_child_exited(jb->pid)) {
				/* Whatever it left behind would hold the
				 * pipes open, and must not outlive it. */
				jb->exited = 1;
				end_job(jobs, n, i, o->grace_ms);
				reap_job(jb, r, o->grace_ms);
			}
			job_ended(jb, i, o, &running, ingroup, v[i].group);
		}
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
		close_fd(&jb->outp);
		close_fd(&jb->errp);
		close_fd(&jb->pidfd);
		r = &v[i].r;
		if (r->out == NULL)
			r->out = xstrdup("");
		if (r->err == NULL)
			r->err = xstrdup("");
		if (rc < 0)
			ep_child_result_clear(r);
	}
	ep_strv_clear(&env);
	if (sh.nullfd >= 0)
		close(sh.nullfd);
	if (o->jail == NULL)
		ep_child_jail_clear(&own);
	free(ingroup);
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
