/*
 * dynload_run.c: the parent's side of dynload.h: run a helper per job,
 * each a fresh execution of this very program (ep_dynload_main, dynload.c)
 * that loads one library; read its lines, kill what does not finish, and
 * tell a crash from a clean exit; then parse the lines and decode the
 * version numbers the libraries report.  No <dlfcn.h> here: nothing is
 * loaded into the parent.
 *
 * The libraries come from places a pull request controls (site-packages,
 * --lib-path, LD_LIBRARY_PATH), and their constructors run in the
 * helper.  So the helper is executed, never a fork() of us: by the time
 * the CUDA stack is captured we may hold the store token and the
 * connection's buffers, and a forked copy of our memory would hand them
 * to the library.  Why our own binary rather than a helper program of
 * its own: it is the same build as the parent (the protocol, the NVML
 * table and the job names cannot drift apart), it cannot be missing or
 * found somewhere a checkout planted one, and /proc/self/exe names it
 * even once the file was replaced by an upgrade.  The helper is confined
 * (child.h: the loader's environment, no_new_privs, nobody or no
 * capability as root, Landlock to the library directories), and when it
 * ends, whatever it started ends too.
 */
#include "dynload.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"
#include "errors.h"
#include "files.h"
#include "strv.h"
#include "xalloc.h"

#define OUT_MAX		(256 * 1024)	/* a helper says a few hundred bytes */
#define ERR_KEEP	512

/* How long to wait for what a finished helper left behind to die. */
#define KILL_GRACE_MS	1000

#define SELF_EXE	"/proc/self/exe"

/* When each job ended, for its ms. */
struct timing {
	struct ep_dynload_job *jobs;
	uint64_t t0;
};

static void
job_ended(void *arg, size_t i)
{
	struct timing *t = arg;

	t->jobs[i].ms = (unsigned)((ep_now_ns() - t->t0) / 1000000);
}

/* d's directory, when it has one. */
static void
push_dir(struct ep_strv *v, const char *path)
{
	char *d;

	if (path == NULL || (d = ep_path_dir(path)) == NULL)
		return;
	if (*d == '/' && !ep_strv_contains(v, d))
		ep_strv_push_owned(v, d);
	else
		free(d);
}

/* What the helpers read: our binary, the libraries and their directories
 * (a library's dependencies are its neighbours, or where dirs says the
 * search looked); what they need: our binary and the libraries. */
static void
helper_fs(struct ep_child_fs *fs, const struct ep_dynload_job *jobs,
    size_t n, const struct ep_strv *dirs)
{
	char *self = realpath(SELF_EXE, NULL);

	ep_strv_push(&fs->read, SELF_EXE);
	if (self != NULL)
		ep_strv_push_owned(&fs->need, self);
	for (size_t i = 0; dirs != NULL && i < dirs->n; i++)
		if (!ep_strv_contains(&fs->read, dirs->v[i]))
			ep_strv_push(&fs->read, dirs->v[i]);
	for (size_t i = 0; i < n; i++) {
		push_dir(&fs->read, jobs[i].path);
		push_dir(&fs->read, jobs[i].aux);
		ep_strv_push(&fs->need, jobs[i].path);
		if (jobs[i].aux != NULL)
			ep_strv_push(&fs->need, jobs[i].aux);
	}
}

/* The job's outcome from how its helper ended. */
static void
finish(struct ep_dynload_job *j, struct ep_child_result *r)
{
	j->out = r->out;
	j->len = r->out_len;
	r->out = NULL;
	if (r->timed_out)
		j->status = EP_DL_TIMEOUT;
	else if (r->overflow) {
		j->status = EP_DL_OVERFLOW;
		j->overflow = 1;
		j->code = OUT_MAX;
	} else if (WIFSIGNALED(r->status)) {
		j->status = EP_DL_SIGNAL;
		j->code = WTERMSIG(r->status);
	} else {
		j->code = WEXITSTATUS(r->status);
		j->status = j->code == 0 ? EP_DL_OK : EP_DL_EXIT;
	}
}

int
ep_dynload_run(struct ep_dynload_job *jobs, size_t n, unsigned parallel,
    int timeout_ms, const struct ep_strv *dirs, struct ep_err *err)
{
	struct timing t = { .jobs = jobs, .t0 = ep_now_ns() };
	struct ep_child_opts o = {
		.kind = EP_CHILD_LOADER,
		.timeout_ms = timeout_ms > 0 ? (unsigned)timeout_ms : 1,
		.out_max = OUT_MAX,
		.err_keep = ERR_KEEP,
		.grace_ms = KILL_GRACE_MS,
		.max_jobs = parallel != 0 ? parallel : 2,
		.on_end = job_ended,
		.on_end_arg = &t,
	};
	struct ep_child_run_job *v = xcalloc(n + 1, sizeof *v);
	struct ep_child_fs fs = { 0 };
	struct ep_child_jail jail = { .ruleset = -1 };
	char *(*argv)[6] = xcalloc(n + 1, sizeof *argv);
	int rc = -1, e = 0;

	/* A job never started must not read as a clean answer with nothing
	 * in it. */
	for (size_t i = 0; i < n; i++) {
		jobs[i].status = EP_DL_NOSTART;
		jobs[i].code = 0;
		jobs[i].limit_ms = timeout_ms;
		jobs[i].overflow = 0;
	}
	helper_fs(&fs, jobs, n, dirs);
	if (ep_child_jail_init(&jail, EP_CHILD_LOADER, &fs, err) < 0) {
		e = EIO;
		goto done;
	}
	o.jail = &jail;
	for (size_t i = 0; i < n; i++) {
		argv[i][0] = (char *)"envparity";
		argv[i][1] = (char *)EP_DYNLOAD_HELPER;
		argv[i][2] = (char *)jobs[i].name;
		argv[i][3] = (char *)jobs[i].path;
		argv[i][4] = (char *)jobs[i].aux;
		argv[i][5] = NULL;
		v[i] = (struct ep_child_run_job){ .path = SELF_EXE,
		    .argv = argv[i] };
	}
	if (ep_child_run_all(v, n, &o, err) < 0) {
		e = EIO;
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		finish(&jobs[i], &v[i].r);
		ep_child_result_clear(&v[i].r);
	}
	rc = 0;
done:
	for (size_t i = 0; i < n; i++) {
		if (rc < 0)
			jobs[i].code = e;
		if (jobs[i].out == NULL)
			jobs[i].out = xstrdup("");
	}
	ep_child_jail_clear(&jail);
	ep_child_fs_clear(&fs);
	free(argv);
	free(v);
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
	case EP_DL_OVERFLOW:
		snprintf(buf, size, "was killed: more than %d bytes of output",
		    j->code);
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
