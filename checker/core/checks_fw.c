/*
 * checks_fw.c: stack.framework.*, what a framework was built for
 * (framework.<fw>.* facts, collect/framework.h) against the libraries
 * this machine would load (lib.cudart.version, lib.cudnn.version) and the
 * GPUs it has (gpu.<i>.cc).  Each fails only where the framework would
 * break or silently change device, and warns otherwise (docs/checking.md, "Checks
 * that need no golden", gives each its source; shared/research/
 * frameworks.md has the rules and the messages the frameworks print):
 *
 *   stack.framework.<fw>.cuda_libs  fail: a CUDA build with no CUDA
 *       runtime found (TensorFlow then runs on the CPU with one log line;
 *       PyTorch and JAX cannot use the GPU).
 *   stack.framework.<fw>.cudart     fail: the runtime's major differs
 *       from the framework's CUDA major (libcudart.so.N is looked up by
 *       major); warn: an older minor than the build's (CUDA's minor-
 *       version compatibility is about the driver: an older runtime may
 *       lack what the build calls).
 *   stack.framework.<fw>.cudnn      fail: cuDNN's major differs from the
 *       build's, or its minor is lower (XLA's and PyTorch's rule:
 *       "Loaded runtime CuDNN library: 9.1.0 but source was compiled
 *       with: 9.8.0"; TensorFlow skips the GPU when libcudnn.so.<major>
 *       is missing); for JAX, the loaded cuDNN outside the range its
 *       CUDA plugin requires.
 *   stack.framework.tensorflow.sm   fail: a GPU whose compute capability
 *       no SASS (same major, minor at most the GPU's) or PTX (at most the
 *       GPU's) of the build covers.
 *   stack.framework.torch.cudnn_sm  fail: cuDNN 9.11 or later with a GPU
 *       below SM 7.5 (PyTorch refuses it).
 *   stack.framework.clash.cudnn     fail: two frameworks in one
 *       environment whose cuDNN needs cannot both hold (torch's pin of
 *       nvidia-cudnn-cu12==9.1.0.70 and JAX's >=9.8).
 * A ROCm build or a CPU build gets no CUDA check (a skip says so).
 */
#include <stdlib.h>
#include <string.h>

#include "checks_int.h"
#include "vercmp.h"
#include "str.h"
#include "xalloc.h"

/* TensorFlow's tested cuDNN (tensorflow/docs, site/en/install/source.md)
 * for builds whose build_info records only the major and whose METADATA
 * has no and-cuda pin. */
static const struct {
	const char *tf, *cudnn;
} tf_cudnn[] = {
	{ "2.21", "9.3" }, { "2.20", "9.3" }, { "2.19", "9.3" },
	{ "2.18", "9.3" }, { "2.17", "8.9" }, { "2.16", "8.9" },
	{ "2.15", "8.9" }, { "2.14", "8.7" }, { "2.13", "8.6" },
	{ "2.12", "8.6" }, { "2.11", "8.1" }, { "2.10", "8.1" },
	{ "2.9", "8.1" },
};

/* What one framework needs of cuDNN: versions from lo (inclusive) to hi
 * (exclusive; NULL: no bound), or exactly lo. */
struct need {
	const char *fw;		/* "tensorflow", "torch", "jax" */
	const char *name;	/* "TensorFlow 2.15.0" */
	char *cuda;		/* the CUDA it was built for, or NULL */
	char *cudnn_lo, *cudnn_hi;
	int exact;
	char *cudnn_why;	/* a verb phrase: "was built with cuDNN
				   9.1", "needs nvidia-cudnn-cu12>=9.8,<10.0
				   (its CUDA plugin's requirement)" */
	char *pin;		/* the exact cuDNN its METADATA pins, which
				   pip installs beside it, or NULL */
	int cuda_build, rocm;
};

static void
need_clear(struct need *n)
{
	free(n->cuda);
	free(n->cudnn_lo);
	free(n->cudnn_hi);
	free(n->cudnn_why);
	free(n->pin);
}

