/*
 * fuzz_framework.c: the framework readers (collect/framework.h) on one
 * buffer, as the collector meets TensorFlow's build_info.py, torch's and
 * jaxlib's version.py, caffe2's macros.h and a METADATA: every reader
 * runs on the whole input, ep_fw_requirement on each Requires-Dist value
 * and on each line.  The promises held:
 *
 *  - build_info: 0 or -1; -1 adds nothing; 0 adds as many values as keys;
 *  - a requirement's name is a valid PEP 508 name, already normalized;
 *    its spec holds no white space or parenthesis, and none of a URL;
 *    -1 returns nothing;
 *  - no result is cut short at a NUL byte: where the input gives a
 *    result, the same input with its NULs made \x01 (a byte no reader
 *    gives a meaning) gives the same one (ep_fw_requires: its list
 *    starts with the same values, as a NUL ends the header block).
 */
#include <ctype.h>

#include "framework.h"
#include "fuzz.h"
#include "python.h"

static const char *const names[] = { "build_info", "__version__", "cuda",
    "hip", "git_version", "_version", "_release_version", NULL };
static const char *const strings[] = { "CUDNN_VERSION", "CUDA_VERSION",
    NULL };

#define NNAMES	(sizeof names / sizeof names[0] - 1)
#define NSTR	(sizeof strings / sizeof strings[0] - 1)

/* What the readers give for one buffer. */
struct got {
	int bi;				/* ep_fw_build_info_parse's */
	struct ep_strv keys, vals;	/* after a "sentinel" pair */
	char *py[NNAMES];
	char *bs[NSTR];
	struct ep_strv reqs;
};

/* Past the name and the extras of a requirement ("name [a, b] @ URL"),
 * and the blanks after each. */
static const char *
url_at(const char *p)
{
	p += strspn(p, " \t");
	while (isalnum((unsigned char)*p) || (*p != '\0' &&
	    strchr("-_.", *p) != NULL))
		p++;
	p += strspn(p, " \t");
	if (*p == '[') {
		p += strcspn(p, "]");
		p += *p == ']';
		p += strspn(p, " \t");
	}
	return p;
}

static void
requirement(const char *value)
{
	char *name, *spec, *extra, *norm;

	if (ep_fw_requirement(&name, &spec, &extra, value) < 0) {
		FZ_CHECK(name == NULL && spec == NULL && extra == NULL);
		return;
	}
	FZ_CHECK(name != NULL && spec != NULL);
	FZ_CHECK(ep_pep508_name_valid(name));
	norm = ep_pep503_normalize(name);
	FZ_CHECK(strcmp(norm, name) == 0);
	free(norm);
	for (const char *p = spec; *p != '\0'; p++)
		FZ_CHECK(!isspace((unsigned char)*p) && *p != '(' && *p != ')');
	/* A URL requirement ("name [extras] @ URL") has no spec: nothing
	 * of its URL is returned. */
	if (*url_at(value) == '@')
		FZ_CHECK(*spec == '\0');
	free(name);
	free(spec);
	free(extra);
}

static void
read_all(struct got *g, const char *text, size_t len)
{
	memset(g, 0, sizeof *g);
	ep_strv_push(&g->keys, "sentinel");
	ep_strv_push(&g->vals, "sentinel");
	g->bi = ep_fw_build_info_parse(&g->keys, &g->vals, text, len);
	FZ_CHECK(g->bi == 0 || g->bi == -1);
	FZ_CHECK(g->keys.n == g->vals.n);
	if (g->bi < 0)
		FZ_CHECK(g->keys.n == 1);
	for (size_t i = 0; i < g->keys.n; i++)
		FZ_CHECK(g->keys.v[i] != NULL && g->vals.v[i] != NULL);
	for (size_t i = 0; i < NNAMES; i++)
		g->py[i] = ep_fw_py_assign(text, len, names[i]);
	for (size_t i = 0; i < NSTR; i++)
		g->bs[i] = ep_fw_build_string(text, len, strings[i]);
	ep_fw_requires(&g->reqs, text, len);
	for (size_t i = 0; i < g->reqs.n; i++) {
		FZ_CHECK(g->reqs.v[i] != NULL);
		requirement(g->reqs.v[i]);
	}
}

static void
got_clear(struct got *g)
{
	ep_strv_clear(&g->keys);
	ep_strv_clear(&g->vals);
	for (size_t i = 0; i < NNAMES; i++)
		free(g->py[i]);
	for (size_t i = 0; i < NSTR; i++)
		free(g->bs[i]);
	ep_strv_clear(&g->reqs);
}

/* a's results, where it has them, are b's. */
static void
same(const struct got *a, const struct got *b)
{
	if (a->bi == 0) {
		FZ_CHECK(b->bi == 0 && b->keys.n == a->keys.n);
		for (size_t i = 0; i < a->keys.n; i++) {
			FZ_CHECK(strcmp(a->keys.v[i], b->keys.v[i]) == 0);
			FZ_CHECK(strcmp(a->vals.v[i], b->vals.v[i]) == 0);
		}
	}
	for (size_t i = 0; i < NNAMES; i++)
		if (a->py[i] != NULL)
			FZ_CHECK(b->py[i] != NULL &&
			    strcmp(a->py[i], b->py[i]) == 0);
	for (size_t i = 0; i < NSTR; i++)
		if (a->bs[i] != NULL)
			FZ_CHECK(b->bs[i] != NULL &&
			    strcmp(a->bs[i], b->bs[i]) == 0);
	FZ_CHECK(a->reqs.n <= b->reqs.n);
	for (size_t i = 0; i < a->reqs.n; i++)
		FZ_CHECK(strcmp(a->reqs.v[i], b->reqs.v[i]) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct got g, h;
	const uint8_t *d = data, *line;
	size_t n = size, linen;
	char *text, *s;

	if (size > 65536)	/* a list's values are joined one by one */
		return 0;
	/* An exact-size copy: reading a byte past len is ASan's to see. */
	text = xmalloc(size ? size : 1);
	memcpy(text, data, size);
	read_all(&g, text, size);
	if (memchr(text, '\0', size) != NULL) {
		for (size_t i = 0; i < size; i++)
			if (text[i] == '\0')
				text[i] = '\x01';
		read_all(&h, text, size);
		same(&g, &h);
		got_clear(&h);
	}
	got_clear(&g);
	free(text);

	/* Each line as a Requires-Dist value. */
	for (size_t i = 0; n > 0 && i < 64; i++) {
		fz_split(&d, &n, "\n", &line, &linen);
		s = fz_cstr(line, linen);
		requirement(s);
		free(s);
	}
	return 0;
}
