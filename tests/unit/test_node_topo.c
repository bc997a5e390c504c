/*
 * test_node_topo.c: the PCIe topology between GPUs and to HCAs
 * (collect/node_topo.c): the path parser and the level of every shape of
 * path (one switch, two, a shared root port, the host bridge, another
 * root complex on the same or the other NUMA node), the 8-GPU, 8-HCA
 * fixture tree of tests/fixtures/node/dgx-h100 (a stand-in for a DGX
 * H100, whose GPUs are not here), a tree that misleads, this machine's
 * own /sys, and a golden of 0.3.0 (with node facts, none of these).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "compare.h"
#include "factsince.h"
#include "manifest.h"
#include "node.h"
#include "policy.h"
#include "results.h"
#include "testutil.h"

#define DGX	"tests/fixtures/node/dgx-h100"

static void
fact_is(const struct ep_manifest *m, const char *key, const char *want)
{
	const char *v = ep_manifest_get(m, key);

	if (v == NULL)
		fail_msg("%s: missing, want %s", key, want);
	if (strcmp(v, want) != 0)
		fail_msg("%s: %s, want %s", key, v, want);
}

static size_t
count_prefix(const struct ep_manifest *m, const char *prefix)
{
	const char *k;
	json_t *v;
	size_t n = 0;

	json_object_foreach(m->facts, k, v)
		n += strncmp(k, prefix, strlen(prefix)) == 0;
	return n;
}

static void
path_is(const char *link, const char *want)
{
	char *p = ep_node_pci_path(link);

	if (want == NULL && p != NULL)
		fail_msg("%s: %s, want none", link, p);
	if (want != NULL && (p == NULL || strcmp(p, want) != 0))
		fail_msg("%s: %s, want %s", link, p ? p : "none", want);
	free(p);
}

static void
test_pci_path(void **state)
{
	(void)state;
	path_is("../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0",
	    "pci0000:15/0000:15:01.0/0000:16:00.0");
	/* Behind Intel's VMD: the last root complex is the tree's. */
	path_is("../../../devices/pci0000:00/0000:00:0e.0/pci10000:00/"
	    "10000:00:02.0/10000:01:00.0",
	    "pci10000:00/10000:00:02.0/10000:01:00.0");
	path_is("/sys/devices/pci0000:00/0000:00:1f.6",
	    "pci0000:00/0000:00:1f.6");
	path_is("../../../devices/pci0000:00", NULL);
	path_is("../../../devices/pci0000:00/", NULL);
	path_is("../../devices/virtual/net/lo", NULL);
	path_is("../../../devices/pcie/0000:00:01.0", NULL);
	path_is("", NULL);
}

#define RC0	"pci0000:15/0000:15:01.0"
#define SW0	RC0 "/0000:16:00.0"
#define RC1	"pci0000:3d/0000:3d:01.0"

static void
level_is(const char *a, const char *b, int na, int nb, int want)
{
	int got = ep_node_topo_level(a, b, na, nb);

	if (got != want)
		fail_msg("%s | %s: %s, want %s", a, b, ep_node_topo_name(got),
		    ep_node_topo_name(want));
	/* The same either way round. */
	assert_int_equal(ep_node_topo_level(b, a, nb, na), got);
}