static const char *
fget(struct checks *k, const char *fw, const char *what)
{
	char *key = xasprintf("framework.%s.%s", fw, what);
	const char *v = ep_checks_get(k, key);

	free(key);
	return v;
}

/* "major.minor" of v, or NULL. */
static char *
major_minor(const char *v)
{
	unsigned long r[2];
	size_t n = v != NULL ? ep_version_release(r, 2, v) : 0;

	if (n == 0)
		return NULL;
	return n == 1 ? xasprintf("%lu", r[0]) : xasprintf("%lu.%lu", r[0],
	    r[1]);	/* n counts every part; two were kept */
}

static unsigned long
major_of(const char *v)
{
	unsigned long r[1] = { 0 };

	return v != NULL && ep_version_release(r, 1, v) >= 1 ? r[0] : 0;
}

/* The cuDNN pin among framework.<fw>.requires.nvidia-cudnn-cu*: its
 * specifier, borrowed, and the distribution into *dist. */
static const char *
cudnn_requires(struct checks *k, const char *fw, const char **dist)
{
	static const char *const dists[] = { "nvidia-cudnn-cu13",
	    "nvidia-cudnn-cu12", "nvidia-cudnn-cu11", NULL };
	char *what;
	const char *v;

	for (size_t i = 0; dists[i] != NULL; i++) {
		what = xasprintf("requires.%s", dists[i]);
		v = fget(k, fw, what);
		free(what);
		if (v != NULL) {
			*dist = dists[i];
			return v;
		}
	}
	return NULL;
}

/* lo and hi from a specifier such as ">=9.8,<10.0" or "==9.1.0.70". */
static void
range_of(struct need *n, const char *spec)
{
	char *s = xstrdup(spec), *save = NULL, *part;

	for (part = strtok_r(s, ",", &save); part != NULL;
	    part = strtok_r(NULL, ",", &save)) {
		if (strncmp(part, "==", 2) == 0 && part[2] != '=' &&
		    strchr(part, '*') == NULL) {
			free(n->cudnn_lo);
			n->cudnn_lo = xstrdup(part + 2);
			n->exact = 1;
		} else if (strncmp(part, ">=", 2) == 0) {
			free(n->cudnn_lo);
			n->cudnn_lo = xstrdup(part + 2);
		} else if (part[0] == '<' && part[1] != '=') {
			free(n->cudnn_hi);
			n->cudnn_hi = xstrdup(part + 1);
		}
	}
	free(s);
}

static void
need_tensorflow(struct checks *k, struct need *n)
{
	const char *v = fget(k, "tensorflow", "version"), *dist, *pin;
	const char *cudnn = fget(k, "tensorflow", "cudnn_version");
	const char *is_cuda = fget(k, "tensorflow", "is_cuda_build");
	char *mm;

	n->fw = "tensorflow";
	n->cuda_build = is_cuda != NULL && strcmp(is_cuda, "true") == 0;
	n->rocm = (v = fget(k, "tensorflow", "is_rocm_build")) != NULL &&
	    strcmp(v, "true") == 0;
	if (fget(k, "tensorflow", "cuda_version") != NULL &&
	    *fget(k, "tensorflow", "cuda_version") != '\0')
		n->cuda = xstrdup(fget(k, "tensorflow", "cuda_version"));
	v = fget(k, "tensorflow", "version");
	if ((pin = cudnn_requires(k, "tensorflow", &dist)) != NULL &&
	    strncmp(pin, "==", 2) == 0 &&
	    major_of(pin + 2) == major_of(cudnn)) {
		/* and-cuda's pin says which minor it was built with. */
		n->cudnn_lo = major_minor(pin + 2);
		n->pin = xstrdup(pin + 2);
		n->cudnn_why = xasprintf("was built with cuDNN %s (its and-cuda "
		    "extra pins %s%s)", n->cudnn_lo, dist, pin);
	} else if (cudnn != NULL && *cudnn != '\0') {
		mm = major_minor(v);
		for (size_t i = 0; mm != NULL && strchr(cudnn, '.') == NULL &&
		    i < sizeof tf_cudnn / sizeof tf_cudnn[0]; i++)
			if (strcmp(tf_cudnn[i].tf, mm) == 0 &&
			    major_of(tf_cudnn[i].cudnn) == major_of(cudnn))
				n->cudnn_lo = xstrdup(tf_cudnn[i].cudnn);
		free(mm);
		if (n->cudnn_lo == NULL)
			n->cudnn_lo = xstrdup(cudnn);
		n->cudnn_why = xasprintf("was built with cuDNN %s",
		    n->cudnn_lo);
	}
	if (n->cudnn_lo != NULL)
		n->cudnn_hi = xasprintf("%lu", major_of(n->cudnn_lo) + 1);
}

