/*
 * test_compare.c: ep_compare on the real H100 capture
 * (tests/fixtures/gpu/h100) against itself, against a modified copy, and
 * against a capture of this machine, which has no GPU; every
 * rule kind, missing keys both ways, and waivers at a fixed date.  The
 * results list itself is test_results.c's.
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

static struct ep_policy *
policy(const char *rules, const char *waivers)
{
	char *text = xasprintf("{\"schema\": \"envparity/policy@1\", "
	    "\"rules\": [%s], \"waivers\": [%s]}", rules, waivers);
	struct ep_policy *p;
	struct ep_err err = { 0 };

	if (ep_policy_parse(&p, text, strlen(text), "policy.json", &err) < 0)
		fail_msg("%s", err.msg);
	free(text);
	return p;
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

static void
test_h100_modified(void **state)
{
	struct ep_manifest *g = h100(), *c = h100();
	struct ep_policy *p = ep_policy_default();
	struct ep_results rs = { 0 };
	const struct ep_result *r;
	size_t counts[EP_NSTATUS], nfail = 0;

	(void)state;
	ep_manifest_set(c, "python.pkg.numpy", "2.0.0");
	ep_manifest_set(c, "gpu.driver.version", "580.65.06");
	ep_manifest_set(c, "python.pkg.left-pad", "1.3.0");
	json_object_del(c->facts, "lib.nccl.sha256");
	ep_manifest_set(c, "os.kernel", "6.1.0-28-amd64");	/* ignored */
	compare(&rs, g, c, p);
	ep_results_count(&rs, counts);
	assert_int_equal(counts[EP_FAIL], 4);
	assert_int_equal(counts[EP_PASS], 287 - 2 - 4);
	for (size_t i = 0; i < rs.n; i++)
		if (rs.v[i].status == EP_FAIL)
			nfail++;
	assert_int_equal(nfail, 4);

	r = get(&rs, "python.pkg.numpy");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message,
	    "python.pkg.numpy: expected 2.5.2, got 2.0.0");
	assert_string_equal(r->expected, "2.5.2");
	assert_string_equal(r->actual, "2.0.0");
	assert_string_equal(r->rule, "exact");
	assert_null(r->waiver_owner);
	r = get(&rs, "gpu.driver.version");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message,
	    "gpu.driver.version: expected 580.159.04, got 580.65.06");
	r = get(&rs, "python.pkg.left-pad");
	assert_int_equal(r->status, EP_FAIL);
	assert_null(r->expected);
	assert_string_equal(r->message, "python.pkg.left-pad: new here "
	    "(1.3.0), not in the golden manifest");
	r = get(&rs, "lib.nccl.sha256");
	assert_int_equal(r->status, EP_FAIL);
	assert_null(r->actual);
	assert_string_equal(r->message, "lib.nccl.sha256: expected "
	    "1c8618b866734cbdd5401715d6178be763ece283b7f808ecf86dedab211162c1,"
	    " missing here");
	assert_null(find(&rs, "os.kernel"));
	assert_int_equal(ep_results_exit(&rs), EP_EXIT_DRIFT);
	ep_results_clear(&rs);
	ep_policy_free(p);
	ep_manifest_free(g);
	ep_manifest_free(c);
}

