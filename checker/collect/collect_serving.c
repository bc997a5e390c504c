/*
 * collect_serving.c: serving.* from each --serving file or folder:
 * NVIDIA Triton's config.pbtxt (a file, a model folder, or a model
 * repository: every model folder in it that holds a config.pbtxt, and
 * the version folders present), TF Serving's model config and batching
 * parameters, TorchServe's config.properties (serving.h: the facts).
 *
 * Only what the user named is read, and it is read whole or the capture
 * stops (EP_E_INPUT, exit 2, naming the file and line): a file in no
 * format envparity knows, a text-format file it cannot read, a folder
 * with no model, two files that give one fact.  A repository's folder
 * without a config.pbtxt (Triton can make one up for some backends) is
 * said in meta.warnings.  Triton's alternative configs/ files are not
 * read: the server reads them only when told to.
 *
 * Beside an --artifact folder's digest, the SavedModel's own identity
 * where TensorFlow wrote one (fingerprint.pb, TF 2.12 and later):
 * artifact.<key>.fingerprint.singleprint, TensorFlow's
 * "graph/signatures/object graph/checkpoint" hashes, which stay equal
 * across two saves of one program, and .saved_model_checksum, which
 * does not, and .producer.  A fingerprint.pb that is not one stops the
 * capture as a malformed input does.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collect.h"
#include "errors.h"
#include "files.h"
#include "serving.h"
#include "strv.h"
#include "textproto.h"
#include "xalloc.h"

/* Configuration files are small; a larger one is not a configuration. */
#define SERVING_MAX	((size_t)16 << 20)

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Triton reads version folders by number; "0..." names are ignored. */
static int
by_number(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t lx = strlen(x), ly = strlen(y);

	return lx != ly ? (lx < ly ? -1 : 1) : strcmp(x, y);
}

/* The subfolders of dir, sorted by name (a new vector). */
static int
subdirs(struct ep_strv *out, const char *dir, struct ep_err *err)
{
	struct dirent *de;
	struct stat st;
	DIR *d;
	char *p;

	if ((d = opendir(dir)) == NULL)
		return ep_err_set(err, EP_E_INPUT, "--serving %s: %s", dir,
		    strerror(errno));
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		p = xasprintf("%s/%s", dir, de->d_name);
		if (stat(p, &st) == 0 && S_ISDIR(st.st_mode))
			ep_strv_push(out, de->d_name);
		free(p);
	}
	closedir(d);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, by_name);
	return 0;
}

/* "1,3": the version folders of a Triton model folder. */
static int
versions(char **out, const char *dir, struct ep_err *err)
{
	struct ep_strv all = { 0 }, nums = { 0 };
	size_t len = 1;

	*out = NULL;
	if (subdirs(&all, dir, err) < 0)
		return -1;
	for (size_t i = 0; i < all.n; i++)
		if (all.v[i][0] != '0' && strspn(all.v[i], "0123456789") ==
		    strlen(all.v[i]))
			ep_strv_push(&nums, all.v[i]);
	if (nums.n > 1)
		qsort(nums.v, nums.n, sizeof *nums.v, by_number);
	for (size_t i = 0; i < nums.n; i++)
		len += strlen(nums.v[i]) + 1;
	*out = xcalloc(1, len);
	for (size_t i = 0; i < nums.n; i++) {
		if (i > 0)
			strcat(*out, ",");
		strcat(*out, nums.v[i]);
	}
	ep_strv_clear(&all);
	ep_strv_clear(&nums);
	return 0;
}

/* Facts into the manifest; a key given twice, by another file or by
 * this one, is an error (one model in two repositories, two configs of
 * one name), and the capture stops: no manifest is written. */
static int
put(struct ep_collect *c, const struct ep_serving_facts *f, const char *path,
    struct ep_err *err)
{
	for (size_t i = 0; i < f->keys.n; i++) {
		if (ep_manifest_get(c->m, f->keys.v[i]) != NULL)
			return ep_err_set(err, EP_E_INPUT, "--serving %s: %s "
			    "is given twice (one model named twice?)", path,
			    f->keys.v[i]);
		ep_manifest_set(c->m, f->keys.v[i], f->vals.v[i]);
	}
	return 0;
}

static const char *
base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b != NULL ? b + 1 : path;
}

/* One file: model and vers given for a Triton model folder's
 * config.pbtxt, NULL otherwise. */
