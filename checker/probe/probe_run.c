/*
 * probe_run.c: find envparity-probe and run it.  Each run is a fresh
 * process (a fresh CUDA context) with standard output and error on pipes,
 * a deadline, the probe's allowlisted environment and its confinement
 * (child.h: no_new_privs, nobody or no capability as root, Landlock to
 * its own files and the libraries it loads):
 * whatever the probe does (hang, crash, print garbage, leave children
 * behind, even in a session of their own), envparity gets control back,
 * nothing it started survives it, and the run becomes a result, never
 * our own crash or hang.
 */
#include "probe.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "progress.h"
#include "errors.h"
#include "files.h"
#include "strv.h"
#include "xalloc.h"

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

/* One process to run: a run of one backend (on one GPU). */
struct task {
	struct ep_probe_set *set;
	size_t slot;			/* its run in set->runs */
	struct ep_strv argv, env;
	unsigned run;			/* 1-based */
	size_t group;			/* 1 + its GPU's position when that
					   GPU takes one process at a time;
					   else 0 */
};

/* Where a wave's processes report their end: the progress line. */
static void
task_ended(void *arg, size_t i)
{
	(void)i;
	ep_progress_add(arg, 1, 0);
}

/* While none ends (a run that hangs until its deadline), the line still
 * shows once its delay has passed. */
static void
task_wait(void *arg)
{
	ep_progress_add(arg, 0, 0);
}

/* The argv and environment of run `run` of set s: our environment (no
 * credentials), the GPU's CUDA_VISIBLE_DEVICES when it has one, and
 * ENVPARITY_PROBE_RUN, the run's number, for a wrapper's logs. */
static void
task_init(struct task *t, struct ep_probe_set *s, const char *probe,
    const struct ep_probe_gpu *g, size_t group, const struct ep_strv *libs,
    unsigned run)
{
	char num[16];

	memset(t, 0, sizeof *t);
	t->set = s;
	t->run = run;
	t->group = group;
	ep_strv_push(&t->argv, probe);
	ep_strv_push(&t->argv, "--backend");
	ep_strv_push(&t->argv, s->backend);
	for (size_t i = 0; g != NULL && libs != NULL && i < libs->n; i++)
		ep_strv_push(&t->argv, libs->v[i]);
	ep_child_env(&t->env, EP_CHILD_PROBE);
	if (g != NULL && g->visible != NULL) {
		ep_child_env_set(&t->env, "CUDA_VISIBLE_DEVICES", g->visible);
		if (g->pci_order)
			ep_child_env_set(&t->env, "CUDA_DEVICE_ORDER",
			    "PCI_BUS_ID");
	}
	snprintf(num, sizeof num, "%u", run);
	ep_child_env_set(&t->env, "ENVPARITY_PROBE_RUN", num);
}

static void
task_clear(struct task *t)
{
	ep_strv_clear(&t->argv);
	ep_strv_clear(&t->env);
}

/* Run the n tasks, at most o->jobs at once, in their order, into slots
 * of their sets taken first. */
static int
run_wave(struct task *t, size_t n, const struct ep_probe_opts *o,
    const struct ep_child_jail *jail, struct ep_progress *prog,
    struct ep_err *err)
{
	struct ep_child_opts co = {
		.kind = EP_CHILD_PROBE,
		.jail = jail,
		.timeout_ms = o->timeout_s * 1000u,
		.out_max = OUT_MAX,
		.err_keep = ERR_KEEP,
		.grace_ms = REAP_GRACE_MS,
		.max_jobs = o->jobs,
		.group_max = 1,
		.on_end = task_ended,
		.on_wait = task_wait,
		.on_end_arg = prog,
	};
	struct ep_child_run_job *jobs;
	int rc = -1;

	if (n == 0)
		return 0;
	jobs = xcalloc(n, sizeof *jobs);
	for (size_t i = 0; i < n; i++) {
		/* An index, not a pointer: the set's array grows. */
		t[i].slot = t[i].set->n;
		(void)ep_probe_set_add(t[i].set);
		jobs[i].path = o->probe;
		jobs[i].argv = t[i].argv.v;
		jobs[i].envp = t[i].env.v;
		jobs[i].group = t[i].group;
	}
	if (ep_child_run_all(jobs, n, &co, err) < 0)
		goto done;
	for (size_t i = 0; i < n; i++) {
		judge(&t[i].set->runs[t[i].slot], t[i].set->backend,
		    o->timeout_s, &jobs[i].r);
		ep_child_result_clear(&jobs[i].r);
	}
	rc = 0;
done:
	free(jobs);
	return rc;
}

