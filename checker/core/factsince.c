/*
 * factsince.c: the facts each release began to capture (factsince.h).
 * A row is added with the release that adds the fact: its glob, as
 * policies match keys (keyglob.h), and the release.  Only facts that an
 * older envparity could not have captured at all belong here: a fact
 * that an older release captured on some machines (python.pkg.*, a
 * lockfile's pins in a format it read) is drift when it is new.
 */
#include <string.h>

#include "factsince.h"
#include "keyglob.h"
#include "str.h"
#include "vercmp.h"

static const struct {
	const char *glob;
	const char *since;
} table[] = {
	/* NVML's view of each GPU's slot and settings. */
	{ "gpu.*.pcie_gen_max", "0.3.0" },
	{ "gpu.*.pcie_width_max", "0.3.0" },
	{ "gpu.*.compute_mode", "0.3.0" },
	{ "gpu.*.power_limit_mw", "0.3.0" },
	{ "gpu.*.app_clock_graphics_mhz", "0.3.0" },
	{ "gpu.*.app_clock_mem_mhz", "0.3.0" },
	{ "gpu.*.nvlink_*", "0.3.0" },
	{ "gpu.*.topo.*", "0.3.0" },
	/* The pins of the lockfile formats 0.3.0 began to read. */
	{ "lockfile.*pixi.lock.pin.*", "0.3.0" },
	{ "lockfile.*conda-lock.yml.pin.*", "0.3.0" },
	{ "lockfile.*pdm.lock.pin.*", "0.3.0" },
	{ "lockfile.*pylock.toml.pin.*", "0.3.0" },
	{ "lockfile.*pylock.*.toml.pin.*", "0.3.0" },
	/* The CUDA libraries 0.3.0 began to record. */
	{ "lib.cufft.*", "0.3.0" },
	{ "lib.curand.*", "0.3.0" },
	{ "lib.cusolver.*", "0.3.0" },
	{ "lib.cusparse.*", "0.3.0" },
	{ "lib.nvjitlink.*", "0.3.0" },
	{ "lib.cupti.*", "0.3.0" },
	{ "lib.nvvm.*", "0.3.0" },
	{ "lib.nvblas.*", "0.3.0" },
	{ "lib.tensorrt.*", "0.3.0" },
	/* --serving, and a SavedModel's own fingerprint. */
	{ "serving.*", "0.3.0" },
	{ "artifact.*.fingerprint.*", "0.3.0" },
	/* --workload, the team's own reference run. */
	{ "workload.*", "0.3.0" },
	/* The PCIe topology of the node's GPUs and HCAs, from sysfs. */
	{ "node.topo.*", "0.4.0" },
	/* --file-sha256, --file-line, a policy's capture.files. */
	{ "file.*", "0.4.0" },
	/* The machine's architecture (x86_64, aarch64). */
	{ "os.arch", "0.4.0" },
};

const char *
ep_fact_since(const char *key)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (ep_glob_match(table[i].glob, key))
			return table[i].since;
	return NULL;
}

const char *
ep_fact_golden_release(const struct ep_manifest *golden)
{
	const char *tool;

	if (golden == NULL || golden->meta == NULL)
		return NULL;
	tool = json_string_value(json_object_get(golden->meta, "tool"));
	if (tool == NULL || !ep_startswith(tool, "envparity "))
		return NULL;
	tool += strlen("envparity ");
	return ep_version_valid(tool) ? tool : NULL;
}

const char *
ep_fact_new_since(const struct ep_manifest *golden, const char *key)
{
	const char *since = ep_fact_since(key), *wrote;

	if (since == NULL || (wrote = ep_fact_golden_release(golden)) == NULL)
		return NULL;
	return ep_vercmp(wrote, since) < 0 ? since : NULL;
}
