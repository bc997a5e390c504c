/*
 * fuzz_pep508.c: requirements and markers (pep508.h) as stack.requires
 * reads them from meta.python.  The input is lines: a requirement, a
 * marker, a version, then the marker environment's values in
 * ep_marker_vars order ("?" for one not known; missing lines: "?").
 *
 * Held to: parse and evaluate answer within their contracts; what
 * ep_req_str and ep_marker_str write reads back to the same text and the
 * same value (for text without a backslash, whose escapes may give a
 * string holding both quotes, which no quoting writes back); a marker
 * decided with some values unknown is decided the same, or is an error,
 * once they are known; the PEP 440 normal form is a fixed point that
 * compares equal to the version.
 */
#include <jansson.h>

#include "fuzz.h"
#include "pep508.h"
#include "vercmp.h"

static int
eval(const struct ep_marker *m, const struct ep_markerenv *env)
{
	struct ep_err err = { 0 };
	int v = ep_marker_eval(m, env, &err);

	FZ_CHECK(v == -1 || v == EP_MARKER_FALSE || v == EP_MARKER_TRUE ||
	    v == EP_MARKER_UNKNOWN);
	FZ_CHECK(v == EP_MARKER_FALSE || v == EP_MARKER_TRUE ||
	    err.msg[0] != '\0');
	return v;
}

/* A decided answer stays decided (or an error) when values get known. */
static void
sound(const struct ep_marker *m, const struct ep_markerenv *partial,
    const struct ep_markerenv *full)
{
	int p = eval(m, partial), f = eval(m, full);
	int known = 1;

	for (size_t i = 0; i < EP_MV_N; i++)
		known &= full->v[i] != NULL;
	if (known)
		FZ_CHECK(f != EP_MARKER_UNKNOWN);
	if (p == -1)
		FZ_CHECK(f == -1);
	if (p == EP_MARKER_TRUE || p == EP_MARKER_FALSE)
		FZ_CHECK(f == p || f == -1);
}

static void
marker(const char *text, const struct ep_markerenv *partial,
    const struct ep_markerenv *full)
{
	struct ep_err err = { 0 };
	struct ep_marker *m = NULL, *m2 = NULL;
	char *s, *s2;

	if (ep_marker_parse(&m, text, &err) < 0) {
		FZ_CHECK(m == NULL && err.kind == EP_E_INPUT);
		return;
	}
	FZ_CHECK(m != NULL);
	sound(m, partial, full);
	s = ep_marker_str(m);
	if (strchr(text, '\\') == NULL) {
		FZ_CHECK(ep_marker_parse(&m2, s, &err) == 0);
		s2 = ep_marker_str(m2);
		FZ_CHECK(strcmp(s, s2) == 0);
		FZ_CHECK(eval(m, full) == eval(m2, full));
		free(s2);
		ep_marker_free(m2);
	}
	free(s);
	ep_marker_free(m);
}

static void
requirement(const char *text, const char *version,
    const struct ep_markerenv *partial, const struct ep_markerenv *full)
{
	struct ep_err err = { 0 };
	struct ep_req r, r2;
	char *s, *s2, *norm;
	int in;
	json_t *j;

	if (ep_req_parse(&r, text, &err) < 0) {
		FZ_CHECK(err.kind == EP_E_INPUT && err.msg[0] != '\0');
		FZ_CHECK(r.name == NULL && r.spec == NULL && r.marker == NULL);
		return;
	}
	FZ_CHECK(r.name != NULL && r.name[0] != '\0' && r.spec != NULL);
	norm = ep_pep503_normalize(r.name);
	FZ_CHECK(strcmp(norm, r.norm) == 0);
	free(norm);
	in = ep_req_contains(&r, version);
	FZ_CHECK(in == 0 || in == 1);
	if (ep_req_specifier(&r)[0] == '\0')
		FZ_CHECK(in == 1);
	if (r.marker != NULL)
		sound(r.marker, partial, full);
	s = ep_req_str(&r);
	/* What the check puts in a result: it must be a JSON string. */
	j = json_string(s);
	FZ_CHECK(j != NULL || json_string(text) == NULL);
	json_decref(j);
	if (strchr(text, '\\') == NULL) {
		if (ep_req_parse(&r2, s, &err) != 0) {
			fprintf(stderr, "%s\n%s\n%s\n", text, s, err.msg);
			FZ_CHECK(0);
		}
		s2 = ep_req_str(&r2);
		FZ_CHECK(strcmp(s, s2) == 0);
		FZ_CHECK(strcmp(r.norm, r2.norm) == 0);
		FZ_CHECK(ep_req_contains(&r2, version) == in);
		if (r.marker != NULL)
			FZ_CHECK(eval(r.marker, full) == eval(r2.marker, full));
		free(s2);
		ep_req_clear(&r2);
	}
	free(s);
	ep_req_clear(&r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_markerenv partial = { { 0 } }, full = { { 0 } };
	char *req, *mark, *ver, *vals[EP_MV_N] = { 0 }, *norm, *again;
	const uint8_t *part;
	size_t partn;

	if (size > 8192)
		return 0;
	fz_split(&data, &size, "\n", &part, &partn);
	req = fz_cstr(part, partn);
	fz_split(&data, &size, "\n", &part, &partn);
	mark = fz_cstr(part, partn);
	fz_split(&data, &size, "\n", &part, &partn);
	ver = fz_cstr(part, partn);
	for (size_t i = 0; i < EP_MV_N; i++) {
		if (size > 0) {
			fz_split(&data, &size, "\n", &part, &partn);
			vals[i] = fz_cstr(part, partn);
		}
		partial.v[i] = vals[i] != NULL && strcmp(vals[i], "?") != 0 ?
		    vals[i] : NULL;
		/* The same, every unknown one given a value. */
		full.v[i] = partial.v[i] != NULL ? partial.v[i] : i % 2 ?
		    "3.11.7" : "linux";
	}

	requirement(req, ver, &partial, &full);
	marker(mark, &partial, &full);

	if ((norm = ep_version_pep440_norm(ver)) != NULL) {
		FZ_CHECK(ep_version_pep440(norm));
		FZ_CHECK(ep_vercmp(ver, norm) == 0);
		again = ep_version_pep440_norm(norm);
		FZ_CHECK(again != NULL && strcmp(again, norm) == 0);
		free(again);
		free(norm);
	} else
		FZ_CHECK(!ep_version_pep440(ver));

	for (size_t i = 0; i < EP_MV_N; i++)
		free(vals[i]);
	free(req);
	free(mark);
	free(ver);
	return 0;
}