static void
need_torch(struct checks *k, struct need *n)
{
	const char *cuda = fget(k, "torch", "cuda");
	const char *hip = fget(k, "torch", "hip");
	const char *cudnn = fget(k, "torch", "cudnn"), *dist, *pin;

	n->fw = "torch";
	n->cuda_build = cuda != NULL && *cuda != '\0';
	n->rocm = hip != NULL && *hip != '\0';
	if (n->cuda_build)
		n->cuda = xstrdup(cuda);
	if (cudnn != NULL && *cudnn != '\0') {
		n->cudnn_lo = major_minor(cudnn);
		n->cudnn_hi = xasprintf("%lu", major_of(cudnn) + 1);
		n->cudnn_why = xasprintf("was built with cuDNN %s", cudnn);
	}
	/* Its wheel's pin is what pip installs beside it. */
	if ((pin = cudnn_requires(k, "torch", &dist)) != NULL &&
	    strncmp(pin, "==", 2) == 0) {
		free(n->cudnn_why);
		n->cudnn_why = n->cudnn_lo != NULL ? xasprintf("was built with "
		    "cuDNN %s and pins %s%s", cudnn, dist, pin) :
		    xasprintf("pins %s%s", dist, pin);
		n->pin = xstrdup(pin + 2);
		if (n->cudnn_lo == NULL) {
			n->cudnn_lo = major_minor(pin + 2);
			n->cudnn_hi = xasprintf("%lu", major_of(pin + 2) + 1);
		}
	}
}

static void
need_jax(struct checks *k, struct need *n)
{
	const char *cuda = fget(k, "jax", "cuda"), *dist, *spec;

	n->fw = "jax";
	n->cuda_build = cuda != NULL;
	if (n->cuda_build)
		n->cuda = xstrdup(cuda);
	if ((spec = cudnn_requires(k, "jax", &dist)) != NULL) {
		range_of(n, spec);
		n->cudnn_why = xasprintf("needs %s%s (its CUDA plugin's "
		    "requirement)", dist, spec);
	}
}

static char *
display(struct checks *k, const char *fw)
{
	const char *v = fget(k, fw, "version");
	const char *name = strcmp(fw, "tensorflow") == 0 ? "TensorFlow" :
	    strcmp(fw, "torch") == 0 ? "PyTorch" : "JAX";

	return v != NULL ? xasprintf("%s %s", name, v) : xstrdup(name);
}

