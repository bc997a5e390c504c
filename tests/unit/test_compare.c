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
#include "factsince.h"
#include "dynload.h"
#include "testutil.h"
#include "errors.h"
#include "str.h"
#include "xalloc.h"
#include "resultsfixture.h"

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
		} else if (r->status == EP_SKIP)
			/* Only a fact the golden's release could not have
			 * captured (lib.cufft.* here) is a skip. */
			assert_non_null(strstr(r->message,
			    "fact new since envparity"));
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

/* A fact a built-in ignore rule keeps out (os.kernel, a GPU's pending
 * remap) that differs is listed, not judged; one that is the same, or
 * one the user's own rule ignores, is not. */
static void
test_ignored_changes(void **state)
{
	static const char pol[] = "{\"schema\": \"envparity/policy@1\", "
	    "\"rules\": [{\"key\": \"cpu.model\", \"rule\": \"ignore\"}]}";
	struct ep_manifest *g = ep_manifest_new(), *c = ep_manifest_new();
	struct ep_policy *def = ep_policy_default(), *user = NULL;
	struct ep_results rs = { 0 };
	struct ep_err err = { 0 };

	(void)state;
	ep_manifest_set(g, "os.kernel", "6.18.0");
	ep_manifest_set(c, "os.kernel", "6.1.0");
	ep_manifest_set(g, "gpu.0.remapped_rows_pending", "no");
	ep_manifest_set(c, "gpu.0.remapped_rows_pending", "no");
	ep_manifest_set(c, "gpu.1.remapped_rows_pending", "yes");
	ep_manifest_set(g, "cpu.model", "A");
	ep_manifest_set(c, "cpu.model", "B");
	ep_manifest_set(g, "a", "1");
	ep_manifest_set(c, "a", "1");
	if (ep_policy_parse(&user, pol, sizeof pol - 1, "p.json", &err) < 0)
		fail_msg("%s", err.msg);
	compare(&rs, g, c, user);
	assert_int_equal(rs.nign, 2);
	assert_string_equal(rs.ign[0].key, "gpu.1.remapped_rows_pending");
	assert_null(rs.ign[0].expected);
	assert_string_equal(rs.ign[0].actual, "yes");
	assert_string_equal(rs.ign[1].key, "os.kernel");
	assert_string_equal(rs.ign[1].expected, "6.18.0");
	assert_string_equal(rs.ign[1].actual, "6.1.0");
	assert_non_null(strstr(rs.ign[1].reason, "kernel"));
	/* Not results: the verdict is unchanged. */
	assert_null(find(&rs, "os.kernel"));
	assert_null(find(&rs, "cpu.model"));
	assert_int_equal(ep_results_exit(&rs), 0);
	ep_results_clear(&rs);
	assert_int_equal(rs.nign, 0);
	/* The same kernel on both sides: nothing listed. */
	ep_manifest_set(c, "os.kernel", "6.18.0");
	ep_manifest_set(c, "gpu.1.remapped_rows_pending", "no");
	ep_manifest_set(g, "gpu.1.remapped_rows_pending", "no");
	compare(&rs, g, c, def);
	assert_int_equal(rs.nign, 0);
	ep_results_clear(&rs);
	ep_policy_free(user);
	ep_policy_free(def);
	ep_manifest_free(g);
	ep_manifest_free(c);
}

/* A fact that a release newer than the golden's began to capture is a
 * note, new here; a fact any release captured is drift; a golden of that
 * release, or one that names no release, judges it as before. */
static void
test_fact_new_since(void **state)
{
	struct ep_manifest *g = ep_manifest_new(), *c = ep_manifest_new();
	struct ep_policy *p = ep_policy_default();
	struct ep_results rs = { 0 };
	const struct ep_result *r;

	(void)state;
	assert_string_equal(ep_fact_since("gpu.0.compute_mode"), "0.3.0");
	assert_string_equal(ep_fact_since("lockfile.env/pixi.lock.pin.numpy"),
	    "0.3.0");
	assert_null(ep_fact_since("lockfile.requirements.txt.pin.numpy"));
	assert_null(ep_fact_since("gpu.0.name"));
	assert_null(ep_fact_golden_release(g));
	ep_manifest_meta_set(g, "tool", "envparity 0.2.0");
	assert_string_equal(ep_fact_golden_release(g), "0.2.0");
	ep_manifest_set(g, "gpu.0.name", "H100");
	ep_manifest_set(c, "gpu.0.name", "H100");
	ep_manifest_set(c, "gpu.0.compute_mode", "default");
	ep_manifest_set(c, "python.pkg.new", "1");
	compare(&rs, g, c, p);
	r = find(&rs, "gpu.0.compute_mode");
	assert_non_null(r);
	assert_int_equal(r->status, EP_SKIP);
	assert_string_equal(r->message, "gpu.0.compute_mode: fact new since "
	    "envparity 0.3 (the golden was blessed by envparity 0.2.0): not "
	    "judged until the profile is blessed again");
	assert_int_equal(find(&rs, "python.pkg.new")->status, EP_FAIL);
	ep_results_clear(&rs);
	/* Missing here is not new since: it fails as any missing fact. */
	compare(&rs, c, g, p);
	assert_int_equal(find(&rs, "gpu.0.compute_mode")->status, EP_FAIL);
	ep_results_clear(&rs);
	/* A golden of 0.3.0 (or naming no release) judges it. */
	ep_manifest_meta_set(g, "tool", "envparity 0.3.0");
	compare(&rs, g, c, p);
	assert_int_equal(find(&rs, "gpu.0.compute_mode")->status, EP_FAIL);
	ep_results_clear(&rs);
	ep_manifest_meta_set(g, "tool", "something else");
	assert_null(ep_fact_golden_release(g));
	compare(&rs, g, c, p);
	assert_int_equal(find(&rs, "gpu.0.compute_mode")->status, EP_FAIL);
	ep_results_clear(&rs);
	ep_policy_free(p);
	ep_manifest_free(g);
	ep_manifest_free(c);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_h100_against_itself),
		cmocka_unit_test(test_h100_against_this_machine),
		cmocka_unit_test(test_ignored_changes),
		cmocka_unit_test(test_fact_new_since),
	};

	/* The capture loads each CUDA library in a fresh execution of this
	 * binary (dynload.h), as envparity's main() does. */
	if (argc > 1 && strcmp(argv[1], EP_DYNLOAD_HELPER) == 0)
		return ep_dynload_main(argc, argv);

	return cmocka_run_group_tests(tests, NULL, NULL);
}
