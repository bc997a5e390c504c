/*
 * test_probe_gpus.c: which GPUs the probe runs on (--gpus, gpu.count,
 * CUDA_VISIBLE_DEVICES), which of them take one process at a time, how
 * many processes go at once by default, and whether the GPUs of one
 * domain agree, from facts alone (probe_gpus.c, probe_run.c).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"

static struct ep_manifest *
with_count(const char *n)
{
	struct ep_manifest *m = ep_manifest_new();

	if (n != NULL)
		ep_manifest_set(m, "gpu.count", n);
	return m;
}

static void
test_parse(void **state)
{
	struct ep_err err = { 0 };

	(void)state;
	assert_int_equal(ep_probe_gpus_parse("0,3", &err), 0);
	assert_int_equal(ep_probe_gpus_parse("all", &err), 0);
	assert_int_equal(ep_probe_gpus_parse("7", &err), 0);
	assert_int_equal(ep_probe_gpus_parse("x", &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_int_equal(ep_probe_gpus_parse("0,,1", &err), -1);
	assert_int_equal(ep_probe_gpus_parse("0,", &err), -1);
	assert_int_equal(ep_probe_gpus_parse("", &err), -1);
	assert_int_equal(ep_probe_gpus_parse("+1", &err), -1);
	assert_int_equal(ep_probe_gpus_parse("2,2", &err), -1);
	assert_string_equal(err.msg, "--gpus 2,2: GPU 2 named twice");
}

static void
test_select(void **state)
{
	struct ep_manifest *m8 = with_count("8"), *none = with_count(NULL);
	struct ep_probe_gpus g;
	struct ep_err err = { 0 };

	(void)state;
	/* Every GPU of gpu.count, by physical index, in PCI bus order. */
	assert_int_equal(ep_probe_gpus_select(&g, NULL, NULL, m8, &err), 0);
	assert_int_equal(g.n, 8);
	assert_string_equal(g.v[7].key, "gpu7");
	assert_string_equal(g.v[7].visible, "7");
	assert_true(g.v[7].pci_order);
	ep_probe_gpus_clear(&g);
	/* --gpus picks; beyond the count is an input error. */
	assert_int_equal(ep_probe_gpus_select(&g, "3,0", NULL, m8, &err), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.v[0].index, 3);
	ep_probe_gpus_clear(&g);
	assert_int_equal(ep_probe_gpus_select(&g, "8", NULL, m8, &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_int_equal(g.n, 0);
	/* CUDA_VISIBLE_DEVICES set: its entries, as they are, up to the
	 * first empty one. */
	assert_int_equal(ep_probe_gpus_select(&g, NULL, "GPU-abc,3,,5", m8,
	    &err), 0);
	assert_int_equal(g.n, 2);
	assert_string_equal(g.v[0].visible, "GPU-abc");
	assert_string_equal(g.v[1].visible, "3");
	assert_false(g.v[1].pci_order);
	assert_string_equal(g.v[1].label,
	    "GPU 1 (CUDA_VISIBLE_DEVICES entry 3)");
	ep_probe_gpus_clear(&g);
	assert_int_equal(ep_probe_gpus_select(&g, "2", "3,4", m8, &err), -1);
	/* Not known, or none visible: one process as things are. */
	assert_int_equal(ep_probe_gpus_select(&g, NULL, NULL, none, &err), 0);
	assert_int_equal(g.n, 1);
	assert_null(g.v[0].visible);
	assert_string_equal(g.v[0].key, "gpu0");
	ep_probe_gpus_clear(&g);
	assert_int_equal(ep_probe_gpus_select(&g, NULL, "", m8, &err), 0);
	assert_int_equal(g.n, 1);
	assert_null(g.v[0].visible);
	ep_probe_gpus_clear(&g);
	assert_int_equal(ep_probe_gpus_select(&g, "0", "", m8, &err), -1);
	ep_manifest_free(m8);
	ep_manifest_free(none);
}

/* Agreement of n GPUs whose gemm hashes are h[i] (NULL: none) in
 * domains d[i]; returns the .gpus result's status, -1 when none. */
/* Which GPUs take one process at a time: by the capture's own index
 * when the GPUs are NVML's, every one when they come from
 * CUDA_VISIBLE_DEVICES and any GPU of the capture is exclusive. */
static void
test_exclusive(void **state)
{
	struct ep_manifest *m = with_count("4");
	struct ep_probe_gpus g;
	struct ep_err err = { 0 };

	(void)state;
	ep_manifest_set(m, "gpu.0.compute_mode", "default");
	ep_manifest_set(m, "gpu.2.compute_mode", "exclusive_process");
	ep_manifest_set(m, "gpu.3.compute_mode", "prohibited");
	assert_int_equal(ep_probe_gpus_select(&g, NULL, NULL, m, &err), 0);
	assert_int_equal(g.n, 4);
	assert_false(g.v[0].one_at_a_time);
	assert_false(g.v[1].one_at_a_time);	/* not known: as default */
	assert_true(g.v[2].one_at_a_time);
	assert_false(g.v[3].one_at_a_time);
	ep_probe_gpus_clear(&g);
	/* --gpus picks by index: GPU 2 is still the exclusive one. */
	assert_int_equal(ep_probe_gpus_select(&g, "2,0", NULL, m, &err), 0);
	assert_true(g.v[0].index == 2 && g.v[0].one_at_a_time);
	assert_false(g.v[1].one_at_a_time);
	ep_probe_gpus_clear(&g);
	/* Entries of CUDA_VISIBLE_DEVICES: all of them, carefully. */
	assert_int_equal(ep_probe_gpus_select(&g, NULL, "GPU-a,1", m, &err), 0);
	assert_true(g.v[0].one_at_a_time && g.v[1].one_at_a_time);
	ep_probe_gpus_clear(&g);
	/* The old name of the exclusive mode too; none exclusive: none. */
	ep_manifest_set(m, "gpu.2.compute_mode", "exclusive_thread");
	assert_int_equal(ep_probe_gpus_select(&g, NULL, "1", m, &err), 0);
	assert_true(g.v[0].one_at_a_time);
	ep_probe_gpus_clear(&g);
	ep_manifest_set(m, "gpu.2.compute_mode", "default");
	assert_int_equal(ep_probe_gpus_select(&g, NULL, "1", m, &err), 0);
	assert_false(g.v[0].one_at_a_time);
	ep_probe_gpus_clear(&g);
	ep_manifest_free(m);
}

/* --jobs by default: this process's CPUs, at most 64, never fewer than
 * the GPUs. */
static void
test_jobs_default(void **state)
{
	cpu_set_t set;
	unsigned want;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
	want = (unsigned)CPU_COUNT(&set);
	if (want > EP_PROBE_JOBS_DEFAULT_MAX)
		want = EP_PROBE_JOBS_DEFAULT_MAX;
	assert_int_equal(ep_probe_jobs_default(0), want);
	assert_int_equal(ep_probe_jobs_default(1), want);
	assert_int_equal(ep_probe_jobs_default(100), 100);
	assert_int_equal(ep_probe_jobs_default(1000), EP_PROBE_JOBS_MAX);
}

static int
agree(struct ep_manifest *f, size_t n, const char *const *h,
    const char *const *d, char **msg)
{
	struct ep_probe_gpuinfo g[8] = { 0 };
	struct ep_results rs = { 0 };
	struct ep_strv sum = { 0 };
	char *keys[8];
	int st = -1;

	for (size_t i = 0; i < n; i++) {
		char *k = xasprintf("probe.cuda.gpu%zu.gemm.sha256", i);

		keys[i] = xasprintf("gpu%zu", i);
		if (h[i] != NULL)
			ep_manifest_set(f, k, h[i]);
		free(k);
		g[i] = (struct ep_probe_gpuinfo){ (unsigned)i, keys[i],
		    d[i][0] == 'H' ? "H100" : "A100", d[i] };
	}
	ep_probe_gpus_agree(&rs, f, &sum, "cuda", g, n);
	*msg = NULL;
	for (size_t i = 0; i < rs.n; i++)
		if (strcmp(rs.v[i].key, "probe.cuda.gemm.gpus") == 0) {
			st = rs.v[i].status;
			*msg = xstrdup(rs.v[i].message);
		}
	for (size_t i = 0; i < n; i++)
		free(keys[i]);
	ep_results_clear(&rs);
	ep_strv_clear(&sum);
	return st;
}

static void
test_agree(void **state)
{
	const char *H = "H100 dom", *A = "A100 dom";
	const char *same[] = { "aa", "aa", "aa", "aa" };
	const char *odd[] = { "aa", "aa", "aa", "bb" };
	const char *tie[] = { "aa", "bb", "aa", "bb" };
	const char *mixed[] = { "aa", "aa", "cc", "cc" };
	const char *gap[] = { "aa", NULL, "aa", "aa" };
	const char *hd[] = { H, H, H, H }, *md[] = { H, H, A, A };
	struct ep_manifest *f;
	char *msg;

	(void)state;
	f = ep_manifest_new();
	assert_int_equal(agree(f, 4, same, hd, &msg), EP_PASS);
	assert_string_equal(msg, "identical on GPUs 0-3 (H100)");
	assert_string_equal(ep_manifest_get(f, "probe.cuda.gemm.sha256"), "aa");
	free(msg);
	ep_manifest_free(f);

	f = ep_manifest_new();
	assert_int_equal(agree(f, 4, odd, hd, &msg), EP_FAIL);
	assert_string_equal(msg, "GPU 3 (H100) differs from the majority, "
	    "GPUs 0-2 (2 distinct outputs)");
	assert_null(ep_manifest_get(f, "probe.cuda.gemm.sha256"));
	free(msg);
	ep_manifest_free(f);

	f = ep_manifest_new();
	assert_int_equal(agree(f, 4, tie, hd, &msg), EP_FAIL);
	assert_non_null(strstr(msg, "disagree with no majority"));
	free(msg);
	ep_manifest_free(f);

	/* Two models: each domain on its own, the node's hash the first's. */
	f = ep_manifest_new();
	assert_int_equal(agree(f, 4, mixed, md, &msg), EP_PASS);
	assert_non_null(strstr(msg, "another determinism domain"));
	assert_string_equal(ep_manifest_get(f, "probe.cuda.gemm.sha256"), "aa");
	free(msg);
	ep_manifest_free(f);

	/* A GPU without a stable hash is left out, and said. */
	f = ep_manifest_new();
	assert_int_equal(agree(f, 4, gap, hd, &msg), EP_PASS);
	assert_string_equal(msg, "identical on GPUs 0, 2 and 3 (H100); GPU 1 "
	    "left out (no stable output)");
	free(msg);
	ep_manifest_free(f);

	/* One GPU: its hash is the node's, and no .gpus result. */
	f = ep_manifest_new();
	assert_int_equal(agree(f, 1, odd + 3, hd, &msg), -1);
	assert_string_equal(ep_manifest_get(f, "probe.cuda.gemm.sha256"), "bb");
	ep_manifest_free(f);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_select),
		cmocka_unit_test(test_exclusive),
		cmocka_unit_test(test_jobs_default),
		cmocka_unit_test(test_agree),
	};

	(void)argc;
	(void)argv;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