static void
test_version_rule(void **state)
{
	struct ep_manifest *g = h100(), *c = h100();
	struct ep_policy *p = policy(
	    "{\"key\": \"gpu.driver.version\", \"rule\": \"version\", "
	    "\"range\": \">=580.65,<590\"},"
	    "{\"key\": \"lib.cudnn.version\", \"rule\": \"version\", "
	    "\"range\": \">=9.20\", \"reason\": \"needs the 9.20 fix\"},"
	    "{\"key\": \"lib.nccl.version\", \"rule\": \"version\", "
	    "\"range\": \">=2\"}", "");
	struct ep_results rs = { 0 };
	const struct ep_result *r;

	(void)state;
	/* An upgrade inside the range passes; golden value shown. */
	ep_manifest_set(g, "gpu.driver.version", "580.65.06");
	ep_manifest_set(c, "lib.nccl.version", "two");
	compare(&rs, g, c, p);
	r = get(&rs, "gpu.driver.version");
	assert_int_equal(r->status, EP_PASS);
	assert_string_equal(r->rule, "version >=580.65,<590");
	assert_string_equal(r->expected, "580.65.06");
	assert_string_equal(r->actual, "580.159.04");
	assert_string_equal(r->message,
	    "gpu.driver.version: 580.159.04 in >=580.65,<590");
	r = get(&rs, "lib.cudnn.version");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message, "lib.cudnn.version: 9.19.0 not in "
	    ">=9.20 (policy: needs the 9.20 fix)");
	r = get(&rs, "lib.nccl.version");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message, "lib.nccl.version: \"two\" is not a "
	    "version (range >=2)");
	ep_results_clear(&rs);

	/* Past the top of the range, and a key new here judged by it. */
	ep_manifest_set(c, "gpu.driver.version", "590.10");
	json_object_del(g->facts, "lib.cudnn.version");
	ep_manifest_set(c, "lib.cudnn.version", "9.20.1");
	compare(&rs, g, c, p);
	r = get(&rs, "gpu.driver.version");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message,
	    "gpu.driver.version: 590.10 not in >=580.65,<590");
	r = get(&rs, "lib.cudnn.version");
	assert_int_equal(r->status, EP_PASS);
	assert_null(r->expected);
	ep_results_clear(&rs);
	ep_policy_free(p);
	ep_manifest_free(g);
	ep_manifest_free(c);
}

static void
test_missing_modes(void **state)
{
	struct ep_manifest *g = ep_manifest_new(), *c = ep_manifest_new();
	struct ep_policy *p = policy(
	    "{\"key\": \"a.*\", \"rule\": \"exact\", \"missing\": \"skip\"},"
	    "{\"key\": \"b.*\", \"rule\": \"exact\", \"missing\": \"ignore\"},"
	    "{\"key\": \"v.*\", \"rule\": \"version\", \"range\": \">=1\", "
	    "\"missing\": \"skip\"}", "");
	struct ep_results rs = { 0 };

	(void)state;
	ep_manifest_set(g, "a.gone", "1");
	ep_manifest_set(c, "a.new", "2");
	ep_manifest_set(g, "b.gone", "1");
	ep_manifest_set(c, "b.new", "2");
	ep_manifest_set(g, "c.gone", "1");	/* default: fail */
	ep_manifest_set(c, "c.new", "2");
	ep_manifest_set(g, "v.gone", "1");
	compare(&rs, g, c, p);
	assert_int_equal(rs.n, 5);
	assert_int_equal(get(&rs, "a.gone")->status, EP_SKIP);
	assert_string_equal(get(&rs, "a.gone")->message,
	    "a.gone: expected 1, missing here (not compared)");
	assert_int_equal(get(&rs, "a.new")->status, EP_SKIP);
	assert_string_equal(get(&rs, "a.new")->message, "a.new: new here (2), "
	    "not in the golden manifest (not compared)");
	assert_null(find(&rs, "b.gone"));
	assert_null(find(&rs, "b.new"));
	assert_int_equal(get(&rs, "c.gone")->status, EP_FAIL);
	assert_int_equal(get(&rs, "c.new")->status, EP_FAIL);
	assert_int_equal(get(&rs, "v.gone")->status, EP_SKIP);
	ep_results_clear(&rs);
	ep_policy_free(p);
	ep_manifest_free(g);
	ep_manifest_free(c);
}

static void
test_present_absent(void **state)
{
	struct ep_manifest *g = ep_manifest_new(), *c = ep_manifest_new();
	struct ep_policy *p = policy(
	    "{\"key\": \"gpu.count\", \"rule\": \"present\"},"
	    "{\"key\": \"gpu.0.name\", \"rule\": \"present\"},"
	    "{\"key\": \"env.CUDA_LAUNCH_BLOCKING\", \"rule\": \"absent\"},"
	    "{\"key\": \"env.X\", \"rule\": \"absent\"}", "");
	struct ep_results rs = { 0 };

	(void)state;
	ep_manifest_set(g, "gpu.count", "1");
	ep_manifest_set(c, "gpu.count", "8");	/* any value */
	ep_manifest_set(g, "gpu.0.name", "NVIDIA H100 80GB HBM3");
	ep_manifest_set(c, "env.CUDA_LAUNCH_BLOCKING", "1");
	ep_manifest_set(g, "env.X", "1");
	compare(&rs, g, c, p);
	assert_int_equal(get(&rs, "gpu.count")->status, EP_PASS);
	assert_string_equal(get(&rs, "gpu.count")->rule, "present");
	assert_int_equal(get(&rs, "gpu.0.name")->status, EP_FAIL);
	assert_string_equal(get(&rs, "gpu.0.name")->message,
	    "gpu.0.name: required, missing here");
	assert_int_equal(get(&rs, "env.CUDA_LAUNCH_BLOCKING")->status,
	    EP_FAIL);
	assert_string_equal(get(&rs, "env.CUDA_LAUNCH_BLOCKING")->message,
	    "env.CUDA_LAUNCH_BLOCKING: must be absent, found 1");
	assert_int_equal(get(&rs, "env.X")->status, EP_PASS);
	ep_results_clear(&rs);
	ep_policy_free(p);
	ep_manifest_free(g);
	ep_manifest_free(c);
}