unsigned
ep_probe_jobs_default(size_t ngpus)
{
	cpu_set_t set;
	long n = 0;

	if (sched_getaffinity(0, sizeof set, &set) == 0)
		n = CPU_COUNT(&set);
	if (n < 1)
		n = sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	if (n > EP_PROBE_JOBS_DEFAULT_MAX)
		n = EP_PROBE_JOBS_DEFAULT_MAX;
	if ((size_t)n < ngpus)
		n = (long)ngpus;
	return n > EP_PROBE_JOBS_MAX ? EP_PROBE_JOBS_MAX : (unsigned)n;
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

/* Aggregate GPU backend b's sets, one per GPU of gs. */
static void
aggregate_gpu_backend(struct ep_results *rs, struct ep_manifest *facts,
    struct ep_strv *summary, const struct ep_probe_opts *o,
    const struct ep_probe_gpus *gs, struct ep_probe_set *sets)
{
	size_t n = gs->n, g, skipped;

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
}

/* The group of GPU g's processes: one at a time on a GPU whose compute
 * mode admits one process (probe.h); 0 (no limit) for the others and the
 * CPU (g NULL). */
static size_t
gpu_group(const struct ep_probe_gpus *gs, const struct ep_probe_gpu *g)
{
	return g != NULL && g->one_at_a_time ? (size_t)(g - gs->v) + 1 : 0;
}

/* What the probe's processes may read: the probe's own directory (a
 * wrapper's neighbours), the folders of PATH and the libraries it is
 * told to load, with their directories; what they need: the probe and
 * those libraries. */
static void
probe_fs(struct ep_child_fs *fs, const char *probe,
    const struct ep_strv *libs)
{
	char *real = realpath(probe, NULL), *d = ep_path_dir(probe);
	const char *eq;

	ep_strv_push(&fs->need, probe);
	/* Named relative to the current directory (the checkout), it is
	 * found through its real path only. */
	if (*d == '/')
		ep_strv_push_owned(&fs->read, d);
	else
		free(d);
	if (real != NULL) {
		ep_strv_push_owned(&fs->read, ep_path_dir(real));
		free(real);
	}
	/* A wrapper in front of the probe runs programs by name. */
	ep_child_fs_path(fs, getenv("PATH"));
	for (size_t i = 0; libs != NULL && i < libs->n; i++) {
		/* "--lib", "NAME=PATH", ... */
		if ((eq = strchr(libs->v[i], '=')) == NULL || eq[1] != '/')
			continue;
		ep_strv_push(&fs->need, eq + 1);
		ep_strv_push_owned(&fs->read, ep_path_dir(eq + 1));
	}
}

/*
 * Every run of every backend on every GPU, in two waves of processes:
 *  1. run 1 of each (backend, GPU) at once: a backend that skips there
 *     (no driver, no device) is not started again, since a missing
 *     driver does not come back in run 2;
 *  2. runs 2 to N of the others, at once, run 2 of each first.
 * At most o->jobs at a time in each wave, and one at a time on a GPU in
 * an exclusive compute mode.  Every run is still a fresh
 * process with a fresh CUDA context: a GPU holds several contexts, and
 * the workloads' results may not depend on what else runs.
 */
static int
run_all(struct ep_probe_set *sets, const struct ep_probe_gpus *gs,
    const struct ep_probe_gpu **gpu, size_t nsets,
    const struct ep_probe_opts *o, const struct ep_strv *libs,
    struct ep_progress *prog, struct ep_err *err)
{
	struct task *t = xcalloc(nsets * o->runs + 1, sizeof *t);
	struct ep_child_jail jail = { .ruleset = -1 };
	struct ep_child_fs fs = { 0 };
	size_t n = 0, i, first = 0;
	int rc = -1, *skipped = NULL;

	probe_fs(&fs, o->probe, libs);
	if (ep_child_jail_init(&jail, EP_CHILD_PROBE, &fs, err) < 0)
		goto done;
	for (i = 0; i < nsets; i++)
		task_init(&t[n++], &sets[i], o->probe, gpu[i],
		    gpu_group(gs, gpu[i]), libs, 1);
	if (run_wave(t, n, o, &jail, prog, err) < 0)
		goto done;
	first = n;
	skipped = xcalloc(nsets + 1, sizeof *skipped);
	for (i = 0; i < nsets; i++)
		if ((skipped[i] = ep_probe_set_skipped(&sets[i])))
			ep_progress_add(prog, o->runs - 1, 0);
	for (unsigned r = 2; r <= o->runs; r++)
		for (i = 0; i < nsets; i++)
			if (!skipped[i])
				task_init(&t[n++], &sets[i], o->probe, gpu[i],
				    gpu_group(gs, gpu[i]), libs, r);
	if (run_wave(t + first, n - first, o, &jail, prog, err) < 0)
		goto done;
	rc = 0;
done:
	ep_child_jail_clear(&jail);
	ep_child_fs_clear(&fs);
	for (i = 0; i < n; i++)
		task_clear(&t[i]);
	free(t);
	free(skipped);
	return rc;
}

/* meta.confinement.probe: how the probe's processes were confined. */
static void
confinement_meta(struct ep_manifest *facts)
{
	const char *said = ep_child_confinement(EP_CHILD_PROBE);
	json_t *o;

	if (said == NULL)
		return;
	if ((o = json_object_get(facts->meta, "confinement")) == NULL) {
		o = json_object();
		json_object_set_new(facts->meta, "confinement", o);
	}
	json_object_set_new(o, "probe", json_string(said));
}

int
ep_probe_all(struct ep_results *rs, struct ep_manifest *facts,
    struct ep_strv *summary, struct ep_probe_opts *o,
    const struct ep_manifest *captured, struct ep_err *err)
{
	struct ep_probe_set *sets = NULL, *gsets, *one;
	const struct ep_probe_gpu **gpu = NULL;
	struct ep_progress prog;
	struct ep_probe_gpuinfo *info = NULL;
	struct ep_probe_gpus gs = { 0 };
	struct ep_strv libs = { 0 };
	size_t nb = 0, ng = 0, bi, g, nsets = 0;
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
	if (o->jobs == 0)
		o->jobs = ep_probe_jobs_default(ng);
	ep_probe_lib_args(&libs, captured);
	with_cpu = strcmp(o->backend, "all") == 0 ||
	    strcmp(o->backend, "cpu") == 0;
	/* sets[0]: cpu (when it runs); then gsets[bi * ng + g]: backend
	 * gpub[bi] on GPU g. */
	sets = xcalloc(1 + nb * ng, sizeof *sets);
	gpu = xcalloc(1 + nb * ng, sizeof *gpu);
	if (with_cpu)
		sets[nsets++].backend = "cpu";
	gsets = sets + nsets;
	for (bi = 0; bi < nb; bi++)
		for (g = 0; g < ng; g++) {
			sets[nsets] = (struct ep_probe_set){ .backend =
			    gpub[bi], .gpu = gs.v[g].key, .gpu_results =
			    ng > 1, .where = ng > 1 ? gs.v[g].label : NULL };
			gpu[nsets++] = &gs.v[g];
		}
	ep_progress_start(&prog, "probe", "runs", nsets * o->runs, 0);
	if (run_all(sets, &gs, gpu, nsets, o, &libs, &prog, err) < 0)
		goto done;
	if (with_cpu)
		ep_probe_aggregate(rs, facts, summary, &sets[0],
		    o->require_gpu);
	for (bi = 0; bi < nb; bi++)
		aggregate_gpu_backend(rs, facts, summary, o, &gs,
		    &gsets[bi * ng]);
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
	confinement_meta(facts);
	rc = 0;
done:
	ep_progress_end(&prog);
	for (size_t i = 0; sets != NULL && i < nsets; i++)
		ep_probe_set_clear(&sets[i]);
	free(sets);
	free(gpu);
	free(info);
	ep_probe_gpus_clear(&gs);
	ep_strv_clear(&libs);
	return rc;
}