static int
read_one(struct ep_collect *c, const char *path, const char *model,
    const char *vers, struct ep_err *err)
{
	struct ep_serving_facts f = { 0 };
	struct ep_tp_msg *m = NULL;
	struct ep_props props = { 0 };
	enum ep_serving_format k;
	const char *base = base_name(path);
	char *buf = NULL, *dir = NULL, *own_vers = NULL;
	size_t len, blen = strlen(base);
	int rc = -1;

	/* A model folder's config.pbtxt was found, not named: only a
	 * regular file (a FIFO put there must not hang the capture). */
	if ((model != NULL ? ep_read_regular(&buf, &len, path, SERVING_MAX,
	    err) : ep_read_file(&buf, &len, path, SERVING_MAX, err)) < 0)
		goto done;
	if (blen > 11 && strcmp(base + blen - 11, ".properties") == 0) {
		if (ep_props_parse(&props, buf, len, path, err) < 0 ||
		    ep_serving_torchserve_facts(&f, &props, path, err) < 0)
			goto done;
	} else {
		if (ep_textproto_parse(&m, buf, len, path, err) < 0)
			goto done;
		if ((k = ep_serving_kind(base, m)) == EP_SERVING_UNKNOWN) {
			ep_err_set(err, EP_E_INPUT, "--serving %s: not a "
			    "serving configuration envparity reads (Triton's "
			    "config.pbtxt, TF Serving's model config or "
			    "batching parameters, TorchServe's *.properties)",
			    path);
			goto done;
		}
		/* A Triton config.pbtxt named alone: the versions beside
		 * it, and its name field (else its folder's name). */
		if (k == EP_SERVING_TRITON && model == NULL &&
		    strcmp(base, "config.pbtxt") == 0) {
			dir = ep_path_dir(path);
			if (versions(&own_vers, dir, err) < 0)
				goto done;
			vers = own_vers;
			if (ep_textproto_get(m, "name") == NULL) {
				char *abs = realpath(dir, NULL);

				if (abs != NULL && strcmp(abs, "/") != 0) {
					free(dir);
					dir = xstrdup(base_name(abs));
					model = dir;
				}
				free(abs);
			}
		}
		if (ep_serving_textproto_facts(&f, k, m, model, vers, path,
		    err) < 0)
			goto done;
	}
	rc = put(c, &f, path, err);
done:
	ep_serving_facts_clear(&f);
	ep_props_clear(&props);
	ep_textproto_free(m);
	free(own_vers);
	free(dir);
	free(buf);
	return rc;
}

/* A Triton model folder: its config.pbtxt, named after the folder. */
static int
read_model(struct ep_collect *c, const char *dir, const char *model,
    struct ep_err *err)
{
	char *cfg = xasprintf("%s/config.pbtxt", dir), *vers = NULL;
	int rc = versions(&vers, dir, err);

	if (rc == 0)
		rc = read_one(c, cfg, model, vers, err);
	free(vers);
	free(cfg);
	return rc;
}

static int
is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int
read_folder(struct ep_collect *c, const char *dir, struct ep_err *err)
{
	struct ep_strv models = { 0 };
	char *cfg = xasprintf("%s/config.pbtxt", dir), *abs = NULL, *sub;
	size_t found = 0;
	int rc = -1;

	if (is_file(cfg)) {
		abs = realpath(dir, NULL);
		rc = read_model(c, dir, abs != NULL ? base_name(abs) : dir,
		    err);
		goto done;
	}
	if (subdirs(&models, dir, err) < 0)
		goto done;
	for (size_t i = 0; i < models.n; i++) {
		sub = xasprintf("%s/%s", dir, models.v[i]);
		free(cfg);
		cfg = xasprintf("%s/config.pbtxt", sub);
		if (!is_file(cfg))
			ep_manifest_warn(c->m, "--serving %s: %s has no "
			    "config.pbtxt: not read", dir, models.v[i]);
		else if (read_model(c, sub, models.v[i], err) < 0) {
			free(sub);
			goto done;
		} else
			found++;
		free(sub);
	}
	if (found == 0) {
		ep_err_set(err, EP_E_INPUT, "--serving %s: no config.pbtxt "
		    "in the folder or its model folders", dir);
		goto done;
	}
	rc = 0;
done:
	ep_strv_clear(&models);
	free(abs);
	free(cfg);
	return rc;
}

/* artifact.<key>.fingerprint.* for an --artifact folder with a
 * fingerprint.pb. */
static int
fingerprint(struct ep_collect *c, const char *dir, struct ep_err *err)
{
	struct ep_fingerprint fp;
	struct stat st;
	char *path = xasprintf("%s/fingerprint.pb", dir), *key = NULL, *f;
	char *buf = NULL;
	size_t len;
	int rc = -1;

	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || !is_file(path)) {
		rc = 0;
		goto done;
	}
	if (ep_read_regular(&buf, &len, path, SERVING_MAX, err) < 0 ||
	    ep_serving_fingerprint(&fp, (unsigned char *)buf, len, path,
	    err) < 0)
		goto done;
	key = ep_artifact_key(dir);
	f = xasprintf("artifact.%s.fingerprint.singleprint", key);
	ep_manifest_setf(c->m, f, "%llu/%llu/%llu/%llu",
	    (unsigned long long)fp.graph_def_program_hash,
	    (unsigned long long)fp.signature_def_hash,
	    (unsigned long long)fp.saved_object_graph_hash,
	    (unsigned long long)fp.checkpoint_hash);
	free(f);
	f = xasprintf("artifact.%s.fingerprint.saved_model_checksum", key);
	ep_manifest_setf(c->m, f, "%llu",
	    (unsigned long long)fp.saved_model_checksum);
	free(f);
	f = xasprintf("artifact.%s.fingerprint.producer", key);
	ep_manifest_setf(c->m, f, "%llu", (unsigned long long)fp.producer);
	free(f);
	rc = 0;
done:
	free(buf);
	free(key);
	free(path);
	return rc;
}

int
ep_collect_fingerprints(struct ep_collect *c, struct ep_err *err)
{
	for (size_t i = 0; i < c->opts->artifacts.n; i++)
		if (fingerprint(c, c->opts->artifacts.v[i], err) < 0)
			return -1;
	return 0;
}

int
ep_collect_serving(struct ep_collect *c, struct ep_err *err)
{
	const struct ep_strv *paths = &c->opts->servings;
	struct stat st;

	for (size_t i = 0; i < paths->n; i++) {
		const char *p = paths->v[i];

		if (stat(p, &st) < 0)
			return ep_err_set(err, EP_E_INPUT, "--serving %s: %s",
			    p, strerror(errno));
		if ((S_ISDIR(st.st_mode) ? read_folder(c, p, err) :
		    read_one(c, p, NULL, NULL, err)) < 0)
			return -1;
	}
	return 0;
}
