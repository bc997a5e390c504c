/*
 * fuzz_hostlist.c: Slurm hostlists (hostlist.h), as --expect-style
 * options read them.  The input is expanded with a cap: a list that is
 * refused leaves nothing behind and says why in printable ASCII; one
 * that expands gives valid node names, no more than the cap, whose
 * compression expands again to the same set and compresses to the same
 * text.  The input's lines are also compressed as names themselves, and
 * held to the same round trip when they are all valid names.
 */
#include "fuzz.h"
#include "hostlist.h"

#define CAP	4096

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* sv sorted, each name once. */
static void
sort_uniq(struct ep_strv *sv)
{
	size_t o = 0;

	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof *sv->v, cmp_str);
	for (size_t i = 0; i < sv->n; i++) {
		if (o > 0 && strcmp(sv->v[o - 1], sv->v[i]) == 0) {
			free(sv->v[i]);
			continue;
		}
		sv->v[o++] = sv->v[i];
	}
	sv->n = o;
	if (sv->v != NULL)
		sv->v[o] = NULL;
}

/* names (valid node names) compressed expand to the same set, and that
 * set compresses to the same text. */
static void
round_trip(const struct ep_strv *names)
{
	struct ep_strv back = { 0 }, want = { 0 };
	struct ep_err err = { 0 };
	char *c1, *c2;

	c1 = ep_hostlist_compress((const char *const *)names->v, names->n);
	if (names->n == 0) {
		FZ_CHECK(strcmp(c1, "") == 0);
		free(c1);
		return;
	}
	if (ep_hostlist_expand(&back, c1, "compressed", names->n, &err) < 0) {
		fprintf(stderr, "\"%s\": %s\n", c1, err.msg);
		FZ_CHECK(!"the compression expands");
	}
	for (size_t i = 0; i < names->n; i++)
		ep_strv_push(&want, names->v[i]);
	sort_uniq(&want);
	sort_uniq(&back);
	FZ_CHECK(back.n == want.n);
	for (size_t i = 0; i < want.n; i++)
		FZ_CHECK(strcmp(back.v[i], want.v[i]) == 0);
	c2 = ep_hostlist_compress((const char *const *)back.v, back.n);
	FZ_CHECK(strcmp(c1, c2) == 0);
	free(c1);
	free(c2);
	ep_strv_clear(&back);
	ep_strv_clear(&want);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_strv out = { 0 }, lines = { 0 };
	struct ep_err err = { 0 };
	char *s = fz_cstr(data, size), *c;
	const uint8_t *part;
	size_t partn;
	int all_ok = 1;

	if (ep_hostlist_expand(&out, s, "--expect", CAP, &err) == 0) {
		FZ_CHECK(out.n > 0 && out.n <= CAP && out.v[out.n] == NULL);
		for (size_t i = 0; i < out.n; i++)
			FZ_CHECK(ep_hostlist_name_ok(out.v[i]));
		round_trip(&out);
	} else {
		FZ_CHECK(err.kind == EP_E_INPUT && out.n == 0 &&
		    out.v == NULL);
		FZ_CHECK(strncmp(err.msg, "--expect: ", 10) == 0);
		for (const char *p = err.msg; *p != '\0'; p++)
			FZ_CHECK(*p >= 0x20 && *p <= 0x7e);
	}
	ep_strv_clear(&out);

	/* The lines as names: any bytes compress; valid names round-trip. */
	while (size > 0 && lines.n < CAP) {
		fz_split(&data, &size, "\n", &part, &partn);
		ep_strv_push_owned(&lines, fz_cstr(part, partn));
		if (!ep_hostlist_name_ok(lines.v[lines.n - 1]))
			all_ok = 0;
	}
	c = ep_hostlist_compress((const char *const *)lines.v, lines.n);
	FZ_CHECK(c != NULL);
	free(c);
	if (all_ok)
		round_trip(&lines);
	ep_strv_clear(&lines);
	free(s);
	return 0;
}
