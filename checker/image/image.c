/*
 * image.c: the registry options, and resolving a batch of references:
 * registry ones together (regsession.c resolves them concurrently), local
 * ones in turn (imglocal.c); then an explicit --platform is held against
 * every reference that names a single image.
 */
#include "image.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "imglocal.h"
#include "regauth.h"
#include "registry.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"

void
ep_imgopt_init(struct ep_imgopt *o)
{
	memset(o, 0, sizeof *o);
	o->platform = "linux/amd64";
	o->connect_timeout_ms = 5000;
	o->timeout_ms = 30000;
	o->max_body = 4 << 20;
	o->retries = 3;
}

void
ep_imgopt_clear(struct ep_imgopt *o)
{
	ep_strv_clear(&o->insecure);
	ep_strv_clear(&o->auth_realms);
}

int
ep_image_platform_valid(const char *s)
{
	size_t parts = 1;

	if (*s == '\0' || *s == '/')
		return 0;
	for (const char *p = s; *p != '\0'; p++) {
		if (*p == '/') {
			if (p[1] == '\0' || p[1] == '/')
				return 0;
			parts++;
		} else if (!((*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '_' || *p == '.' ||
		    *p == '-'))
			return 0;
	}
	return parts == 2 || parts == 3;
}

int
ep_imgrefs_add(struct ep_imgref *refs, size_t *n, const char *s,
    struct ep_err *err)
{
	struct ep_imgref r;

	if (ep_imgref_parse(&r, s, err) < 0)
		return -1;
	for (size_t k = 0; k < *n; k++)
		if (strcmp(refs[k].name, r.name) == 0) {
			ep_imgref_clear(&r);
			return 0;
		}
	refs[(*n)++] = r;
	return 0;
}

void
ep_images_free(struct ep_imgref *refs, struct ep_imgres *res, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		ep_imgref_clear(&refs[i]);
		if (res != NULL)
			ep_imgres_clear(&res[i]);
	}
	free(refs);
	free(res);
}

/* One part of "os/arch[/variant]": the n-th (0..2), bounded; "" when
 * absent. */
static void
platform_part(const char *p, int n, char out[64])
{
	size_t len;

	for (; n > 0 && p != NULL; n--)
		if ((p = strchr(p, '/')) != NULL)
			p++;
	len = p != NULL ? strcspn(p, "/") : 0;
	snprintf(out, 64, "%.*s", (int)(len < 63 ? len : 63),
	    p != NULL ? p : "");
}

/* Does the image's platform have the one asked for?  os and
 * architecture equal, and the variant when both give one; arm64 alone is
 * arm64/v8 (as in ep_imgdoc_pick). */
static int
platform_matches(const char *have, const char *want)
{
	char hos[64], harch[64], hvar[64], wos[64], warch[64], wvar[64];

	platform_part(have, 0, hos);
	platform_part(have, 1, harch);
	platform_part(have, 2, hvar);
	platform_part(want, 0, wos);
	platform_part(want, 1, warch);
	platform_part(want, 2, wvar);
	if (strcmp(hos, wos) != 0 || strcmp(harch, warch) != 0)
		return 0;
	if (strcmp(harch, "arm64") == 0) {
		if (hvar[0] == '\0')
			snprintf(hvar, sizeof hvar, "v8");
		if (wvar[0] == '\0')
			snprintf(wvar, sizeof wvar, "v8");
	}
	return hvar[0] == '\0' || wvar[0] == '\0' || strcmp(hvar, wvar) == 0;
}

static int
is_index_type(const char *mt)
{
	return mt != NULL && (strcmp(mt, EP_MT_OCI_INDEX) == 0 ||
	    strcmp(mt, EP_MT_DOCKER_LIST) == 0);
}

/* An explicit --platform against a reference that names one image (an
 * index was walked to that platform already): EP_E_INPUT when the image
 * is of another platform or names none (see ep_image_resolve). */
static void
platform_check(const struct ep_imgref *ref, const struct ep_imgopt *o,
    struct ep_imgres *res)
{
	char where[300] = "";
	const char *what;

	if (!o->platform_explicit || res->err.kind != 0 ||
	    res->digest == NULL || is_index_type(res->media_type))
		return;
	if (ref->kind == EP_IMG_REGISTRY)
		snprintf(where, sizeof where, "registry %s: ", ref->registry);
	what = res->platform_digest == NULL ? "a legacy docker-archive holds "
	    "a single image, not an index" : "it names a single manifest, not "
	    "an index";
	if (res->platform == NULL)
		ep_err_set(&res->err, EP_E_INPUT, "%s: %sthe image config names "
		    "no platform (os and architecture), so --platform %s "
		    "cannot be checked (%s)", ref->name, where, o->platform,
		    what);
	else if (!platform_matches(res->platform, o->platform))
		ep_err_set(&res->err, EP_E_INPUT, "%s: %sthe image is %s, not "
		    "%s (%s)", ref->name, where, res->platform, o->platform,
		    what);
}

size_t
ep_image_resolve(const struct ep_imgref *refs, size_t n,
    const struct ep_imgopt *o, struct ep_imgres *out)
{
	const struct ep_imgref **rv = xcalloc(n ? n : 1, sizeof *rv);
	struct ep_imgres **ov = xcalloc(n ? n : 1, sizeof *ov);
	size_t nr = 0, failed = 0;

	for (size_t i = 0; i < n; i++) {
		memset(&out[i], 0, sizeof out[i]);
		if (refs[i].kind == EP_IMG_REGISTRY) {
			rv[nr] = &refs[i];
			ov[nr++] = &out[i];
		} else
			ep_imglocal_resolve(&refs[i], o, &out[i]);
	}
	if (nr > 0)
		ep_registry_resolve(rv, nr, o, ov);
	for (size_t i = 0; i < n; i++) {
		platform_check(&refs[i], o, &out[i]);
		if (out[i].err.kind == 0 && out[i].digest == NULL)
			ep_err_set(&out[i].err, EP_E_IO, "%s: not resolved",
			    refs[i].name);
		if (out[i].err.kind != 0) {
			/* Never a digest beside an error. */
			struct ep_err e = out[i].err;

			ep_imgres_clear(&out[i]);
			out[i].err = e;
			failed++;
		}
	}
	free(rv);
	free(ov);
	return failed;
}
