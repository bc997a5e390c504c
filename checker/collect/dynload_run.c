/*
 * dynload_run.c: the parent's side of dynload.h: fork a child per job,
 * read its lines with poll() and a deadline, kill what does not finish,
 * and tell a crash from a clean exit; then parse the lines and decode the
 * version numbers the libraries report.  No <dlfcn.h> here: nothing is
 * loaded into the parent.
 *
 * The libraries come from places a pull request controls (site-packages,
 * --lib-path), and their constructors run in the child: it drops our
 * credentials from its environment before it loads anything, and when it
 * ends, whatever it started ends too (child.h).
 */
#include "dynload.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"

#define OUT_MAX		(256 * 1024)	/* a child says a few hundred bytes */

/* How long to wait for what a finished child left behind to die. */
#define KILL_GRACE_MS	1000

static void __attribute__((noreturn))
child(const struct ep_dynload_job *j, int fd, struct ep_strv *env)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
	    SIGPIPE };
	int null;

	/* Our own process group, so that a kill takes along anything the
	 * library started. */
	setpgid(0, 0);
	/* No credential of ours for the library's constructors, nor for
	 * anything they start. */
	ep_child_env_enter(env);
	/* Die of a crash plainly, so that the parent can name the signal:
	 * a handler inherited from the parent (a sanitizer's) would try to
	 * report it, and may deadlock doing so inside dlopen. */
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
		signal(fatal[i], SIG_DFL);
	/* A library that prints must not write into the manifest. */
	if ((null = open("/dev/null", O_RDWR)) >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		if (null > 2)
			close(null);
	}
	ep_dynload_probe(j, fd);
	_exit(0);
}

struct slot {
	struct ep_dynload_job *j;
	pid_t pid;
	int fd;			/* -1 once at end of file */
	size_t cap;
	uint64_t t0, deadline;
	unsigned long long since;	/* its start time, for its orphans */
};

static void
start(struct slot *s, struct ep_dynload_job *j, int timeout_ms,
    struct ep_strv *env)
{
	int p[2];

	memset(s, 0, sizeof *s);
	s->j = j;
	s->fd = -1;
	s->t0 = ep_now_ns();
	s->deadline = s->t0 + (uint64_t)timeout_ms * 1000000;
	j->limit_ms = timeout_ms;
	j->status = EP_DL_NOSTART;
	if (pipe2(p, O_CLOEXEC) < 0) {
		j->code = errno;
		return;
	}
	if ((s->pid = fork()) < 0) {
		j->code = errno;
		close(p[0]);
		close(p[1]);
		s->pid = 0;
		return;
	}
	if (s->pid == 0) {
		close(p[0]);
		child(j, p[1], env);
	}
	/* Its group exists before we may need to kill it. */
	setpgid(s->pid, s->pid);
	s->since = ep_child_start_time(s->pid);
	close(p[1]);
	s->fd = p[0];
	fcntl(s->fd, F_SETFL, fcntl(s->fd, F_GETFL) | O_NONBLOCK);
}

/* Read what is there; 1 at end of file. */
static int
drain(struct slot *s)
{
	struct ep_dynload_job *j = s->j;
	char buf[8192];
	ssize_t r;

	for (;;) {
		if ((r = read(s->fd, buf, sizeof buf)) < 0) {
			if (errno == EINTR)
				continue;
			return errno != EAGAIN;
		}
		if (r == 0)
			return 1;
		if (j->len + (size_t)r > OUT_MAX) {
			j->overflow = 1;
			continue;
		}
		if (j->len + (size_t)r + 1 > s->cap) {
			s->cap = (j->len + (size_t)r + 1) * 2;
			j->out = xrealloc(j->out, s->cap);
		}
		memcpy(j->out + j->len, buf, (size_t)r);
		j->len += (size_t)r;
		j->out[j->len] = '\0';
	}
}

