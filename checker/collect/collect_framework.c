/*
 * collect_framework.c: framework.<fw>.*, what TensorFlow, PyTorch and JAX
 * were built for (framework.h says from which files), and the NVIDIA
 * wheels each one's METADATA pins (framework.<fw>.requires.<dist>).  The
 * checks that compare these with the libraries found are in
 * core/checks_fw.c.  Runs after the Python collector (its site-packages
 * directories and python.pkg facts); the first directory that holds a
 * framework is the one Python would import.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "framework.h"
#include "python.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

#define SOURCE_MAX	(256 * 1024)	/* a generated file is a few KB */

/* The distributions that install the tensorflow package, in the order
 * tried (the first installed names the build). */
static const char *const tf_dists[] = { "tensorflow", "tensorflow-cpu",
    "tensorflow-gpu", "tf-nightly", "tf-nightly-cpu", "tensorflow-intel",
    "intel-tensorflow", "tensorflow-aarch64", "tensorflow-rocm", NULL };

/* build_info keys recorded (the rest, such as cpu_compiler and the
 * Windows DLL names, say nothing about the machine it runs on). */
static const char *const tf_keys[] = { "cuda_version", "cudnn_version",
    "cuda_compute_capabilities", "is_cuda_build", "is_rocm_build",
    "is_tensorrt_build", NULL };

static char *
read_small(const char *dir, const char *rel, size_t *len)
{
	char *path = xasprintf("%s/%s", dir, rel), *text = NULL;
	struct ep_err err = { 0 };

	if (ep_read_regular(&text, len, path, SOURCE_MAX, &err) < 0)
		text = NULL;
	free(path);
	return text;
}

/* The METADATA of the distribution named norm (PEP 503 form) in dir, or
 * NULL. */
static char *
dist_metadata(const char *dir, const char *norm, size_t *len)
{
	struct dirent *de;
	char *name, *n2, *text = NULL, *rel;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return NULL;
	while (text == NULL && (de = readdir(d)) != NULL) {
		if (!ep_endswith(de->d_name, ".dist-info") ||
		    (name = ep_pydist_entry_name(de->d_name)) == NULL)
			continue;
		n2 = ep_pep503_normalize(name);
		if (strcmp(n2, norm) == 0) {
			rel = xasprintf("%s/METADATA", de->d_name);
			text = read_small(dir, rel, len);
			free(rel);
		}
		free(n2);
		free(name);
	}
	closedir(d);
	return text;
}

/* framework.<fw>.requires.<nvidia-...> from a distribution's METADATA;
 * only_extra, when not NULL, keeps the requirements of that extra (and
 * those of none). */
static void
pins(struct ep_collect *c, const char *fw, const char *dir,
    const char *dist, const char *only_extra)
{
	struct ep_strv reqs = { 0 };
	char *text, *name, *spec, *extra, *key;
	size_t len;

	if ((text = dist_metadata(dir, dist, &len)) == NULL)
		return;
	ep_fw_requires(&reqs, text, len);
	for (size_t i = 0; i < reqs.n; i++) {
		if (ep_fw_requirement(&name, &spec, &extra, reqs.v[i]) < 0)
			continue;
		if (ep_startswith(name, "nvidia-") && *spec != '\0' &&
		    (only_extra == NULL || extra == NULL ||
		    strcmp(extra, only_extra) == 0)) {
			key = xasprintf("framework.%s.requires.%s", fw, name);
			if (ep_manifest_get(c->m, key) == NULL)
				ep_manifest_set(c->m, key, spec);
			free(key);
		}
		free(name);
		free(spec);
		free(extra);
	}
	ep_strv_clear(&reqs);
	free(text);
}

static const char *
pkg(struct ep_collect *c, const char *norm)
{
	char *key = xasprintf("python.pkg.%s", norm);
	const char *v = ep_manifest_get(c->m, key);

	free(key);
	return v;
}

