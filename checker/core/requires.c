/*
 * requires.c: pip check's judgement of installed distributions
 * (requires.h), from requirement lines, the python.pkg facts and a
 * marker environment, into the findings meta.python.requires keeps.
 */
#include <stdlib.h>
#include <string.h>

#include "requires.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

/* The installed version of the distribution named norm, or NULL. */
static const char *
installed(const struct ep_manifest *m, const char *norm)
{
	static const char prefix[] = "python.pkg.";
	size_t n = strlen(norm);
	char *key = xmalloc(sizeof prefix + n);
	const char *v;

	memcpy(key, prefix, sizeof prefix - 1);
	memcpy(key + sizeof prefix - 1, norm, n + 1);
	v = ep_manifest_get(m, key);
	free(key);
	return v;
}

static void
set_str(json_t *o, const char *key, const char *value)
{
	json_object_set_new(o, key, json_string(value));
}

/* One line: a finding, or NULL when it is met or does not apply
 * (*applies says which). */
static json_t *
judge(const struct ep_manifest *m, const char *line,
    const struct ep_markerenv *env, int *applies)
{
	struct ep_err err = { 0 };
	struct ep_req r, plain;
	const char *have;
	json_t *f = NULL;
	char *s;
	int mv = EP_MARKER_TRUE;

	*applies = 1;
	if (ep_req_parse(&r, line, &err) < 0) {
		f = json_object();
		set_str(f, "kind", "invalid");
		set_str(f, "requirement", line);
		set_str(f, "error", err.msg);
		return f;
	}
	if (r.marker != NULL && (mv = ep_marker_eval(r.marker, env,
	    &err)) < 0) {
		f = json_object();
		set_str(f, "kind", "marker");
		s = ep_req_str(&r);
		set_str(f, "requirement", s);
		free(s);
		set_str(f, "error", err.msg);
		goto done;
	}
	if (mv == EP_MARKER_FALSE) {
		*applies = 0;
		goto done;
	}
	have = installed(m, r.norm);
	if (have != NULL && ep_req_contains(&r, have))
		goto done;
	f = json_object();
	set_str(f, "kind", have == NULL ? "missing" : "conflict");
	s = ep_req_str(&r);
	set_str(f, "requirement", s);
	free(s);
	plain = r;
	plain.marker = NULL;
	s = ep_req_str(&plain);
	set_str(f, "wants", s);
	free(s);
	set_str(f, "name", r.norm);
	if (have != NULL)
		set_str(f, "installed", have);
	if (mv == EP_MARKER_UNKNOWN)
		set_str(f, "unknown", err.msg);
done:
	ep_req_clear(&r);
	return f;
}

static int
finding_order(const void *a, const void *b)
{
	const char *x = json_string_value(json_object_get(*(json_t *const *)a,
	    "requirement"));
	const char *y = json_string_value(json_object_get(*(json_t *const *)b,
	    "requirement"));

	return strcmp(x != NULL ? x : "", y != NULL ? y : "");
}

static int
name_order(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

json_t *
ep_requires_judge(const struct ep_manifest *m, json_t *lines,
    const struct ep_markerenv *env)
{
	json_t *out = json_object(), *unmet = json_object(), *arr, *v;
	struct ep_strv names = { 0 };
	size_t ndist = 0, nreq = 0, i;
	const char *k;

	json_object_foreach(m->facts, k, v)
		ndist += ep_startswith(k, "python.pkg.");
	json_object_foreach(lines, k, arr)
		ep_strv_push(&names, k);
	if (names.n > 0)
		qsort(names.v, names.n, sizeof *names.v, name_order);
	for (size_t d = 0; d < names.n; d++) {
		json_t **fs = NULL, *list;
		size_t nf = 0;

		arr = json_object_get(lines, names.v[d]);
		json_array_foreach(arr, i, v) {
			json_t *f;
			int applies;

			if (!json_is_string(v))
				continue;
			f = judge(m, json_string_value(v), env, &applies);
			nreq += (size_t)applies;
			if (f == NULL)
				continue;
			fs = xreallocarray(fs, nf + 1, sizeof *fs);
			fs[nf++] = f;
		}
		if (nf == 0)
			continue;
		qsort(fs, nf, sizeof *fs, finding_order);
		list = json_array();
		for (i = 0; i < nf; i++)
			json_array_append_new(list, fs[i]);
		json_object_set_new(unmet, names.v[d], list);
		free(fs);
	}
	json_object_set_new(out, "distributions", json_integer((json_int_t)
	    ndist));
	json_object_set_new(out, "requirements", json_integer((json_int_t)
	    nreq));
	json_object_set_new(out, "unmet", unmet);
	ep_strv_clear(&names);
	return out;
}
