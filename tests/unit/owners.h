/*
 * owners.h: what the drivers of the owners' test data share
 * (tests/fixtures/owners, test_owners_*.c): reading a case table, and
 * counting how many cases envparity answers as the format's owner does.
 *
 * A case envparity answers differently on purpose is listed in its
 * driver with the reason (docs/ has the same list): it counts as a
 * deliberate difference, and must still differ, so that the list stays
 * true.  Any other disagreement fails the test.  Each count is printed as
 * a TAP comment, "# OWNER TABLE: A/N agree, D deliberate differences", so
 * that the suite's output shows them.  Header-only: each test binary is its own
 * program.
 */
#ifndef EP_OWNERS_H
#define EP_OWNERS_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "xalloc.h"

/* The fixture at tests/fixtures/owners/REL (a new string). */
static inline char *
ow_path(const char *rel)
{
	char *dir = xstrdup(__FILE__), *slash, *path;

	/* __FILE__ is tests/unit/owners.h, relative to the top. */
	if ((slash = strrchr(dir, '/')) != NULL)
		*slash = '\0';
	path = xasprintf("%s/../fixtures/owners/%s", slash != NULL ? dir :
	    ".", rel);
	free(dir);
	return path;
}

/* A JSON fixture; fails the test when it cannot be read. */
static inline json_t *
ow_load(const char *rel)
{
	char *path = ow_path(rel);
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);

	if (j == NULL)
		fail_msg("%s:%d: %s", path, je.line, je.text);
	free(path);
	return j;
}

/* The array at key of o; fails the test when there is none. */
static inline json_t *
ow_array(json_t *o, const char *key)
{
	json_t *a = json_object_get(o, key);

	if (!json_is_array(a))
		fail_msg("fixture: no array \"%s\"", key);
	return a;
}

struct ow_tally {
	const char *owner, *table;
	size_t n;
	size_t agree;		/* as the owner answers, not listed */
	size_t deliberate;	/* otherwise, and listed */
	size_t wrong;		/* otherwise, not listed */
	size_t stale;		/* as the owner answers, but listed */
};

#define OW_SHOW	20	/* disagreements printed in full */

/* One case: whether envparity agrees with the owner, whether the case is
 * a listed deliberate difference, and what to print when that does not
 * hold. */
static inline void ow_case(struct ow_tally *, int, int, const char *, ...)
    __attribute__((format(printf, 4, 5)));

static inline void
ow_case(struct ow_tally *t, int agree, int listed, const char *fmt, ...)
{
	va_list ap;

	t->n++;
	if (agree && !listed) {
		t->agree++;
		return;
	}
	if (!agree && listed) {
		t->deliberate++;
		return;
	}
	if (listed)
		t->stale++;
	else
		t->wrong++;
	if (t->wrong + t->stale <= OW_SHOW) {
		printf("# %s %s: %s", t->owner, t->table, listed ?
		    "listed as a deliberate difference, but agrees: " : "");
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
}

/* Print the count; fail the test on any disagreement not listed, or a
 * listed one that no longer differs. */
static inline void
ow_done(const struct ow_tally *t)
{
	printf("# %s %s: %zu/%zu agree, %zu deliberate difference%s\n",
	    t->owner, t->table, t->agree + t->stale, t->n, t->deliberate,
	    t->deliberate == 1 ? "" : "s");
	fflush(stdout);
	if (t->n == 0)
		fail_msg("%s %s: no case read", t->owner, t->table);
	if (t->wrong > 0 || t->stale > 0)
		fail_msg("%s %s: %zu disagree, %zu listed differences agree",
		    t->owner, t->table, t->wrong, t->stale);
}

/* A C string as JSON writes it, for messages (a new string). */
static inline char *
ow_quote(const char *s)
{
	json_t *j = json_string(s);
	char *q = j != NULL ? json_dumps(j, JSON_ENCODE_ANY |
	    JSON_ENSURE_ASCII) : NULL;

	json_decref(j);
	return q != NULL ? q : xstrdup("(not UTF-8)");
}

#endif