static int
tensorflow(struct ep_collect *c, const char *dir)
{
	struct ep_strv keys = { 0 }, vals = { 0 };
	const char *v;
	char *text, *key;
	size_t len;

	text = read_small(dir, "tensorflow/python/platform/build_info.py",
	    &len);
	if (text == NULL)
		return 0;
	if (ep_fw_build_info_parse(&keys, &vals, text, len) < 0) {
		ep_manifest_warn(c->m, "%s/tensorflow/python/platform/"
		    "build_info.py: not a build_info literal this envparity "
		    "reads (TensorFlow's build not recorded)", dir);
		free(text);
		return 1;
	}
	for (size_t i = 0; i < keys.n; i++)
		for (size_t k = 0; tf_keys[k] != NULL; k++)
			if (strcmp(keys.v[i], tf_keys[k]) == 0) {
				key = xasprintf("framework.tensorflow.%s",
				    keys.v[i]);
				ep_manifest_set(c->m, key, vals.v[i]);
				free(key);
			}
	for (size_t k = 0; tf_dists[k] != NULL; k++)
		if ((v = pkg(c, tf_dists[k])) != NULL) {
			ep_manifest_set(c->m, "framework.tensorflow.version", v);
			ep_manifest_set(c->m, "framework.tensorflow.distribution",
			    tf_dists[k]);
			pins(c, "tensorflow", dir, tf_dists[k], "and-cuda");
			break;
		}
	ep_strv_clear(&keys);
	ep_strv_clear(&vals);
	free(text);
	return 1;
}

static int
torch(struct ep_collect *c, const char *dir)
{
	static const char *const names[][2] = { { "__version__", "version" },
	    { "cuda", "cuda" }, { "hip", "hip" },
	    { "git_version", "git_version" } };
	char *text, *v, *key;
	size_t len;

	if ((text = read_small(dir, "torch/version.py", &len)) == NULL)
		return 0;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if ((v = ep_fw_py_assign(text, len, names[i][0])) == NULL)
			continue;
		key = xasprintf("framework.torch.%s", names[i][1]);
		ep_manifest_set(c->m, key, v);
		free(key);
		free(v);
	}
	free(text);
	/* The cuDNN it was built with: only caffe2's build strings say. */
	if ((text = read_small(dir, "torch/include/caffe2/core/macros.h",
	    &len)) != NULL) {
		if ((v = ep_fw_build_string(text, len, "CUDNN_VERSION")) !=
		    NULL && *v != '\0')
			ep_manifest_set(c->m, "framework.torch.cudnn", v);
		free(v);
		free(text);
	}
	pins(c, "torch", dir, "torch", NULL);
	return 1;
}

static int
jax(struct ep_collect *c, const char *dir)
{
	static const char *const plugins[][3] = {
		{ "jax-cuda13-plugin", "13", "jax-cuda13-pjrt" },
		{ "jax-cuda12-plugin", "12", "jax-cuda12-pjrt" } };
	const char *v;
	char *text, *rel;
	size_t len;

	if ((text = read_small(dir, "jaxlib/version.py", &len)) == NULL)
		return 0;
	if ((rel = ep_fw_py_assign(text, len, "_release_version")) == NULL ||
	    *rel == '\0') {
		free(rel);
		rel = ep_fw_py_assign(text, len, "_version");
	}
	if (rel != NULL && *rel != '\0')
		ep_manifest_set(c->m, "framework.jax.jaxlib", rel);
	free(rel);
	free(text);
	if ((v = pkg(c, "jax")) != NULL)
		ep_manifest_set(c->m, "framework.jax.version", v);
	/* CUDA lives in the plugin wheels; their name says its major. */
	for (size_t i = 0; i < sizeof plugins / sizeof plugins[0]; i++)
		if ((v = pkg(c, plugins[i][0])) != NULL) {
			ep_manifest_set(c->m, "framework.jax.cuda",
			    plugins[i][1]);
			ep_manifest_set(c->m, "framework.jax.plugin", v);
			if ((v = pkg(c, plugins[i][2])) != NULL)
				ep_manifest_set(c->m, "framework.jax.pjrt", v);
			pins(c, "jax", dir, plugins[i][0], "with-cuda");
			break;
		}
	return 1;
}

int
ep_collect_framework(struct ep_collect *c, struct ep_err *err)
{
	int tf = 0, pt = 0, jx = 0;

	(void)err;
	for (size_t i = 0; i < c->site_dirs.n; i++) {
		const char *dir = c->site_dirs.v[i];

		if (!tf)
			tf = tensorflow(c, dir);
		if (!pt)
			pt = torch(c, dir);
		if (!jx)
			jx = jax(c, dir);
	}
	return 0;
}
