/*
 * test_node.c: the node collector (collect/node*.c) on fixture trees of
 * real shape (tests/fixtures/node: a ConnectX-7 in InfiniBand and in
 * RoCE mode, and an InfiniBand host that drifted), its parsers, a tree
 * that tries to hang or misname it, and this machine's own /sys and
 * /proc.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "checks.h"
#include "compare.h"
#include "manifest.h"
#include "node.h"
#include "policy.h"
#include "results.h"
#include "testutil.h"

#define FIX	"tests/fixtures/node/"

static struct ep_manifest *
node_of(const char *root)
{
	struct ep_manifest *m = ep_manifest_new();

	ep_node_collect(m, root);
	return m;
}

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

/* No fact key holds any of these: per-host values, counters, virtual
 * interfaces. */
static void
none_holds(const struct ep_manifest *m)
{
	static const char *const bad[] = { "guid", "address", "counters",
	    "lid", "gids", "node_desc", "docker0", "veth", ".lo.", "isolcpus",
	    "root", "BOOT_IMAGE", "console", "nvme_core", NULL };
	const char *k;
	json_t *v;

	json_object_foreach(m->facts, k, v)
		for (size_t i = 0; bad[i] != NULL; i++)
			if (strstr(k, bad[i]) != NULL)
				fail_msg("%s holds %s", k, bad[i]);
}

/* A ConnectX-7 in InfiniBand mode at NDR, its IPoIB interface, the GPU
 * and RDMA modules, the fabric manager: every fact, and nothing per host. */
static void
test_ib_ndr(void **state)
{
	struct ep_manifest *m = node_of(FIX "ib-ndr");

	(void)state;
	fact_is(m, "node.rdma.mlx5_0.hca_type", "MT4129");
	fact_is(m, "node.rdma.mlx5_0.fw_ver", "28.43.2026");
	fact_is(m, "node.rdma.mlx5_0.board_id", "MT_0000000838");
	fact_is(m, "node.rdma.mlx5_0.port1.state", "4: ACTIVE");
	fact_is(m, "node.rdma.mlx5_0.port1.phys_state", "5: LinkUp");
	fact_is(m, "node.rdma.mlx5_0.port1.rate", "400 Gb/sec (4X NDR)");
	fact_is(m, "node.rdma.mlx5_0.port1.link_layer", "InfiniBand");
	assert_int_equal(count_prefix(m, "node.rdma."), 7);
	fact_is(m, "node.net.ib0.driver", "mlx5_core");
	fact_is(m, "node.net.ib0.mtu", "4092");
	fact_is(m, "node.net.ib0.speed", "400000");
	fact_is(m, "node.net.eno1.driver", "e1000e");
	fact_is(m, "node.net.eno1.mtu", "9000");
	fact_is(m, "node.net.eno1.speed", "1000");
	assert_int_equal(count_prefix(m, "node.net."), 6);
	fact_is(m, "node.kmod.nvidia.state", "loaded");
	fact_is(m, "node.kmod.nvidia.version", "580.95.05");
	fact_is(m, "node.kmod.nvidia_peermem.state", "loaded");
	fact_is(m, "node.kmod.nv_peer_mem.state", "absent");
	fact_is(m, "node.kmod.mlx5_core.state", "loaded");
	fact_is(m, "node.kmod.gdrdrv.state", "absent");
	assert_null(ep_manifest_get(m, "node.kmod.mlx5_core.version"));
	assert_int_equal(count_prefix(m, "node.kmod."), 16 + 5);
	fact_is(m, "node.fabricmanager.version", "580.95.05");
	/* MemTotal 2113389572 kB = 2063857 MiB, to a step of 32768 MiB. */
	fact_is(m, "node.mem.total_mib", "2064384");
	fact_is(m, "node.mem.hugepages", "0");
	fact_is(m, "node.mem.hugepage_size_kb", "2048");
	fact_is(m, "node.mem.swap", "no");
	fact_is(m, "node.mem.thp", "never");
	fact_is(m, "node.numa.nodes", "2");
	fact_is(m, "node.cpu.smt", "on");
	fact_is(m, "node.cpu.governor", "performance");
	fact_is(m, "node.shm.size_mib", "none");	/* no dev/shm in the tree */
	fact_is(m, "node.cmdline.iommu", "pt");
	fact_is(m, "node.cmdline.intel_iommu", "on");
	fact_is(m, "node.cmdline.transparent_hugepage", "never");
	fact_is(m, "node.cmdline.hugepagesz", "1G 2M");
	fact_is(m, "node.cmdline.hugepages", "16 512");
	fact_is(m, "node.cmdline.pci", "realloc=off");
	assert_int_equal(count_prefix(m, "node.cmdline."), 6);
	none_holds(m);
	assert_null(json_object_get(m->meta, "warnings"));
	ep_manifest_free(m);
}

