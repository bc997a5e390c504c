/*
 * collect_image.c: the container images named with --image and, for
 * `check`, those its golden manifest recorded, resolved in one batch per
 * platform asked for (registries concurrently, local images in turn) into
 * image.<name>.digest, .media_type, .platform_digest, .platform and
 * .config_digest, and meta.images: what was resolved, so that `check`
 * can resolve it again without --image.
 *
 * meta.images is an array sorted by "ref", the canonical name (the fact
 * key's <name>, which given back as a reference names the same image),
 * each with "platform" when one was asked for explicitly (--platform).
 * It is meta, never compared: a golden blessed before it existed checks
 * as it did.  It holds no registry option: how a registry is reached
 * (plain http, a CA, credentials) is the command line's to say, never
 * the golden's.
 *
 * An image that cannot be resolved stops the capture: a manifest must
 * never hold a wrong or partial digest, and an image the user named (or
 * the golden recorded) but that is missing from the manifest would read
 * as drift only later.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collect.h"
#include "image.h"
#include "policy.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

/* One reference to resolve: refs[i] with want[i]. */
struct want {
	const char *platform;	/* NULL: the run's (--platform or the
				   default) */
	int golden;		/* recorded in the golden, not named */
	int group;		/* resolved with the others of its group */
};

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

/* 1 when the golden has facts of the image called name and the policy
 * ignores every one of them: resolving it could only fail the check
 * (a registry down), never inform it. */
static int
all_ignored(const struct ep_manifest *golden, const struct ep_policy *p,
    const char *name)
{
	char *prefix = xasprintf("image.%s.", name);
	const char *key;
	json_t *v;
	int found = 0, ignored = 1;

	json_object_foreach(golden->facts, key, v) {
		if (!ep_startswith(key, prefix))
			continue;
		found = 1;
		if (ep_policy_match(p, key)->kind != EP_RULE_IGNORE) {
			ignored = 0;
			break;
		}
	}
	free(prefix);
	return found && ignored;
}

/*
 * Why the golden may not name the local image at path (NULL: it may).
 * The golden is written by whoever can push to the store, and a local
 * reference opens a file: one the golden names by itself stays inside
 * the directory check runs in, as `bless --image oci:./build/layout`
 * recorded it, and goes through no symbolic link there (the working
 * directory is often a checkout, which may hold one).  Anything else
 * (an absolute path, a "..", a link) is resolved only when the user
 * names it with --image.  Checked before anything is opened.
 */
static const char *
golden_local_problem(const char *path)
{
	char *copy, *c, *save = NULL, *prefix = NULL, *t;
	const char *why = NULL;
	struct stat st;

	if (path[0] == '\0')
		return "an empty path";
	if (path[0] == '/')
		return "an absolute path";
	copy = xstrdup(path);
	for (c = strtok_r(copy, "/", &save); c != NULL && why == NULL;
	    c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, "..") == 0) {
			why = "a path with '..', outside the working directory";
			break;
		}
		t = prefix == NULL ? xstrdup(c) : xasprintf("%s/%s", prefix, c);
		free(prefix);
		prefix = t;
		if (lstat(prefix, &st) == 0 && S_ISLNK(st.st_mode))
			why = "a path through a symbolic link";
	}
	free(prefix);
	free(copy);
	return why;
}

/*
 * The golden's meta.images, appended to refs[0..*n) (room is the
 * caller's: json_array_size more) with their platforms in want[]; an
 * image named with --image already is resolved as named.  An explicit
 * --platform on this run applies to them all; otherwise each is resolved
 * for the platform it was recorded with.  One whose every fact the
 * policy ignores is left out.  A malformed entry is
 * EP_E_INPUT naming the golden and the entry: the golden is the store's,
 * and one that cannot say what it recorded cannot be checked.
 */
static int
golden_images(struct ep_imgref *refs, struct want *want, size_t *n,
    const struct ep_capture_opts *co, const json_t *imgs,
    const struct ep_imgopt *o, const char *gname, struct ep_err *err)
{
	struct ep_err e = { 0 };
	const char *ref, *plat, *why;
	json_t *ent, *p;
	size_t i, before;

	json_array_foreach(imgs, i, ent) {
		ref = json_string_value(json_object_get(ent, "ref"));
		if (!json_is_object(ent) || ref == NULL)
			return ep_err_set(err, EP_E_INPUT, "%s: meta.images[%zu]:"
			    " expected an object with a string \"ref\"", gname,
			    i);
		plat = NULL;
		if ((p = json_object_get(ent, "platform")) != NULL) {
			if ((plat = json_string_value(p)) == NULL ||
			    !ep_image_platform_valid(plat))
				return ep_err_set(err, EP_E_INPUT, "%s: "
				    "meta.images[%zu].platform: expected "
				    "OS/ARCH or OS/ARCH/VARIANT in lowercase",
				    gname, i);
		}
		before = *n;
		if (ep_imgrefs_add(refs, n, ref, &e) < 0)
			return ep_err_set(err, EP_E_INPUT, "%s: meta.images[%zu]:"
			    " %s", gname, i, e.msg);
		if (*n == before)
			continue;	/* named on the command line */
		if (co->policy != NULL && all_ignored(co->golden, co->policy,
		    refs[before].name)) {
			ep_imgref_clear(&refs[--*n]);
			continue;
		}
		if (refs[before].path != NULL && (why = golden_local_problem(
		    refs[before].path)) != NULL)
			return ep_err_set(err, EP_E_INPUT, "%s: meta.images[%zu]:"
			    " local image '%s': %s; a golden names a local "
			    "image only by a relative path inside the "
			    "directory check runs in (to check this one, name "
			    "it with --image)", gname, i, ref, why);
		want[before].platform = o->platform_explicit ? NULL : plat;
		want[before].golden = 1;
	}
	return 0;
}

