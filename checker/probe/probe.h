/*
 * probe.h: the runner of the reference workload.  It starts
 * envparity-probe (gpu_probes/) N times per backend, each run a fresh
 * process with a deadline, checks every line of its output against the
 * probe contract (envparity/probe@1), and turns the runs into results
 * (struct ep_result, results.h) and facts (probe.<backend>.<workload>.sha256,
 * probe.cpu.domain, probe.domain).  Shared by `probe` and `check`.
 *
 * The pure half is unit-tested with canned lines: probe_line.c reads
 * lines, probe.c aggregates runs; probe_run.c finds the binary and runs
 * it.
 *
 * Result keys and what decides them (with more than one GPU, the GPU
 * backends' keys carry the GPU: probe.<b>.gpu<i>.<w>.runs, ...; see
 * "Every GPU" below):
 *	probe.<b>.<w>.runs		run-to-run identity: pass when every
 *					run's sha256 equals run 1's, fail
 *					naming the runs that differ.  Canary
 *					workloads always pass; the message says
 *					whether they varied.  A workload missing
 *					from a run's output is an error (the
 *					probe broke its contract); one the probe
 *					reports as "error", or skipped in some
 *					runs only, is a failure; one skipped in
 *					every run while others ran is a skip
 *					(a failure under --require-gpu).  Runs
 *					that failed as processes are left out
 *					("identical in 4 runs (of 5)").
 *	probe.<b>.<w>.known_answer	pass when every run matched the closed
 *					form, fail naming the runs that did not
 *	probe.<b>			the whole backend skipped (no driver,
 *					no device...): a skip with the probe's
 *					reason, or a failure "--require-gpu:
 *					<reason>" for a GPU backend when the
 *					caller requires one
 *	probe.<b>.run<N>		run N failed as a process.  A crash or a
 *					hang is a failure (the stack misbehaved
 *					on this machine); garbage output or an
 *					exit status the contract does not allow
 *					is an error (the check could not run).
 */
#ifndef EP_PROBE_H
#define EP_PROBE_H

#include <jansson.h>

#include "results.h"
#include "manifest.h"
#include "errors.h"
#include "strv.h"

#define EP_PROBE_SCHEMA		"envparity/probe@1"
#define EP_PROBE_BINARY		"envparity-probe"
#define EP_PROBE_RUNS_DEFAULT	5
#define EP_PROBE_TIMEOUT_DEFAULT 60	/* seconds, per run */
#define EP_PROBE_RUNS_MAX	100
#define EP_PROBE_TIMEOUT_MAX	86400

/* The backends in the order they run, NULL-terminated. */
extern const char *const ep_probe_backends[];

/* The workloads the contract promises for backend (NULL-terminated), or
 * NULL when backend is not one of ep_probe_backends. */
const char *const *ep_probe_workloads(const char *backend);

/* 1 for cuda, cublas, cudnn: the backends --require-gpu is about. */
int ep_probe_backend_is_gpu(const char *backend);

enum ep_probe_outcome {
	EP_PROBE_OK,		/* exited 0 and every line kept the contract */
	EP_PROBE_HUNG,		/* killed at the deadline */
	EP_PROBE_CRASHED,	/* died of a signal */
	EP_PROBE_EXITED,	/* exited with a status other than 0 */
	EP_PROBE_GARBAGE,	/* a line that is not a contract line */
};

/* One run of one backend. */
struct ep_probe_run {
	int outcome;		/* enum ep_probe_outcome */
	char *why;		/* the failure ("crashed (SIGSEGV)"), without
				   "run N of B: "; NULL when EP_PROBE_OK */
	json_t *lines;		/* array of the validated line objects, in
				   output order (EP_PROBE_OK only); owned */
};

/* The runs of one backend (on one GPU), in order: runs[i] is run i + 1. */
struct ep_probe_set {
	const char *backend;	/* static: one of ep_probe_backends */
	const char *gpu;	/* "gpu3": its hashes are the facts
				   probe.<b>.gpu3.<w>.sha256; NULL:
				   probe.<b>.<w>.sha256 (not per GPU) */
	int gpu_results;	/* its results are per GPU too
				   (probe.<b>.gpu3.<w>.runs, summary
				   "cuda:3"): more than one GPU ran */
	const char *where;	/* "GPU 3" for run messages, or NULL */
	struct ep_probe_run *runs;
	size_t n, cap;
};

/* A new empty run slot at the end of s (zeroed, outcome EP_PROBE_OK). */
struct ep_probe_run *ep_probe_set_add(struct ep_probe_set *s);
void ep_probe_run_clear(struct ep_probe_run *r);
void ep_probe_set_clear(struct ep_probe_set *s);	/* keeps backend */

