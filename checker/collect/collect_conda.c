/*
 * collect_conda.c: conda.pkg.<name> (version) and conda.build.<name> (build
 * string: it tells a CUDA build of a package from a CPU one) for every
 * package of the conda environment named by --conda-prefix or
 * $CONDA_PREFIX, read from its conda-meta/<package>.json records; the
 * prefix read, as named, in meta.conda.prefix (never compared).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "collect.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

/* A conda-meta record lists every file of the package; a big one is a few
 * MB.  Anything this large is not a record. */
#define CONDA_META_MAX	(256u * 1024 * 1024)

static int
conda_name_valid(const char *name)
{
	if (*name == '\0' || *name == '.')
		return 0;
	for (const char *p = name; *p != '\0'; p++)
		if (!isascii((unsigned char)*p) || (!isalnum((unsigned char)*p)
		    && strchr("-_.+", *p) == NULL))
			return 0;
	return 1;
}

/* One conda-meta/<name>-<version>-<build>.json.  Records list every file
 * of their package and weigh megabytes, so the three fields we keep are
 * cached under the record's identity. */
static void
conda_record(struct ep_collect *c, json_t *seen, int dfd, const char *mdir,
    const char *ent)
{
	struct ep_err rerr = { 0 };
	char *path = xasprintf("%s/%s", mdir, ent), *text = NULL, *key, *val;
	const char *hit = NULL, *name, *version, *build;
	json_t *rec = NULL, *j = NULL, *prev;
	json_error_t jerr;
	struct stat st;
	size_t len = 0;

	if (fstatat(dfd, ent, &st, 0) < 0) {
		ep_manifest_warn(c->m, "%s: %s", path, strerror(errno));
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		ep_manifest_warn(c->m, "%s: not a regular file", path);
		goto done;
	}
	/* rec: [name, version, build], from the cache or the record. */
	if (c->cache != NULL &&
	    (hit = ep_cache_get(c->cache, "conda-meta-v1", &st)) != NULL &&
	    ((rec = json_loads(hit, 0, NULL)) == NULL ||
	    json_array_size(rec) != 3)) {
		json_decref(rec);
		rec = NULL;
		hit = NULL;
	}
	if (rec == NULL) {
		if (ep_read_regular(&text, &len, path, CONDA_META_MAX,
		    &rerr) < 0) {
			ep_manifest_warn(c->m, "%s", rerr.msg);
			goto done;
		}
		if ((j = json_loadb(text, len, 0, &jerr)) == NULL) {
			ep_manifest_warn(c->m, "%s: malformed JSON at line "
			    "%d: %s", path, jerr.line, jerr.text);
			goto done;
		}
		rec = json_pack("[O?O?O?]", json_object_get(j, "name"),
		    json_object_get(j, "version"), json_object_get(j, "build"));
	}
	name = json_string_value(json_array_get(rec, 0));
	version = json_string_value(json_array_get(rec, 1));
	build = json_string_value(json_array_get(rec, 2));
	if (name == NULL || version == NULL || !conda_name_valid(name)) {
		ep_manifest_warn(c->m, "%s: no valid \"name\" and \"version\" "
		    "(package skipped)", path);
		goto done;
	}
	if (hit == NULL && c->cache != NULL && (val = json_dumps(rec,
	    JSON_COMPACT | JSON_ENSURE_ASCII | JSON_ENCODE_ANY)) != NULL) {
		ep_cache_put(c->cache, "conda-meta-v1", &st, val);
		free(val);
	}
	if ((prev = json_object_get(seen, name)) != NULL) {
		ep_manifest_warn(c->m, "conda package %s is listed twice: %s "
		    "is used, %s is ignored", name, json_string_value(prev),
		    path);
		goto done;
	}
	json_object_set_new(seen, name, json_string(path));
	key = xasprintf("conda.pkg.%s", name);
	ep_manifest_set(c->m, key, version);
	free(key);
	if (build != NULL) {
		key = xasprintf("conda.build.%s", name);
		ep_manifest_set(c->m, key, build);
		free(key);
	}
done:
	json_decref(rec);
	json_decref(j);
	free(text);
	free(path);
}

int
ep_collect_conda(struct ep_collect *c, struct ep_err *err)
{
	const char *prefix = c->opts->conda_prefix;
	int named = prefix != NULL, rc = -1;
	struct ep_strv ents = { 0 };
	json_t *seen = json_object();
	struct dirent *de;
	char *mdir, *clean;
	DIR *d;

	if (!named && ((prefix = getenv("CONDA_PREFIX")) == NULL ||
	    *prefix == '\0')) {
		json_decref(seen);
		return 0;
	}
	mdir = xasprintf("%s/conda-meta", prefix);
	if ((d = opendir(mdir)) == NULL) {
		int e = errno;
		struct stat st;
		const char *why = stat(prefix, &st) < 0 ? strerror(errno) :
		    !S_ISDIR(st.st_mode) ? "not a directory" :
		    e == ENOENT || e == ENOTDIR ?
		    "not a conda environment (no conda-meta)" : strerror(e);

		if (named) {
			ep_err_set(err, EP_E_INPUT, "conda-prefix %s: %s",
			    prefix, why);
			goto done;
		}
		ep_manifest_unavailable(c->m, "conda", "CONDA_PREFIX=%s: %s",
		    prefix, why);
		rc = 0;
		goto done;
	}
	/* What was inspected (meta: never compared), as it was named. */
	clean = ep_utf8_sanitize(prefix, strlen(prefix));
	json_object_set_new(c->m->meta, "conda", json_pack("{s:s}", "prefix",
	    clean));
	free(clean);
	while ((de = readdir(d)) != NULL)
		if (ep_endswith(de->d_name, ".json") && de->d_name[0] != '.')
			ep_strv_push(&ents, de->d_name);
	ep_strv_sort(&ents);
	for (size_t i = 0; i < ents.n; i++)
		conda_record(c, seen, dirfd(d), mdir, ents.v[i]);
	closedir(d);
	rc = 0;
done:
	ep_strv_clear(&ents);
	json_decref(seen);
	free(mdir);
	return rc;
}
