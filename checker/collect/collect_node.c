/*
 * collect_node.c: node.*, the machine beneath the stack (node.h): its
 * RDMA devices and hardware network interfaces (node_hw.c), the PCIe
 * paths between GPUs and to the HCAs (node_topo.c), the kernel
 * modules GPUs and RDMA need, the fabric manager, memory, CPU, limits and
 * the kernel command line (node_sys.c), read from /sys and /proc, never
 * by running a command.
 *
 * EP_NODE_ROOT, when set, is a directory read in place of "/" for every
 * file of the node collector: the tests' fixture trees, which stand in
 * for hardware that is not here (an HCA, a second NUMA node).  A capture
 * under it says so in meta.warnings, so that no manifest passes such
 * facts off as a machine's own.  The limits and /dev/shm's size are the
 * capturing process's own (under the root, <root>/dev/shm).
 */
#include <stdlib.h>

#include "collect.h"
#include "node.h"

void
ep_node_collect(struct ep_manifest *m, const char *root)
{
	struct ep_node n = { m, root != NULL ? root : "" };

	ep_node_rdma(&n);
	ep_node_net(&n);
	ep_node_topo(&n);
	ep_node_kmods(&n);
	ep_node_fabricmanager(&n);
	ep_node_memory(&n);
	ep_node_cpu(&n);
	ep_node_limits(&n);
	ep_node_cmdline(&n);
}

int
ep_collect_node(struct ep_collect *c, struct ep_err *err)
{
	const char *root = getenv("EP_NODE_ROOT");

	(void)err;
	if (root != NULL && root[0] != '\0')
		ep_manifest_warn(c->m, "node facts read under EP_NODE_ROOT=%s, "
		    "a test tree, not this machine's /sys and /proc", root);
	else
		root = "";
	ep_node_collect(c->m, root);
	return 0;
}