/* Parse one output line (len bytes, no newline) of a run of backend.
 * *out is a new reference to the line object, owned by the caller.  A
 * line that is not JSON, not an object, of another schema, of another
 * backend, or missing or mistyping a field is an EP_E_INPUT error whose
 * message says what is wrong (without quoting the line). */
int ep_probe_line_parse(json_t **out, const char *line, size_t len,
    const char *backend, struct ep_err *err);

/* Fill r from the whole standard output of a run that exited 0: each
 * non-empty line parsed as above.  The first bad line (or a workload
 * reported twice) makes the run EP_PROBE_GARBAGE, with r->why quoting the
 * line made printable and truncated, then the problem.  Never fails. */
void ep_probe_output_parse(struct ep_probe_run *r, const char *text,
    size_t len, const char *backend);

/* The line for workload among a run's validated lines (borrowed), or
 * NULL; lines may be NULL. */
json_t *ep_probe_line_for(json_t *lines, const char *workload);

/* `s` made printable for a one-line message: bytes outside printable
 * ASCII become \xNN, and at most max characters are kept ("..." marks a
 * cut).  A new string. */
char *ep_probe_printable(const char *s, size_t len, size_t max);

/* Turn the runs of one backend into results (added to rs), facts (set in
 * facts: probe.<b>.<w>.sha256 where every run agrees, never for a canary;
 * probe.cpu.domain) and one summary line per workload, per run failure,
 * or for a skipped backend (pushed to summary).  require_gpu turns the
 * skip of a GPU backend into a failure.  Never fails. */
void ep_probe_aggregate(struct ep_results *rs, struct ep_manifest *facts,
    struct ep_strv *summary, const struct ep_probe_set *s, int require_gpu);

/* 1 when the runs of s that produced output skipped every workload: the
 * backend cannot run here (no driver, no device). */
int ep_probe_set_skipped(const struct ep_probe_set *s);

/* probe.domain: the GPU determinism domain ("<GPU> cc <cc> <SMs> SMs
 * driver <v> cuda <v> cublas <v> cudnn <v> <probe version>") from the
 * device and libs fields of the GPU backends' lines among sets; the parts
 * no line gave are left out, and nothing is set when no GPU backend found
 * a device. */
void ep_probe_domain(struct ep_manifest *facts,
    const struct ep_probe_set *sets, size_t n);
/* The same under another key (probe.gpu<i>.domain for one GPU's sets). */
void ep_probe_domain_key(struct ep_manifest *facts, const char *key,
    const struct ep_probe_set *sets, size_t n);
/* The device name of the first GPU line among sets that has one
 * (borrowed), or NULL. */
const char *ep_probe_device_name(const struct ep_probe_set *sets, size_t n);

/*
 * Every GPU (probe_gpus.c).  The GPU backends run once per GPU, the GPUs
 * of one run in parallel, each process given one GPU through
 * CUDA_VISIBLE_DEVICES:
 *  - without CUDA_VISIBLE_DEVICES, the GPUs are 0 to gpu.count - 1 of the
 *    capture (NVML's, in PCI bus order), and each process gets
 *    CUDA_VISIBLE_DEVICES=<i> and CUDA_DEVICE_ORDER=PCI_BUS_ID, so that
 *    GPU i is NVML's gpu.<i>;
 *  - with CUDA_VISIBLE_DEVICES set (Slurm, the user), the GPUs are its
 *    entries (up to the first empty one, as CUDA reads it), GPU i is
 *    entry i, and each process gets that entry as it is, in the order
 *    the caller's CUDA_DEVICE_ORDER gives it;
 *  - with neither, one process runs with the environment as it is (CUDA's
 *    device 0): GPU 0.
 * --gpus LIST picks among them by index ("0,3").
 *
 * Facts per GPU: probe.<b>.gpu<i>.<w>.sha256 and probe.gpu<i>.domain.
 * probe.<b>.<w>.sha256 is the hash on which every GPU of the first GPU's
 * domain that gave a stable hash agrees (on one GPU: its hash, as
 * before), and probe.domain the first GPU's domain.  With more than one
 * GPU the results are per GPU (probe.<b>.gpu<i>.<w>.runs, ...) and
 * probe.<b>.<w>.gpus says whether the GPUs of one domain agree: a GPU
 * that differs from the majority of its domain fails, named; GPUs of
 * other domains are said, never failed.
 */
#define EP_PROBE_GPUS_MAX	64

struct ep_probe_gpu {
	unsigned index;		/* among the visible GPUs */
	char *key;		/* "gpu3" */
	char *label;		/* "GPU 3", "GPU 1 (CUDA_VISIBLE_DEVICES
				   entry 5)" */
	char *visible;		/* CUDA_VISIBLE_DEVICES for its process;
				   NULL: the environment as it is */
	int pci_order;		/* and CUDA_DEVICE_ORDER=PCI_BUS_ID */
	int one_at_a_time;	/* its compute mode admits one process
				   at a time (exclusive_process, or
				   exclusive_thread), by the capture's
				   gpu.<i>.compute_mode; where the list
				   came from CUDA_VISIBLE_DEVICES, when any
				   GPU of the capture is so */
};

