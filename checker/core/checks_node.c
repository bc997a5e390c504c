/*
 * checks_node.c: stack.node.*, what the node's own facts (node.*,
 * collect/collect_node.c) say against each other, with no golden.
 *
 *   stack.node.fabricmanager  fail: the NVIDIA fabric manager installed
 *                             (node.fabricmanager.version) is not of the
 *                             driver's version (node.kmod.nvidia.version,
 *                             the kernel module's MODULE_VERSION, else
 *                             gpu.driver.version from NVML).  The fabric
 *                             manager refuses to start on a mismatch
 *                             ("fabric manager NVIDIA GPU driver interface
 *                             version 530.30.02 don't match with driver
 *                             version 530.41.03", NVIDIA/gpu-operator#544),
 *                             and without it CUDA on an NVSwitch system
 *                             fails to initialize
 *                             (cudaErrorSystemNotReady).  Skip when no
 *                             driver version is known, or the fabric
 *                             manager's is not ("not checked": an RPM
 *                             system, a tarball install); no result on
 *                             a node without a fabric manager.
 */
#include <string.h>

#include "checks_int.h"
#include "xalloc.h"

static void
check_fabricmanager(struct checks *k)
{
	static const char *key = "stack.node.fabricmanager", *rule =
	    "check:fabricmanager";
	const char *fm = ep_checks_get(k, "node.fabricmanager.version");
	const char *drv = ep_checks_get(k, "node.kmod.nvidia.version");

	if (fm == NULL)
		return;
	if (drv == NULL)
		drv = ep_checks_get(k, "gpu.driver.version");
	if (strcmp(fm, "not checked") == 0)
		ep_checks_add(k, key, EP_SKIP, rule, drv, fm, xasprintf("%s: "
		    "fabric manager installed, but its version is not read "
		    "here (meta.unavailable.fabricmanager says why): compare "
		    "`nv-fabricmanager --version` with the driver's%s%s", key,
		    drv != NULL ? ", " : "", drv != NULL ? drv : ""));
	else if (drv == NULL)
		ep_checks_add(k, key, EP_SKIP, rule, NULL, fm, xasprintf("%s: "
		    "fabric manager %s installed, but no driver version is "
		    "known here (node.kmod.nvidia.version: the nvidia module "
		    "is not loaded)", key, fm));
	else if (strcmp(fm, drv) == 0)
		ep_checks_add(k, key, EP_PASS, rule, drv, fm, xasprintf("%s: "
		    "fabric manager %s matches the driver", key, fm));
	else
		ep_checks_add(k, key, EP_FAIL, rule, drv, fm, xasprintf("%s: "
		    "fabric manager %s is not the driver's version %s: it "
		    "refuses to start, and CUDA cannot initialize on an "
		    "NVSwitch system", key, fm, drv));
}

void
ep_checks_node(struct checks *k)
{
	check_fabricmanager(k);
}
