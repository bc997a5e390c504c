/*
 * fake_nvml.h: what the two halves of the NVML TEST DOUBLE share
 * (fake_nvml.c, the NVML entry points; fake_nvml_health.c, the devices
 * as FAKE_NVML_GPUS and FAKE_NVML_HEALTH set them).  Not NVIDIA's header:
 * the few types and values of nvml.h the double needs.
 */
#ifndef FAKE_NVML_H
#define FAKE_NVML_H

#define NVML_SUCCESS			0
#define NVML_ERROR_UNINITIALIZED	1
#define NVML_ERROR_INVALID_ARGUMENT	2
#define NVML_ERROR_NOT_SUPPORTED	3
#define NVML_ERROR_INSUFFICIENT_SIZE	7
#define NVML_ERROR_DRIVER_NOT_LOADED	9

#define MAX_GPUS	64

typedef int nvmlReturn_t;
typedef struct fake_device *nvmlDevice_t;
typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
	unsigned version;
	unsigned long long total, reserved, free, used;
} nvmlMemory_v2_t;
typedef struct {
	unsigned pid;
	unsigned long long usedGpuMemory;
	unsigned gpuInstanceId, computeInstanceId;
} nvmlProcessInfo_t;

/* The calls a test may make answer NVML_ERROR_NOT_SUPPORTED. */
enum {
	U_ECC_TOTAL = 1 << 0, U_RETIRED = 1 << 1, U_REMAPPED = 1 << 2,
	U_PROCESSES = 1 << 3, U_MEMORY_V2 = 1 << 4, U_CLOCKS = 1 << 5,
	U_PCIE = 1 << 6, U_POWER = 1 << 7, U_APP_CLOCKS = 1 << 8,
	U_COMPUTE_MODE = 1 << 9, U_NVLINK = 1 << 10, U_TOPO = 1 << 11,
};

struct fake_device {
	const char *name, *vbios;
	int ccmajor, ccminor, ecc, persistence;
	int mig;		/* -1: not supported */
	unsigned remap_pending;
	/* health and configuration (FAKE_NVML_HEALTH) */
	unsigned remap_failure, retired_pending, processes;
	unsigned long long memory_used, ecc_volatile, ecc_aggregate;
	unsigned long long reasons;
	unsigned pcie_gen, pcie_gen_max, pcie_width, pcie_width_max;
	unsigned power_limit, app_graphics, app_mem;
	int compute_mode;
	unsigned unsupported;
	/* NVLink and topology: links (0: none, NOT_SUPPORTED), the
	 * nvmlNvlinkVersion_t of each, a mask of the links not active, and
	 * the NUMA node the GPU hangs off (-1: GPU index / 4) */
	unsigned nvlinks, nvlink_version;
	unsigned long long nvlink_down;
	int numa;
};

#pragma GCC visibility push(hidden)
extern struct fake_device devices[MAX_GPUS];
extern unsigned ndevices;

/* The devices, from FAKE_NVML_GPUS and FAKE_NVML_HEALTH; -1 if either is
 * malformed. */
int fake_nvml_setup(void);
#pragma GCC visibility pop

#endif
