/*
 * dynload.h: ask CUDA libraries and the NVIDIA driver (NVML) what they
 * are, by loading them with dlopen in child processes.
 *
 * Loading a library runs its constructors, and a broken, mismatched or
 * hostile library can crash, hang or look around there; so every library
 * is loaded in a helper of its own: envparity's own binary executed
 * afresh (its memory holds nothing of ours: no token, no key) and
 * confined (child.h), which writes what it learned to standard output
 * as lines "name\tfield\tvalue\n" and exits.  The parent reads with a
 * deadline, kills a helper that does not answer, and keeps whatever lines
 * arrived before a crash.  One helper per library also keeps libraries
 * from resolving their dependencies against each other.
 *
 * dynload.c (the helper's side) is the only file that includes
 * <dlfcn.h>; dynload_run.c is the parent's side.
 *
 * What a child reports, by job name (raw numbers; collect_cudastack.c
 * turns them into facts):
 *   cudart       runtime (cudaRuntimeGetVersion)
 *   cublas       major minor patch (cublasGetProperty), cudart_code
 *   cublaslt     code (cublasLtGetVersion), cudart_code
 *   cudnn        code (cudnnGetVersion), cudart_code
 *   cudnn_<sub>  code, cudart_code (where the sub-library defines them),
 *                packed (a cudnn_<sub>[_infer]_version data symbol,
 *                0xMMmmpp), check (cudnn<Sub>VersionCheck's status),
 *                dep (the libcudnn_graph the loader gave it)
 *   nccl         code (ncclGetVersion)
 *   nvrtc        major minor (nvrtcVersion)
 *   gpu          final gpu.* fact names (driver.version, count, 0.name,
 *                ...), health.<i>.<field> (a GPU's state now, for
 *                meta.gpu), unchecked.<i>.<field> (why NVML gave no
 *                field), cuda_driver_api (libcuda's own answer, to check
 *                NVML against), unavailable (why NVML cannot be used);
 *                gpudrv_nvml.c writes them
 * and for any job: error (what failed: a dlopen or dlsym error text, or
 * a call's status), warning (worth saying, facts still good).
 */
#ifndef EP_DYNLOAD_H
#define EP_DYNLOAD_H

#include <stddef.h>

#include "errors.h"
#include "strv.h"

enum ep_dl_status {
	EP_DL_OK,		/* the child exited with status 0 */
	EP_DL_EXIT,		/* it exited with another status (code) */
	EP_DL_SIGNAL,		/* it was killed by signal code: a crash */
	EP_DL_TIMEOUT,		/* it did not finish in time and was killed */
	EP_DL_NOSTART,		/* it could not be started (code: errno) */
	EP_DL_OVERFLOW,		/* it wrote more than code bytes: killed */
};

/* The hidden first argument that makes envparity a dlopen helper
 * (ep_dynload_main): not a command, never typed by a user. */
#define EP_DYNLOAD_HELPER	"__dlopen-helper"

struct ep_dynload_job {
	const char *name;	/* in: "cudnn_ops", "gpu"; picks the query */
	const char *path;	/* in: the file to dlopen */
	const char *aux;	/* in: gpu only: a libcuda.so.1 to ask for
				   its driver version too, or NULL */
	char *out;		/* out: the child's output, NUL-terminated,
				   owned (freed by ep_dynload_jobs_clear) */
	size_t len;
	int status;		/* out: enum ep_dl_status */
	int code;		/* out: exit status, signal, or errno */
	int overflow;		/* out: output beyond the limit was dropped */
	unsigned ms;		/* out: from the call's start to its end */
	int limit_ms;		/* out: the time it was given */
};

/* Run jobs[0..n) with at most parallel helpers at a time (0 means 2),
 * each given timeout_ms from its start: each executes this program's
 * binary afresh with EP_DYNLOAD_HELPER, confined to reading the system,
 * the loader's directories, dirs (may be NULL: where the libraries were
 * searched for) and each library's own directory (child.h), and
 * whatever it starts is killed when it ends.  A helper that crashes,
 * times out or floods its output only marks its own job; the call fails
 * (EP_E_IO) only when the helpers cannot be run at all (every job is
 * then EP_DL_NOSTART).  Every job's out is set either way. */
int ep_dynload_run(struct ep_dynload_job *jobs, size_t n, unsigned parallel,
    int timeout_ms, const struct ep_strv *dirs, struct ep_err *err);

void ep_dynload_jobs_clear(struct ep_dynload_job *jobs, size_t n);

/* The helper, called first thing in main() when argv[1] is
 * EP_DYNLOAD_HELPER: argv[2] the job's name, argv[3] the file to load,
 * argv[4] (may be absent) the gpu job's libcuda.  Writes the job's lines
 * to standard output, which nothing the library prints can reach (its
 * standard streams are /dev/null), and returns the exit status: 0, or 2
 * for arguments that are not a job. */
int ep_dynload_main(int argc, char **argv);

/* Why a job did not end well, as a phrase for a warning: "crashed
 * (signal 11, Segmentation fault)", "did not finish within 500 ms", ...
 * Empty for EP_DL_OK. */
void ep_dynload_describe(char *buf, size_t size,
    const struct ep_dynload_job *j);

/* One parsed line. */
struct ep_dlrec {
	char *name, *field, *value;
};

struct ep_dlrecs {
	struct ep_dlrec *v;
	size_t n, cap;
	size_t bad;		/* lines that were not name\tfield\tvalue */
};

/* Parse a child's output.  A line without two tabs, with an empty name or
 * field, with a NUL byte, or the last line without its newline (a child
 * cut off mid-write) counts in bad and is dropped. */
void ep_dynload_parse(struct ep_dlrecs *out, const char *buf, size_t len);
void ep_dlrecs_clear(struct ep_dlrecs *r);

/* Version numbers as the libraries encode them, written out; buf gets ""
 * for a code that cannot be one. */

/* 1000 * major + 10 * minor (CUDART_VERSION, cudaRuntimeGetVersion,
 * cudnnGetCudartVersion, ...): 13010 -> "13.1". */
void ep_version_cuda(char *buf, size_t size, long code);

/* major * 10000 + minor * 100 + patch, or major * 1000 + minor * 100 +
 * patch below 10000 (cuDNN 8, NCCL up to 2.8): cublasLtGetVersion 130100
 * -> "13.1.0", cudnnGetVersion 91900 -> "9.19.0", 8902 -> "8.9.2",
 * ncclGetVersion 22809 -> "2.28.9", 2708 -> "2.7.8". */
void ep_version_code(char *buf, size_t size, long code);

/* major << 16 | minor << 8 | patch (cuDNN 9's cudnn_*_version data
 * symbols): 0x091300 -> "9.19.0". */
void ep_version_packed(char *buf, size_t size, unsigned long packed);

#endif
