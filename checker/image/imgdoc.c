/*
 * imgdoc.c: the documents a registry and a local image both walk: an
 * index (OCI image index or Docker manifest list) that names one manifest
 * per platform, and a manifest that names its config.  Parsing is only
 * for finding the way; every digest reported is checked against the
 * exact bytes elsewhere (ep_digest_matches).
 */
#include "imgtypes.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hash.h"
#include "errors.h"
#include "xalloc.h"

int
ep_digest_matches(const char *digest, const void *data, size_t len)
{
	char hex[EP_SHA256_HEX];

	if (!ep_digest_valid(digest))
		return 0;
	ep_hash_buf(hex, data, len);
	return strcmp(hex, digest + 7) == 0;
}

void
ep_imgdoc_clear(struct ep_imgdoc *d)
{
	free(d->media_type);
	free(d->config_digest);
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].digest);
		free(d->v[i].media_type);
		free(d->v[i].platform);
	}
	free(d->v);
	memset(d, 0, sizeof *d);
}

/* An optional string member: 0 absent, 1 present (*out borrowed), -1
 * present but not a string. */
static int
opt_string(const json_t *o, const char *key, const char **out)
{
	json_t *v = json_object_get(o, key);

	*out = NULL;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v))
		return -1;
	*out = json_string_value(v);
	return 1;
}

static int
is_index_type(const char *mt)
{
	return strcmp(mt, EP_MT_OCI_INDEX) == 0 ||
	    strcmp(mt, EP_MT_DOCKER_LIST) == 0;
}

static int
is_manifest_type(const char *mt)
{
	return strcmp(mt, EP_MT_OCI_MANIFEST) == 0 ||
	    strcmp(mt, EP_MT_DOCKER_MANIFEST) == 0;
}

/* "os/arch[/variant]" of a descriptor's platform; 0 none, -1 bad. */
/* 1 if s is one part of a platform (os, architecture or variant): what
 * OCI and docker use, [A-Za-z0-9._-], and nothing that could break a
 * line or a field of our output. */
static int
platform_part_ok(const char *s)
{
	if (*s == '\0')
		return 0;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '.' && *s != '_' &&
		    *s != '-')
			return 0;
	return 1;
}

static int
platform_of(const json_t *e, char **out)
{
	json_t *p = json_object_get(e, "platform");
	const char *os, *arch, *variant;

	*out = NULL;
	if (p == NULL || json_is_null(p))
		return 0;
	if (!json_is_object(p) || opt_string(p, "os", &os) != 1 ||
	    opt_string(p, "architecture", &arch) != 1 ||
	    opt_string(p, "variant", &variant) < 0 ||
	    !platform_part_ok(os) || !platform_part_ok(arch) ||
	    (variant != NULL && *variant != '\0' &&
	    !platform_part_ok(variant)))
		return -1;
	if (variant != NULL && *variant != '\0')
		*out = xasprintf("%s/%s/%s", os, arch, variant);
	else
		*out = xasprintf("%s/%s", os, arch);
	return 0;
}

static int
parse_index(struct ep_imgdoc *d, const json_t *root, struct ep_err *err)
{
	json_t *ms = json_object_get(root, "manifests");
	size_t i;
	json_t *e;

	if (ms == NULL)
		return ep_err_set(err, EP_E_INPUT, "index has no manifests");
	if (!json_is_array(ms))
		return ep_err_set(err, EP_E_INPUT,
		    "index: manifests is not an array");
	d->is_index = 1;
	d->v = xcalloc(json_array_size(ms) ? json_array_size(ms) : 1,
	    sizeof *d->v);
	json_array_foreach(ms, i, e) {
		struct ep_imgdoc_entry *en = &d->v[d->n];
		const char *dg, *mt;

		if (!json_is_object(e))
			return ep_err_set(err, EP_E_INPUT,
			    "index: manifests[%zu] is not an object", i);
		if (opt_string(e, "digest", &dg) != 1 || !ep_digest_valid(dg))
			return ep_err_set(err, EP_E_INPUT,
			    "index: bad digest in manifests[%zu]", i);
		if (opt_string(e, "mediaType", &mt) < 0)
			return ep_err_set(err, EP_E_INPUT, "index: "
			    "mediaType of manifests[%zu] is not a string", i);
		if (platform_of(e, &en->platform) < 0)
			return ep_err_set(err, EP_E_INPUT,
			    "index: bad platform in manifests[%zu]", i);
		en->digest = xstrdup(dg);
		en->media_type = mt != NULL ? xstrdup(mt) : NULL;
		d->n++;
	}
	return 0;
}

