/*
 * probe_run.c: find envparity-probe and run it.  Each run is a fresh
 * process (a fresh CUDA context) with standard output and error on pipes,
 * a deadline and an environment without our credentials (child.h):
 * whatever the probe does (hang, crash, print garbage, leave children
 * behind, even in a session of their own), envparity gets control back,
 * nothing it started survives it, and the run becomes a result, never
 * our own crash or hang.
 */
#include "probe.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "progress.h"

/* The contract's output is a few lines; more than this is garbage, and
 * the bound keeps a runaway probe from filling our memory. */
#define OUT_MAX		(1024u * 1024)
/* Of standard error only the end is kept, for the message. */
#define ERR_KEEP	(16u * 1024)
/* After SIGKILL, how long to wait for the process to go: one stuck in
 * the kernel (a wedged GPU driver) cannot be waited for forever. */
#define REAP_GRACE_MS	5000

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
	const char *env = getenv("ENVPARITY_PROBE");
	char self[4096], *dir, *cand;
	unsigned relative = 0;
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
	/* Never the current directory: on a CI runner that is the checkout
	 * of a pull request. */
	if (ep_child_which(out, EP_PROBE_BINARY, &relative) == 0)
		return 0;
	if (relative > 0)
		return ep_err_set(err, EP_E_IO, "%s not found in %s nor on "
		    "PATH (relative and empty PATH entries are never "
		    "searched; name it with --probe PATH or ENVPARITY_PROBE)",
		    EP_PROBE_BINARY, self);
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
stderr_tail(const char *p, size_t len)
{
	size_t end = len, start;
	char *shown, *s;

	while (end > 0 && (p[end - 1] == '\n' || p[end - 1] == '\r' ||
	    p[end - 1] == ' '))
		end--;
	if (end == 0)
		return xstrdup("");
	for (start = end; start > 0 && p[start - 1] != '\n'; start--)
		;
	shown = ep_probe_printable(p + start, end - start, 160);
	s = xasprintf("; stderr: %s", shown);
	free(shown);
	return s;
}

/* Decide what the run was from how it ended and what it wrote. */
static void
judge(struct ep_probe_run *out, const char *backend, unsigned timeout_s,
    const struct ep_child_result *r)
{
	char *tail = stderr_tail(r->err, r->err_len);
	int status = r->status;

	if (r->timed_out) {
		out->outcome = EP_PROBE_HUNG;
		out->why = xasprintf("hung, killed after %u s%s%s", timeout_s,
		    r->reaped ? "" : " (and it would not die)", tail);
	} else if (r->overflow) {
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
		ep_probe_output_parse(out, r->out, r->out_len, backend);
	free(tail);
}

int
ep_probe_run_once(struct ep_probe_run *out, const char *probe,
    const char *backend, const struct ep_strv *extra, unsigned timeout_s,
    struct ep_err *err)
{
	struct ep_child_opts o = {
		.timeout_ms = timeout_s * 1000u,
		.out_max = OUT_MAX,
		.err_keep = ERR_KEEP,
		.grace_ms = REAP_GRACE_MS,
	};
	struct ep_child_result r;
	struct ep_strv argv = { 0 };
	int rc = -1;

	memset(out, 0, sizeof *out);
	ep_strv_push(&argv, probe);
	ep_strv_push(&argv, "--backend");
	ep_strv_push(&argv, backend);
	for (size_t i = 0; extra != NULL && i < extra->n; i++)
		ep_strv_push(&argv, extra->v[i]);
	if (ep_child_run(&r, probe, argv.v, &o, err) < 0)
		goto done;
	judge(out, backend, timeout_s, &r);
	ep_child_result_clear(&r);
	rc = 0;
done:
	ep_strv_clear(&argv);
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
	struct ep_progress prog;
	size_t nsets = 0, nb = 0;
	const char *b;
	int rc = -1;

	memset(sets, 0, sizeof sets);
	ep_probe_lib_args(&libs, captured);
	for (size_t i = 0; (b = ep_probe_backends[i]) != NULL; i++)
		nb += strcmp(o->backend, "all") == 0 ||
		    strcmp(o->backend, b) == 0;
	ep_progress_start(&prog, "probe", "runs", nb * o->runs, 0);
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
			ep_progress_add(&prog, 1, 0);
			/* A missing driver does not come back in run 2. */
			if (r == 0 && ep_probe_set_skipped(&sets[nsets])) {
				ep_progress_add(&prog, o->runs - 1, 0);
				break;
			}
		}
		ep_probe_aggregate(rs, facts, summary, &sets[nsets],
		    o->require_gpu);
		nsets++;
	}
	ep_probe_domain(facts, sets, nsets);
	rc = 0;
done:
	ep_progress_end(&prog);
	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
		ep_probe_set_clear(&sets[i]);
	ep_strv_clear(&libs);
	return rc;
}
