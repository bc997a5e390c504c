/*
 * image.c: the registry options, and resolving a batch of references:
 * registry ones together (registry.c resolves them concurrently), local
 * ones in turn (imglocal.c).
 */
#include "image.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
}

static int
platform_valid(const char *s)
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
ep_image_opt(struct ep_imgopt *o, int c, const char *arg, struct ep_err *err)
{
	char *end;
	double secs;

	switch (c) {
	case EP_OPT_PLATFORM:
		if (!platform_valid(arg))
			return ep_err_set(err, EP_E_INPUT, "--platform %s: "
			    "expected OS/ARCH or OS/ARCH/VARIANT in lowercase",
			    arg);
		o->platform = arg;
		return 1;
	case EP_OPT_REGISTRY_CA:
		o->ca_file = arg;
		return 1;
	case EP_OPT_INSECURE_REGISTRY:
		if (*arg == '\0' || strchr(arg, '/') != NULL)
			return ep_err_set(err, EP_E_INPUT,
			    "--insecure-registry %s: expected HOST[:PORT]",
			    arg);
		ep_strv_push(&o->insecure, arg);
		return 1;
	case EP_OPT_REGISTRY_AUTH_FILE:
		o->auth_file = arg;
		return 1;
	case EP_OPT_REGISTRY_TIMEOUT:
		errno = 0;
		secs = strtod(arg, &end);
		if (errno != 0 || end == arg || *end != '\0' || !(secs > 0) ||
		    secs > 3600)
			return ep_err_set(err, EP_E_INPUT,
			    "--registry-timeout %s: expected seconds, "
			    "more than 0 and at most 3600", arg);
		o->timeout_ms = (long)(secs * 1000);
		if (o->timeout_ms < 1)
			o->timeout_ms = 1;
		if (o->connect_timeout_ms > o->timeout_ms)
			o->connect_timeout_ms = o->timeout_ms;
		return 1;
	}
	return 0;
}

void
ep_imgres_clear(struct ep_imgres *r)
{
	free(r->digest);
	free(r->media_type);
	free(r->platform_digest);
	free(r->platform);
	free(r->config_digest);
	memset(r, 0, sizeof *r);
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
