/*
 * test_compare.c: ep_compare on real captures: the H100's
 * (tests/fixtures/gpu/h100) against itself, and against a capture of this
 * machine, which has no GPU.  The decision table itself (every rule kind,
 * missing keys both ways, unavailable areas, waivers at a date, probe
 * domains) is data: tests/unit/cases/compare.test, run by test_cases.c.
 * The results list itself is test_results.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "capture.h"
#include "results.h"
#include "compare.h"
#include "dynload.h"
#include "testutil.h"
#include "errors.h"
#include "str.h"
#include "xalloc.h"

#define H100	"tests/fixtures/gpu/h100/capture.json"

/* 2026-11-22T12:00:00Z */
#define NOV22	((time_t)1795348800)

static struct ep_manifest *
h100(void)
{
	struct ep_manifest *m;
	struct ep_err err = { 0 };

	if (ep_manifest_load(&m, H100, &err) < 0)
		fail_msg("%s", err.msg);
	return m;
}

static void
compare(struct ep_results *rs, const struct ep_manifest *g,
    const struct ep_manifest *c, const struct ep_policy *p)
{
	ep_compare(rs, g, c, p, NOV22);
}

static const struct ep_result *
find(const struct ep_results *rs, const char *key)
{
	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].key, key) == 0)
			return &rs->v[i];
	return NULL;
}

/* The one result for key, which must exist. */
static const struct ep_result *
get(const struct ep_results *rs, const char *key)
{
	const struct ep_result *r = find(rs, key);

	if (r == NULL)
		fail_msg("no result for %s", key);
	return r;
}

static void
test_h100_against_itself(void **state)
{
	struct ep_manifest *g = h100(), *c = h100();
	struct ep_policy *p = ep_policy_default();
	struct ep_results rs = { 0 };
	size_t counts[EP_NSTATUS];

	(void)state;
	ep_manifest_meta_set(c, "host", "another-host");
	compare(&rs, g, c, p);
	ep_results_count(&rs, counts);
	/* One result per fact but os.kernel and gpu.0.remapped_rows_pending,
	 * ignored by default. */
	assert_int_equal(json_object_size(g->facts), 286);
	assert_int_equal(rs.n, 284);
	assert_int_equal(counts[EP_PASS], 284);
	assert_null(find(&rs, "os.kernel"));
	assert_null(find(&rs, "gpu.0.remapped_rows_pending"));
	assert_int_equal(ep_results_exit(&rs), EP_EXIT_OK);
	assert_string_equal(get(&rs, "gpu.driver.version")->message,
	    "gpu.driver.version: 580.159.04");
	assert_string_equal(get(&rs, "gpu.driver.version")->rule, "exact");
	assert_string_equal(get(&rs, "gpu.driver.version")->area, "gpu");
	ep_results_clear(&rs);
	ep_policy_free(p);
	ep_manifest_free(g);
	ep_manifest_free(c);
}

/* The H100 golden against a real capture of this machine (no GPU, CUDA
 * 13.0 in /usr/local/cuda): the GPU is a skip with the capture's reason,
 * never a failure; what differs elsewhere is drift. */
static void
test_h100_against_this_machine(void **state)
{
	struct ep_capture_opts o = { 0 };
	struct ep_manifest *g = h100(), *c = NULL;
	struct ep_policy *p = ep_policy_default();
	struct ep_results rs = { 0 };
	struct ep_err err = { 0 };
	char dir[256];
	const char *why;

	(void)state;
	assert_int_equal(tu_scratch_make(dir, sizeof dir, "compare"), 0);
	setenv("XDG_CACHE_HOME", dir, 1);
	o.no_discover = 1;
	if (ep_capture(&c, &o, &err) < 0)
		fail_msg("%s", err.msg);
	why = json_string_value(json_object_get(json_object_get(c->meta,
	    "unavailable"), "gpu"));
	if (why == NULL || ep_manifest_get(c, "gpu.driver.version") != NULL)
		skip();		/* a machine with a GPU: not this test */
	compare(&rs, g, c, p);
	for (size_t i = 0; i < rs.n; i++) {
		const struct ep_result *r = &rs.v[i];

		if (strcmp(r->area, "gpu") == 0) {
			char *want = xasprintf("%s: not checked here: %s",
			    r->key, why);

			assert_int_equal(r->status, EP_SKIP);
			assert_string_equal(r->message, want);
			free(want);
		} else if (strcmp(r->area, "node") == 0) {
			/* A golden of before node facts: said once. */
			assert_int_equal(r->status, EP_SKIP);
			assert_string_equal(r->key, "node");
			assert_true(strstr(r->message, "node facts not compared: "
			    "the golden manifest has none") != NULL);
		} else
			assert_int_not_equal(r->status, EP_SKIP);
	}
	assert_int_equal(get(&rs, "node")->status, EP_SKIP);
	assert_int_equal(get(&rs, "gpu.0.name")->status, EP_SKIP);
	/* The same cuDNN wheel, hashed on both machines. */
	assert_int_equal(get(&rs, "lib.cudnn.sha256")->status, EP_PASS);
	assert_int_equal(get(&rs, "lib.cudnn.path")->status, EP_FAIL);
	ep_results_clear(&rs);
	ep_policy_free(p);
	ep_manifest_free(g);
	ep_manifest_free(c);
	assert_int_equal(tu_scratch_remove(dir), 0);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_h100_against_itself),
		cmocka_unit_test(test_h100_against_this_machine),
	};

	/* The capture loads each CUDA library in a fresh execution of this
	 * binary (dynload.h), as envparity's main() does. */
	if (argc > 1 && strcmp(argv[1], EP_DYNLOAD_HELPER) == 0)
		return ep_dynload_main(argc, argv);

	return cmocka_run_group_tests(tests, NULL, NULL);
}