static int
parse_manifest(struct ep_imgdoc *d, const json_t *root, struct ep_err *err)
{
	json_t *cfg = json_object_get(root, "config");
	const char *dg;

	if (cfg == NULL)
		return ep_err_set(err, EP_E_INPUT, "manifest has no config");
	if (!json_is_object(cfg))
		return ep_err_set(err, EP_E_INPUT,
		    "manifest: config is not an object");
	if (opt_string(cfg, "digest", &dg) != 1)
		return ep_err_set(err, EP_E_INPUT,
		    "manifest: no config digest");
	if (!ep_digest_valid(dg))
		return ep_err_set(err, EP_E_INPUT, "manifest: bad config "
		    "digest (expected sha256: and 64 lowercase hex digits)");
	d->config_digest = xstrdup(dg);
	return 0;
}

int
ep_imgdoc_parse(struct ep_imgdoc *d, const char *body, size_t len,
    const char *content_type, struct ep_err *err)
{
	json_t *root, *sv;
	json_error_t je;
	const char *mt;
	char *ct = NULL;
	int rc = -1;

	memset(d, 0, sizeof *d);
	if ((root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je)) ==
	    NULL) {
		ep_err_set(err, EP_E_INPUT, "not JSON: %s (line %d)", je.text,
		    je.line);
		return -1;
	}
	if (!json_is_object(root)) {
		ep_err_set(err, EP_E_INPUT, "not a JSON object");
		goto done;
	}
	sv = json_object_get(root, "schemaVersion");
	if (sv != NULL && !(json_is_integer(sv) &&
	    json_integer_value(sv) == 2)) {
		ep_err_set(err, EP_E_INPUT, "schemaVersion is not 2");
		goto done;
	}
	if (opt_string(root, "mediaType", &mt) < 0) {
		ep_err_set(err, EP_E_INPUT, "mediaType is not a string");
		goto done;
	}
	if (mt == NULL && content_type != NULL) {
		/* "type/subtype; charset=..." */
		ct = xstrndup(content_type, strcspn(content_type, "; \t"));
		if (is_index_type(ct) || is_manifest_type(ct))
			mt = ct;
	}
	if (mt == NULL)
		mt = json_object_get(root, "manifests") != NULL ?
		    EP_MT_OCI_INDEX : EP_MT_OCI_MANIFEST;
	if (is_index_type(mt))
		rc = parse_index(d, root, err);
	else if (is_manifest_type(mt))
		rc = parse_manifest(d, root, err);
	else
		ep_err_set(err, EP_E_INPUT, "unsupported media type %.200s",
		    mt);
	if (rc == 0)
		d->media_type = xstrdup(mt);
done:
	if (rc < 0)
		ep_imgdoc_clear(d);
	free(ct);
	json_decref(root);
	return rc;
}

/* Split "os/arch[/variant]" into three bounded strings. */
static void
split_platform(const char *p, char os[64], char arch[64], char var[64])
{
	const char *a, *v;

	os[0] = arch[0] = var[0] = '\0';
	a = strchr(p, '/');
	snprintf(os, 64, "%.*s", a != NULL ? (int)(a - p) : 63, p);
	if (a == NULL)
		return;
	v = strchr(a + 1, '/');
	snprintf(arch, 64, "%.*s", v != NULL ? (int)(v - a - 1) : 63, a + 1);
	if (v != NULL)
		snprintf(var, 64, "%s", v + 1);
}

