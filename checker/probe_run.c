/*
 * probe_run.c: find envparity-probe and run it.  Each run is a fresh
 * process (a fresh CUDA context) in its own process group, with standard
 * output and error on pipes and a deadline: whatever the probe does
 * (hang, crash, print garbage, leave children behind), envparity gets
 * control back and the run becomes a result, never our own crash or hang.
 */
#include "probe.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* The contract's output is a few lines; more than this is garbage, and
 * the bound keeps a runaway probe from filling our memory. */
#define OUT_MAX		(1024u * 1024)
/* Of standard error only the end is kept, for the message. */
#define ERR_KEEP	(16u * 1024)
/* After SIGKILL, how long to wait for the process to go: one stuck in
 * the kernel (a wedged GPU driver) cannot be waited for forever. */
#define REAP_GRACE_MS	5000

struct buf {
	char *p;
	size_t len, cap;
};

static void
buf_add(struct buf *b, const char *data, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static int
is_exec_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(path, X_OK) == 0;
}

int
ep_probe_find(char **out, const char *given, struct ep_err *err)
{
	const char *env = getenv("ENVPARITY_PROBE"), *path;
	char self[4096], *dir, *cand, *copy, *save = NULL, *d;
	ssize_t n;

	*out = NULL;
	if (given != NULL) {
		if (!is_exec_file(given))
			return ep_err_set(err, EP_E_IO, "--probe %s: not an "
			    "executable file", given);
		*out = xstrdup(given);
		return 0;
	}
	if (env != NULL && *env != '\0') {
		if (!is_exec_file(env))
			return ep_err_set(err, EP_E_IO, "ENVPARITY_PROBE=%s: "
			    "not an executable file", env);
		*out = xstrdup(env);
		return 0;
	}
	/* Installed side by side: the probe of this very build. */
	if ((n = readlink("/proc/self/exe", self, sizeof self - 1)) > 0) {
		self[n] = '\0';
		if ((dir = strrchr(self, '/')) != NULL)
			*dir = '\0';
		cand = xasprintf("%s/%s", self, EP_PROBE_BINARY);
		if (is_exec_file(cand)) {
			*out = cand;
			return 0;
		}
		free(cand);
	} else
		strcpy(self, "this executable");
	if ((path = getenv("PATH")) != NULL) {
		copy = xstrdup(path);
		for (d = strtok_r(copy, ":", &save); d != NULL;
		    d = strtok_r(NULL, ":", &save)) {
			cand = xasprintf("%s/%s", *d ? d : ".", EP_PROBE_BINARY);
			if (is_exec_file(cand)) {
				*out = cand;
				free(copy);
				return 0;
			}
			free(cand);
		}
		free(copy);
	}
	return ep_err_set(err, EP_E_IO, "%s not found in %s nor on PATH "
	    "(name it with --probe PATH or ENVPARITY_PROBE)", EP_PROBE_BINARY,
	    self);
}

void
ep_probe_lib_args(struct ep_strv *args, const struct ep_manifest *captured)
{
	/* What the probe loads (the driver API needs no cudart).  cublasLt
	 * before cublas: loaded by full path first, it is what cublas's
	 * DT_NEEDED resolves to. */
	static const char *const names[] = {
		"cublaslt", "cublas", "cudnn", NULL,
	};
	const char *path;
	char *key;

	if (captured == NULL)
		return;
	for (size_t i = 0; names[i] != NULL; i++) {
		key = xasprintf("lib.%s.path", names[i]);
		if ((path = ep_manifest_get(captured, key)) != NULL) {
			ep_strv_push(args, "--lib");
			ep_strv_push_owned(args, xasprintf("%s=%s", names[i],
			    path));
		}
		free(key);
	}
}

static const char *
signame(int sig)
{
	static const struct {
		int sig;
		const char *name;
	} names[] = {
		{ SIGSEGV, "SIGSEGV" }, { SIGBUS, "SIGBUS" },
		{ SIGILL, "SIGILL" }, { SIGFPE, "SIGFPE" },
		{ SIGABRT, "SIGABRT" }, { SIGKILL, "SIGKILL" },
		{ SIGTERM, "SIGTERM" }, { SIGINT, "SIGINT" },
		{ SIGHUP, "SIGHUP" }, { SIGQUIT, "SIGQUIT" },
		{ SIGPIPE, "SIGPIPE" }, { SIGTRAP, "SIGTRAP" },
		{ SIGSYS, "SIGSYS" }, { SIGALRM, "SIGALRM" },
		{ SIGXCPU, "SIGXCPU" }, { SIGXFSZ, "SIGXFSZ" },
		{ SIGUSR1, "SIGUSR1" }, { SIGUSR2, "SIGUSR2" },
	};
	static char other[32];

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].sig == sig)
			return names[i].name;
	snprintf(other, sizeof other, "signal %d", sig);
	return other;
}