/* The H100 manifest as a runner without a GPU would capture it. */
static struct ep_manifest *
h100_without_gpu(void)
{
	struct ep_manifest *m = h100();
	const char *k;
	json_t *v;
	void *tmp;

	json_object_foreach_safe(m->facts, tmp, k, v) {
		if (ep_startswith(k, "gpu."))
			json_object_del(m->facts, k);
	}
	ep_manifest_unavailable(m, "gpu", "libnvidia-ml.so.1 not found");
	return m;
}

static void
test_unavailable_area_is_skip(void **state)
{
	struct ep_manifest *g = h100(), *c = h100_without_gpu();
	struct ep_policy *p = ep_policy_default(), *pp;
	struct ep_results rs = { 0 };
	const struct ep_result *r;
	size_t counts[EP_NSTATUS];

	(void)state;
	compare(&rs, g, c, p);
	ep_results_count(&rs, counts);
	/* Every gpu.* fact but the one ignored by default. */
	assert_int_equal(counts[EP_SKIP], 10);
	assert_int_equal(counts[EP_FAIL], 0);
	assert_int_equal(ep_results_exit(&rs), EP_EXIT_OK);
	r = get(&rs, "gpu.driver.version");
	assert_int_equal(r->status, EP_SKIP);
	assert_string_equal(r->expected, "580.159.04");
	assert_null(r->actual);
	assert_string_equal(r->message, "gpu.driver.version: not checked "
	    "here: libnvidia-ml.so.1 not found");
	ep_results_clear(&rs);

	/* Reversed: the golden could not look; the GPU facts here are not
	 * new drift either. */
	compare(&rs, c, g, p);
	ep_results_count(&rs, counts);
	assert_int_equal(counts[EP_SKIP], 10);
	assert_int_equal(counts[EP_FAIL], 0);
	assert_string_equal(get(&rs, "gpu.count")->message, "gpu.count: not "
	    "in the golden manifest, which did not check gpu: "
	    "libnvidia-ml.so.1 not found");
	ep_results_clear(&rs);

	/* "present" says the GPU is required: a failure, not a skip. */
	pp = policy("{\"key\": \"gpu.driver.version\", \"rule\": "
	    "\"present\", \"reason\": \"training needs a GPU\"}", "");
	compare(&rs, g, c, pp);
	r = get(&rs, "gpu.driver.version");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->message, "gpu.driver.version: required, "
	    "missing here (gpu not checked here: libnvidia-ml.so.1 not "
	    "found) (policy: training needs a GPU)");
	assert_int_equal(get(&rs, "gpu.count")->status, EP_SKIP);
	ep_results_clear(&rs);
	ep_policy_free(pp);
	ep_policy_free(p);
	ep_manifest_free(g);
	ep_manifest_free(c);
}