struct ep_probe_gpus {
	struct ep_probe_gpu *v;
	size_t n;
};

/* Check the text of --gpus: "all", or GPU indexes (0 to
 * EP_PROBE_GPUS_MAX - 1), comma-separated, none twice.  EP_E_INPUT with
 * one line naming it when it is not. */
int ep_probe_gpus_parse(const char *arg, struct ep_err *err);

/* The GPUs to run on: want is --gpus (NULL or "all": every one), cvd
 * $CUDA_VISIBLE_DEVICES (may be NULL), captured the capture (its
 * gpu.count; may be NULL).  At least one entry on success.  EP_E_INPUT
 * when want names a GPU that is not visible. */
int ep_probe_gpus_select(struct ep_probe_gpus *out, const char *want,
    const char *cvd, const struct ep_manifest *captured, struct ep_err *err);
void ep_probe_gpus_clear(struct ep_probe_gpus *g);

/* What the agreement needs of one GPU. */
struct ep_probe_gpuinfo {
	unsigned index;
	const char *key;	/* "gpu3" */
	const char *model;	/* device name, or NULL */
	const char *domain;	/* probe.gpu<i>.domain, or NULL */
};

/* From the per-GPU facts of backend in facts: set probe.<b>.<w>.sha256
 * (see above), and with n > 1 add probe.<b>.<w>.gpus results and their
 * summary lines. */
void ep_probe_gpus_agree(struct ep_results *rs, struct ep_manifest *facts,
    struct ep_strv *summary, const char *backend,
    const struct ep_probe_gpuinfo *g, size_t n);

/* What to run (probe_run.c). */
struct ep_probe_opts {
	const char *probe;	/* the binary, from ep_probe_find() */
	const char *backend;	/* one of ep_probe_backends, or "all" */
	unsigned runs;		/* processes per backend, >= 1 */
	unsigned timeout_s;	/* deadline of each run, >= 1 */
	int require_gpu;
	const char *gpus;	/* --gpus, or NULL: every visible GPU */
	unsigned jobs;		/* processes at once, >= 1 */
};

/* --jobs: at most this many probe processes at once (each holds three
 * descriptors of ours while it runs). */
#define EP_PROBE_JOBS_MAX	256
#define EP_PROBE_JOBS_DEFAULT_MAX 64

/* The default of --jobs: the CPUs this process may run on (a Slurm job's
 * or a container's, by its affinity), but never fewer than ngpus, so that
 * the GPUs of one run always go together; at most
 * EP_PROBE_JOBS_DEFAULT_MAX (or ngpus, when more). */
unsigned ep_probe_jobs_default(size_t ngpus);

/* The probe binary: given (--probe) if not NULL, else $ENVPARITY_PROBE,
 * else envparity-probe beside this executable, else in an absolute PATH
 * directory (never ".", an empty or a relative entry: the current
 * directory may be a pull request's checkout).  *out is a new string.
 * EP_E_IO naming where it looked when there is none, or when the one
 * named is not an executable file. */
int ep_probe_find(char **out, const char *given, struct ep_err *err);

/* The --lib NAME=PATH arguments (two strings each, pushed to args) for
 * the libraries a capture found that the probe loads: lib.<name>.path of
 * cublaslt, cublas, cudnn.  captured may be NULL (nothing pushed). */
void ep_probe_lib_args(struct ep_strv *args, const struct ep_manifest *captured);

/* Run every selected backend o->runs times (on every GPU) and aggregate:
 * results to rs, facts to facts, summary lines to summary.  captured (may
 * be NULL) is the capture whose libraries the GPU backends must load.
 * The runs go in two waves of processes, at most o->jobs at once (0 is
 * replaced with ep_probe_jobs_default() for the GPUs selected): run 1
 * of every backend on every GPU, then the other runs of those that did
 * not skip every workload (a missing driver does not come back).  Each
 * process is started with the probe's --lib arguments, without our
 * credentials (child.h), with its GPU's CUDA_VISIBLE_DEVICES and with
 * ENVPARITY_PROBE_RUN set to its run's number.  Fails (EP_E_IO) only
 * when the probe cannot be started; everything a run does wrong is a
 * result. */
int ep_probe_all(struct ep_results *rs, struct ep_manifest *facts,
    struct ep_strv *summary, struct ep_probe_opts *o,
    const struct ep_manifest *captured, struct ep_err *err);

#endif
