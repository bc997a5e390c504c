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

/* Run probe for backend once on each of n environments at the same time
 * (envs[i] NULL: ours), into outs[i]. */
static int
run_many(struct ep_probe_run **outs, size_t n, const char *probe,
    const char *backend, const struct ep_strv *extra, char *const **envs,
    unsigned timeout_s, struct ep_err *err)
{
	struct ep_child_opts o = {
		.timeout_ms = timeout_s * 1000u,
		.out_max = OUT_MAX,
		.err_keep = ERR_KEEP,
		.grace_ms = REAP_GRACE_MS,
	};
	struct ep_child_run_job *jobs = xcalloc(n ? n : 1, sizeof *jobs);
	struct ep_strv argv = { 0 };
	int rc = -1;

	ep_strv_push(&argv, probe);
	ep_strv_push(&argv, "--backend");
	ep_strv_push(&argv, backend);
	for (size_t i = 0; extra != NULL && i < extra->n; i++)
		ep_strv_push(&argv, extra->v[i]);
	for (size_t i = 0; i < n; i++) {
		memset(outs[i], 0, sizeof *outs[i]);
		jobs[i].path = probe;
		jobs[i].argv = argv.v;
		jobs[i].envp = envs != NULL ? envs[i] : NULL;
	}
	if (ep_child_run_all(jobs, n, &o, err) < 0)
		goto done;
	for (size_t i = 0; i < n; i++) {
		judge(outs[i], backend, timeout_s, &jobs[i].r);
		ep_child_result_clear(&jobs[i].r);
	}
	rc = 0;
done:
	ep_strv_clear(&argv);
	free(jobs);
	return rc;
}

int
ep_probe_run_once(struct ep_probe_run *out, const char *probe,
    const char *backend, const struct ep_strv *extra, unsigned timeout_s,
    struct ep_err *err)
{
	return run_many(&out, 1, probe, backend, extra, NULL, timeout_s, err);
}

/* The environment of GPU g's process: ours (no credentials) with its
 * CUDA_VISIBLE_DEVICES; empty (envp NULL) when g leaves it as it is. */
static void
gpu_env(struct ep_strv *env, const struct ep_probe_gpu *g)
{
	memset(env, 0, sizeof *env);
	if (g->visible == NULL)
		return;
	ep_child_env(env);
	ep_child_env_set(env, "CUDA_VISIBLE_DEVICES", g->visible);
	if (g->pci_order)
		ep_child_env_set(env, "CUDA_DEVICE_ORDER", "PCI_BUS_ID");
}

/* 1 when some run of the n sets failed as a process. */
static int
any_run_failed(const struct ep_probe_set *sets, size_t n)
{
	for (size_t g = 0; g < n; g++)
		for (size_t i = 0; i < sets[g].n; i++)
			if (sets[g].runs[i].outcome != EP_PROBE_OK)
				return 1;
	return 0;
}

/* Run GPU backend b o->runs times on every GPU of gs, the GPUs of one run
 * at once, into sets[0..gs->n), and aggregate them. */
static int
run_gpu_backend(struct ep_results *rs, struct ep_manifest *facts,
    struct ep_strv *summary, const struct ep_probe_opts *o, const char *b,
    const struct ep_probe_gpus *gs, struct ep_probe_set *sets,
    const struct ep_strv *libs, char *const **envs, struct ep_progress *prog,
    struct ep_err *err)
{
	size_t n = gs->n, k, g, skipped;
	struct ep_probe_run **outs = xcalloc(n, sizeof *outs);
	char *const **ev = xcalloc(n, sizeof *ev);
	int *stopped = xcalloc(n, sizeof *stopped), rc = -1;

	for (g = 0; g < n; g++) {
		sets[g].backend = b;
		sets[g].gpu = gs->v[g].key;
		sets[g].gpu_results = n > 1;
		sets[g].where = n > 1 ? gs->v[g].label : NULL;
	}
	for (unsigned r = 0; r < o->runs; r++) {
		for (g = k = 0; g < n; g++) {
			if (stopped[g])
				continue;
			outs[k] = ep_probe_set_add(&sets[g]);
			ev[k++] = envs[g];
		}
		if (k == 0)
			break;
		if (run_many(outs, k, o->probe, b, libs, ev, o->timeout_s,
		    err) < 0)
			goto done;
		ep_progress_add(prog, k, 0);
		/* A missing driver does not come back in run 2. */
		for (g = 0; r == 0 && g < n; g++)
			if ((stopped[g] = ep_probe_set_skipped(&sets[g])))
				ep_progress_add(prog, o->runs - 1, 0);
	}
	for (g = skipped = 0; g < n; g++)
		skipped += ep_probe_set_skipped(&sets[g]) != 0;
	if (n > 1 && skipped == n && !any_run_failed(sets, n)) {
		/* Skipped on every GPU alike: one skip, as on one GPU. */
		sets[0].gpu_results = 0;
		ep_probe_aggregate(rs, facts, summary, &sets[0],
		    o->require_gpu);
	} else
		for (g = 0; g < n; g++)
			ep_probe_aggregate(rs, facts, summary, &sets[g],
			    o->require_gpu);
	rc = 0;
done:
	free(outs);
	free(ev);
	free(stopped);
	return rc;
}