static void
check_cudart(struct checks *k, const struct need *n, const char *name)
{
	const char *rt = ep_checks_get(k, "lib.cudart.version");
	char *key = xasprintf("stack.framework.%s.cudart", n->fw);
	char *libs = xasprintf("stack.framework.%s.cuda_libs", n->fw);
	unsigned long b[2] = { 0, 0 }, r[2] = { 0, 0 };
	size_t nb, nr;

	if (rt == NULL) {
		ep_checks_add(k, libs, EP_FAIL, "check:framework-cuda", n->cuda,
		    NULL, xasprintf("%s: %s is a CUDA build (CUDA %s) but no "
		    "CUDA runtime library was found: %s", libs, name,
		    n->cuda != NULL ? n->cuda : "?",
		    strcmp(n->fw, "tensorflow") == 0 ? "TensorFlow would run "
		    "on the CPU, saying so in one log line" :
		    "it could not use the GPU"));
		goto done;
	}
	ep_checks_add(k, libs, EP_PASS, "check:framework-cuda", n->cuda, rt,
	    xasprintf("%s: a CUDA runtime (%s) for %s", libs, rt, name));
	if (n->cuda == NULL)
		goto done;
	nb = ep_version_release(b, 2, n->cuda);
	nr = ep_version_release(r, 2, rt);
	if (nb == 0 || nr == 0)
		ep_checks_add(k, key, EP_ERROR, "check:framework-cudart",
		    n->cuda, rt, xasprintf("%s: cannot compare CUDA \"%s\" "
		    "with runtime \"%s\"", key, n->cuda, rt));
	else if (b[0] != r[0])
		ep_checks_add(k, key, EP_FAIL, "check:framework-cudart",
		    n->cuda, rt, xasprintf("%s: %s was built for CUDA %s; the "
		    "runtime here is %s, another major release (it loads "
		    "libcudart.so.%lu, which is not here)", key, name, n->cuda,
		    rt, b[0]));
	else if (nb > 1 && nr > 1 && r[1] < b[1])
		ep_checks_add(k, key, EP_WARN, "check:framework-cudart",
		    n->cuda, rt, xasprintf("%s: %s was built for CUDA %s; the "
		    "runtime here, %s, is an older minor release: CUDA's "
		    "minor-version compatibility covers the driver, not an "
		    "older runtime, which may lack what the build calls", key,
		    name, n->cuda, rt));
	else
		ep_checks_add(k, key, EP_PASS, "check:framework-cudart",
		    n->cuda, rt, xasprintf("%s: %s was built for CUDA %s; "
		    "runtime %s", key, name, n->cuda, rt));
done:
	free(key);
	free(libs);
}

static void
check_cudnn(struct checks *k, const struct need *n, const char *name)
{
	const char *have = ep_checks_get(k, "lib.cudnn.version");
	char *key = xasprintf("stack.framework.%s.cudnn", n->fw);
	char *want = n->exact ? xasprintf("==%s", n->cudnn_lo) :
	    n->cudnn_hi != NULL ? xasprintf(">=%s,<%s", n->cudnn_lo,
	    n->cudnn_hi) : xasprintf(">=%s", n->cudnn_lo);
	const char *what = strcmp(n->fw, "tensorflow") == 0 ? "TensorFlow "
	    "would skip the GPU and run on the CPU" : strcmp(n->fw, "torch") ==
	    0 ? "PyTorch raises a RuntimeError at the first cuDNN call" :
	    "XLA fails at the first cuDNN call";

	if (have == NULL)
		ep_checks_add(k, key, EP_FAIL, "check:framework-cudnn", want,
		    NULL, xasprintf("%s: %s %s, and finds no cuDNN here: %s", key,
		    name, n->cudnn_why, what));
	else if (major_of(have) != major_of(n->cudnn_lo))
		ep_checks_add(k, key, EP_FAIL, "check:framework-cudnn", want,
		    have, xasprintf("%s: %s %s; the cuDNN here is %s, "
		    "another major release (it looks for libcudnn.so.%lu): %s",
		    key, name, n->cudnn_why, have, major_of(n->cudnn_lo),
		    what));
	else if (ep_vercmp(have, n->cudnn_lo) < 0)
		ep_checks_add(k, key, EP_FAIL, "check:framework-cudnn", want,
		    have, xasprintf("%s: %s %s; the cuDNN here is %s, "
		    "older (\"Loaded runtime CuDNN library: %s but source was "
		    "compiled with: %s\"): %s", key, name, n->cudnn_why, have,
		    have, n->cudnn_lo, what));
	else if (n->cudnn_hi != NULL && ep_vercmp(have, n->cudnn_hi) >= 0)
		ep_checks_add(k, key, EP_FAIL, "check:framework-cudnn", want,
		    have, xasprintf("%s: %s %s; the cuDNN here is %s, outside "
		    "that range", key, name, n->cudnn_why, have));
	else
		ep_checks_add(k, key, EP_PASS, "check:framework-cudnn", want,
		    have, xasprintf("%s: %s %s; cuDNN %s here", key, name,
		    n->cudnn_why, have));
	free(key);
	free(want);
}