static void
finish(struct slot *s, int wstatus, int timed_out)
{
	struct ep_dynload_job *j = s->j;

	if (s->fd >= 0) {
		drain(s);
		close(s->fd);
		s->fd = -1;
	}
	if (j->out == NULL)
		j->out = xstrdup("");
	j->ms = (unsigned)((ep_now_ns() - s->t0) / 1000000);
	if (timed_out) {
		j->status = EP_DL_TIMEOUT;
	} else if (WIFSIGNALED(wstatus)) {
		j->status = EP_DL_SIGNAL;
		j->code = WTERMSIG(wstatus);
	} else {
		j->code = WEXITSTATUS(wstatus);
		j->status = j->code == 0 ? EP_DL_OK : EP_DL_EXIT;
	}
	s->pid = 0;
}

/* Kill s's child, whether it exited (not yet reaped) or not, and
 * everything it started, except the other children at work and theirs;
 * then reap it into *ws. */
static void
end_slot(struct slot *slots, unsigned parallel, struct slot *s, int *ws)
{
	pid_t *keep = xcalloc(parallel, sizeof *keep);
	size_t nkeep = 0;

	for (unsigned i = 0; i < parallel; i++)
		if (&slots[i] != s && slots[i].pid > 0)
			keep[nkeep++] = slots[i].pid;
	ep_child_kill_tree(s->pid, s->since, keep, nkeep, KILL_GRACE_MS);
	while (waitpid(s->pid, ws, 0) < 0 && errno == EINTR)
		;
	free(keep);
}

int
ep_dynload_run(struct ep_dynload_job *jobs, size_t n, unsigned parallel,
    int timeout_ms, struct ep_err *err)
{
	struct ep_strv env = { 0 };
	struct slot *slots;
	struct pollfd *pfd;
	size_t next = 0, active = 0;
	int rc = 0;

	if (parallel == 0)
		parallel = 2;
	/* Built here: after fork the child only switches to it. */
	ep_child_env(&env);
	ep_child_reaper();
	slots = xcalloc(parallel, sizeof *slots);
	pfd = xcalloc(parallel, sizeof *pfd);
	/* A job never started (poll failed first) must not read as a clean
	 * answer with nothing in it. */
	for (size_t i = 0; i < n; i++) {
		jobs[i].status = EP_DL_NOSTART;
		jobs[i].code = 0;
	}
	while (next < n || active > 0) {
		uint64_t now;
		int wait_ms = timeout_ms;

		for (unsigned i = 0; i < parallel && next < n; i++) {
			if (slots[i].pid != 0)
				continue;
			start(&slots[i], &jobs[next++], timeout_ms, &env);
			if (slots[i].pid != 0)
				active++;
			else if (jobs[next - 1].out == NULL)
				jobs[next - 1].out = xstrdup("");
		}
		now = ep_now_ns();
		for (unsigned i = 0; i < parallel; i++) {
			int left;

			pfd[i].fd = slots[i].pid != 0 ? slots[i].fd : -1;
			pfd[i].events = POLLIN;
			pfd[i].revents = 0;
			if (slots[i].pid == 0)
				continue;
			left = slots[i].deadline > now ?
			    (int)((slots[i].deadline - now + 999999) / 1000000) : 0;
			/* A child that closed its end (or left a grandchild
			 * holding it) is looked at again soon. */
			if (slots[i].fd < 0 && left > 2)
				left = 2;
			if (left < wait_ms)
				wait_ms = left;
		}
		if (active == 0)
			continue;
		if (wait_ms > 50)
			wait_ms = 50;
		if (poll(pfd, parallel, wait_ms) < 0 && errno != EINTR) {
			rc = ep_err_set(err, EP_E_IO, "poll: %s", strerror(errno));
			for (size_t i = next; i < n; i++)
				jobs[i].code = errno;
			break;
		}
		now = ep_now_ns();
		for (unsigned i = 0; i < parallel; i++) {
			struct slot *s = &slots[i];
			int ws = 0;

			if (s->pid == 0)
				continue;
			if (s->fd >= 0 && pfd[i].revents != 0 && drain(s)) {
				close(s->fd);
				s->fd = -1;
			}
			if (ep_child_exited(s->pid)) {
				end_slot(slots, parallel, s, &ws);
				finish(s, ws, 0);
				active--;
			} else if (now >= s->deadline) {
				end_slot(slots, parallel, s, &ws);
				finish(s, 0, 1);
				active--;
			}
		}
	}
	for (unsigned i = 0; i < parallel; i++)
		if (slots[i].pid != 0) {
			int ws = 0;

			end_slot(slots, parallel, &slots[i], &ws);
			finish(&slots[i], 0, 1);
		}
	for (size_t i = 0; i < n; i++)
		if (jobs[i].out == NULL)
			jobs[i].out = xstrdup("");
	ep_strv_clear(&env);
	free(slots);
	free(pfd);
	return rc;
}