/* The same card in RoCE mode: an Ethernet link layer at 100 GbE, its
 * netdev a hardware interface of its own. */
static void
test_roce(void **state)
{
	struct ep_manifest *m = node_of(FIX "roce");

	(void)state;
	fact_is(m, "node.rdma.mlx5_0.port1.link_layer", "Ethernet");
	fact_is(m, "node.rdma.mlx5_0.port1.rate", "100 Gb/sec (4X EDR)");
	fact_is(m, "node.net.ens1np0.driver", "mlx5_core");
	fact_is(m, "node.net.ens1np0.mtu", "4200");
	fact_is(m, "node.net.ens1np0.speed", "100000");
	assert_null(ep_manifest_get(m, "node.net.ib0.mtu"));
	none_holds(m);
	ep_manifest_free(m);
}

/* The drifted host against the healthy one under the default policy:
 * exactly the keys that differ fail, each naming both values. */
static void
test_drift(void **state)
{
	static const struct {
		const char *key, *expected, *actual;
	} want[] = {
		{ "node.kmod.nvidia_peermem.state", "loaded", "absent" },
		{ "node.kmod.nvidia_peermem.version", "580.95.05", NULL },
		{ "node.mem.thp", "never", "madvise" },
		{ "node.net.eno1.mtu", "9000", "1500" },
		{ "node.rdma.mlx5_0.fw_ver", "28.43.2026", "28.39.1002" },
		{ "node.rdma.mlx5_0.port1.rate", "400 Gb/sec (4X NDR)",
		    "200 Gb/sec (4X HDR)" },
	};
	struct ep_manifest *g = node_of(FIX "ib-ndr");
	struct ep_manifest *c = node_of(FIX "ib-drift");
	struct ep_policy *p = ep_policy_default();
	struct ep_results rs = { 0 };
	size_t failed = 0, k = 0;

	(void)state;
	ep_compare(&rs, g, c, p, 0);
	for (size_t i = 0; i < rs.n; i++) {
		const struct ep_result *r = &rs.v[i];

		if (r->status == EP_PASS)
			continue;
		failed++;
		assert_int_equal(r->status, EP_FAIL);
		assert_true(k < sizeof want / sizeof want[0]);
		assert_string_equal(r->key, want[k].key);
		assert_string_equal(r->expected, want[k].expected);
		if (want[k].actual == NULL)
			assert_null(r->actual);
		else
			assert_string_equal(r->actual, want[k].actual);
		k++;
	}
	assert_int_equal(failed, sizeof want / sizeof want[0]);
	ep_results_clear(&rs);
	ep_policy_free(p);
	ep_manifest_free(g);
	ep_manifest_free(c);
}

static void
test_parsers(void **state)
{
	char *s;

	(void)state;
	s = ep_node_choice("always [madvise] never");
	assert_string_equal(s, "madvise");
	free(s);
	s = ep_node_choice("[always] madvise never");
	assert_string_equal(s, "always");
	free(s);
	assert_null(ep_node_choice("always madvise never"));
	assert_null(ep_node_choice("[] x"));
	assert_null(ep_node_choice("[open"));

	assert_int_equal(ep_node_list_count("0"), 1);
	assert_int_equal(ep_node_list_count("0-1"), 2);
	assert_int_equal(ep_node_list_count("0-1,4,6-7"), 5);
	assert_int_equal(ep_node_list_count(""), 0);
	assert_int_equal(ep_node_list_count("1-0"), -1);
	assert_int_equal(ep_node_list_count("a"), -1);
	assert_int_equal(ep_node_list_count("0,"), -1);
	assert_int_equal(ep_node_list_count("0-"), -1);
	assert_int_equal(ep_node_list_count("0-99999999"), -1);

	/* 64 MiB (Docker's /dev/shm) stays; 24 GiB less a few MiB and
	 * plus a few round together; 2 TiB hosts a few GiB apart too. */
	assert_int_equal(ep_node_round_mib(64ULL << 20), 64);
	assert_int_equal(ep_node_round_mib((63ULL << 20) + (1 << 19)), 64);
	assert_int_equal(ep_node_round_mib(0), 0);
	assert_int_equal(ep_node_round_mib(24684084ULL << 10), 24064);
	assert_int_equal(ep_node_round_mib(24690000ULL << 10), 24064);
	assert_int_equal(ep_node_round_mib(2113389572ULL << 10), 2064384);
	assert_int_equal(ep_node_round_mib(2110000000ULL << 10), 2064384);
	assert_int_equal(ep_node_round_mib(1ULL << 30), 1024);

	s = ep_node_rlim(RLIM_INFINITY);
	assert_string_equal(s, "unlimited");
	free(s);
	s = ep_node_rlim(65536);
	assert_string_equal(s, "65536");
	free(s);
}

