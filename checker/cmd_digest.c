/*
 * cmd_digest.c: `envparity digest REF... [--json] [registry options]`:
 * resolve image references to digests, all in one batch, and print one
 * line each, or one JSON document (envparity/digest@1).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clean.h"
#include "cmd.h"
#include "progress.h"
#include "image.h"
#include "errors.h"
#include "opt.h"
#include "xalloc.h"

#define EP_DIGEST_SCHEMA "envparity/digest@1"

static int cmd_digest_exec(const struct ep_cmd *, int, char **);

/* What the command line says. */
struct digest_opts {
	struct ep_imgopt img;
	int json;
};

#define DO struct digest_opts
static const struct ep_opt digest_opts[] = {
	EP_OPT_FLAG("json", 0, DO, json,
	    "print one JSON document instead (schema\n"
	    "envparity/digest@1:\n"
	    "share/envparity/schemas/digest.schema.json)"),
	EP_OPT_FLAG("no-cache", 0, DO, img.no_cache,
	    "fetch every document again; without it, documents\n"
	    "already read and verified are taken from the cache\n"
	    "by digest (one HEAD per reference)"),
	EP_OPT_GROUP_NOSTRUCT(ep_og_progress),
	EP_OPT_HELP,
	EP_OPT_GROUP(ep_og_image, DO, img, NULL),
	EP_OPT_END,
};
#undef DO

const struct ep_cmd ep_cmd_digest = {
	.name = "digest",
	.summary = "resolve container image references to digests",
	.usage =
"usage: envparity digest REF... [--json] [registry options]\n"
"\n"
"Resolve each image reference to the digest it points to (an index or a\n"
"manifest), the manifest for the platform, and that manifest's config.\n"
"References: [HOST[:PORT]/]NAME[:TAG][@sha256:HEX] (a registry; \"ubuntu\"\n"
"is docker.io/library/ubuntu:latest), oci:DIR[:TAG] (an OCI image layout)\n"
"and docker-archive:FILE[:NAME:TAG] (a `docker save` tar).  Every document\n"
"read is hashed and must match the digest that named it.\n"
"\n"
"Each resolved reference prints one line, in the order given:\n"
"  DIGEST PLATFORM_DIGEST CONFIG_DIGEST PLATFORM NAME\n"
"with \"-\" for a value the image does not have, and NAME the canonical\n"
"name (docker.io/library/ubuntu:latest).\n"
"\n",
	.opts = digest_opts,
	.footer =
"Exit codes: 0 all resolved, 2 usage, a malformed reference or a bad\n"
"local image, 3 a registry could not be reached or did not answer with\n"
"the image.  The resolved references are printed even when others fail;\n"
"each failure is one line on standard error.\n",
	.max_operands = -1,
	.exec = cmd_digest_exec,
};

static json_t *
str_or_null(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

static int
print_json(const struct ep_imgref *refs, const struct ep_imgres *res,
    size_t n, const struct ep_imgopt *o, struct ep_err *err)
{
	json_t *root = json_object(), *images = json_object();
	json_t *errors = json_object();

	json_object_set_new(root, "schema", json_string(EP_DIGEST_SCHEMA));
	json_object_set_new(root, "platform", json_string(o->platform));
	for (size_t i = 0; i < n; i++) {
		json_t *im;

		if (res[i].err.kind != 0) {
			json_object_set_new(errors, refs[i].name,
			    json_string(res[i].err.msg));
			continue;
		}
		im = json_object();
		json_object_set_new(im, "input", json_string(refs[i].input));
		json_object_set_new(im, "digest", json_string(res[i].digest));
		json_object_set_new(im, "media_type",
		    str_or_null(res[i].media_type));
		json_object_set_new(im, "platform_digest",
		    str_or_null(res[i].platform_digest));
		json_object_set_new(im, "platform",
		    str_or_null(res[i].platform));
		json_object_set_new(im, "config_digest",
		    str_or_null(res[i].config_digest));
		json_object_set_new(images, refs[i].name, im);
	}
	json_object_set_new(root, "images", images);
	json_object_set_new(root, "errors", errors);
	return ep_cmd_print_json(root, err);
}

#define DASH(s) ((s) != NULL ? (s) : "-")

static int
cmd_digest_exec(const struct ep_cmd *self, int argc, char **argv)
{
	struct digest_opts o = { 0 };
	struct ep_cmd_args args;
	struct ep_imgref *refs = NULL;
	struct ep_imgres *res = NULL;
	struct ep_err err = { 0 };
	size_t n = 0, nargs;
	int rc, bad = 0;

	ep_imgopt_init(&o.img);
	if (ep_opt_parse(&args, &rc, self, &o, argc, argv) < 0)
		goto done;
	rc = EP_EXIT_OK;
	nargs = (size_t)args.n;
	if (nargs == 0) {
		rc = ep_cmd_usage_error(self, "no image reference given");
		goto done;
	}

	/* Parse all first: a malformed one resolves nothing. */
	refs = xcalloc(nargs, sizeof *refs);
	for (size_t i = 0; i < nargs; i++)
		if (ep_imgrefs_add(refs, &n, args.v[i], &err) < 0) {
			ep_say(stderr, "envparity %s: %s", self->name,
			    err.msg);
			bad = 1;
		}
	if (bad) {
		rc = EP_EXIT_USAGE;
		goto done;
	}

	res = xcalloc(n, sizeof *res);
	ep_image_resolve(refs, n, &o.img, res);
	for (size_t i = 0; i < n; i++) {
		if (res[i].err.kind == 0)
			continue;
		ep_say(stderr, "envparity %s: %s", self->name,
		    res[i].err.msg);
		if (res[i].err.kind > rc)
			rc = res[i].err.kind;
	}
	if (o.json) {
		if (print_json(refs, res, n, &o.img, &err) < 0)
			rc = ep_cmd_fail(self, &err);
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		if (res[i].err.kind != 0)
			continue;
		ep_say(stdout, "%s %s %s %s %s", res[i].digest,
		    DASH(res[i].platform_digest), DASH(res[i].config_digest),
		    DASH(res[i].platform), refs[i].name);
	}
	if (fflush(stdout) == EOF) {
		ep_err_set(&err, EP_E_IO, "standard output: write failed");
		rc = ep_cmd_fail(self, &err);
	}
done:
	ep_images_free(refs, res, n);
	ep_imgopt_clear(&o.img);
	return rc;
}
