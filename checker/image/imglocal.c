/*
 * imglocal.c: resolve local images: an OCI image layout directory
 * (oci:DIR[:TAG]) and a `docker save` archive (docker-archive:FILE[:REF]).
 *
 * A layout is walked the way a registry is: index.json names the image
 * (by the org.opencontainers.image.ref.name annotation), its descriptor's
 * digest is what the reference points to, an index then names one
 * manifest per platform, and the manifest names its config.  Every blob
 * read must hash to its name, or the reference fails naming the blob.
 *
 * An archive that carries an OCI layout (docker 25 and later) is walked
 * the same way inside the tar.  A legacy archive (manifest.json only, as
 * skopeo and older docker write) has no registry manifest: its layers
 * were recompressed or never compressed, so any manifest digest would be
 * made up.  It records what it does carry: the image config's digest (the
 * image ID), as both digest and config_digest, with the config's media
 * type and no platform_digest.
 */
#include "imglocal.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "hash.h"
#include "imgtar.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "xalloc.h"

#define REF_NAME	"org.opencontainers.image.ref.name"
#define CTD_NAME	"io.containerd.image.name"
#define MT_DOCKER_CONFIG "application/vnd.docker.container.image.v1+json"

/* Where the files are: a directory or a tar. */
struct src {
	const char *dir;
	struct ep_tar *tar;
	size_t max;
};

static int
src_read(const struct src *s, const char *rel, char **buf, size_t *len,
    struct ep_err *err)
{
	char *path;
	int rc;

	if (s->tar != NULL)
		return ep_tar_read(s->tar, rel, s->max, buf, len, err);
	path = xasprintf("%s/%s", s->dir, rel);
	rc = ep_read_regular(buf, len, path, s->max, err);
	free(path);
	return rc;
}

static int
src_has(const struct src *s, const char *rel)
{
	struct stat st;
	char *path;
	int rc;

	if (s->tar != NULL)
		return ep_tar_find(s->tar, rel) != NULL;
	path = xasprintf("%s/%s", s->dir, rel);
	rc = stat(path, &st) == 0;
	free(path);
	return rc;
}

/* Read the blob digest names and check that it hashes to that name. */
static int
read_blob(const struct src *s, const char *digest, char **buf, size_t *len,
    struct ep_err *err)
{
	char rel[96];

	snprintf(rel, sizeof rel, "blobs/sha256/%s", digest + 7);
	if (src_read(s, rel, buf, len, err) < 0)
		return -1;
	if (!ep_digest_matches(digest, *buf, *len)) {
		free(*buf);
		*buf = NULL;
		return ep_err_set(err, EP_E_INPUT, "blob %s: its content does "
		    "not hash to its name (changed or corrupt)", rel);
	}
	return 0;
}

/* Read the config a manifest names; fill config_digest and, when not yet
 * known, platform. */
static int
walk_config(const struct src *s, const char *digest, struct ep_imgres *out,
    struct ep_err *err)
{
	char *buf;
	size_t len;
	struct ep_err e2 = { 0 };

	if (read_blob(s, digest, &buf, &len, err) < 0)
		return -1;
	if (out->platform == NULL)
		out->platform = ep_imgconfig_platform(buf, len, &e2);
	free(buf);
	if (e2.kind != 0)
		return ep_err_set(err, EP_E_INPUT, "config %s: %s", digest,
		    e2.msg);
	out->config_digest = xstrdup(digest);
	return 0;
}

/* From the document digest names (an index or a manifest) down to the
 * platform's manifest and its config. */
static int
walk(const struct src *s, const char *digest, const char *platform,
    struct ep_imgres *out, struct ep_err *err)
{
	struct ep_imgdoc d, m;
	const struct ep_imgdoc_entry *e;
	struct ep_err e2 = { 0 };
	char *buf = NULL, *why = NULL;
	size_t len;
	int rc = -1;