static void
test_dpkg(void **state)
{
	static const char status[] =
	    "Package: nvidia-fabricmanager-575\n"
	    "Status: deinstall ok config-files\n"
	    "Version: 575.57.08-1\n"
	    "\n"
	    "Package: nvidia-fabricmanager-dev\n"
	    "Status: install ok installed\n"
	    "Version: 1.0-1\n"
	    "\n"
	    "Package: nvidia-fabricmanager\n"
	    "Status: install ok installed\n"
	    "Version: 1:580.95.05-0ubuntu1-1\n";
	char *v;

	(void)state;
	v = ep_node_dpkg_version(status, "nvidia-fabricmanager");
	assert_string_equal(v, "580.95.05-0ubuntu1");
	free(v);
	assert_null(ep_node_dpkg_version("Package: nvidia-fabricmanager-575\n"
	    "Status: deinstall ok config-files\nVersion: 575.57.08-1\n",
	    "nvidia-fabricmanager"));
	v = ep_node_dpkg_version("Package: nvidia-fabricmanager-570\n"
	    "Version: 570.1-1\nStatus: install ok installed", "nvidia-fabricmanager");
	assert_string_equal(v, "570.1");
	free(v);
	assert_null(ep_node_dpkg_version("", "nvidia-fabricmanager"));
	assert_null(ep_node_dpkg_version("Package: nvidia-fabricmanager\n"
	    "Status: install ok installed\nVersion: -1\n",
	    "nvidia-fabricmanager"));
}

static void
test_cmdline(void **state)
{
	struct ep_manifest *m = ep_manifest_new();

	(void)state;
	ep_node_cmdline_facts(m, "BOOT_IMAGE=/vmlinuz root=/dev/sda1 "
	    "nosmt isolcpus=\"2-7,10\" amd-iommu=on mitigations=off "
	    "nohz_full=2-7 hugepages=4 hugepages=8 intel_iommu\n"
	    "-- mitigations=auto");
	fact_is(m, "node.cmdline.nosmt", "on");
	fact_is(m, "node.cmdline.isolcpus", "2-7,10");
	fact_is(m, "node.cmdline.amd_iommu", "on");
	fact_is(m, "node.cmdline.mitigations", "off");
	fact_is(m, "node.cmdline.nohz_full", "2-7");
	fact_is(m, "node.cmdline.hugepages", "4 8");
	fact_is(m, "node.cmdline.intel_iommu", "on");
	assert_int_equal(count_prefix(m, "node."), 7);
	ep_manifest_free(m);
	m = ep_manifest_new();
	ep_node_cmdline_facts(m, "");
	ep_node_cmdline_facts(m, "   \"unterminated");
	assert_int_equal(count_prefix(m, "node."), 0);
	ep_manifest_free(m);
}

static void
mk(const char *dir, const char *rel, const char *text)
{
	char *path = xasprintf("%s/%s", dir, rel), *cmd;
	FILE *f;

	cmd = xasprintf("mkdir -p \"$(dirname '%s')\"", path);
	assert_int_equal(system(cmd), 0);
	free(cmd);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	free(path);
}

/* A tree that would hang a reader (a FIFO where an attribute should be),
 * a name that cannot be a key, a port that is not a number, an
 * attribute too large, a directory where
 * a file should be: no fact from them, a warning for the name, and no
 * hang. */