void
ep_dynload_jobs_clear(struct ep_dynload_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(jobs[i].out);
		jobs[i].out = NULL;
		jobs[i].len = 0;
	}
}

void
ep_dynload_describe(char *buf, size_t size, const struct ep_dynload_job *j)
{
	switch (j->status) {
	case EP_DL_OK:
		snprintf(buf, size, "%s", "");
		break;
	case EP_DL_EXIT:
		snprintf(buf, size, "crashed (exit status %d)", j->code);
		break;
	case EP_DL_SIGNAL:
		snprintf(buf, size, "crashed (signal %d, %s)", j->code,
		    strsignal(j->code));
		break;
	case EP_DL_TIMEOUT:
		snprintf(buf, size, "did not finish within %d ms", j->limit_ms);
		break;
	default:
		snprintf(buf, size, "could not be started: %s",
		    strerror(j->code));
		break;
	}
}

static void
push_rec(struct ep_dlrecs *r, const char *line, const char *t1,
    const char *t2, const char *end)
{
	struct ep_dlrec *rec;

	if (r->n == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 16;
		r->v = xreallocarray(r->v, r->cap, sizeof *r->v);
	}
	rec = &r->v[r->n++];
	rec->name = xstrndup(line, (size_t)(t1 - line));
	rec->field = xstrndup(t1 + 1, (size_t)(t2 - t1 - 1));
	rec->value = xstrndup(t2 + 1, (size_t)(end - t2 - 1));
}

void
ep_dynload_parse(struct ep_dlrecs *out, const char *buf, size_t len)
{
	const char *p = buf, *end = buf + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *t1, *t2;

		if (nl == NULL) {		/* cut off */
			out->bad++;
			break;
		}
		t1 = memchr(p, '\t', (size_t)(nl - p));
		t2 = t1 != NULL ? memchr(t1 + 1, '\t', (size_t)(nl - t1 - 1)) :
		    NULL;
		if (t1 == NULL || t2 == NULL || t1 == p || t2 == t1 + 1 ||
		    memchr(p, '\0', (size_t)(nl - p)) != NULL)
			out->bad++;
		else
			push_rec(out, p, t1, t2, nl);
		p = nl + 1;
	}
}

void
ep_dlrecs_clear(struct ep_dlrecs *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].name);
		free(r->v[i].field);
		free(r->v[i].value);
	}
	free(r->v);
	memset(r, 0, sizeof *r);
}

void
ep_version_cuda(char *buf, size_t size, long code)
{
	if (code <= 0)
		snprintf(buf, size, "%s", "");
	else
		snprintf(buf, size, "%ld.%ld", code / 1000, code % 1000 / 10);
}

void
ep_version_code(char *buf, size_t size, long code)
{
	if (code <= 0)
		snprintf(buf, size, "%s", "");
	else if (code >= 10000)
		snprintf(buf, size, "%ld.%ld.%ld", code / 10000,
		    code / 100 % 100, code % 100);
	else
		snprintf(buf, size, "%ld.%ld.%ld", code / 1000,
		    code / 100 % 10, code % 100);
}

void
ep_version_packed(char *buf, size_t size, unsigned long packed)
{
	if (packed == 0 || packed > 0xffffff)
		snprintf(buf, size, "%s", "");
	else
		snprintf(buf, size, "%lu.%lu.%lu", packed >> 16,
		    packed >> 8 & 0xff, packed & 0xff);
}
