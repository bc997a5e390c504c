/*
 * child_run.c: run programs as children of ours (child.h): each forked,
 * confined (childjail.c) and executed (childspawn.c), never left running
 * in the copy of our memory; pipes for their output, a deadline each, at
 * most so many at once, and when one ends, by itself or killed,
 * everything it started is killed with it (child.c).
 */
#include "child_int.h"
#include "clock.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
	struct ep_child_spawn sp;
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
	sp = (struct ep_child_spawn){ .path = v->path, .argv = v->argv,
	    .envp = env.v, .dir = o->dir, .jail = sh->jail,
	    .nullfd = sh->nullfd, .outfd = outp[1], .errfd = errp[1] };
	e = ep_child_spawn(&jb->pid, &sp, step, sizeof step);
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

/* One call of ep_child_run_all: its jobs and what watching them takes. */
struct run {
	struct ep_child_run_job *v;
	size_t n;
	const struct ep_child_opts *o;
	struct job *jobs;
	size_t max;		/* at work at once */
	size_t next;		/* the first job not yet started */
	size_t running;		/* started and not ended */
	size_t *ingroup;	/* at work, by group */
	struct pollfd *pfd;	/* this round's: */
	int *slot;		/* i: out, n + i: err, 2n + i: pidfd */
	int nfd, nopidfd;
	struct ep_strv env;
	struct ep_child_jail own;	/* when o->jail is NULL */
	struct shared sh;
};

/* Set rs up for v[0..n): every result emptied, the environment, the
 * reaper, the jail and /dev/null.  -1 with err when the jail or
 * /dev/null cannot be had; rs is then still for run_finish to clear. */