static void
test_hostile_tree(void **state)
{
	struct ep_manifest *m;
	char dir[256], *p;
	json_t *w;

	(void)state;
	assert_int_equal(tu_scratch_make(dir, sizeof dir, "node"), 0);
	mk(dir, "sys/class/infiniband/mlx5_0/hca_type", "MT4129\n");
	mk(dir, "sys/class/infiniband/mlx5_0/board_id", "");
	p = xasprintf("%s/sys/class/infiniband/mlx5_0/fw_ver", dir);
	assert_int_equal(mkfifo(p, 0600), 0);
	free(p);
	mk(dir, "sys/class/infiniband/mlx5.bad/fw_ver", "1\n");
	mk(dir, "sys/class/infiniband/mlx5_0/ports/x/rate", "1\n");
	mk(dir, "sys/class/net/eth0/device/x", "");
	mk(dir, "sys/class/net/eth0/speed", "-1\n");
	mk(dir, "sys/class/net/eth0/mtu/x", "");	/* a directory */
	mk(dir, "sys/class/net/eth0.100/mtu", "1500\n");	/* a VLAN */
	mk(dir, "sys/class/net/ib0.8001/device/x", "");
	mk(dir, "sys/kernel/mm/transparent_hugepage/enabled", "always\n");
	/* Longer than any attribute: refused whole, never cut short. */
	p = xcalloc(1, 4097);
	memset(p, 'x', 4096);
	memcpy(p, "iommu=pt ", 9);
	mk(dir, "proc/cmdline", p);
	free(p);
	m = node_of(dir);
	fact_is(m, "node.rdma.mlx5_0.hca_type", "MT4129");
	fact_is(m, "node.rdma.mlx5_0.board_id", "");
	assert_null(ep_manifest_get(m, "node.rdma.mlx5_0.fw_ver"));
	assert_int_equal(count_prefix(m, "node.rdma."), 2);
	fact_is(m, "node.net.eth0.speed", "unknown");
	assert_null(ep_manifest_get(m, "node.net.eth0.mtu"));
	assert_null(ep_manifest_get(m, "node.net.eth0.driver"));
	assert_null(ep_manifest_get(m, "node.mem.thp"));
	assert_null(ep_manifest_get(m, "node.cmdline.iommu"));
	fact_is(m, "node.kmod.nvidia.state", "absent");
	fact_is(m, "node.cpu.governor", "none");
	fact_is(m, "node.shm.size_mib", "none");
	assert_null(ep_manifest_get(m, "node.fabricmanager.version"));
	assert_non_null(json_object_get(json_object_get(m->meta,
	    "unavailable"), "node"));
	/* The VLAN is virtual: no fact, no warning; a hardware interface
	 * whose name cannot be a key is said. */
	w = json_object_get(m->meta, "warnings");
	assert_int_equal(json_array_size(w), 2);
	assert_string_equal(json_string_value(json_array_get(w, 0)),
	    "node: RDMA device 'mlx5.bad' skipped: its name cannot be part "
	    "of a fact key");
	assert_string_equal(json_string_value(json_array_get(w, 1)),
	    "node: network interface 'ib0.8001' skipped: its name cannot be "
	    "part of a fact key");
	assert_int_equal(count_prefix(m, "node.net."), 1);
	ep_manifest_free(m);

	/* The fabric manager installed, its package not recorded (a
	 * tarball install): not checked, and why. */
	m = ep_manifest_new();
	mk(dir, "usr/bin/nv-fabricmanager", "");
	ep_node_collect(m, dir);
	fact_is(m, "node.fabricmanager.version", "not checked");
	assert_non_null(strstr(json_string_value(json_object_get(
	    json_object_get(m->meta, "unavailable"), "fabricmanager")),
	    "no dpkg package nvidia-fabricmanager records its version"));
	ep_manifest_free(m);
	/* An RPM system (RHEL 9: rpmdb.sqlite; the database is never
	 * opened, so an empty file stands for it): not checked, the
	 * database named. */
	m = ep_manifest_new();
	mk(dir, "var/lib/rpm/rpmdb.sqlite", "");
	ep_node_collect(m, dir);
	fact_is(m, "node.fabricmanager.version", "not checked");
	p = xasprintf("%s/usr/bin/nv-fabricmanager is installed on an RPM "
	    "system: its version is only in the RPM database "
	    "/var/lib/rpm/rpmdb.sqlite, which envparity does not read; "
	    "compare `nv-fabricmanager --version` with the driver's", dir);
	assert_string_equal(json_string_value(json_object_get(
	    json_object_get(m->meta, "unavailable"), "fabricmanager")), p);
	free(p);
	ep_manifest_free(m);
	assert_int_equal(tu_scratch_remove(dir), 0);
}