/* Number the groups: references asked for the same platform (NULL, the
 * run's, or a golden's) are resolved together.  Returns how many. */
static int
group_wants(struct want *want, size_t n)
{
	int groups = 0;

	for (size_t i = 0; i < n; i++) {
		want[i].group = -1;
		for (size_t k = 0; k < i && want[i].group < 0; k++)
			if ((want[k].platform == NULL) ==
			    (want[i].platform == NULL) &&
			    (want[k].platform == NULL ||
			    strcmp(want[k].platform, want[i].platform) == 0))
				want[i].group = want[k].group;
		if (want[i].group < 0)
			want[i].group = groups++;
	}
	return groups;
}

/* Resolve group g of refs into res (each at its own index).  Returns the
 * number that failed. */
static size_t
resolve_group(const struct ep_imgref *refs, const struct want *want,
    size_t n, int g, const struct ep_imgopt *run, struct ep_imgres *res)
{
	struct ep_imgref *sub = xcalloc(n, sizeof *sub);
	struct ep_imgres *sres = xcalloc(n, sizeof *sres);
	size_t *at = xcalloc(n, sizeof *at), m = 0, failed;
	struct ep_imgopt o = *run;	/* shallow: never cleared */

	for (size_t i = 0; i < n; i++) {
		if (want[i].group != g)
			continue;
		if (want[i].platform != NULL) {
			o.platform = want[i].platform;
			o.platform_explicit = 1;
		}
		sub[m] = refs[i];	/* shallow: refs keeps them */
		at[m++] = i;
	}
	failed = ep_image_resolve(sub, m, &o, sres);
	for (size_t k = 0; k < m; k++)
		res[at[k]] = sres[k];	/* moved */
	free(sub);
	free(sres);
	free(at);
	return failed;
}

/* meta.images, sorted by canonical name.  A name that is not valid UTF-8
 * (a local path) could not be given back as it was: left out. */
static void
images_meta(struct ep_manifest *m, const struct ep_imgref *refs,
    const struct want *want, size_t n, const struct ep_imgopt *o)
{
	struct ep_strv names = { 0 };
	json_t *arr = json_array(), *ent;
	const char *plat;
	char *clean;
	size_t i, k;

	for (i = 0; i < n; i++)
		ep_strv_push(&names, refs[i].name);
	ep_strv_sort(&names);
	for (i = 0; i < names.n; i++) {
		for (k = 0; k < n && strcmp(refs[k].name, names.v[i]) != 0;
		    k++)
			;
		clean = ep_utf8_sanitize(refs[k].name, strlen(refs[k].name));
		if (strcmp(clean, refs[k].name) != 0) {
			free(clean);
			continue;
		}
		ent = json_object();
		json_object_set_new(ent, "ref", json_string(clean));
		plat = want[k].platform != NULL ? want[k].platform :
		    o->platform_explicit ? o->platform : NULL;
		if (plat != NULL)
			json_object_set_new(ent, "platform", json_string(plat));
		json_array_append_new(arr, ent);
		free(clean);
	}
	ep_strv_clear(&names);
	json_object_set_new(m->meta, "images", arr);
}

int
ep_collect_image(struct ep_collect *c, struct ep_err *err)
{
	const struct ep_strv *in = &c->opts->images;
	const char *gname = c->opts->golden_name != NULL ?
	    c->opts->golden_name : "the golden manifest";
	struct ep_imgopt o = c->opts->img;	/* shallow: never cleared */
	const json_t *gimgs = NULL;
	struct ep_imgref *refs = NULL;
	struct ep_imgres *res = NULL;
	struct want *want = NULL;
	size_t n = 0, cap, failed = 0, first = 0;
	char more[64] = "";
	int rc = -1, kind = 0, groups;

	if (c->opts->golden != NULL && (gimgs = json_object_get(
	    c->opts->golden->meta, "images")) != NULL &&
	    !json_is_array(gimgs))
		return ep_err_set(err, EP_E_INPUT, "%s: meta.images: expected "
		    "an array", gname);
	cap = in->n + json_array_size(gimgs);
	if (cap == 0)
		return 0;
	/* Options made without ep_imgopt_init (a zeroed struct). */
	if (o.platform == NULL)
		ep_imgopt_init(&o);
	o.no_cache = c->opts->no_cache;
	refs = xcalloc(cap, sizeof *refs);
	want = xcalloc(cap, sizeof *want);
	for (size_t i = 0; i < in->n; i++)
		if (ep_imgrefs_add(refs, &n, in->v[i], err) < 0)
			goto done;	/* err names the reference and part */
	if (gimgs != NULL && golden_images(refs, want, &n, c->opts, gimgs, &o,
	    gname, err) < 0)
		goto done;
	if (n == 0) {
		rc = 0;
		goto done;
	}
	res = xcalloc(n, sizeof *res);
	groups = group_wants(want, n);
	for (int g = 0; g < groups; g++)
		failed += resolve_group(refs, want, n, g, &o, res);
	if (failed > 0) {
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
			snprintf(more, sizeof more, " (and %zu more images not "
			    "resolved)", failed - 1);
		ep_err_set(err, kind, "%s%s%s", res[first].err.msg,
		    want[first].golden ? " (an image the golden manifest "
		    "recorded)" : "", more);
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
	images_meta(c->m, refs, want, n, &o);
	rc = 0;
done:
	ep_images_free(refs, res, n);
	free(want);
	return rc;
}
