/*
 * collect_cudastack.c: the NVIDIA stack.  For each CUDA library, the real
 * file a program would load (lib.<name>.path), its SHA-256, the version
 * it reports and the cudart it was built for; for the driver and each
 * GPU, what NVML says (gpu.*, gpudrv.c).  What could not be looked at
 * goes to meta.unavailable.lib and meta.unavailable.gpu.
 *
 * Libraries are found on disk (libsearch.h) and asked for their versions
 * by loading them in child processes (dynload.h), so that a library that
 * crashes or hangs while loading costs a warning, not the capture.  Their
 * answers are cached per file identity (kind "libinfo1:<name>"), so an
 * unchanged stack is captured without a single fork; GPU facts are asked
 * for every time, since a driver or GPU state can change under the same
 * files.
 *
 * meta.cudastack counts the libraries found, the answers taken from the
 * cache and the children started, with the time they took.
 *
 * Environment: ENVPARITY_LOAD_TIMEOUT_MS, the time in milliseconds a child
 * may take to load a library or NVML before it is killed and the library
 * reported as hanging (default 20000; the tests set it low).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "dynload.h"
#include "gpudrv.h"
#include "libsearch.h"
#include "libwheel.h"
#include "clock.h"
#include "errors.h"
#include "files.h"
#include "strv.h"
#include "xalloc.h"

#define LOAD_TIMEOUT_MS	20000
/* Bump when what a cached entry means changes. */
#define CACHE_KIND	"libinfo1:"


/* How a library's version is read from what its child reported. */
enum vfmt {
	V_CUDART,	/* runtime: cudaRuntimeGetVersion, 13000 */
	V_PARTS,	/* major, minor[, patch]: cublasGetProperty,
			   nvrtcVersion */
	V_CODE,		/* code: 130100, 91900, 22809 */
	V_CUDNN_SUB,	/* code, else packed, else the file name */
	V_NAME,		/* the file name (the library says only its API's
			   version, an api record: CUPTI, libNVVM) */
	V_FILE,		/* the file name, and never loaded: nvblas exports
			   no version and reads nvblas.conf when loaded */
};

static const struct lib {
	const char *name;	/* lib.<name>.* */
	const char *stem;	/* lib<stem>.so.N */
	int fmt;
} libs[] = {
	{ "cudart", "cudart", V_CUDART },
	{ "cublas", "cublas", V_PARTS },
	{ "cublaslt", "cublasLt", V_CODE },
	/* cuDNN 9: libcudnn.so.9 is a small dispatcher that loads the
	 * sub-libraries below; each is its own file and can differ. */
	{ "cudnn", "cudnn", V_CODE },
	{ "cudnn_graph", "cudnn_graph", V_CUDNN_SUB },
	{ "cudnn_ops", "cudnn_ops", V_CUDNN_SUB },
	{ "cudnn_cnn", "cudnn_cnn", V_CUDNN_SUB },
	{ "cudnn_adv", "cudnn_adv", V_CUDNN_SUB },
	{ "cudnn_engines_precompiled", "cudnn_engines_precompiled",
	    V_CUDNN_SUB },
	{ "cudnn_engines_runtime_compiled", "cudnn_engines_runtime_compiled",
	    V_CUDNN_SUB },
	{ "cudnn_heuristic", "cudnn_heuristic", V_CUDNN_SUB },
	{ "nccl", "nccl", V_CODE },
	{ "nvrtc", "nvrtc", V_PARTS },
	/* The math libraries, the JIT linker and the tools' libraries that
	 * frameworks load beside them (PyTorch: cuFFT, cuRAND, cuSOLVER,
	 * cuSPARSE, nvJitLink, CUPTI; JAX: libNVVM through its wheels). */
	{ "cufft", "cufft", V_PARTS },
	{ "curand", "curand", V_PARTS },
	{ "cusolver", "cusolver", V_PARTS },
	{ "cusparse", "cusparse", V_PARTS },
	{ "nvjitlink", "nvJitLink", V_PARTS },
	{ "cupti", "cupti", V_NAME },
	{ "nvvm", "nvvm", V_NAME },
	{ "nvblas", "nvblas", V_FILE },
	/* TensorRT (TensorFlow's is_tensorrt_build names it):
	 * getInferLibVersion, major * 10000 + minor * 100 + patch from
	 * TensorRT 10 on, major * 1000 + minor * 100 + patch before. */
	{ "tensorrt", "nvinfer", V_CODE },
};
#define NLIBS (sizeof libs / sizeof libs[0])