/* The GPUs the capture saw: gpu.<i>.cc for i below gpu.count. */
static size_t
gpus(struct checks *k, char ***ccs)
{
	const char *count = ep_checks_get(k, "gpu.count");
	unsigned long n = count != NULL ? strtoul(count, NULL, 10) : 0;
	size_t got = 0;
	char key[48];
	const char *cc;

	*ccs = xcalloc(n ? n : 1, sizeof **ccs);
	for (unsigned long i = 0; i < n && i < 64; i++) {
		snprintf(key, sizeof key, "gpu.%lu.cc", i);
		if ((cc = ep_checks_get(k, key)) != NULL)
			(*ccs)[got++] = (char *)cc;
	}
	return got;
}

/* Whether TensorFlow's compute capabilities ("sm_80,compute_90") cover a
 * GPU of capability cc ("9.0"): SASS of the same major and a minor at
 * most the GPU's, or PTX at most the GPU's, which the driver compiles. */
static int
sm_covered(const char *caps, const char *cc)
{
	unsigned long g[2] = { 0, 0 }, gv, v;
	char *s = xstrdup(caps), *save = NULL, *c;
	int ok = 0;

	if (ep_version_release(g, 2, cc) < 1) {
		free(s);
		return 1;	/* nothing to judge */
	}
	gv = g[0] * 10 + g[1];
	for (c = strtok_r(s, ",", &save); c != NULL && !ok;
	    c = strtok_r(NULL, ",", &save)) {
		if (strncmp(c, "sm_", 3) == 0) {
			v = strtoul(c + 3, NULL, 10);
			ok = v / 10 == g[0] && v % 10 <= g[1];
		} else if (strncmp(c, "compute_", 8) == 0) {
			v = strtoul(c + 8, NULL, 10);
			ok = v <= gv;
		}
	}
	free(s);
	return ok;
}

