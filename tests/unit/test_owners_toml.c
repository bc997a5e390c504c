/*
 * test_owners_toml.c: toml-test's documents (tests/fixtures/owners/toml-test)
 * through the poetry.lock and uv.lock reader.  It is not a TOML library,
 * but it must read every valid document (TOML 1.0 and 1.1), or a lockfile
 * written with that syntax loses every pin; and it must refuse the invalid
 * documents whose bytes are garbage (control characters, invalid UTF-8),
 * so that such bytes never become a pin.  How many of the other invalid
 * documents it refuses is printed, not required: skipping what it does
 * not keep is its design.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lockfile.h"
#include "owners.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

/* The .toml documents named in toml-test's lists for TOML 1.0.0 and
 * 1.1.0 whose path starts with prefix, each once, sorted. */
static void
documents(struct ep_strv *out, const char *prefix)
{
	static const char *const lists[] = { "toml-test/files-toml-1.0.0",
	    "toml-test/files-toml-1.1.0", NULL };
	struct ep_err err = { 0 };
	char *path, *buf, *line, *save = NULL;
	size_t len;

	for (size_t i = 0; lists[i] != NULL; i++) {
		path = ow_path(lists[i]);
		if (ep_read_file(&buf, &len, path, 1 << 20, &err) < 0)
			fail_msg("%s", err.msg);
		for (line = strtok_r(buf, "\n", &save); line != NULL;
		    line = strtok_r(NULL, "\n", &save))
			if (ep_startswith(line, prefix) &&
			    ep_endswith(line, ".toml") &&
			    !ep_strv_contains(out, line))
				ep_strv_push(out, line);
		free(buf);
		free(path);
	}
	ep_strv_sort(out);
}

/* Parse one document; 0 read, -1 refused (the message in err). */
static int
parse(const char *doc, struct ep_err *err)
{
	struct ep_pins pins = { 0 };
	char *rel = xasprintf("toml-test/%s", doc), *path = ow_path(rel), *buf;
	size_t len;
	int rc;

	if (ep_read_file(&buf, &len, path, 1 << 20, err) < 0)
		fail_msg("%s", err->msg);
	rc = ep_lock_parse_toml(&pins, buf, len, doc, 0, err);
	ep_pins_clear(&pins);
	free(buf);
	free(path);
	free(rel);
	return rc;
}

static void
valid(void **state)
{
	struct ow_tally t = { .owner = "toml-test", .table = "valid" };
	struct ep_strv docs = { 0 };

	(void)state;
	documents(&docs, "valid/");
	for (size_t i = 0; i < docs.n; i++) {
		struct ep_err err = { 0 };

		ow_case(&t, parse(docs.v[i], &err) == 0, 0, "%s", err.msg);
	}
	ep_strv_clear(&docs);
	ow_done(&t);
}

/* Bytes that are not TOML text: refused wherever they are. */
static void
invalid_bytes(void **state)
{
	struct ow_tally t = { .owner = "toml-test",
	    .table = "invalid control and encoding" };
	struct ep_strv docs = { 0 };

	(void)state;
	documents(&docs, "invalid/control/");
	documents(&docs, "invalid/encoding/");
	for (size_t i = 0; i < docs.n; i++) {
		struct ep_err err = { 0 };

		ow_case(&t, parse(docs.v[i], &err) < 0, 0, "%s: read",
		    docs.v[i]);
	}
	ep_strv_clear(&docs);
	ow_done(&t);
}

/* The rest, for the record: how many the reader refuses. */
static void
invalid_other(void **state)
{
	struct ep_strv docs = { 0 };
	size_t n = 0, refused = 0;

	(void)state;
	documents(&docs, "invalid/");
	for (size_t i = 0; i < docs.n; i++) {
		struct ep_err err = { 0 };

		if (ep_startswith(docs.v[i], "invalid/control/") ||
		    ep_startswith(docs.v[i], "invalid/encoding/"))
			continue;
		n++;
		refused += parse(docs.v[i], &err) < 0;
	}
	ep_strv_clear(&docs);
	printf("# toml-test invalid (other): %zu/%zu refused (not required)\n",
	    refused, n);
	assert_true(n > 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(valid),
		cmocka_unit_test(invalid_bytes),
		cmocka_unit_test(invalid_other),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