struct libstate {
	const struct lib *lib;
	struct ep_libfound f;
	struct stat st;
	char kind[64];
	int job;		/* its index in jobs, when it is loaded */
};

static const char *
base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b != NULL ? b + 1 : path;
}

static int
load_timeout_ms(struct ep_manifest *m)
{
	const char *v = getenv("ENVPARITY_LOAD_TIMEOUT_MS");
	char *end;
	long ms;

	if (v == NULL || *v == '\0')
		return LOAD_TIMEOUT_MS;
	errno = 0;
	ms = strtol(v, &end, 10);
	if (errno != 0 || *end != '\0' || ms < 1 || ms > 3600000) {
		ep_manifest_warn(m, "ENVPARITY_LOAD_TIMEOUT_MS=%s is not a "
		    "number of milliseconds from 1 to 3600000; using %d", v,
		    LOAD_TIMEOUT_MS);
		return LOAD_TIMEOUT_MS;
	}
	return (int)ms;
}

/* Where NVIDIA's runfile and packages install a library, its real name
 * carries the whole version (libcudart.so.13.0.96); the library itself
 * says only 13.0.  Take the patch from the name when the two agree. */
static void
add_name_patch(char *ver, size_t size, const char *real, const char *stem)
{
	unsigned nums[3];
	size_t n;
	char mm[32];

	if (!ep_libsearch_match(base_name(real), stem, nums, 3, &n) || n < 3)
		return;
	snprintf(mm, sizeof mm, "%u.%u", nums[0], nums[1]);
	if (*ver == '\0' || strcmp(ver, mm) == 0)
		snprintf(ver, size, "%u.%u.%u", nums[0], nums[1], nums[2]);
}

static const char *
rec_get(const struct ep_dlrecs *r, const char *field)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].field, field) == 0)
			return r->v[i].value;
	return NULL;
}

static long
rec_long(const struct ep_dlrecs *r, const char *field)
{
	const char *v = rec_get(r, field);

	return v != NULL ? strtol(v, NULL, 10) : -1;
}