static void
test_levels(void **state)
{
	(void)state;
	/* One switch: two downstream ports of one upstream port (PIX). */
	level_is(SW0 "/0000:17:00.0/0000:18:00.0",
	    SW0 "/0000:17:03.0/0000:1b:00.0", 0, 0, EP_TOPO_SINGLE);
	/* The GPU behind a second switch under the first (PXB). */
	level_is(SW0 "/0000:17:00.0/0000:18:00.0",
	    SW0 "/0000:17:03.0/0000:19:00.0/0000:1a:00.0/0000:1b:00.0", 0, 0,
	    EP_TOPO_MULTIPLE);
	/* Each behind a switch of its own under one root port's switch. */
	level_is(SW0 "/0000:17:00.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0",
	    SW0 "/0000:17:03.0/0000:1b:00.0/0000:1c:00.0/0000:1d:00.0", 0, 0,
	    EP_TOPO_MULTIPLE);
	/* Two functions of one device on a root port: one bridge. */
	level_is(RC0 "/0000:16:00.0", RC0 "/0000:16:00.1", 0, 0,
	    EP_TOPO_SINGLE);
	/* Two root ports of one root complex (PHB). */
	level_is("pci0000:15/0000:15:01.0/0000:16:00.0",
	    "pci0000:15/0000:15:03.0/0000:17:00.0", 0, 0, EP_TOPO_HOSTBRIDGE);
	level_is(SW0 "/0000:17:00.0/0000:18:00.0",
	    "pci0000:15/0000:15:05.0/0000:20:00.0/0000:21:00.0/0000:22:00.0",
	    0, 0, EP_TOPO_HOSTBRIDGE);
	/* Another root complex: the same NUMA node, or not. */
	level_is(SW0 "/0000:17:00.0/0000:18:00.0",
	    RC1 "/0000:3e:00.0/0000:3f:00.0/0000:40:00.0", 0, 0, EP_TOPO_NODE);
	level_is(SW0 "/0000:17:00.0/0000:18:00.0",
	    RC1 "/0000:3e:00.0/0000:3f:00.0/0000:40:00.0", 0, 1,
	    EP_TOPO_SYSTEM);
	/* No NUMA on either (a one-socket VM): one node. */
	level_is(RC0 "/0000:16:00.0", RC1 "/0000:3e:00.0", -1, -1,
	    EP_TOPO_NODE);
	level_is(RC0 "/0000:16:00.0", RC1 "/0000:3e:00.0", -1, 0,
	    EP_TOPO_SYSTEM);
	/* Nothing to say of a path without a function. */
	assert_int_equal(ep_node_topo_level("pci0000:15", RC0, 0, 0), -1);
	assert_int_equal(ep_node_topo_level("", "", 0, 0), -1);
	assert_string_equal(ep_node_topo_name(EP_TOPO_SINGLE), "single");
	assert_string_equal(ep_node_topo_name(EP_TOPO_MULTIPLE), "multiple");
	assert_string_equal(ep_node_topo_name(EP_TOPO_HOSTBRIDGE),
	    "hostbridge");
	assert_string_equal(ep_node_topo_name(EP_TOPO_NODE), "node");
	assert_string_equal(ep_node_topo_name(EP_TOPO_SYSTEM), "system");
	assert_string_equal(ep_node_topo_name(-1), "unknown");
}

/* The DGX H100 tree: two sockets, each GPU paired with a ConnectX-7 on
 * one PCIe switch in a root complex of its own; the NVSwitches and the
 * BMC's VGA are not GPUs; HCAs named by PCI order, not by mlx5_<n>. */
static void
test_dgx(void **state)
{
	struct ep_manifest *m = ep_manifest_new();
	static const char *const rdma[] = { "mlx5_0", "mlx5_3", "mlx5_4",
	    "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11" };
	char key[64];

	(void)state;
	ep_node_collect(m, DGX);
	fact_is(m, "node.topo.gpus", "8");
	fact_is(m, "node.topo.hcas", "8");
	for (int i = 0; i < 8; i++) {
		snprintf(key, sizeof key, "node.topo.hca%d.rdma", i);
		fact_is(m, key, rdma[i]);
		snprintf(key, sizeof key, "node.topo.hca%d.numa", i);
		fact_is(m, key, i < 4 ? "0" : "1");
		snprintf(key, sizeof key, "node.topo.gpu%d.numa", i);
		fact_is(m, key, i < 4 ? "0" : "1");
		for (int j = 0; j < 8; j++) {
			const char *want = i == j ? "single" :
			    i / 4 == j / 4 ? "node" : "system";

			snprintf(key, sizeof key, "node.topo.gpu%d.hca%d", i, j);
			fact_is(m, key, want);
			if (j <= i)
				continue;
			snprintf(key, sizeof key, "node.topo.gpu%d.gpu%d", i, j);
			fact_is(m, key, want);
		}
	}
	/* 2 counts, 8 x (numa, rdma) HCA facts, 8 GPU numa, 28 pairs of
	 * GPUs, 64 GPU-HCA pairs: nothing else. */
	assert_int_equal(count_prefix(m, "node.topo."), 2 + 16 + 8 + 28 + 64);
	assert_null(json_object_get(m->meta, "warnings"));
	ep_manifest_free(m);
}

