/*
 * dynload.c: the helper's side: load one CUDA library or NVML and write
 * what it says about itself to standard output (see dynload.h for the
 * protocol; dynload_run.c is the parent's side).  It runs in a fresh
 * execution of envparity, started by ep_dynload_main before anything
 * else of main(): it reads no store, no token and no key.
 *
 * The model is libgit2's streams/openssl_dynamic.c: a list of names to
 * resolve, a table of function pointers filled with dlsym, and a sticky
 * error that keeps the first dlerror() text.  The prototypes are our own
 * (no CUDA or NVML header is needed to build), checked against CUDA 13.0's
 * headers and NVML's published nvml.h.
 */
#include "dynload.h"
#include "gpudrv_nvml.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <link.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int out_fd = -1;
static const char *job_name;
static char sticky[512];	/* the first thing that failed */

static void
emit(const char *field, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
emit(const char *field, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	size_t off, len;
	int n;

	n = snprintf(line, sizeof line, "%s\t%s\t", job_name, field);
	if (n < 0 || (size_t)n >= sizeof line)
		return;
	off = (size_t)n;
	va_start(ap, fmt);
	n = vsnprintf(line + off, sizeof line - off - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	len = off + strlen(line + off);
	for (size_t i = off; i < len; i++)	/* keep it one line */
		if (line[i] == '\t' || line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	line[len++] = '\n';
	/* One write per line, so a crash cuts between lines, not inside. */
	for (off = 0; off < len; ) {
		ssize_t w = write(out_fd, line + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		off += (size_t)w;
	}
}

static void
note_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
note_error(const char *fmt, ...)
{
	va_list ap;

	if (sticky[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(sticky, sizeof sticky, fmt, ap);
	va_end(ap);
}

/* sym from h, but only if h itself defines it: dlsym also searches h's
 * dependencies, and libcudnn_ops.so.9's cudnnGetVersion would otherwise be
 * libcudnn_graph's answer wearing the wrong name. */
static void *
own_sym(void *h, const char *sym, int required)
{
	struct link_map *own = NULL, *lm = NULL;
	Dl_info info;
	const char *e;
	void *p;

	dlerror();
	if ((p = dlsym(h, sym)) == NULL) {
		if (required)
			note_error("%s", (e = dlerror()) ? e : sym);
		return NULL;
	}
	if (dlinfo(h, RTLD_DI_LINKMAP, &own) != 0 ||
	    dladdr1(p, &info, (void **)&lm, RTLD_DL_LINKMAP) == 0 || lm != own) {
		if (required)
			note_error("%s: found only in %s", sym,
			    lm != NULL && lm->l_name[0] ? lm->l_name : "another "
			    "library");
		return NULL;
	}
	return p;
}

typedef size_t (*size_fn)(void);
typedef int (*intp_fn)(int *);

/* Call a "size_t f(void)" if h defines it. */
static void
emit_size(void *h, const char *sym, const char *field, int required)
{
	void *p = own_sym(h, sym, required);
	size_fn f;

	if (p == NULL)
		return;
	memcpy(&f, &p, sizeof f);
	emit(field, "%zu", f());
}

/* Call an "int32_t f(void)" if h defines it (TensorRT's
 * getInferLibVersion: NV_TENSORRT_VERSION, 100300 for 10.3.0). */
static void
emit_int32(void *h, const char *sym, const char *field)
{
	void *p = own_sym(h, sym, 1);
	int (*f)(void);

	if (p == NULL)
		return;
	memcpy(&f, &p, sizeof f);
	emit(field, "%d", f());
}

/* Call an "int f(int *)" (a status and a version) if h defines it. */
static void
emit_intp(void *h, const char *sym, const char *field)
{
	void *p = own_sym(h, sym, 1);
	intp_fn f;
	int v = 0, rc;

	if (p == NULL)
		return;
	memcpy(&f, &p, sizeof f);
	if ((rc = f(&v)) != 0)
		note_error("%s returned %d", sym, rc);
	else
		emit(field, "%d", v);
}

/* The math libraries' "status f(libraryPropertyType, int *)"
 * (cublasGetProperty, cufftGetProperty, curandGetProperty,
 * cusolverGetProperty, cusparseGetProperty: library_types.h). */
static void
query_props(void *h, const char *sym)
{
	static const char *const fields[] = { "major", "minor", "patch" };
	void *p = own_sym(h, sym, 1);
	int (*prop)(int, int *);
	int v, rc;

	if (p == NULL)
		return;
	memcpy(&prop, &p, sizeof prop);
	/* libraryPropertyType: MAJOR_VERSION 0, MINOR 1, PATCH 2. */
	for (int i = 0; i < 3; i++) {
		if ((rc = prop(i, &v)) != 0) {
			note_error("%s(%d) returned %d", sym, i, rc);
			break;
		}
		emit(fields[i], "%d", v);
	}
}

/* "status f(T *major, T *minor)" with T int or unsigned (the same size
 * and, for versions, the same values): nvrtcVersion, nvJitLinkVersion
 * (major, minor records), nvvmVersion (the libNVVM API, an api
 * record). */
static void
query_pair(void *h, const char *sym, int api)
{
	void *p = own_sym(h, sym, 1);
	int (*ver)(int *, int *);
	int major = 0, minor = 0, rc;

	if (p == NULL)
		return;
	memcpy(&ver, &p, sizeof ver);
	if ((rc = ver(&major, &minor)) != 0)
		note_error("%s returned %d", sym, rc);
	else if (api)
		emit("api", "%d.%d", major, minor);
	else {
		emit("major", "%d", major);
		emit("minor", "%d", minor);
	}
}

/* CUPTI: cuptiGetVersion(uint32_t *) is CUPTI_API_VERSION (130001 in
 * CUDA 13.0), not the library's release: an api record. */
static void
query_cupti(void *h)
{
	void *p = own_sym(h, "cuptiGetVersion", 1);
	int (*ver)(unsigned *);
	unsigned v = 0;
	int rc;

	if (p == NULL)
		return;
	memcpy(&ver, &p, sizeof ver);
	if ((rc = ver(&v)) != 0)
		note_error("cuptiGetVersion returned %d", rc);
	else
		emit("api", "%u", v);
}

/* Name every other cuDNN library loaded along with this one: a
 * VersionCheck answer is about them too. */
static int
emit_deps(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *self = arg, *b = strrchr(info->dlpi_name, '/');

	(void)size;
	b = b != NULL ? b + 1 : info->dlpi_name;
	if (strncmp(b, "libcudnn", 8) == 0 && strcmp(info->dlpi_name, self) != 0)
		emit("dep", "%s", info->dlpi_name);
	return 0;
}

/* A cuDNN 9 sub-library.  Only libcudnn_graph exports cudnnGetVersion;
 * libcudnn_ops and libcudnn_adv (and graph) carry their version as a
 * 4-byte data symbol, 0x091300 for 9.19.0; libcudnn_cnn has only its
 * VersionCheck ("checks whether its own version matches that of its
 * dependencies", cudnn_graph.h), so its answer is about the cuDNN
 * libraries the loader gave it, which we name as deps; the engines and
 * heuristic libraries export nothing that says a version.  Symbols that
 * a release lacks are simply not reported. */
static void
query_cudnn_sub(void *h, const char *sub, const char *self)
{
	char sym[96], cap[32];
	void *p;
	int (*check)(void);
	unsigned packed;

	emit_size(h, "cudnnGetVersion", "code", 0);
	emit_size(h, "cudnnGetCudartVersion", "cudart_code", 0);
	snprintf(sym, sizeof sym, "cudnn_%s_infer_version", sub);
	if ((p = own_sym(h, sym, 0)) == NULL) {
		snprintf(sym, sizeof sym, "cudnn_%s_version", sub);
		p = own_sym(h, sym, 0);
	}
	if (p != NULL) {
		memcpy(&packed, p, sizeof packed);
		emit("packed", "%u", packed);
	}
	snprintf(cap, sizeof cap, "%s", sub);
	cap[0] = (char)(cap[0] >= 'a' && cap[0] <= 'z' ? cap[0] - 32 : cap[0]);
	snprintf(sym, sizeof sym, "cudnn%sVersionCheck", cap);
	if (strchr(sub, '_') == NULL && (p = own_sym(h, sym, 0)) != NULL) {
		memcpy(&check, &p, sizeof check);
		emit("check", "%d", check());
		dl_iterate_phdr(emit_deps, (void *)self);
	}
}

/* NVML: resolve the table gpudrv_nvml.c asks through (the versioned
 * names are the ones nvml.h's #defines select), then let it ask. */
static void
query_nvml(void *h)
{
	const struct ep_nvml_sym *syms;
	struct ep_nvml t;
	size_t n;

	memset(&t, 0, sizeof t);
	syms = ep_nvml_syms(&n);
	for (size_t i = 0; i < n; i++) {
		void *p = own_sym(h, syms[i].sym, syms[i].required);

		memcpy((char *)&t + syms[i].off, &p, sizeof p);
	}
	if (sticky[0] != '\0') {
		emit("unavailable", "not a usable NVML: %s", sticky);
		sticky[0] = '\0';
		return;
	}
	ep_nvml_query(&t, emit);
}

/* libcuda's own answer, to check NVML's against.  Never a stub: the
 * caller does not pass one, and a stub says so with 34. */
static void
query_libcuda(const char *path)
{
	void *h, *p;
	intp_fn f;
	int v = 0, rc;

	if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		emit("warning", "%s: %s", path, dlerror());
		return;
	}
	if ((p = own_sym(h, "cuDriverGetVersion", 0)) == NULL)
		return;
	memcpy(&f, &p, sizeof f);
	if ((rc = f(&v)) == 34)
		emit("warning", "%s is a stub driver library "
		    "(CUDA_ERROR_STUB_LIBRARY)", path);
	else if (rc != 0)
		emit("warning", "%s: cuDriverGetVersion returned %d", path, rc);
	else
		emit("cuda_driver_api", "%d.%d", v / 1000, v % 1000 / 10);
}

static void
query_library(const struct ep_dynload_job *j, int fd)
{
	void *h;

	out_fd = fd;
	job_name = j->name;
	if ((h = dlopen(j->path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		const char *e = dlerror();

		emit(strcmp(j->name, "gpu") == 0 ? "unavailable" : "error",
		    "dlopen: %s", e != NULL ? e : j->path);
		return;
	}
	if (strcmp(j->name, "gpu") == 0) {
		query_nvml(h);
		if (j->aux != NULL)
			query_libcuda(j->aux);
	} else if (strcmp(j->name, "cudart") == 0)
		emit_intp(h, "cudaRuntimeGetVersion", "runtime");
	else if (strcmp(j->name, "cublas") == 0) {
		query_props(h, "cublasGetProperty");
		emit_size(h, "cublasGetCudartVersion", "cudart_code", 1);
	} else if (strcmp(j->name, "cufft") == 0)
		query_props(h, "cufftGetProperty");
	else if (strcmp(j->name, "curand") == 0)
		query_props(h, "curandGetProperty");
	else if (strcmp(j->name, "cusolver") == 0)
		query_props(h, "cusolverGetProperty");
	else if (strcmp(j->name, "cusparse") == 0)
		query_props(h, "cusparseGetProperty");
	else if (strcmp(j->name, "nvjitlink") == 0)
		query_pair(h, "nvJitLinkVersion", 0);
	else if (strcmp(j->name, "nvvm") == 0)
		query_pair(h, "nvvmVersion", 1);
	else if (strcmp(j->name, "cupti") == 0)
		query_cupti(h);
	else if (strcmp(j->name, "tensorrt") == 0)
		emit_int32(h, "getInferLibVersion", "code");
	else if (strcmp(j->name, "cublaslt") == 0) {
		emit_size(h, "cublasLtGetVersion", "code", 1);
		emit_size(h, "cublasLtGetCudartVersion", "cudart_code", 1);
	} else if (strcmp(j->name, "cudnn") == 0) {
		emit_size(h, "cudnnGetVersion", "code", 1);
		emit_size(h, "cudnnGetCudartVersion", "cudart_code", 1);
	} else if (strncmp(j->name, "cudnn_", 6) == 0)
		query_cudnn_sub(h, j->name + 6, j->path);
	else if (strcmp(j->name, "nccl") == 0)
		emit_intp(h, "ncclGetVersion", "code");
	else if (strcmp(j->name, "nvrtc") == 0)
		query_pair(h, "nvrtcVersion", 0);
	if (sticky[0] != '\0')
		emit("error", "%s", sticky);
	/* No dlclose: the process ends here, and some libraries' destructors
	 * are less tested than their constructors. */
}

int
ep_dynload_main(int argc, char **argv)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT,
	    SIGPIPE };
	struct ep_dynload_job j;
	int fd, null;

	if (argc < 4 || argc > 5 || *argv[2] == '\0' || *argv[3] != '/')
		return 2;
	memset(&j, 0, sizeof j);
	j.name = argv[2];
	j.path = argv[3];
	j.aux = argc == 5 ? argv[4] : NULL;
	/* Die of a crash plainly, so that the parent can name the signal:
	 * a handler of ours (a sanitizer's) would try to report it, and may
	 * deadlock doing so inside dlopen. */
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
		signal(fatal[i], SIG_DFL);
	/* The lines go where standard output was; what a library prints
	 * goes nowhere, so it cannot pass for a line of ours. */
	if ((fd = fcntl(1, F_DUPFD_CLOEXEC, 3)) < 0 ||
	    (null = open("/dev/null", O_RDWR)) < 0)
		return 1;
	dup2(null, 0);
	dup2(null, 1);
	dup2(null, 2);
	if (null > 2)
		close(null);
	query_library(&j, fd);
	/* No exit handler of ours, nor the libraries' destructors. */
	_exit(0);
}