const struct ep_imgdoc_entry *
ep_imgdoc_pick(const struct ep_imgdoc *d, const char *platform, char **why)
{
	char wos[64], warch[64], wvar[64], os[64], arch[64], var[64];
	const struct ep_imgdoc_entry *best = NULL;
	int best_score = 0;
	size_t len = 0;
	const char *slash;
	int asked_variant;
	char *list;

	if (why != NULL)
		*why = NULL;
	split_platform(platform, wos, warch, wvar);
	slash = strchr(platform, '/');
	asked_variant = slash != NULL && strchr(slash + 1, '/') != NULL;
	/* arm64's variant is v8 unless said otherwise (containerd). */
	if (strcmp(warch, "arm64") == 0 && wvar[0] == '\0')
		snprintf(wvar, sizeof wvar, "v8");
	for (size_t i = 0; i < d->n; i++) {
		int score;

		if (d->v[i].platform == NULL)
			continue;
		split_platform(d->v[i].platform, os, arch, var);
		if (strcmp(arch, "arm64") == 0 && var[0] == '\0')
			snprintf(var, sizeof var, "v8");
		if (strcmp(os, wos) != 0 || strcmp(arch, warch) != 0)
			continue;
		if (strcmp(var, wvar) == 0)
			score = 3;
		else if (!asked_variant)
			/* No variant asked for: any will do, the plain
			 * one first. */
			score = var[0] == '\0' ? 2 : 1;
		else
			continue;
		if (score > best_score) {
			best = &d->v[i];
			best_score = score;
		}
	}
	if (best != NULL || why == NULL)
		return best;
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].platform != NULL)
			len += strlen(d->v[i].platform) + 2;
	list = xcalloc(1, len + 16);
	for (size_t i = 0; i < d->n; i++) {
		const char *p = d->v[i].platform;

		/* Attestations and other non-images. */
		if (p == NULL || strcmp(p, "unknown/unknown") == 0)
			continue;
		if (*list != '\0')
			strcat(list, ", ");
		strcat(list, p);
	}
	if (*list == '\0')
		strcpy(list, "no platforms");
	*why = list;
	return NULL;
}

char *
ep_imgconfig_platform(const char *buf, size_t len, struct ep_err *err)
{
	json_t *c = json_loadb(buf, len, 0, NULL), *os, *arch, *var;
	char *p = NULL;

	if (c == NULL || !json_is_object(c)) {
		ep_err_set(err, EP_E_INPUT, "image config is not a JSON "
		    "object");
		json_decref(c);
		return NULL;
	}
	os = json_object_get(c, "os");
	arch = json_object_get(c, "architecture");
	var = json_object_get(c, "variant");
	if ((json_is_string(os) && !platform_part_ok(json_string_value(os))) ||
	    (json_is_string(arch) &&
	    !platform_part_ok(json_string_value(arch))) ||
	    (json_is_string(var) && *json_string_value(var) != '\0' &&
	    !platform_part_ok(json_string_value(var)))) {
		ep_err_set(err, EP_E_INPUT, "image config names a platform "
		    "with characters no platform has");
		json_decref(c);
		return NULL;
	}
	if (json_is_string(os) && json_is_string(arch) &&
	    *json_string_value(os) != '\0' &&
	    *json_string_value(arch) != '\0')
		p = json_is_string(var) && *json_string_value(var) != '\0' ?
		    xasprintf("%s/%s/%s", json_string_value(os),
		    json_string_value(arch), json_string_value(var)) :
		    xasprintf("%s/%s", json_string_value(os),
		    json_string_value(arch));
	json_decref(c);
	return p;
}
