/*
 * node.h: the node collector's parts (node.* facts, collect_node.c on top
 * of node_hw.c and node_sys.c): the machine beneath the stack, read from
 * /sys and /proc only, never by running a command.  Every reader takes a
 * root prefix (EP_NODE_ROOT: the tests' fixture trees, a stand-in for an
 * HCA that is not here), so that "<root>/sys/..." is read instead of
 * "/sys/...".
 *
 * Per-host values (GUIDs, MAC addresses, serial numbers) are never read;
 * values that change on a healthy node (counters, free memory) are not
 * captured.  What each fact is for: docs/manifest.md, "Node".
 */
#ifndef EP_NODE_H
#define EP_NODE_H

#include <stdint.h>
#include <sys/resource.h>

#include "manifest.h"

struct ep_node {
	struct ep_manifest *m;		/* borrowed: the facts go there */
	const char *root;		/* "" or the prefix; borrowed */
};

/* "<root><path>", a new string; path starts with '/'. */
char *ep_node_path(const struct ep_node *n, const char *path);

/* The contents of the sysfs or procfs attribute at full (already
 * prefixed), trailing white space removed, at most 4095 bytes, into *out
 * (the caller's).  Only a regular file is read, never blocking.  Returns
 * 0, or -1 (errno kept) with *out NULL. */
int ep_node_read(char **out, const char *full);

/* The same for "<root><dir>/<name>". */
int ep_node_attr(char **out, const struct ep_node *n, const char *dir,
    const char *name);

/* Whether a name may be part of a fact key: 1 to 64 bytes of letters,
 * digits, '_', '-' and ':' (never '.', which would nest the key). */
int ep_node_name_ok(const char *name);

/* node_hw.c: node.rdma.<hca>.* and node.net.<if>.* */
void ep_node_rdma(struct ep_node *n);
void ep_node_net(struct ep_node *n);

/* node_topo.c: node.topo.*, the PCIe paths between GPUs and to HCAs. */
void ep_node_topo(struct ep_node *n);

/* node_sys.c: modules, the fabric manager, memory, CPU, limits, the
 * kernel command line. */
void ep_node_kmods(struct ep_node *n);
void ep_node_fabricmanager(struct ep_node *n);
void ep_node_memory(struct ep_node *n);
void ep_node_cpu(struct ep_node *n);
void ep_node_limits(struct ep_node *n);
void ep_node_cmdline(struct ep_node *n);

/* Every node fact of the machine under root ("" for this one) into m. */
void ep_node_collect(struct ep_manifest *m, const char *root);

/* Parsers, exposed for the unit tests. */

/* The bracketed word of a sysfs choice ("always [madvise] never"), a new
 * string, or NULL when there is none. */
char *ep_node_choice(const char *text);

/* How many numbers a sysfs list names ("0-1,4,6-7": 5), or -1 when it is
 * not such a list.  "" is 0. */
long ep_node_list_count(const char *list);

/* bytes in MiB, rounded to the nearest multiple of a step that grows with
 * the size: 1 MiB below 64 MiB, then 2^(floor(log2(MiB)) - 5) MiB (1/32
 * to 1/64 of the size), so that the few MiB a kernel or its firmware
 * reserves differently on identical nodes round away. */
uint64_t ep_node_round_mib(uint64_t bytes);

/* A soft limit as a fact value: "unlimited" or the number, a new
 * string. */
char *ep_node_rlim(rlim_t v);

/* The version of the first installed dpkg package named name or
 * name-<suffix> in a dpkg status file (epoch and Debian revision
 * dropped), a new string, or NULL. */
char *ep_node_dpkg_version(const char *status, const char *name);

/* The allowlisted parameters of a kernel command line as facts
 * node.cmdline.<param> (repeated ones joined by a space; a flag without
 * '=' is "on"); what follows "--" is init's, not the kernel's. */
void ep_node_cmdline_facts(struct ep_manifest *m, const char *cmdline);

/* nvmlGpuTopologyLevel_t's values, which node.topo.* uses too. */
enum {
	EP_TOPO_SINGLE = 10,	/* PIX: one PCIe switch */
	EP_TOPO_MULTIPLE = 20,	/* PXB: several, no host bridge */
	EP_TOPO_HOSTBRIDGE = 30,	/* PHB: the same root complex */
	EP_TOPO_NODE = 40,	/* NODE: the same NUMA node */
	EP_TOPO_SYSTEM = 50,	/* SYS: across the CPUs' link */
};

/* A level's word ("single", ..., "system"; "unknown" for another). */
const char *ep_node_topo_name(int level);

/* The PCI tree part of a sysfs device path (a /sys/bus/pci/devices link's
 * target), from its last root-complex component ("pci0000:15/0000:15:01.0
 * /..."), a new string, or NULL when it names none or nothing below. */
char *ep_node_pci_path(const char *link);

/* The level of the PCIe path between two functions, given their paths as
 * ep_node_pci_path gives them and their NUMA nodes (-1: none): a switch
 * is two levels of a path (upstream port, downstream port), as NCCL reads
 * them.  -1 when a path is too short to say. */
int ep_node_topo_level(const char *a, const char *b, int numa_a,
    int numa_b);

#endif