/* The last non-empty line of what the probe wrote on standard error, as
 * "; stderr: ..." for a message, or "" (a new string either way). */
static char *
stderr_tail(const struct buf *b)
{
	size_t end = b->len, start;
	char *shown, *s;

	while (end > 0 && (b->p[end - 1] == '\n' || b->p[end - 1] == '\r' ||
	    b->p[end - 1] == ' '))
		end--;
	if (end == 0)
		return xstrdup("");
	for (start = end; start > 0 && b->p[start - 1] != '\n'; start--)
		;
	shown = ep_probe_printable(b->p + start, end - start, 160);
	s = xasprintf("; stderr: %s", shown);
	free(shown);
	return s;
}

/* Read what fd has; 1 at end of file, 0 otherwise. */
static int
drain(int fd, struct buf *b, size_t keep_tail)
{
	char chunk[8192];
	ssize_t n;

	n = read(fd, chunk, sizeof chunk);
	if (n < 0)
		return (errno == EINTR || errno == EAGAIN) ? 0 : 1;
	if (n == 0)
		return 1;
	buf_add(b, chunk, (size_t)n);
	if (keep_tail > 0 && b->len > 4 * keep_tail) {
		memmove(b->p, b->p + b->len - keep_tail, keep_tail);
		b->len = keep_tail;
		b->p[b->len] = '\0';
	}
	return 0;
}

static int
exited_nowait(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof si);
	/* WNOWAIT: the zombie keeps the pid, and so the process group id,
	 * reserved until we have killed the group. */
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0
	    && si.si_pid == pid;
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
		if (exited_nowait(pid))
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
spawn(pid_t *pid, const char *probe, char **argv, int outfd, int errfd,
    struct ep_err *err)
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
	 * held open by a probe's stray child. */
	posix_spawn_file_actions_addclosefrom_np(&fa, 3);
#endif
	posix_spawnattr_init(&at);
	/* Its own group, so a hang is killed with its children; default
	 * signal dispositions, whatever ours are. */
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
	    POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	rc = posix_spawn(pid, probe, &fa, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0)
		return ep_err_set(err, EP_E_IO, "%s: cannot run: %s", probe,
		    strerror(rc));
	return 0;
}

/* Decide what the run was from how it ended and what it wrote. */
static void
judge(struct ep_probe_run *out, const char *backend, int hung,
    unsigned timeout_s, int toobig, int reaped, int status,
    const struct buf *o, const struct buf *e)
{
	char *tail = stderr_tail(e);

	if (hung) {
		out->outcome = EP_PROBE_HUNG;
		out->why = xasprintf("hung, killed after %u s%s%s", timeout_s,
		    reaped ? "" : " (and it would not die)", tail);
	} else if (toobig) {
		out->outcome = EP_PROBE_GARBAGE;
		out->why = xasprintf("garbage output: more than %u bytes on "
		    "standard output", OUT_MAX);
	} else if (WIFSIGNALED(status)) {
		out->outcome = EP_PROBE_CRASHED;
		out->why = xasprintf("crashed (%s)%s",
		    signame(WTERMSIG(status)), tail);
	} else if (WEXITSTATUS(status) != 0) {
		out->outcome = EP_PROBE_EXITED;
		out->why = xasprintf("exited with status %d%s",
		    WEXITSTATUS(status), tail);
	} else
		ep_probe_output_parse(out, o->p ? o->p : "", o->len, backend);
	free(tail);
}

int
ep_probe_run_once(struct ep_probe_run *out, const char *probe,
    const char *backend, const struct ep_strv *extra, unsigned timeout_s,
    struct ep_err *err)
{
	struct ep_strv argv = { 0 };
	struct buf o = { 0 }, e = { 0 };
	struct pollfd pfd[3];
	int outp[2] = { -1, -1 }, errp[2] = { -1, -1 }, pidfd = -1;
	int exited = 0, hung = 0, toobig = 0, reaped = 0, status = 0;
	int nfd, idx_out, idx_err, idx_pid, rc = -1;
	uint64_t deadline, now;
	pid_t pid = -1;

