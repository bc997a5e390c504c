/*
 * gpudrv.c: the NVIDIA driver and GPUs (gpu.*), as NVML reports them in a
 * child process (dynload.h): where libnvidia-ml.so.1 is, what to say when
 * it is missing or only a stub, and which of the child's lines become
 * facts.  Nothing here is cached: a driver or a GPU's state can change
 * under the same files.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpudrv.h"
#include "str.h"
#include "xalloc.h"

#define NVML_SONAME	"libnvidia-ml.so.1"

#if defined(__x86_64__)
#define MULTIARCH	"x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH	"aarch64-linux-gnu"
#elif defined(__powerpc64__)
#define MULTIARCH	"powerpc64le-linux-gnu"
#else
#define MULTIARCH	"unknown-linux-gnu"
#endif

/* Field names a child may set as gpu.<field>: "count", "0.name", ... */
static int
gpu_field_ok(const char *f)
{
	return *f != '\0' && strspn(f, "abcdefghijklmnopqrstuvwxyz0123456789._")
	    == strlen(f);
}

/* "health.<i>.<field>" and "unchecked.<i>.<field>" (after the prefix,
 * in f) into meta.gpu.<i>.<field> and meta.gpu.<i>.not_checked.<field>:
 * the GPU's state now, kept out of the facts so that no golden drifts on
 * it; the checks read it there (core/checks_gpu.c).  0, or -1 for a
 * field that is not "<digits>.<name>". */
static int
gpu_meta(struct ep_collect *c, const char *f, const char *value,
    int not_checked)
{
	const char *dot = strchr(f, '.');
	json_t *all, *one, *nc;
	char *idx, *clean;

	if (dot == NULL || dot == f || (size_t)(dot - f) > 6 ||
	    strspn(f, "0123456789") != (size_t)(dot - f) ||
	    dot[1] == '\0' || strchr(dot + 1, '.') != NULL ||
	    !gpu_field_ok(dot + 1))
		return -1;
	if ((all = json_object_get(c->m->meta, "gpu")) == NULL) {
		all = json_object();
		json_object_set_new(c->m->meta, "gpu", all);
	}
	idx = xstrndup(f, (size_t)(dot - f));
	if ((one = json_object_get(all, idx)) == NULL) {
		one = json_object();
		json_object_set_new(all, idx, one);
	}
	free(idx);
	if (not_checked) {
		if ((nc = json_object_get(one, "not_checked")) == NULL) {
			nc = json_object();
			json_object_set_new(one, "not_checked", nc);
		}
		one = nc;
	}
	clean = ep_utf8_sanitize(value, strlen(value));
	json_object_set_new(one, dot + 1, json_string(clean));
	free(clean);
	return 0;
}

void
ep_gpu_finish(struct ep_collect *c, const struct ep_dynload_job *j)
{
	struct ep_dlrecs r = { 0 };
	const char *api = NULL, *nvml;
	char why[128], *key;

	ep_dynload_parse(&r, j->out, j->len);
	for (size_t i = 0; i < r.n; i++) {
		const struct ep_dlrec *rec = &r.v[i];

		if (strcmp(rec->name, "gpu") != 0)
			r.bad++;
		else if (strcmp(rec->field, "unavailable") == 0)
			ep_manifest_unavailable(c->m, "gpu", "%s", rec->value);
		else if (strcmp(rec->field, "warning") == 0 ||
		    strcmp(rec->field, "error") == 0)
			ep_manifest_warn(c->m, "gpu: %s", rec->value);
		else if (strcmp(rec->field, "cuda_driver_api") == 0)
			api = rec->value;
		else if (ep_startswith(rec->field, "health.") ||
		    ep_startswith(rec->field, "unchecked.")) {
			int nc = rec->field[0] == 'u';

			if (gpu_meta(c, rec->field + (nc ? 10 : 7),
			    rec->value, nc) < 0)
				r.bad++;
		}
		else if (gpu_field_ok(rec->field)) {
			key = xasprintf("gpu.%s", rec->field);
			ep_manifest_set(c->m, key, rec->value);
			free(key);
		} else
			r.bad++;
	}
	if (j->status != EP_DL_OK) {
		ep_dynload_describe(why, sizeof why, j);
		ep_manifest_warn(c->m, "gpu: NVML (%s) %s", j->path, why);
		if (ep_manifest_get(c->m, "gpu.count") == NULL)
			ep_manifest_unavailable(c->m, "gpu", "NVML (%s) %s",
			    j->path, why);
	}
	if (r.bad > 0 || j->overflow)
		ep_manifest_warn(c->m, "gpu: %zu garbled line%s from the child "
		    "that loaded NVML (%s)", r.bad, r.bad == 1 ? "" : "s",
		    j->path);
	nvml = ep_manifest_get(c->m, "gpu.cuda_driver.version");
	if (api != NULL && nvml != NULL && strcmp(api, nvml) != 0)
		ep_manifest_warn(c->m, "gpu: libcuda (%s) reports CUDA %s, NVML "
		    "%s", j->aux, api, nvml);
	ep_dlrecs_clear(&r);
}

/* A stub driver library beside where we looked (CUDA's lib64/stubs):
 * worth naming when the real one is missing, never worth loading. */
static char *
find_stub(const struct ep_libsearch *const *ss, size_t n)
{
	static const char *const names[] = { NVML_SONAME, "libnvidia-ml.so",
	    "libcuda.so.1", "libcuda.so", NULL };
	char *path;

	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < ss[k]->n; i++) {
			const char *dir = ss[k]->src[i].dir;

			if (dir == NULL)
				continue;
			for (size_t m = 0; names[m] != NULL; m++) {
				path = ep_libsearch_in_stubs(dir) ?
				    xasprintf("%s/%s", dir, names[m]) :
				    xasprintf("%s/stubs/%s", dir, names[m]);
				if (access(path, F_OK) == 0)
					return path;
				free(path);
			}
		}
	return NULL;
}

int
ep_gpu_start(struct ep_collect *c, const struct ep_libsearch *s,
    struct ep_libsearch *drv, struct ep_libfound *nvml,
    struct ep_libfound *cuda, struct ep_dynload_job *job)
{
	static const char *const std_dirs[] = {
		"/usr/local/nvidia/lib64",	/* NVIDIA's container runtime */
		"/usr/lib/" MULTIARCH, "/lib/" MULTIARCH, "/usr/lib64",
		"/lib64", "/usr/lib", "/lib", NULL,
	};
	const struct ep_libsearch *both[] = { s, drv };
	char *stub;

	/* Where dlopen("libnvidia-ml.so.1") would look. */
	ep_libsearch_add_pathlist(drv, getenv("LD_LIBRARY_PATH"),
	    "LD_LIBRARY_PATH");
	ep_libsearch_add_ldcache(drv, EP_LDCACHE_PATH);
	for (size_t i = 0; std_dirs[i] != NULL; i++)
		ep_libsearch_add_dir(drv, std_dirs[i], "default");
	if (!ep_libsearch_find_exact(nvml, drv, NVML_SONAME)) {
		if ((stub = find_stub(both, 2)) != NULL)
			ep_manifest_unavailable(c->m, "gpu", NVML_SONAME " not "
			    "found; driver library found only as a stub (%s)",
			    stub);
		else
			ep_manifest_unavailable(c->m, "gpu", NVML_SONAME
			    " not found");
		free(stub);
		return 0;
	}
	memset(job, 0, sizeof *job);
	job->name = "gpu";
	job->path = nvml->real;
	if (ep_libsearch_find_exact(cuda, drv, "libcuda.so.1"))
		job->aux = cuda->real;
	return 1;
}
