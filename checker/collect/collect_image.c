/*
 * collect_image.c: the container images named with --image, resolved in
 * one batch (registries concurrently, local images in turn) into
 * image.<name>.digest, .media_type, .platform_digest, .platform and
 * .config_digest.
 *
 * An image that cannot be resolved stops the capture: a manifest must
 * never hold a wrong or partial digest, and an image the user named but
 * that is missing from the manifest would read as drift only later.
 */
#include <stdlib.h>
#include <string.h>

#include "collect.h"
#include "image.h"

static void
set_fact(struct ep_manifest *m, const char *name, const char *what,
    const char *value)
{
	char *key;

	if (value == NULL)
		return;
	key = xasprintf("image.%s.%s", name, what);
	ep_manifest_set(m, key, value);
	free(key);
}

int
ep_collect_image(struct ep_collect *c, struct ep_err *err)
{
	const struct ep_strv *in = &c->opts->images;
	struct ep_imgopt o = c->opts->img;	/* shallow: never cleared */
	struct ep_imgref *refs;
	struct ep_imgres *res = NULL;
	size_t n = 0, failed = 0, first = 0;
	int rc = -1, kind = 0;

	if (in->n == 0)
		return 0;
	/* Options made without ep_imgopt_init (a zeroed struct). */
	if (o.platform == NULL)
		ep_imgopt_init(&o);
	o.no_cache = c->opts->no_cache;
	refs = xcalloc(in->n, sizeof *refs);
	for (size_t i = 0; i < in->n; i++)
		if (ep_imgrefs_add(refs, &n, in->v[i], err) < 0)
			goto done;	/* err names the reference and part */
	res = xcalloc(n, sizeof *res);
	if ((failed = ep_image_resolve(refs, n, &o, res)) > 0) {
		for (size_t i = 0; i < n; i++) {
			if (res[i].err.kind == 0)
				continue;
			if (kind == 0)
				first = i;
			/* A registry that failed us outranks bad input. */
			if (res[i].err.kind > kind)
				kind = res[i].err.kind;
		}
		if (failed > 1)
			ep_err_set(err, kind, "%s (and %zu more images not "
			    "resolved)", res[first].err.msg, failed - 1);
		else
			ep_err_set(err, kind, "%s", res[first].err.msg);
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		set_fact(c->m, refs[i].name, "digest", res[i].digest);
		set_fact(c->m, refs[i].name, "media_type", res[i].media_type);
		set_fact(c->m, refs[i].name, "platform_digest",
		    res[i].platform_digest);
		set_fact(c->m, refs[i].name, "platform", res[i].platform);
		set_fact(c->m, refs[i].name, "config_digest",
		    res[i].config_digest);
	}
	rc = 0;
done:
	ep_images_free(refs, res, n);
	return rc;
}