int
ep_probe_all(struct ep_results *rs, struct ep_manifest *facts,
    struct ep_strv *summary, const struct ep_probe_opts *o,
    const struct ep_manifest *captured, struct ep_err *err)
{
	struct ep_probe_set cpu = { 0 }, *gsets = NULL, *one;
	struct ep_progress prog;
	struct ep_probe_gpuinfo *info = NULL;
	struct ep_probe_gpus gs = { 0 };
	struct ep_strv libs = { 0 }, *envs = NULL;
	char *const **envp = NULL;
	size_t nb = 0, ng = 0, bi, g;
	const char *b, *gpub[4];
	char *key;
	int rc = -1, first = -1, with_cpu;

	for (size_t i = 0; (b = ep_probe_backends[i]) != NULL; i++)
		if (ep_probe_backend_is_gpu(b) && (strcmp(o->backend, "all") ==
		    0 || strcmp(o->backend, b) == 0))
			gpub[nb++] = b;
	if (nb > 0 && ep_probe_gpus_select(&gs, o->gpus,
	    getenv("CUDA_VISIBLE_DEVICES"), captured, err) < 0)
		return -1;
	ng = gs.n;
	ep_probe_lib_args(&libs, captured);
	with_cpu = strcmp(o->backend, "all") == 0 ||
	    strcmp(o->backend, "cpu") == 0;
	ep_progress_start(&prog, "probe", "runs",
	    ((with_cpu ? 1 : 0) + nb * ng) * o->runs, 0);
	if (with_cpu) {
		cpu.backend = "cpu";
		for (unsigned r = 0; r < o->runs; r++) {
			if (ep_probe_run_once(ep_probe_set_add(&cpu), o->probe,
			    "cpu", NULL, o->timeout_s, err) < 0)
				goto done;
			ep_progress_add(&prog, 1, 0);
			/* A missing driver does not come back in run 2. */
			if (r == 0 && ep_probe_set_skipped(&cpu)) {
				ep_progress_add(&prog, o->runs - 1, 0);
				break;
			}
		}
		ep_probe_aggregate(rs, facts, summary, &cpu, o->require_gpu);
	}
	/* gsets[bi * ng + g]: backend gpub[bi] on GPU g. */
	gsets = xcalloc(nb * ng + 1, sizeof *gsets);
	envs = xcalloc(ng + 1, sizeof *envs);
	envp = xcalloc(ng + 1, sizeof *envp);
	for (g = 0; g < ng; g++) {
		gpu_env(&envs[g], &gs.v[g]);
		envp[g] = gs.v[g].visible != NULL ? envs[g].v : NULL;
	}
	for (bi = 0; bi < nb; bi++)
		if (run_gpu_backend(rs, facts, summary, o, gpub[bi], &gs,
		    &gsets[bi * ng], &libs, envp, &prog, err) < 0)
			goto done;
	/* Each GPU's domain, from its lines of every GPU backend. */
	info = xcalloc(ng + 1, sizeof *info);
	one = xcalloc(nb + 1, sizeof *one);
	for (g = 0; g < ng; g++) {
		for (bi = 0; bi < nb; bi++)
			one[bi] = gsets[bi * ng + g];
		key = xasprintf("probe.%s.domain", gs.v[g].key);
		ep_probe_domain_key(facts, key, one, nb);
		info[g] = (struct ep_probe_gpuinfo){ gs.v[g].index,
		    gs.v[g].key, ep_probe_device_name(one, nb),
		    ep_manifest_get(facts, key) };
		if (first < 0 && info[g].domain != NULL) {
			first = (int)g;
			ep_probe_domain(facts, one, nb);
		}
		free(key);
	}
	free(one);
	for (bi = 0; bi < nb; bi++)
		ep_probe_gpus_agree(rs, facts, summary, gpub[bi], info, ng);
	rc = 0;
done:
	ep_progress_end(&prog);
	ep_probe_set_clear(&cpu);
	for (size_t i = 0; gsets != NULL && i < nb * ng; i++)
		ep_probe_set_clear(&gsets[i]);
	for (g = 0; envs != NULL && g < ng; g++)
		ep_strv_clear(&envs[g]);
	free(gsets);
	free(envs);
	free(envp);
	free(info);
	ep_probe_gpus_clear(&gs);
	ep_strv_clear(&libs);
	return rc;
}
