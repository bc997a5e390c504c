/*
 * workload_run.c: run a team's workloads (workload.h), one process at a
 * time so that a run's time is its own.  Each run is
 *	/bin/sh -c WRAP envparity-workload STDOUT COMMAND
 * where WRAP sets the file size limit (ulimit -f: EP_WORKLOAD_OUTPUT_MAX,
 * which the kernel enforces with SIGXFSZ, so a workload that prints 1 GB
 * is stopped at the limit, not kept in our memory or on disk), sends
 * standard output to STDOUT, a file in the helper's private directory,
 * and execs `/bin/sh -c COMMAND`.  The helper is the probe's kind
 * (child.h): allowlisted environment without credentials, no_new_privs,
 * nobody or no capability as root, Landlock to the system, PATH, the
 * current directory and the active virtual environment, a deadline, its
 * whole tree killed.  Outputs are hashed from their files after the tree
 * is gone (nothing of it left to change them), never followed through a
 * link.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"
#include "hash.h"
#include "workload.h"
#include "xalloc.h"

#define SHELL		"/bin/sh"
#define ERR_KEEP	(16u * 1024)
#define REAP_GRACE_MS	5000

static const char wrap[] =
    "ulimit -f \"$2\" || exit 125; exec >\"$1\" || exit 125; "
    "exec " SHELL " -c \"$3\"";

/* The last line of standard error, printable, as "; stderr: ...". */
static char *
stderr_tail(const char *p, size_t len)
{
	size_t end = len, start, k = 0;
	char *s, *o;

	while (end > 0 && (p[end - 1] == '\n' || p[end - 1] == '\r' ||
	    p[end - 1] == ' '))
		end--;
	if (end == 0)
		return xstrdup("");
	for (start = end; start > 0 && p[start - 1] != '\n'; start--)
		;
	if (end - start > 160)
		start = end - 160;
	o = xmalloc((end - start) + 1);
	for (size_t i = start; i < end; i++)
		o[k++] = (p[i] >= 0x20 && p[i] < 0x7f) ? p[i] : '?';
	o[k] = '\0';
	s = xasprintf("; stderr: %s", o);
	free(o);
	return s;
}

/* Hash path into run when it is a regular file with something in it. */
static void
hash_output(struct ep_workload_run *run, const char *path, const char *what,
    const struct stat *st)
{
	struct ep_err err = { 0 };

	if (!S_ISREG(st->st_mode)) {
		run->outcome = EP_WORKLOAD_UNREADABLE;
		run->why = xasprintf("%s is not a regular file", what);
	} else if ((unsigned long long)st->st_size >= EP_WORKLOAD_OUTPUT_MAX) {
		run->outcome = EP_WORKLOAD_TOO_BIG;
		run->why = xasprintf("wrote %u MiB or more to %s (the limit; "
		    "stopped there)", EP_WORKLOAD_OUTPUT_MAX >> 20, what);
	} else if (st->st_size == 0) {
		run->outcome = EP_WORKLOAD_EMPTY;
		run->why = xasprintf("printed nothing (%s is empty)", what);
	} else if (ep_hash_file(run->sha256, path, &err) < 0) {
		run->outcome = EP_WORKLOAD_UNREADABLE;
		run->why = xasprintf("%s: %s", what, err.msg);
	} else
		run->outcome = EP_WORKLOAD_OK;
}

/* What run was, from how the process ended and the files it left. */
static void
judge(struct ep_workload_run *run, const struct ep_child_result *r,
    const char *outpath, const char *stdoutpath, unsigned timeout_s)
{
	char *tail = stderr_tail(r->err, r->err_len);
	struct stat so, fo;
	int have_so = lstat(stdoutpath, &so) == 0;
	int have_fo = lstat(outpath, &fo) == 0;

	if (r->timed_out) {
		run->outcome = EP_WORKLOAD_HUNG;
		run->why = xasprintf("hung, killed after %u s%s%s", timeout_s,
		    r->reaped ? "" : " (and it would not die)", tail);
	} else if ((have_so && S_ISREG(so.st_mode) &&
	    (unsigned long long)so.st_size >= EP_WORKLOAD_OUTPUT_MAX) ||
	    (have_fo && S_ISREG(fo.st_mode) &&
	    (unsigned long long)fo.st_size >= EP_WORKLOAD_OUTPUT_MAX) ||
	    (WIFSIGNALED(r->status) && WTERMSIG(r->status) == SIGXFSZ)) {
		run->outcome = EP_WORKLOAD_TOO_BIG;
		run->why = xasprintf("wrote more than %u MiB (the limit of an "
		    "output; stopped there)", EP_WORKLOAD_OUTPUT_MAX >> 20);
	} else if (WIFSIGNALED(r->status)) {
		run->outcome = EP_WORKLOAD_CRASHED;
		run->why = xasprintf("crashed (signal %d, %s)%s",
		    WTERMSIG(r->status), strsignal(WTERMSIG(r->status)),
		    tail);
	} else if (WEXITSTATUS(r->status) != 0) {
		run->outcome = EP_WORKLOAD_EXITED;
		run->why = xasprintf("exited with status %d%s",
		    WEXITSTATUS(r->status), tail);
	} else if (have_fo)
		hash_output(run, outpath, "$" EP_WORKLOAD_OUTPUT_VAR, &fo);
	else if (have_so && so.st_size > 0)
		hash_output(run, stdoutpath, "standard output", &so);
	else {
		run->outcome = EP_WORKLOAD_EMPTY;
		run->why = xasprintf("printed nothing (no $%s file, nothing "
		    "on standard output)", EP_WORKLOAD_OUTPUT_VAR);
	}
	free(tail);
}