static void
mk(const char *root, const char *rel, const char *text)
{
	char *p = xasprintf("%s/%s", root, rel), *s;
	FILE *f;

	for (s = strchr(p + strlen(root) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	assert_non_null(f = fopen(p, "w"));
	fputs(text, f);
	fclose(f);
	free(p);
}

static void
ln(const char *root, const char *target, const char *rel)
{
	char *p = xasprintf("%s/%s", root, rel);

	assert_int_equal(symlink(target, p), 0);
	free(p);
}

/* What misleads: a GPU entry that is a directory, not a link; one that
 * links nowhere PCI; a GPU without numa_node; an NVIDIA audio function;
 * a software RDMA device; an HCA's virtual function; names that are no
 * PCI address. */
static void
test_odd_tree(void **state)
{
	struct ep_manifest *m;
	char dir[256];

	(void)state;
	assert_int_equal(tu_scratch_make(dir, sizeof dir, "topo"), 0);
	mk(dir, "sys/bus/pci/devices/0000:01:00.0/vendor", "0x10de\n");
	mk(dir, "sys/bus/pci/devices/0000:01:00.0/class", "0x030200\n");
	mk(dir, "sys/devices/pci0000:02/0000:02:01.0/0000:03:00.0/vendor",
	    "0x10de\n");
	mk(dir, "sys/devices/pci0000:02/0000:02:01.0/0000:03:00.0/class",
	    "0x030000\n");
	ln(dir, "../../../devices/pci0000:02/0000:02:01.0/0000:03:00.0",
	    "sys/bus/pci/devices/0000:03:00.0");
	mk(dir, "sys/devices/pci0000:02/0000:02:01.0/0000:03:00.1/vendor",
	    "0x10de\n");
	mk(dir, "sys/devices/pci0000:02/0000:02:01.0/0000:03:00.1/class",
	    "0x040300\n");
	ln(dir, "../../../devices/pci0000:02/0000:02:01.0/0000:03:00.1",
	    "sys/bus/pci/devices/0000:03:00.1");
	mk(dir, "sys/devices/platform/x/vendor", "0x10de\n");
	mk(dir, "sys/devices/platform/x/class", "0x030200\n");
	ln(dir, "../../../devices/platform/x", "sys/bus/pci/devices/0000:09:00.0");
	ln(dir, "../../../devices/platform/x", "sys/bus/pci/devices/not-a-bdf");
	mk(dir, "sys/devices/virtual/infiniband/rxe0/fw_ver", "1\n");
	/* An HCA's SR-IOV virtual function: no HCA of its own. */
	mk(dir, "sys/devices/pci0000:02/0000:02:01.0/0000:03:00.2/physfn/x",
	    "");
	ln(dir, "../../../devices/pci0000:02/0000:02:01.0/0000:03:00.2",
	    "sys/bus/pci/devices/0000:03:00.2");
	mk(dir, "sys/devices/pci0000:02/0000:02:01.0/0000:03:00.2/"
	    "infiniband/mlx5_2/fw_ver", "28.43.2026\n");
	ln(dir, "../../../0000:03:00.2", "sys/devices/pci0000:02/0000:02:01.0/"
	    "0000:03:00.2/infiniband/mlx5_2/device");
	mk(dir, "sys/class/infiniband/.keep", "");
	ln(dir, "../../devices/pci0000:02/0000:02:01.0/0000:03:00.2/"
	    "infiniband/mlx5_2", "sys/class/infiniband/mlx5_2");
	ln(dir, "../../devices/virtual/infiniband/rxe0",
	    "sys/class/infiniband/rxe0");
	m = ep_manifest_new();
	ep_node_collect(m, dir);
	fact_is(m, "node.topo.gpus", "1");
	fact_is(m, "node.topo.hcas", "0");
	fact_is(m, "node.topo.gpu0.numa", "none");
	assert_int_equal(count_prefix(m, "node.topo."), 3);
	ep_manifest_free(m);
	assert_int_equal(tu_scratch_remove(dir), 0);
}

/* A tree without /sys/bus/pci (the other fixtures): no topology facts;
 * this machine: counts, however many it has. */
static void
test_no_pci_and_this_machine(void **state)
{
	struct ep_manifest *m = ep_manifest_new();

	(void)state;
	ep_node_collect(m, "tests/fixtures/node/ib-ndr");
	assert_int_equal(count_prefix(m, "node.topo."), 0);
	ep_manifest_free(m);
	m = ep_manifest_new();
	ep_node_collect(m, "");
	if (access("/sys/bus/pci/devices", F_OK) == 0) {
		assert_non_null(ep_manifest_get(m, "node.topo.gpus"));
		assert_non_null(ep_manifest_get(m, "node.topo.hcas"));
	}
	ep_manifest_free(m);
}

/* Against a golden of 0.3.0 with node facts but no topology: new since
 * 0.4, a skip until blessed again, not drift; by the defaults, any
 * other change of them is drift. */
static void
test_new_since(void **state)
{
	struct ep_manifest *g = ep_manifest_new(), *c = ep_manifest_new();
	struct ep_policy *p = ep_policy_default();
	struct ep_results rs = { 0 };
	size_t skips = 0, fails = 0;

	(void)state;
	assert_string_equal(ep_fact_since("node.topo.gpu0.hca0"), "0.4.0");
	assert_null(ep_fact_since("node.rdma.mlx5_0.fw_ver"));
	ep_node_collect(c, DGX);
	ep_manifest_meta_set(g, "tool", "envparity 0.3.0");
	ep_manifest_set(g, "node.rdma.mlx5_0.fw_ver", "28.39.1002");
	ep_compare(&rs, g, c, p, 0);
	for (size_t i = 0; i < rs.n; i++) {
		if (strncmp(rs.v[i].key, "node.topo.", 10) != 0)
			continue;
		skips += rs.v[i].status == EP_SKIP;
		fails += rs.v[i].status == EP_FAIL;
	}
	assert_int_equal(skips, 118);
	assert_int_equal(fails, 0);
	ep_results_clear(&rs);
	/* Blessed with them: a GPU on the other socket is drift. */
	ep_manifest_free(g);
	g = ep_manifest_new();
	ep_node_collect(g, DGX);
	ep_manifest_set(c, "node.topo.gpu3.hca3", "system");
	ep_compare(&rs, g, c, p, 0);
	fails = 0;
	for (size_t i = 0; i < rs.n; i++)
		if (rs.v[i].status == EP_FAIL) {
			assert_string_equal(rs.v[i].key, "node.topo.gpu3.hca3");
			fails++;
		}
	assert_int_equal(fails, 1);
	ep_results_clear(&rs);
	ep_policy_free(p);
	ep_manifest_free(g);
	ep_manifest_free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pci_path),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_dgx),
		cmocka_unit_test(test_odd_tree),
		cmocka_unit_test(test_no_pci_and_this_machine),
		cmocka_unit_test(test_new_since),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