	memset(out, 0, sizeof *out);
	ep_strv_push(&argv, probe);
	ep_strv_push(&argv, "--backend");
	ep_strv_push(&argv, backend);
	for (size_t i = 0; extra != NULL && i < extra->n; i++)
		ep_strv_push(&argv, extra->v[i]);
	if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		ep_err_set(err, EP_E_IO, "pipe: %s", strerror(errno));
		goto done;
	}
	if (spawn(&pid, probe, argv.v, outp[1], errp[1], err) < 0)
		goto done;
	close(outp[1]);
	close(errp[1]);
	outp[1] = errp[1] = -1;
#ifdef SYS_pidfd_open
	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
	deadline = ep_now_ns() + (uint64_t)timeout_s * 1000000000u;

	while (!exited || outp[0] >= 0 || errp[0] >= 0) {
		if ((now = ep_now_ns()) >= deadline) {
			hung = !exited;
			break;
		}
		nfd = 0;
		idx_out = idx_err = idx_pid = -1;
		if (outp[0] >= 0)
			pfd[idx_out = nfd++] = (struct pollfd){ outp[0], POLLIN, 0 };
		if (errp[0] >= 0)
			pfd[idx_err = nfd++] = (struct pollfd){ errp[0], POLLIN, 0 };
		if (!exited && pidfd >= 0)
			pfd[idx_pid = nfd++] = (struct pollfd){ pidfd, POLLIN, 0 };
		if (poll(pfd, (nfds_t)nfd, (!exited && pidfd < 0) ? 10 :
		    (int)((deadline - now) / 1000000) + 1) < 0 && errno != EINTR) {
			ep_err_set(err, EP_E_IO, "poll: %s", strerror(errno));
			goto done;
		}
		if (idx_out >= 0 && pfd[idx_out].revents != 0 &&
		    drain(outp[0], &o, 0)) {
			close(outp[0]);
			outp[0] = -1;
		}
		if (idx_err >= 0 && pfd[idx_err].revents != 0 &&
		    drain(errp[0], &e, ERR_KEEP)) {
			close(errp[0]);
			errp[0] = -1;
		}
		if (o.len > OUT_MAX && !toobig) {
			toobig = 1;
			kill(-pid, SIGKILL);
		}
		if (!exited && exited_nowait(pid)) {
			/* Whatever it left behind would hold the pipes open:
			 * the group goes with it. */
			exited = 1;
			kill(-pid, SIGKILL);
		}
	}
	if (!exited)
		kill(-pid, SIGKILL);
	if (exited || wait_exit(pid, pidfd, ep_now_ns() +
	    (uint64_t)REAP_GRACE_MS * 1000000u))
		reaped = waitpid(pid, &status, 0) == pid;
	if (!hung && !reaped) {
		/* Only when waitpid itself failed. */
		ep_err_set(err, EP_E_IO, "waitpid: %s", strerror(errno));
		goto done;
	}
	judge(out, backend, hung, timeout_s, toobig, reaped, status, &o, &e);
	rc = 0;
done:
	for (int i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	if (pidfd >= 0)
		close(pidfd);
	ep_strv_clear(&argv);
	free(o.p);
	free(e.p);
	return rc;
}

int
ep_probe_all(struct ep_results *rs, struct ep_manifest *facts,
    struct ep_strv *summary, const struct ep_probe_opts *o,
    const struct ep_manifest *captured, struct ep_err *err)
{
	struct ep_probe_set sets[4];
	struct ep_strv libs = { 0 };
	struct ep_probe_run *run;
	size_t nsets = 0;
	const char *b;
	int rc = -1;

	memset(sets, 0, sizeof sets);
	ep_probe_lib_args(&libs, captured);
	for (size_t i = 0; (b = ep_probe_backends[i]) != NULL; i++) {
		if (strcmp(o->backend, "all") != 0 && strcmp(o->backend, b) != 0)
			continue;
		sets[nsets].backend = b;
		for (unsigned r = 0; r < o->runs; r++) {
			run = ep_probe_set_add(&sets[nsets]);
			if (ep_probe_run_once(run, o->probe, b,
			    ep_probe_backend_is_gpu(b) ? &libs : NULL,
			    o->timeout_s, err) < 0)
				goto done;
			/* A missing driver does not come back in run 2. */
			if (r == 0 && ep_probe_set_skipped(&sets[nsets]))
				break;
		}
		ep_probe_aggregate(rs, facts, summary, &sets[nsets],
		    o->require_gpu);
		nsets++;
	}
	ep_probe_domain(facts, sets, nsets);
	rc = 0;
done:
	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
		ep_probe_set_clear(&sets[i]);
	ep_strv_clear(&libs);
	return rc;
}
