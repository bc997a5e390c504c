/*
 * test_node_nvml.c: what gpudrv_nvml.c asks NVML about NVLink and the
 * topology between GPUs (gpu.<i>.nvlink_*, gpu.<i>.topo.<j>), in
 * process, against the NVML TEST DOUBLE (tests/doubles/fake_nvml.c, not
 * NVIDIA's code: the build machines have no GPU), its functions put in
 * the table as dynload.c puts what dlsym finds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpudrv_nvml.h"
#include "strv.h"
#include "xalloc.h"

#include "../doubles/fake_nvml.c"
#include "../doubles/fake_nvml_health.c"

static struct ep_strv lines;

static void
emit(const char *field, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	ep_strv_push_owned(&lines, xasprintf("%s=%s", field, buf));
}

static int
has(const char *line)
{
	return ep_strv_contains(&lines, line);
}

static size_t
count_prefix(const char *prefix)
{
	size_t n = 0;

	for (size_t i = 0; i < lines.n; i++)
		n += strncmp(lines.v[i], prefix, strlen(prefix)) == 0;
	return n;
}

/* The double's functions by NVML's names, as dlsym would give them. */
static void *
lookup(const char *name)
{
	static const struct {
		const char *name;
		void *fn;
	} fns[] = {
#define F(f)	{ #f, (void *)f }
		F(nvmlInit_v2), F(nvmlShutdown), F(nvmlErrorString),
		F(nvmlSystemGetDriverVersion), F(nvmlDeviceGetCount_v2),
		F(nvmlDeviceGetHandleByIndex_v2), F(nvmlDeviceGetName),
		F(nvmlDeviceGetNvLinkState), F(nvmlDeviceGetNvLinkVersion),
		F(nvmlDeviceGetTopologyCommonAncestor),
#undef F
	};

	for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++)
		if (strcmp(fns[i].name, name) == 0)
			return fns[i].fn;
	return NULL;
}

/* The table with every symbol the double has, but those in drop. */
static void
table(struct ep_nvml *t, const char *drop)
{
	size_t n;
	const struct ep_nvml_sym *s = ep_nvml_syms(&n);

	memset(t, 0, sizeof *t);
	for (size_t i = 0; i < n; i++) {
		void *fn = lookup(s[i].sym);

		if (drop != NULL && strstr(drop, s[i].sym) != NULL)
			fn = NULL;
		memcpy((char *)t + s[i].off, &fn, sizeof fn);
	}
}

static void
query(const char *gpus, const char *health, const char *drop)
{
	struct ep_nvml t;

	ep_strv_clear(&lines);
	setenv("FAKE_NVML_GPUS", gpus, 1);
	setenv("FAKE_NVML_HEALTH", health, 1);
	table(&t, drop);
	ep_nvml_query(&t, emit);
}

/* Eight H100 SXMs: 18 active links of NVLink 4.0 each, GPUs 0-3 and 4-7
 * on two NUMA nodes; then two dead links, a PCIe card, a driver that
 * names another version, a GPU whose topology is not supported. */
static void
test_nvlink_topology(void **state)
{
	(void)state;
	query("8", "", NULL);
	assert_true(has("count=8"));
	for (int i = 0; i < 8; i++) {
		char *l = xasprintf("%d.nvlink_links=18", i);

		assert_true(has(l));
		free(l);
	}
	assert_true(has("0.nvlink_inactive=none"));
	assert_true(has("0.nvlink_version=4.0"));
	assert_true(has("0.topo.3=node"));
	assert_true(has("0.topo.4=system"));
	assert_true(has("6.topo.7=node"));
	assert_int_equal(count_prefix("7.topo."), 0);
	/* (The double's other calls are left out of the table: their
	 * fields are "unchecked", none of NVLink's.) */
	assert_int_equal(count_prefix("unchecked.0.nvlink"), 0);
	assert_int_equal(count_prefix("warning"), 0);

	query("6", "3:nvlink_down=0+5+17,2:nvlinks=0,1:nvlink_version=7,"
	    "4:unsupported=topo,5:nvlinks=4,5:nvlink_down=0+1+2+3", NULL);
	assert_true(has("3.nvlink_links=18"));
	assert_true(has("3.nvlink_inactive=0,5,17"));
	assert_true(has("3.nvlink_version=4.0"));
	assert_true(has("2.nvlink_links=unsupported"));
	assert_int_equal(count_prefix("2.nvlink_inactive"), 0);
	assert_true(has("1.nvlink_version=5.0"));
	assert_true(has("0.topo.4=unsupported"));
	assert_true(has("4.topo.5=unsupported"));
	assert_true(has("0.topo.5=system"));
	/* Every link down: no version to say. */
	assert_true(has("5.nvlink_links=4"));
	assert_true(has("5.nvlink_inactive=0,1,2,3"));
	assert_int_equal(count_prefix("5.nvlink_version"), 0);
}

/* An NVML without the calls: no fact, and why; another failure of the
 * state call: why, with NVML's words. */
static void
test_nvlink_missing(void **state)
{
	(void)state;
	query("2", "", "nvmlDeviceGetNvLinkState "
	    "nvmlDeviceGetTopologyCommonAncestor");
	assert_true(has("0.name=NVIDIA H100 80GB HBM3"));
	assert_int_equal(count_prefix("0.nvlink"), 0);
	assert_int_equal(count_prefix("0.topo"), 0);
	assert_true(has("unchecked.0.nvlink=nvmlDeviceGetNvLinkState is not "
	    "in this driver's NVML"));

	/* Without the version call the states still count. */
	query("1", "0:nvlink_down=1", "nvmlDeviceGetNvLinkVersion");
	assert_true(has("0.nvlink_links=18"));
	assert_true(has("0.nvlink_inactive=1"));
	assert_int_equal(count_prefix("0.nvlink_version"), 0);

	/* An unknown field in the double's settings: it fails to start. */
	query("1", "0:nvlink_down=40", NULL);
	assert_int_equal(count_prefix("unavailable=nvmlInit_v2"), 1);
	ep_strv_clear(&lines);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nvlink_topology),
		cmocka_unit_test(test_nvlink_missing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