static int
run_begin(struct run *rs, struct ep_child_run_job *v, size_t n,
    const struct ep_child_opts *o, struct ep_err *err)
{
	size_t ngroups = 0;

	*rs = (struct run){ .v = v, .n = n, .o = o, .max = o->max_jobs,
	    .own = { .ruleset = -1 }, .sh = { .nullfd = -1 } };
	rs->pfd = xcalloc(3 * n + 1, sizeof *rs->pfd);
	rs->jobs = xcalloc(n + 1, sizeof *rs->jobs);
	rs->slot = xcalloc(3 * n + 1, sizeof *rs->slot);
	if (rs->max == 0 || rs->max > n)
		rs->max = n;
	for (size_t i = 0; i < n; i++) {
		memset(&v[i].r, 0, sizeof v[i].r);
		rs->jobs[i] = (struct job){ .pid = -1, .outp = -1, .errp = -1,
		    .pidfd = -1 };
		if (v[i].group >= ngroups)
			ngroups = v[i].group + 1;
	}
	rs->ingroup = xcalloc(ngroups + 1, sizeof *rs->ingroup);
	ep_child_env(&rs->env, o->kind);
	ep_child_reaper();
	if (o->jail == NULL && ep_child_jail_init(&rs->own, o->kind, NULL,
	    err) < 0)
		return -1;
	rs->sh.jail = o->jail != NULL ? o->jail : &rs->own;
	rs->sh.env = rs->env.v;
	if ((rs->sh.nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
		return ep_err_set(err, EP_E_IO, "/dev/null: %s",
		    strerror(errno));
	return 0;
}

/* 1 when no job is at work and none is left to start. */
static int
run_over(const struct run *rs)
{
	return rs->running == 0 && rs->next == rs->n;
}

/* 1 when another job may start now. */
static int
run_has_room(const struct run *rs)
{
	return rs->running < rs->max && next_job(rs->v, rs->jobs, rs->next, rs->n,
	    rs->o, rs->ingroup) < rs->n;
}

/* As many at work as allowed, in order.  -1 with err when one cannot
 * be started. */
static int
run_start_ready(struct run *rs, struct ep_err *err)
{
	size_t i;

	while (rs->running < rs->max && (i = next_job(rs->v, rs->jobs, rs->next,
	    rs->n, rs->o, rs->ingroup)) < rs->n) {
		if (start_job(&rs->jobs[i], &rs->v[i], &rs->sh, rs->o, err) < 0)
			return -1;
		rs->ingroup[rs->v[i].group]++;
		rs->running++;
		while (rs->next < rs->n && rs->jobs[rs->next].started)
			rs->next++;
	}
	return 0;
}

/* Job i's time is up: killed if it still runs, and what it has not
 * written is lost. */
static void
run_expire(struct run *rs, size_t i)
{
	struct job *jb = &rs->jobs[i];

	if (jb->pid > 0) {
		rs->v[i].r.timed_out = 1;
		end_job(rs->jobs, rs->n, i, rs->o->grace_ms);
		reap_job(jb, &rs->v[i].r, rs->o->grace_ms);
	}
	close_fd(&jb->outp);
	close_fd(&jb->errp);
	job_ended(jb, i, rs->o, &rs->running, rs->ingroup, rs->v[i].group);
}

/* End the jobs whose deadline is past now, and set this round's poll
 * set from the others: their pipes, and their pidfds while they run.
 * The earliest deadline left (UINT64_MAX: none). */
static uint64_t
run_watch(struct run *rs, uint64_t now)
{
	uint64_t wake = UINT64_MAX;

	rs->nfd = 0;
	rs->nopidfd = 0;
	for (size_t i = 0; i < rs->n; i++) {
		struct job *jb = &rs->jobs[i];

		if (!jb->started || jb->ended)
			continue;
		if (now >= jb->deadline) {
			run_expire(rs, i);
			continue;
		}
		if (jb->deadline < wake)
			wake = jb->deadline;
		if (jb->outp >= 0) {
			rs->slot[rs->nfd] = (int)i;
			rs->pfd[rs->nfd++] = (struct pollfd){ jb->outp, POLLIN, 0 };
		}
		if (jb->errp >= 0) {
			rs->slot[rs->nfd] = (int)(rs->n + i);
			rs->pfd[rs->nfd++] = (struct pollfd){ jb->errp, POLLIN, 0 };
		}
		if (!jb->exited && jb->pidfd >= 0) {
			rs->slot[rs->nfd] = (int)(2 * rs->n + i);
			rs->pfd[rs->nfd++] = (struct pollfd){ jb->pidfd, POLLIN,
			    0 };
		}
		if (!jb->exited && jb->pidfd < 0)
			rs->nopidfd = 1;
	}
	return wake;
}

/* Wait until something of this round's poll set happens, the next
 * deadline (wake) or the next progress tick comes; every 10 ms where
 * a child has no pidfd.  -1 with err when poll fails. */
static int
run_wait(struct run *rs, uint64_t now, uint64_t wake, struct ep_err *err)
{
	if (wake == UINT64_MAX)
		wake = now;
	if (rs->o->on_wait != NULL) {
		rs->o->on_wait(rs->o->on_end_arg);
		if (wake - now > WAIT_TICK_NS)
			wake = now + WAIT_TICK_NS;
	}
	if (poll(rs->pfd, (nfds_t)rs->nfd, rs->nopidfd ? 10 :
	    (int)((wake - now) / 1000000) + 1) < 0 && errno != EINTR)
		return ep_err_set(err, EP_E_IO, "%s: poll: %s", rs->v[0].path,
		    strerror(errno));
	return 0;
}

/* Read what the pipes of this round's poll set have; a pipe at its end
 * is closed. */
static void
run_collect(struct run *rs)
{
	int n = (int)rs->n;

	for (int k = 0; k < rs->nfd; k++) {
		struct job *jb = &rs->jobs[rs->slot[k] % n];
		struct ep_child_result *r = &rs->v[rs->slot[k] % n].r;

		if (rs->pfd[k].revents == 0 || rs->slot[k] >= 2 * n)
			continue;
		if (rs->slot[k] < n && drain(jb->outp, &r->out, &r->out_len,
		    rs->o->out_max, 0, &r->overflow))
			close_fd(&jb->outp);
		else if (rs->slot[k] >= n && drain(jb->errp, &r->err,
		    &r->err_len, 0, rs->o->err_keep, &r->overflow))
			close_fd(&jb->errp);
	}
}

/* Judge each job at work: one that wrote too much is killed, one that
 * exited is reaped with its tree killed, one with nothing left ends. */
static void
run_judge(struct run *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		struct job *jb = &rs->jobs[i];
		struct ep_child_result *r = &rs->v[i].r;

		if (!jb->started || jb->ended)
			continue;
		if (r->overflow && jb->outp >= 0) {
			/* Nothing more of it is wanted. */
			close_fd(&jb->outp);
			if (jb->pid > 0)
				end_job(rs->jobs, rs->n, i, rs->o->grace_ms);
		}
		if (jb->pid > 0 && !jb->exited && ep_child_exited(jb->pid)) {
			/* Whatever it left behind would hold the pipes
			 * open, and must not outlive it. */
			jb->exited = 1;
			end_job(rs->jobs, rs->n, i, rs->o->grace_ms);
			reap_job(jb, r, rs->o->grace_ms);
		}
		job_ended(jb, i, rs->o, &rs->running, rs->ingroup, rs->v[i].group);
	}
}

/* Every job timed out or reaped; -1 with err where waitpid itself
 * failed. */
static int
run_check_reaped(const struct run *rs, struct ep_err *err)
{
	for (size_t i = 0; i < rs->n; i++) {
		const struct ep_child_result *r = &rs->v[i].r;

		if (!r->timed_out && !r->reaped)
			return ep_err_set(err, EP_E_IO, "%s: waitpid: %s",
			    rs->v[i].path, strerror(errno));
	}
	return 0;
}

/* Release what rs holds.  On a failure (rc < 0), any job still running is
 * killed with its tree (none may run on without us) and every result is
 * emptied; otherwise each result's out and err are at least "". */
static void
run_finish(struct run *rs, int rc)
{
	for (size_t i = 0; i < rs->n; i++) {
		struct job *jb = &rs->jobs[i];
		struct ep_child_result *r = &rs->v[i].r;

		if (jb->pid > 0) {
			/* Only on a failure: none may run on without us. */
			end_job(rs->jobs, rs->n, i, rs->o->grace_ms);
			if (wait_exit(jb->pid, jb->pidfd, ep_now_ns() +
			    (uint64_t)rs->o->grace_ms * 1000000u))
				waitpid(jb->pid, NULL, 0);
			jb->pid = -1;
		}
		close_fd(&jb->outp);
		close_fd(&jb->errp);
		close_fd(&jb->pidfd);
		if (r->out == NULL)
			r->out = xstrdup("");
		if (r->err == NULL)
			r->err = xstrdup("");
		if (rc < 0)
			ep_child_result_clear(r);
	}
	ep_strv_clear(&rs->env);
	if (rs->sh.nullfd >= 0)
		close(rs->sh.nullfd);
	if (rs->o->jail == NULL)
		ep_child_jail_clear(&rs->own);
	free(rs->ingroup);
	free(rs->pfd);
	free(rs->jobs);
	free(rs->slot);
}

int
ep_child_run_all(struct ep_child_run_job *v, size_t n,
    const struct ep_child_opts *o, struct ep_err *err)
{
	struct run rs;
	uint64_t now, wake;
	int rc = -1;

	if (run_begin(&rs, v, n, o, err) < 0)
		goto done;
	for (;;) {
		if (run_start_ready(&rs, err) < 0)
			goto done;
		if (run_over(&rs))
			break;
		now = ep_now_ns();
		wake = run_watch(&rs, now);
		if (run_has_room(&rs))
			continue;	/* a timed-out job freed a place */
		if (run_over(&rs))
			break;
		if (run_wait(&rs, now, wake, err) < 0)
			goto done;
		run_collect(&rs);
		run_judge(&rs);
	}
	if (run_check_reaped(&rs, err) < 0)
		goto done;
	rc = 0;
done:
	run_finish(&rs, rc);
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