	memset(&m, 0, sizeof m);
	if (read_blob(s, digest, &buf, &len, err) < 0)
		return -1;
	if (ep_imgdoc_parse(&d, buf, len, NULL, &e2) < 0) {
		free(buf);
		return ep_err_set(err, EP_E_INPUT, "%s: %s", digest, e2.msg);
	}
	free(buf);
	buf = NULL;
	out->digest = xstrdup(digest);
	out->media_type = xstrdup(d.media_type);
	if (!d.is_index) {
		out->platform_digest = xstrdup(digest);
		rc = walk_config(s, d.config_digest, out, err);
		goto done;
	}
	if ((e = ep_imgdoc_pick(&d, platform, &why)) == NULL) {
		ep_err_set(err, EP_E_INPUT, "index %s has no manifest for "
		    "platform %s (it has: %s)", digest, platform, why);
		goto done;
	}
	if (read_blob(s, e->digest, &buf, &len, err) < 0)
		goto done;
	if (ep_imgdoc_parse(&m, buf, len, e->media_type, &e2) < 0) {
		ep_err_set(err, EP_E_INPUT, "%s: %s", e->digest, e2.msg);
		goto done;
	}
	if (m.is_index) {
		ep_err_set(err, EP_E_INPUT, "%s: an index inside an index",
		    e->digest);
		goto done;
	}
	out->platform_digest = xstrdup(e->digest);
	out->platform = xstrdup(e->platform);
	rc = walk_config(s, m.config_digest, out, err);
done:
	free(buf);
	free(why);
	ep_imgdoc_clear(&d);
	ep_imgdoc_clear(&m);
	return rc;
}

/* Does index.json's entry e carry the name the user asked for?  For a
 * layout, the ref.name annotation equals the tag; inside an archive, the
 * containerd image name is the same image as REF once both are
 * normalized (ref.name equal to REF as written also counts). */
static int
entry_matches(const json_t *e, const char *want, int archive)
{
	json_t *a = json_object_get(e, "annotations");
	const char *rn = json_string_value(json_object_get(a, REF_NAME));
	const char *cn = json_string_value(json_object_get(a, CTD_NAME));
	struct ep_imgref x, y;
	struct ep_err e2 = { 0 };
	int ok = 0;

	if (rn != NULL && strcmp(rn, want) == 0)
		return 1;
	if (!archive || cn == NULL)
		return 0;
	if (ep_imgref_parse(&x, want, &e2) == 0) {
		if (ep_imgref_parse(&y, cn, &e2) == 0) {
			ok = strcmp(x.name, y.name) == 0;
			ep_imgref_clear(&y);
		}
		ep_imgref_clear(&x);
	}
	return ok;
}

/* The names index.json's entries carry, for messages: a new string. */
static char *
entry_names(const json_t *ms, int archive)
{
	char *list = xstrdup(""), *t;
	size_t i;
	json_t *e;

	json_array_foreach(ms, i, e) {
		json_t *a = json_object_get(e, "annotations");
		const char *n = json_string_value(json_object_get(a,
		    archive ? CTD_NAME : REF_NAME));

		if (n == NULL && archive)
			n = json_string_value(json_object_get(a, REF_NAME));
		if (n == NULL)
			n = "(untagged)";
		t = xasprintf("%s%s%s", list, *list ? ", " : "", n);
		free(list);
		list = t;
	}
	return list;
}