/* What the helpers may read: PATH's folders (COMMAND runs programs by
 * name), the current directory (the user named a command that runs
 * from it), the active virtual or conda environment; what they need:
 * the shell. */
static void
workload_fs(struct ep_child_fs *fs)
{
	const char *env[] = { "VIRTUAL_ENV", "CONDA_PREFIX" };
	char *cwd = getcwd(NULL, 0);
	const char *v;

	ep_strv_push(&fs->need, SHELL);
	ep_child_fs_path(fs, getenv("PATH"));
	if (cwd != NULL && *cwd == '/')
		ep_strv_push(&fs->read, cwd);
	free(cwd);
	for (size_t i = 0; i < sizeof env / sizeof *env; i++)
		if ((v = getenv(env[i])) != NULL && *v == '/')
			ep_strv_push(&fs->read, v);
}

/* Run workload w once (run number num), into run. */
static int
run_once(struct ep_workload_run *run, const struct ep_workload *w,
    unsigned num, unsigned timeout_s, const struct ep_child_jail *jail,
    struct ep_err *err)
{
	struct ep_child_opts co = {
		.kind = EP_CHILD_PROBE,
		.jail = jail,
		.timeout_ms = timeout_s * 1000u,
		.out_max = 4096,
		.err_keep = ERR_KEEP,
		.grace_ms = REAP_GRACE_MS,
	};
	struct ep_child_result r = { 0 };
	struct ep_strv env = { 0 };
	char *outpath, *sopath, numtext[16], blocks[32];
	char *argv[8];
	uint64_t t0;
	int rc;

	/* Names of this run's own: nothing an earlier run left (a folder
	 * where a file should be) stands in for this run's output. */
	outpath = xasprintf("%s/%s-%u.out", jail->tmpdir, w->name, num);
	sopath = xasprintf("%s/%s-%u.stdout", jail->tmpdir, w->name, num);
	(void)unlink(outpath);
	(void)unlink(sopath);
	ep_child_env(&env, EP_CHILD_PROBE);
	ep_child_env_set(&env, EP_WORKLOAD_OUTPUT_VAR, outpath);
	snprintf(numtext, sizeof numtext, "%u", num);
	ep_child_env_set(&env, EP_WORKLOAD_RUN_VAR, numtext);
	snprintf(blocks, sizeof blocks, "%u", EP_WORKLOAD_OUTPUT_MAX / 512);
	argv[0] = (char *)SHELL;
	argv[1] = (char *)"-c";
	argv[2] = (char *)wrap;
	argv[3] = (char *)"envparity-workload";	/* $0 */
	argv[4] = sopath;			/* $1 */
	argv[5] = blocks;			/* $2 */
	argv[6] = w->command;			/* $3 */
	argv[7] = NULL;
	co.envp = env.v;
	t0 = ep_now_ns();
	rc = ep_child_run(&r, SHELL, argv, &co, err);
	run->seconds = (double)(ep_now_ns() - t0) / 1e9;
	if (rc == 0)
		judge(run, &r, outpath, sopath, timeout_s);
	(void)unlink(outpath);
	(void)unlink(sopath);
	ep_child_result_clear(&r);
	ep_strv_clear(&env);
	free(outpath);
	free(sopath);
	return rc;
}

int
ep_workload_run_all(struct ep_results *rs, struct ep_manifest *m,
    const struct ep_workload *w, size_t n, unsigned runs, unsigned timeout_s,
    struct ep_err *err)
{
	struct ep_child_jail jail = { .ruleset = -1 };
	struct ep_child_fs fs = { 0 };
	struct ep_workload_set s = { 0 };
	int rc = -1;

	workload_fs(&fs);
	if (ep_child_jail_init(&jail, EP_CHILD_PROBE, &fs, err) < 0)
		goto done;
	for (size_t i = 0; i < n; i++) {
		s.name = w[i].name;
		s.runs = xcalloc(runs, sizeof *s.runs);
		s.n = runs;
		for (unsigned k = 0; k < runs; k++)
			if (run_once(&s.runs[k], &w[i], k + 1, timeout_s,
			    &jail, err) < 0)
				goto done;
		ep_workload_aggregate(rs, m, &s);
		ep_workload_set_clear(&s);
	}
	ep_workload_domain(m);
	rc = 0;
done:
	ep_workload_set_clear(&s);
	ep_child_jail_clear(&jail);
	ep_child_fs_clear(&fs);
	return rc;
}