/* This machine: the limits are this process's own, memory and the
 * kernel command line as /proc says. */
static void
test_this_machine(void **state)
{
	struct ep_manifest *m = node_of("");
	struct rlimit rl;
	char *want;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	want = ep_node_rlim(rl.rlim_cur);
	fact_is(m, "node.limits.memlock", want);
	free(want);
	assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
	want = ep_node_rlim(rl.rlim_cur);
	fact_is(m, "node.limits.nofile", want);
	free(want);
	assert_non_null(ep_manifest_get(m, "node.limits.stack"));
	assert_true(atoll(ep_manifest_get(m, "node.mem.total_mib")) > 0);
	assert_non_null(ep_manifest_get(m, "node.mem.swap"));
	assert_non_null(ep_manifest_get(m, "node.cpu.governor"));
	assert_non_null(ep_manifest_get(m, "node.shm.size_mib"));
	assert_int_equal(count_prefix(m, "node.kmod.") >= 16, 1);
	none_holds(m);
	ep_manifest_free(m);
}

/* stack.node.fabricmanager's result on m, or NULL; rs the caller's. */
static const struct ep_result *
fm_result(struct ep_results *rs, const struct ep_manifest *m)
{
	struct ep_policy *p = ep_policy_default();

	ep_results_clear(rs);
	ep_checks_run(rs, m, p, 0);
	ep_policy_free(p);
	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].key, "stack.node.fabricmanager") == 0)
			return &rs->v[i];
	return NULL;
}

/* The fabric manager against the driver: the module's version, else
 * NVML's; a skip when neither is known; nothing without one. */
static void
test_fabricmanager_check(void **state)
{
	struct ep_manifest *m = node_of(FIX "ib-ndr");
	struct ep_results rs = { 0 };
	const struct ep_result *r;

	(void)state;
	assert_non_null(r = fm_result(&rs, m));
	assert_int_equal(r->status, EP_PASS);
	assert_string_equal(r->message, "stack.node.fabricmanager: fabric "
	    "manager 580.95.05 matches the driver");
	ep_manifest_set(m, "node.kmod.nvidia.version", "580.82.07");
	assert_non_null(r = fm_result(&rs, m));
	assert_int_equal(r->status, EP_FAIL);
	assert_string_equal(r->expected, "580.82.07");
	assert_string_equal(r->actual, "580.95.05");
	assert_string_equal(r->message, "stack.node.fabricmanager: fabric "
	    "manager 580.95.05 is not the driver's version 580.82.07: it "
	    "refuses to start, and CUDA cannot initialize on an NVSwitch "
	    "system");
	json_object_del(m->facts, "node.kmod.nvidia.version");
	ep_manifest_set(m, "gpu.driver.version", "580.95.05");
	assert_non_null(r = fm_result(&rs, m));
	assert_int_equal(r->status, EP_PASS);
	/* Its version not read (an RPM system): a skip that says so. */
	ep_manifest_set(m, "node.fabricmanager.version", "not checked");
	assert_non_null(r = fm_result(&rs, m));
	assert_int_equal(r->status, EP_SKIP);
	assert_string_equal(r->message, "stack.node.fabricmanager: fabric "
	    "manager installed, but its version is not read here "
	    "(meta.unavailable.fabricmanager says why): compare "
	    "`nv-fabricmanager --version` with the driver's, 580.95.05");
	ep_manifest_set(m, "node.fabricmanager.version", "580.95.05");
	json_object_del(m->facts, "gpu.driver.version");
	assert_non_null(r = fm_result(&rs, m));
	assert_int_equal(r->status, EP_SKIP);
	json_object_del(m->facts, "node.fabricmanager.version");
	assert_null(fm_result(&rs, m));
	ep_results_clear(&rs);
	ep_manifest_free(m);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ib_ndr),
		cmocka_unit_test(test_roce),
		cmocka_unit_test(test_drift),
		cmocka_unit_test(test_parsers),
		cmocka_unit_test(test_dpkg),
		cmocka_unit_test(test_cmdline),
		cmocka_unit_test(test_hostile_tree),
		cmocka_unit_test(test_fabricmanager_check),
		cmocka_unit_test(test_this_machine),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
