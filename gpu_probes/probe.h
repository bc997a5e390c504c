/*
 * probe.h: envparity-probe, the reference workload run by `envparity
 * probe` and `envparity check`.  One process runs one backend's workloads
 * once and prints one JSON line per workload (the contract is in
 * line.c).  This header holds what the backends, the line writer and
 * main.c share.
 *
 * Conventions as in checker/: functions that can fail return int (0 ok,
 * -1 failure) and fill a struct probe_err, whose status says whether the
 * failure is a skip (nothing to run on) or an error (it ran and broke).
 */
#ifndef EP_PROBE_H
#define EP_PROBE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

/* Bump when any workload's definition (spec.h, rng.h) changes: golden
 * hashes from another probe version must not bind. */
#define PROBE_VERSION	"envparity-probe 1"
#define PROBE_SCHEMA	"envparity/probe@1"

#define PROBE_DEFAULT_SEED	20260101ULL

enum probe_status {
	PROBE_OK = 0,
	PROBE_SKIP,
	PROBE_ERROR,
};

struct probe_err {
	int status;		/* PROBE_SKIP or PROBE_ERROR; 0 while unset */
	char msg[512];		/* becomes the line's "reason" */
};

/* Fill err (when not NULL) and return -1. */
int probe_err_set(struct probe_err *err, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* What a backend ran on.  kind NONE prints null. */
enum probe_devkind {
	PROBE_DEV_NONE = 0,
	PROBE_DEV_CPU,
	PROBE_DEV_GPU,
};

struct probe_device {
	int kind;
	char arch[65];		/* CPU: uname -m */
	char name[256];		/* GPU, from cuDeviceGetName */
	int cc_major, cc_minor;
	int sm_count;
	char driver[96];	/* the driver's version (driver.c); "" null */
	char cuda_driver[16];	/* cuDriverGetVersion as "13.0" */
};

/* The libraries a backend loaded: "cublas" = "13.1.0", "cublas_path" =
 * the real path, and so on, printed in the order set. */
#define PROBE_MAXLIBS	8
struct probe_libs {
	size_t n;
	struct {
		char key[32];
		char value[PATH_MAX];
	} v[PROBE_MAXLIBS];
};

/* Set key to value (copied; truncated to fit); later sets of the same
 * key replace.  Beyond PROBE_MAXLIBS keys, new ones are dropped. */
void probe_libs_set(struct probe_libs *libs, const char *key,
    const char *value);

struct probe_result {
	const char *workload;	/* static string */
	int status;		/* enum probe_status */
	char reason[512];	/* "" prints null */
	char sha256[65];	/* "" prints null */
	int known_answer;	/* -1 null, 0 false, 1 true */
	int canary;
	double elapsed_ms;
};

/* One backend's run: what it was asked, and what it found. */
#define PROBE_MAXWORK	4
struct probe_run {
	const char *backend;
	size_t n;
	struct probe_result res[PROBE_MAXWORK];
	struct probe_device dev;
	struct probe_libs libs;
};

/* Options from the command line.  lib_* are paths given with --lib
 * NAME=PATH (NULL: search by soname); strings are borrowed from argv. */
struct probe_opts {
	uint64_t seed;
	int nthreads;		/* CPU threads; 0 means one per online CPU */
	const char *lib_cuda, *lib_nvml;
	const char *lib_cublas, *lib_cublaslt, *lib_cudnn;
};

/* Start a run of backend with its workload names (static strings, at
 * most PROBE_MAXWORK), each one PROBE_ERROR "not run" until a backend
 * fills it.  The canary flag is set for "atomic". */
void probe_run_init(struct probe_run *run, const char *backend,
    const char *const *workloads, size_t n);

/* Mark every workload not yet finished as status with reason, for a
 * backend that cannot go on (no driver, no device, a broken context). */
void probe_run_fail_rest(struct probe_run *run, size_t from, int status,
    const char *reason);

/* Mark one result as status (PROBE_SKIP or PROBE_ERROR) with reason,
 * dropping any hash and known answer it had. */
void probe_result_fail(struct probe_result *r, int status,
    const char *reason);

/* Finish one result as ok with the SHA-256 of len bytes at buf; hashing
 * failure (OpenSSL) makes it an error. */
void probe_result_ok(struct probe_result *r, const void *buf, size_t len,
    double elapsed_ms);

/* The hex SHA-256 of len bytes at buf into hex (65 bytes); -1 when
 * OpenSSL fails. */
int probe_sha256(char *hex, const void *buf, size_t len);

/* The JSON line for result i of run, without a newline; a new string.
 * Strings are escaped and made valid UTF-8. */
char *probe_line(const struct probe_run *run, size_t i);

/* A zero-filled, 2 MiB-aligned buffer of len bytes for workload data,
 * in transparent huge pages where the kernel allows (mem.c says why).
 * Aborts on out-of-memory, like xmalloc.  Free with probe_buf_free and
 * the same len (NULL is ignored). */
void *probe_buf_alloc(size_t len);
void probe_buf_free(void *p, size_t len);

/* Milliseconds since an earlier ep_now_ns(). */
double probe_ms_since(uint64_t t0);

/* Threads for CPU work: opts->nthreads, else the CPUs this process may
 * run on, at most 16. */
int probe_threads(const struct probe_opts *opts);

/* The backends.  Each fills run (initialised here) and never fails as a
 * whole: what could not run is a skip or an error in its lines. */
void probe_cpu_run(struct probe_run *run, const struct probe_opts *opts);
void probe_cuda_run(struct probe_run *run, const struct probe_opts *opts);
void probe_cublas_run(struct probe_run *run, const struct probe_opts *opts);
void probe_cudnn_run(struct probe_run *run, const struct probe_opts *opts);

#endif