/* An OCI layout (in a directory or a tar): pick the image by tag, walk. */
static int
resolve_layout(const struct src *s, const char *tag, int archive,
    const char *platform, struct ep_imgres *out, struct ep_err *err)
{
	json_t *lay = NULL, *idx = NULL, *ms, *v, *e;
	struct ep_imgdoc d;
	struct ep_err e2 = { 0 };
	char *buf = NULL, *names = NULL;
	size_t len, i, hits = 0, pick = 0;
	int rc = -1;

	memset(&d, 0, sizeof d);
	if (src_read(s, "oci-layout", &buf, &len, &e2) < 0) {
		ep_err_set(err, EP_E_INPUT, "not an OCI image layout: %s",
		    e2.msg);
		goto done;
	}
	lay = json_loadb(buf, len, 0, NULL);
	free(buf);
	buf = NULL;
	v = json_object_get(lay, "imageLayoutVersion");
	if (!json_is_string(v)) {
		ep_err_set(err, EP_E_INPUT, "oci-layout: no "
		    "imageLayoutVersion");
		goto done;
	}
	if (!ep_startswith(json_string_value(v), "1.")) {
		ep_err_set(err, EP_E_INPUT, "oci-layout: unsupported "
		    "imageLayoutVersion '%.40s'", json_string_value(v));
		goto done;
	}
	if (src_read(s, "index.json", &buf, &len, &e2) < 0) {
		ep_err_set(err, EP_E_INPUT, "%s", e2.msg);
		goto done;
	}
	if (ep_imgdoc_parse(&d, buf, len, EP_MT_OCI_INDEX, &e2) < 0 ||
	    !d.is_index) {
		ep_err_set(err, EP_E_INPUT, "index.json: %s", e2.kind != 0 ?
		    e2.msg : "not an index");
		goto done;
	}
	/* Parsed once more for the annotations imgdoc does not keep; its
	 * entries are in the same order. */
	idx = json_loadb(buf, len, 0, NULL);
	ms = json_object_get(idx, "manifests");
	if (tag == NULL) {
		if (d.n != 1) {
			names = entry_names(ms, archive);
			ep_err_set(err, EP_E_INPUT, "index.json has %zu "
			    "images; name one (%s)", d.n, *names != '\0' ?
			    names : "none");
			goto done;
		}
		pick = 0;
	} else {
		json_array_foreach(ms, i, e) {
			if (entry_matches(e, tag, archive)) {
				hits++;
				pick = i;
			}
		}
		if (hits != 1) {
			names = entry_names(ms, archive);
			if (hits == 0)
				ep_err_set(err, EP_E_INPUT, "no image '%s' in "
				    "index.json (it has: %s)", tag,
				    *names != '\0' ? names : "none");
			else
				ep_err_set(err, EP_E_INPUT, "%zu images are "
				    "named '%s' in index.json", hits, tag);
			goto done;
		}
	}
	rc = walk(s, d.v[pick].digest, platform, out, err);
done:
	free(buf);
	free(names);
	json_decref(lay);
	json_decref(idx);
	ep_imgdoc_clear(&d);
	return rc;
}

/* A legacy `docker save` archive: manifest.json names the config. */
static int
resolve_legacy(const struct src *s, const char *ref, struct ep_imgres *out,
    struct ep_err *err)
{
	json_t *root = NULL, *e, *tags, *t, *chosen = NULL;
	struct ep_err e2 = { 0 };
	struct ep_imgref want;
	char *buf = NULL, *list = NULL, *tmp, named[72];
	char hex[EP_SHA256_HEX];
	const char *cfg, *base;
	size_t len, i, j, hits = 0;
	int rc = -1;