static void
append(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
append(char **out, const char *fmt, ...)
{
	va_list ap;
	char *more, *t;

	va_start(ap, fmt);
	more = xvasprintf(fmt, ap);
	va_end(ap);
	t = xasprintf("%s%s", *out != NULL ? *out : "", more);
	free(*out);
	free(more);
	*out = t;
}

/* Turn a library child's records into "field\tvalue" lines for
 * lib.<name>.<field>, plus "dep\tPATH\tIDENTITY" lines naming the other
 * files the answer depends on (for the cache to check). */
static char *
lib_result(const struct libstate *ls, const struct ep_dlrecs *r)
{
	char ver[64] = "", cudart[32] = "", *out = xstrdup("");
	const char *major = rec_get(r, "major"), *minor = rec_get(r, "minor"),
	    *patch = rec_get(r, "patch"), *packed = rec_get(r, "packed");
	long check = rec_long(r, "check");

	switch (ls->lib->fmt) {
	case V_CUDART:
		ep_version_cuda(ver, sizeof ver, rec_long(r, "runtime"));
		add_name_patch(ver, sizeof ver, ls->f.real, ls->lib->stem);
		break;
	case V_PARTS:
		if (major != NULL && minor != NULL)
			snprintf(ver, sizeof ver, "%s.%s%s%s", major, minor,
			    patch != NULL ? "." : "", patch != NULL ? patch : "");
		add_name_patch(ver, sizeof ver, ls->f.real, ls->lib->stem);
		break;
	case V_CODE:
		ep_version_code(ver, sizeof ver, rec_long(r, "code"));
		break;
	case V_CUDNN_SUB:
		/* What the library says of itself, else what its real file
		 * name says (cuDNN's tarballs and packages name the files
		 * libcudnn_cnn.so.9.19.0).  The wheels' libcudnn_cnn.so.9
		 * and the engines and heuristic libraries then have no
		 * version fact: they export nothing that tells one, and
		 * their SHA-256 is what tells them apart.  libcudnn_cnn's
		 * version_check still says whether it matches the rest. */
		ep_version_code(ver, sizeof ver, rec_long(r, "code"));
		if (*ver == '\0' && packed != NULL)
			ep_version_packed(ver, sizeof ver,
			    strtoul(packed, NULL, 10));
		if (*ver == '\0')
			add_name_patch(ver, sizeof ver, ls->f.real,
			    ls->lib->stem);
		break;
	case V_NAME:
	case V_FILE:
		add_name_patch(ver, sizeof ver, ls->f.real, ls->lib->stem);
		break;
	}
	ep_version_cuda(cudart, sizeof cudart, rec_long(r, "cudart_code"));
	if (*ver != '\0')
		append(&out, "version\t%s\n", ver);
	if (rec_get(r, "api") != NULL)
		append(&out, "api\t%s\n", rec_get(r, "api"));
	if (*cudart != '\0')
		append(&out, "cudart\t%s\n", cudart);
	/* cudnnStatus_t: 0 success, 1002 SUBLIBRARY_VERSION_MISMATCH. */
	if (check == 0)
		append(&out, "version_check\tok\n");
	else if (check == 1002)
		append(&out, "version_check\tmismatch\n");
	else if (check > 0)
		append(&out, "version_check\tstatus %ld\n", check);
	for (size_t i = 0; i < r->n; i++) {
		char *real, *id;

		if (strcmp(r->v[i].field, "dep") != 0)
			continue;
		if ((real = realpath(r->v[i].value, NULL)) == NULL)
			real = xstrdup(r->v[i].value);
		id = ep_file_identity(real);
		append(&out, "dep\t%s\t%s\n", real, id);
		free(id);
		free(real);
	}
	return out;
}

/* Set lib.<name>.<field> for each line of a result.  With check set (a
 * cached result), first make sure that every file it depends on is
 * unchanged and that the loader's search path is the same; returns 0,
 * setting nothing, if not. */
static int
apply_result(struct ep_manifest *m, const char *name, const char *result,
    int check)
{
	const char *ld = getenv("LD_LIBRARY_PATH");
	char *copy = xstrdup(result), *save = NULL, *id, *key;
	int ok = 1;

	for (int pass = check ? 0 : 1; pass < 2 && ok; pass++) {
		strcpy(copy, result);
		for (char *l = strtok_r(copy, "\n", &save); l != NULL && ok;
		    l = strtok_r(NULL, "\n", &save)) {
			char *v = strchr(l, '\t'), *v2;

			if (v == NULL)
				continue;
			*v++ = '\0';
			if (strcmp(l, "ldpath") == 0)
				ok = pass == 1 || strcmp(v, ld ? ld : "") == 0;
			else if (strcmp(l, "dep") == 0) {
				if (pass == 1 || (v2 = strchr(v, '\t')) == NULL)
					continue;
				*v2++ = '\0';
				id = ep_file_identity(v);
				ok = strcmp(id, v2) == 0;
				free(id);
			} else if (pass == 1) {
				key = xasprintf("lib.%s.%s", name, l);
				ep_manifest_set(m, key, v);
				free(key);
			}
		}
	}
	free(copy);
	return ok;
}

static void
lib_finish(struct ep_collect *c, struct libstate *ls,
    const struct ep_dynload_job *j)
{
	struct ep_dlrecs r = { 0 };
	const char *ld = getenv("LD_LIBRARY_PATH");
	int clean = j->status == EP_DL_OK && !j->overflow;
	char why[128], *res;

	ep_dynload_parse(&r, j->out, j->len);
	for (size_t i = 0; i < r.n; i++) {
		const struct ep_dlrec *rec = &r.v[i];

		if (strcmp(rec->name, ls->lib->name) != 0)
			r.bad++;
		else if (strcmp(rec->field, "error") == 0 ||
		    strcmp(rec->field, "warning") == 0) {
			ep_manifest_warn(c->m, "lib.%s: %s: %s", ls->lib->name,
			    ls->f.real, rec->value);
			if (strcmp(rec->field, "error") == 0)
				clean = 0;
		}
	}
	if (j->status != EP_DL_OK) {
		ep_dynload_describe(why, sizeof why, j);
		ep_manifest_warn(c->m, "lib.%s: %s: loading it %s",
		    ls->lib->name, ls->f.real, why);
	}
	if (r.bad > 0 || j->overflow) {
		ep_manifest_warn(c->m, "lib.%s: %s: %zu garbled line%s from the "
		    "child that loaded it%s", ls->lib->name, ls->f.real, r.bad,
		    r.bad == 1 ? "" : "s", j->overflow ? " (output cut)" : "");
		clean = 0;
	}
	res = lib_result(ls, &r);
	apply_result(c->m, ls->lib->name, res, 0);
	if (strstr(res, "dep\t") != NULL)
		append(&res, "ldpath\t%s\n", ld ? ld : "");
	/* Only a clean answer is kept: a failure may be the environment's
	 * and gone next time. */
	if (clean && c->cache != NULL)
		ep_cache_put(c->cache, ls->kind, &ls->st, res);
	free(res);
	ep_dlrecs_clear(&r);
}

static char *
searched(const struct ep_libsearch *s)
{
	char *out = NULL;

	for (size_t i = 0; i < s->n; i++)
		append(&out, "%s%s", i > 0 ? ", " : "",
		    s->src[i].dir != NULL ? s->src[i].dir : EP_LDCACHE_PATH);
	return out != NULL ? out : xstrdup("nowhere");
}

static int
check_lib_paths(const struct ep_strv *dirs, struct ep_err *err)
{
	struct stat st;

	for (size_t i = 0; i < dirs->n; i++) {
		if (stat(dirs->v[i], &st) < 0)
			return ep_err_set(err, EP_E_INPUT, "--lib-path %s: %s",
			    dirs->v[i], strerror(errno));
		if (!S_ISDIR(st.st_mode))
			return ep_err_set(err, EP_E_INPUT, "--lib-path %s: not "
			    "a directory", dirs->v[i]);
	}
	return 0;
}

static int
by_size(const void *a, const void *b)
{
	const struct libstate *x = *(const struct libstate *const *)a;
	const struct libstate *y = *(const struct libstate *const *)b;

	return (x->st.st_size < y->st.st_size) - (x->st.st_size > y->st.st_size);
}

/* Where the libraries are looked for, in the loader's order
 * (docs/manifest.md): --lib-path, LD_LIBRARY_PATH, the wheels'
 * nvidia/<x>/lib, the loader's cache, then the toolkit's folders.  -1
 * with err for a --lib-path that cannot be searched. */
static int
search_path(struct ep_libsearch *s, const struct ep_collect *c,
    struct ep_err *err)
{
	if (check_lib_paths(&c->opts->lib_paths, err) < 0)
		return -1;
	for (size_t i = 0; i < c->opts->lib_paths.n; i++)
		ep_libsearch_add_dir(s, c->opts->lib_paths.v[i], "--lib-path");
	ep_libsearch_add_pathlist(s, getenv("LD_LIBRARY_PATH"),
	    "LD_LIBRARY_PATH");
	/*
	 * The wheels' nvidia/<x>/lib come before the loader's cache: that is
	 * where PyTorch and JAX load cuDNN and cuBLAS from (their RUNPATH
	 * points there, and the loader reads RUNPATH after LD_LIBRARY_PATH
	 * but before its cache).  Seen on an H100 host: the cache held a
	 * system cuDNN 9.14 while PyTorch loaded its wheel's 9.19.
	 */
	for (size_t i = 0; i < c->site_dirs.n; i++)
		ep_libsearch_add_site(s, c->site_dirs.v[i]);
	ep_libsearch_add_ldcache(s, EP_LDCACHE_PATH);
	ep_libsearch_add_dir(s, "/usr/local/cuda/lib64", "default");
	/* A toolkit keeps CUPTI and libNVVM beside lib64, not in it. */
	ep_libsearch_add_dir(s, "/usr/local/cuda/extras/CUPTI/lib64",
	    "default");
	ep_libsearch_add_dir(s, "/usr/local/cuda/nvvm/lib64", "default");
	return 0;
}

/* Each library found: its path set and its hash queued; its version
 * from the file's name (V_FILE), from the cache, or else queued in
 * order[] to be asked by a helper.  Returns how many were found. */
static size_t
find_libs(struct ep_collect *c, struct ep_libsearch *s,
    struct libstate *ls, struct libstate **order, size_t *norder,
    size_t *ncached)
{
	size_t nfound = 0;
	const char *v;
	char *key, *res;

	for (size_t i = 0; i < NLIBS; i++) {
		struct libstate *l = &ls[i];

		l->lib = &libs[i];
		if (!ep_libsearch_find(&l->f, s, l->lib->stem))
			continue;
		if (stat(l->f.real, &l->st) < 0) {
			ep_libfound_clear(&l->f);
			continue;
		}
		nfound++;
		key = xasprintf("lib.%s.path", l->lib->name);
		ep_manifest_set(c->m, key, l->f.real);
		free(key);
		key = xasprintf("lib.%s.sha256", l->lib->name);
		ep_collect_hash_later(c, key, l->f.real);
		free(key);
		if (l->lib->fmt == V_FILE) {
			struct ep_dlrecs none = { 0 };

			res = lib_result(l, &none);
			apply_result(c->m, l->lib->name, res, 0);
			free(res);
			continue;
		}
		snprintf(l->kind, sizeof l->kind, CACHE_KIND "%s", l->lib->name);
		if (c->cache != NULL &&
		    (v = ep_cache_get(c->cache, l->kind, &l->st)) != NULL &&
		    apply_result(c->m, l->lib->name, v, 1)) {
			(*ncached)++;
			continue;
		}
		order[(*norder)++] = l;
	}
	return nfound;
}

/* The folders the helpers may read: where the libraries and the driver
 * were looked for. */
static void
helper_dirs(struct ep_strv *dirs, const struct ep_libsearch *s,
    const struct ep_libsearch *drv)
{
	for (size_t i = 0; i < s->n + drv->n; i++) {
		const char *d = i < s->n ? s->src[i].dir :
		    drv->src[i - s->n].dir;

		if (d != NULL && !ep_strv_contains(dirs, d))
			ep_strv_push(dirs, d);
	}
}

int
ep_collect_cudastack(struct ep_collect *c, struct ep_err *err)
{
	struct ep_libsearch s = { 0 }, drv = { 0 };
	struct ep_libfound nvml = { 0 }, cuda = { 0 };
	struct ep_strv dirs = { 0 };
	struct libstate ls[NLIBS], *order[NLIBS];
	struct ep_dynload_job jobs[NLIBS + 1];
	struct ep_err lerr = { 0 };
	size_t nfound, ncached = 0, njobs = 0, norder = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t t0;
	char *list;
	json_t *meta;
	int gpu, rc = -1;

	memset(ls, 0, sizeof ls);
	if (search_path(&s, c, err) < 0)
		goto done;
	nfound = find_libs(c, &s, ls, order, &norder, &ncached);
	if (s.cache_state < 0 && access(EP_LDCACHE_PATH, F_OK) == 0)
		ep_manifest_warn(c->m, "loader cache skipped: %s", s.cache_error);
	if (nfound == 0) {
		list = searched(&s);
		ep_manifest_unavailable(c->m, "lib", "no CUDA libraries found "
		    "(searched: %s)", list);
		free(list);
	}

	/* NVML first (always asked), then the largest libraries, which
	 * take longest to load, so that the children finish together. */
	gpu = ep_gpu_start(c, &s, &drv, &nvml, &cuda, &jobs[0]);
	njobs = (size_t)gpu;
	if (norder > 1)
		qsort(order, norder, sizeof *order, by_size);
	for (size_t i = 0; i < norder; i++) {
		order[i]->job = (int)njobs;
		memset(&jobs[njobs], 0, sizeof jobs[njobs]);
		jobs[njobs].name = order[i]->lib->name;
		jobs[njobs++].path = order[i]->f.real;
	}
	t0 = ep_now_ns();
	helper_dirs(&dirs, &s, &drv);
	/* Should they not start at all, the jobs say so one by one. */
	if (njobs > 0 && ep_dynload_run(jobs, njobs,
	    (unsigned)(ncpu < 2 ? 2 : ncpu > 8 ? 8 : ncpu),
	    load_timeout_ms(c->m), &dirs, &lerr) < 0)
		ep_manifest_warn(c->m, "loading CUDA libraries: %s", lerr.msg);
	if (gpu)
		ep_gpu_finish(c, &jobs[0]);
	for (size_t i = 0; i < norder; i++)
		lib_finish(c, order[i], &jobs[order[i]->job]);
	/* libwheel.h: the wheel that installed each library
	 * (lib.<name>.wheel, .record_sha256), whose version completes an
	 * "X.Y" one; after the versions above are set. */
	for (size_t i = 0; i < NLIBS; i++)
		if (ls[i].f.real != NULL)
			ep_libwheel_collect(c->m, c->cache, ls[i].lib->name,
			    ls[i].f.real);

	meta = json_object();
	json_object_set_new(meta, "libraries", json_integer((json_int_t)nfound));
	json_object_set_new(meta, "cached", json_integer((json_int_t)ncached));
	json_object_set_new(meta, "children", json_integer((json_int_t)njobs));
	json_object_set_new(meta, "children_ms",
	    json_integer((json_int_t)((ep_now_ns() - t0) / 1000000)));
	json_object_set_new(c->m->meta, "cudastack", meta);
	rc = 0;
done:
	ep_strv_clear(&dirs);
	ep_dynload_jobs_clear(jobs, njobs);
	for (size_t i = 0; i < NLIBS; i++)
		ep_libfound_clear(&ls[i].f);
	ep_libfound_clear(&nvml);
	ep_libfound_clear(&cuda);
	ep_libsearch_clear(&s);
	ep_libsearch_clear(&drv);
	return rc;
}