static void
check_sm(struct checks *k, const char *name, char **ccs, size_t n)
{
	static const char *key = "stack.framework.tensorflow.sm";
	const char *caps = fget(k, "tensorflow", "cuda_compute_capabilities");

	if (caps == NULL || *caps == '\0' || n == 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (!sm_covered(caps, ccs[i])) {
			ep_checks_add(k, key, EP_FAIL, "check:framework-sm",
			    caps, ccs[i], xasprintf("%s: GPU %zu has compute "
			    "capability %s, which %s's kernels (%s) do not "
			    "cover: \"no kernel image is available for "
			    "execution on the device\"", key, i, ccs[i], name,
			    caps));
			return;
		}
	ep_checks_add(k, key, EP_PASS, "check:framework-sm", caps, ccs[0],
	    xasprintf("%s: %s's kernels (%s) cover every GPU here", key, name,
	    caps));
}

static void
check_torch_cudnn_sm(struct checks *k, const char *name, char **ccs,
    size_t n)
{
	static const char *key = "stack.framework.torch.cudnn_sm";
	const char *have = ep_checks_get(k, "lib.cudnn.version");

	if (have == NULL || n == 0 || ep_vercmp(have, "9.11") < 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (ep_vercmp(ccs[i], "7.5") < 0) {
			ep_checks_add(k, key, EP_FAIL, "check:framework-sm",
			    "7.5", ccs[i], xasprintf("%s: cuDNN %s needs every "
			    "GPU at SM 7.5 or later; GPU %zu is %s: %s raises "
			    "\"cuDNN version ... is not compatible with devices "
			    "with SM < 7.5\"", key, have, i, ccs[i], name));
			return;
		}
	ep_checks_add(k, key, EP_PASS, "check:framework-sm", "7.5", NULL,
	    xasprintf("%s: cuDNN %s and every GPU at SM 7.5 or later", key,
	    have));
}

/* The cuDNN versions a framework accepts in its environment: its pin
 * exactly when it has one (pip installs that one), else its range. */
struct span {
	const char *lo, *hi;	/* hi exclusive; NULL: none */
	int exact;
};

static void
span_of(struct span *s, const struct need *n)
{
	s->exact = n->pin != NULL || n->exact;
	s->lo = n->pin != NULL ? n->pin : n->cudnn_lo;
	s->hi = s->exact ? NULL : n->cudnn_hi;
}

/* Whether no version lies in both. */
static int
spans_apart(const struct span *x, const struct span *y)
{
	if (x->exact && y->exact)
		return ep_vercmp(x->lo, y->lo) != 0;
	if (y->exact)
		return spans_apart(y, x);
	if (x->exact)	/* x's version must lie in y's range */
		return ep_vercmp(x->lo, y->lo) < 0 || (y->hi != NULL &&
		    ep_vercmp(x->lo, y->hi) >= 0);
	return (x->hi != NULL && ep_vercmp(y->lo, x->hi) >= 0) ||
	    (y->hi != NULL && ep_vercmp(x->lo, y->hi) >= 0);
}

/* Two frameworks whose cuDNN needs cannot both hold. */
static void
check_clash(struct checks *k, struct need *v, size_t n, char **names)
{
	static const char *key = "stack.framework.clash.cudnn";
	size_t a, b, with = 0;

	for (a = 0; a < n; a++)
		with += v[a].cudnn_lo != NULL && v[a].cuda_build && !v[a].rocm;
	if (with < 2)
		return;
	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++) {
			const struct need *x = &v[a], *y = &v[b];
			struct span sx, sy;

			if (x->cudnn_lo == NULL || y->cudnn_lo == NULL ||
			    !x->cuda_build || !y->cuda_build || x->rocm ||
			    y->rocm)
				continue;
			span_of(&sx, x);
			span_of(&sy, y);
			if (spans_apart(&sx, &sy)) {
				ep_checks_add(k, key, EP_FAIL,
				    "check:framework-clash", NULL, NULL,
				    xasprintf("%s: %s %s, while %s %s: no cuDNN "
				    "satisfies both", key, names[a],
				    x->cudnn_why, names[b], y->cudnn_why));
				return;
			}
		}
	ep_checks_add(k, key, EP_PASS, "check:framework-clash", NULL, NULL,
	    xasprintf("%s: the frameworks' cuDNN needs can all hold", key));
}

void
ep_checks_framework(struct checks *k)
{
	static void (*const fill[])(struct checks *, struct need *) = {
		need_tensorflow, need_torch, need_jax };
	static const char *const fws[] = { "tensorflow", "torch", "jax" };
	struct need v[3];
	char *names[3] = { NULL, NULL, NULL }, **ccs, *key;
	size_t n = 0, ngpu = gpus(k, &ccs);
	const char *fk;
	json_t *fv;
	char *what;
	int have;

	memset(v, 0, sizeof v);
	for (size_t i = 0; i < 3; i++) {
		what = xasprintf("framework.%s.", fws[i]);
		have = 0;
		/* Any fact of the framework's says it is installed. */
		json_object_foreach(k->m->facts, fk, fv)
			if (ep_startswith(fk, what)) {
				have = 1;
				break;
			}
		free(what);
		if (!have)
			continue;
		fill[i](k, &v[n]);
		names[n] = display(k, fws[i]);
		key = xasprintf("stack.framework.%s", fws[i]);
		if (v[n].rocm)
			ep_checks_add(k, key, EP_SKIP, "check:framework", NULL,
			    NULL, xasprintf("%s: %s is a ROCm build: the CUDA "
			    "checks do not apply", key, names[n]));
		else if (!v[n].cuda_build)
			ep_checks_add(k, key, EP_SKIP, "check:framework", NULL,
			    NULL, xasprintf("%s: %s is a CPU build: the CUDA "
			    "checks do not apply", key, names[n]));
		else {
			check_cudart(k, &v[n], names[n]);
			if (v[n].cudnn_lo != NULL)
				check_cudnn(k, &v[n], names[n]);
			if (strcmp(fws[i], "tensorflow") == 0)
				check_sm(k, names[n], ccs, ngpu);
			if (strcmp(fws[i], "torch") == 0)
				check_torch_cudnn_sm(k, names[n], ccs, ngpu);
		}
		free(key);
		n++;
	}
	check_clash(k, v, n, names);
	for (size_t i = 0; i < n; i++) {
		need_clear(&v[i]);
		free(names[i]);
	}
	free(ccs);
}