static void
test_waivers(void **state)
{
	struct ep_manifest *g = h100(), *c = h100();
	struct ep_policy *p = policy("",
	    "{\"key\": \"python.pkg.numpy\", \"reason\": \"NEP 50 migration\","
	    " \"owner\": \"ana\", \"expires\": \"2026-11-22\"},"
	    "{\"key\": \"lib.cudnn.*\", \"reason\": \"cuDNN hotfix\","
	    " \"owner\": \"ml-platform\", \"expires\": \"2026-11-21\"},"
	    "{\"key\": \"python.pkg.torch\", \"reason\": \"unused\","
	    " \"owner\": \"bo\", \"expires\": \"2027-01-01\"}");
	struct ep_results rs = { 0 };
	const struct ep_result *r;

	(void)state;
	ep_manifest_set(c, "python.pkg.numpy", "2.0.0");
	ep_manifest_set(c, "lib.cudnn.version", "9.20.0");
	compare(&rs, g, c, p);

	/* Live on its last day: waived, visible, not fatal. */
	r = get(&rs, "python.pkg.numpy");
	assert_int_equal(r->status, EP_WAIVED);
	assert_string_equal(r->waiver_owner, "ana");
	assert_string_equal(r->waiver_reason, "NEP 50 migration");
	assert_string_equal(r->waiver_expires, "2026-11-22");
	assert_string_equal(r->message, "python.pkg.numpy: expected 2.5.2, "
	    "got 2.0.0; waived by ana until 2026-11-22: NEP 50 migration");
	/* Expired the day before: still a failure, and says so. */
	r = get(&rs, "lib.cudnn.version");
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->waiver_owner, "ml-platform");
	assert_string_equal(r->waiver_expires, "2026-11-21");
	assert_string_equal(r->message, "lib.cudnn.version: expected 9.19.0, "
	    "got 9.20.0; waiver by ml-platform expired on 2026-11-21: cuDNN "
	    "hotfix");
	/* A waiver on a passing key changes nothing. */
	r = get(&rs, "python.pkg.torch");
	assert_int_equal(r->status, EP_PASS);
	assert_null(r->waiver_owner);
	assert_int_equal(ep_results_exit(&rs), EP_EXIT_DRIFT);
	ep_results_clear(&rs);

	/* Without the expired one's drift, only the waived one is left. */
	ep_manifest_set(c, "lib.cudnn.version", "9.19.0");
	compare(&rs, g, c, p);
	assert_int_equal(ep_results_exit(&rs), EP_EXIT_OK);
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
		} else
			assert_int_not_equal(r->status, EP_SKIP);
	}
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

/* Probe hashes bind only within a determinism domain: across domains a
 * different hash (and the domain itself) is a skip that says how. */
static void
test_probe_domains(void **state)
{
	struct ep_manifest *g = ep_manifest_new(), *c = ep_manifest_new();
	struct ep_policy *p = ep_policy_default();
	struct ep_results rs = { 0 };
	const struct ep_result *r;

	(void)state;
	ep_manifest_set(g, "probe.domain", "H100 cc 9.0 132 SMs driver 580");
	ep_manifest_set(g, "probe.cuda.gemm.sha256", "aaaa");
	ep_manifest_set(g, "probe.cpu.domain", "x86_64 envparity-probe 1");
	ep_manifest_set(g, "probe.cpu.gemm.sha256", "cccc");
	ep_manifest_set(c, "probe.domain", "A100 cc 8.0 108 SMs driver 580");
	ep_manifest_set(c, "probe.cuda.gemm.sha256", "bbbb");
	ep_manifest_set(c, "probe.cpu.domain", "x86_64 envparity-probe 1");
	ep_manifest_set(c, "probe.cpu.gemm.sha256", "dddd");
	compare(&rs, g, c, p);
	r = find(&rs, "probe.cuda.gemm.sha256");
	assert_non_null(r);
	assert_int_equal(r->status, EP_SKIP);
	assert_non_null(strstr(r->message, "domains differ (golden: H100"));
	assert_non_null(strstr(r->message, "here: A100"));
	assert_int_equal(find(&rs, "probe.domain")->status, EP_SKIP);
	/* Same CPU domain: a different hash is drift. */
	r = find(&rs, "probe.cpu.gemm.sha256");
	assert_int_equal(r->status, EP_FAIL);
	assert_int_equal(find(&rs, "probe.cpu.domain")->status, EP_PASS);
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
		cmocka_unit_test(test_h100_modified),
		cmocka_unit_test(test_version_rule),
		cmocka_unit_test(test_missing_modes),
		cmocka_unit_test(test_present_absent),
		cmocka_unit_test(test_unavailable_area_is_skip),
		cmocka_unit_test(test_waivers),
		cmocka_unit_test(test_h100_against_this_machine),
		cmocka_unit_test(test_probe_domains),
	};

	/* The capture loads each CUDA library in a fresh execution of this
	 * binary (dynload.h), as envparity's main() does. */
	if (argc > 1 && strcmp(argv[1], EP_DYNLOAD_HELPER) == 0)
		return ep_dynload_main(argc, argv);

	return cmocka_run_group_tests(tests, NULL, NULL);
}