	memset(&want, 0, sizeof want);
	if (src_read(s, "manifest.json", &buf, &len, &e2) < 0) {
		ep_err_set(err, EP_E_INPUT, "not a docker archive: %s",
		    e2.msg);
		goto done;
	}
	root = json_loadb(buf, len, 0, NULL);
	free(buf);
	buf = NULL;
	if (!json_is_array(root) || json_array_size(root) == 0) {
		ep_err_set(err, EP_E_INPUT, "manifest.json: not a non-empty "
		    "JSON array");
		goto done;
	}
	if (ref != NULL && ep_imgref_parse(&want, ref, err) < 0)
		goto done;
	list = xstrdup("");
	json_array_foreach(root, i, e) {
		tags = json_object_get(e, "RepoTags");
		json_array_foreach(tags, j, t) {
			struct ep_imgref have;

			if (!json_is_string(t))
				continue;
			tmp = xasprintf("%s%s%s", list, *list ? ", " : "",
			    json_string_value(t));
			free(list);
			list = tmp;
			if (ref == NULL || ep_imgref_parse(&have,
			    json_string_value(t), &e2) < 0)
				continue;
			if (strcmp(have.name, want.name) == 0) {
				hits++;
				chosen = e;
			}
			ep_imgref_clear(&have);
		}
	}
	if (ref == NULL) {
		if (json_array_size(root) != 1) {
			ep_err_set(err, EP_E_INPUT, "the archive holds %zu "
			    "images; name one (%s)", json_array_size(root),
			    *list != '\0' ? list : "untagged");
			goto done;
		}
		chosen = json_array_get(root, 0);
	} else if (hits != 1) {
		ep_err_set(err, EP_E_INPUT, hits == 0 ? "no image '%s' in "
		    "the archive (it has: %s)" : "image '%s' appears more "
		    "than once in the archive (%s)", ref,
		    *list != '\0' ? list : "untagged");
		goto done;
	}
	if (!json_is_object(chosen) || (cfg = json_string_value(
	    json_object_get(chosen, "Config"))) == NULL) {
		ep_err_set(err, EP_E_INPUT, "manifest.json: no Config");
		goto done;
	}
	if (src_read(s, cfg, &buf, &len, err) < 0)
		goto done;
	/* The image ID is the config's digest.  Named by its digest
	 * ("<hex>.json", "blobs/sha256/<hex>"), the content must match. */
	ep_hash_buf(hex, buf, len);
	base = strrchr(cfg, '/') != NULL ? strrchr(cfg, '/') + 1 : cfg;
	snprintf(named, sizeof named, "sha256:%.64s", base);
	if (strlen(base) >= 64 && ep_digest_valid(named) &&
	    (base[64] == '\0' || strcmp(base + 64, ".json") == 0) &&
	    strcmp(named + 7, hex) != 0) {
		ep_err_set(err, EP_E_INPUT, "config %s: its content does not "
		    "hash to its name (changed or corrupt)", cfg);
		goto done;
	}
	out->platform = ep_imgconfig_platform(buf, len, &e2);
	if (e2.kind != 0) {
		ep_err_set(err, EP_E_INPUT, "config %s: %s", cfg, e2.msg);
		goto done;
	}
	out->digest = xasprintf("sha256:%s", hex);
	out->config_digest = xstrdup(out->digest);
	out->media_type = xstrdup(MT_DOCKER_CONFIG);
	rc = 0;
done:
	free(buf);
	free(list);
	ep_imgref_clear(&want);
	json_decref(root);
	return rc;
}

void
ep_imglocal_resolve(const struct ep_imgref *ref, const struct ep_imgopt *o,
    struct ep_imgres *out)
{
	struct ep_err err = { 0 };
	struct ep_tar tar;
	struct src s;
	struct stat st;
	int rc = -1;

	memset(out, 0, sizeof *out);
	memset(&s, 0, sizeof s);
	s.max = o->max_body;
	if (ref->kind == EP_IMG_OCI) {
		if (stat(ref->path, &st) < 0)
			ep_err_set(&err, EP_E_INPUT, "%s: %s", ref->path,
			    strerror(errno));
		else if (!S_ISDIR(st.st_mode))
			ep_err_set(&err, EP_E_INPUT, "%s: not a directory",
			    ref->path);
		else {
			s.dir = ref->path;
			rc = resolve_layout(&s, ref->tag, 0, o->platform, out,
			    &err);
		}
	} else if (ref->kind == EP_IMG_ARCHIVE) {
		if (ep_tar_open(&tar, ref->path, &err) == 0) {
			s.tar = &tar;
			if (src_has(&s, "index.json") &&
			    src_has(&s, "oci-layout"))
				rc = resolve_layout(&s, ref->tag, 1,
				    o->platform, out, &err);
			else
				rc = resolve_legacy(&s, ref->tag, out, &err);
			ep_tar_close(&tar);
		}
	} else
		ep_err_set(&err, EP_E_INPUT, "not a local image");
	if (rc < 0) {
		ep_imgres_clear(out);
		ep_err_set(&out->err, err.kind != 0 ? err.kind : EP_E_INPUT,
		    "%s: %s", ref->name, err.msg);
	}
}
