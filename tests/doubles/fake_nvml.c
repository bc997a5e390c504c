/*
 * fake_nvml.c: a TEST DOUBLE of the NVIDIA driver's libnvidia-ml.so.1,
 * standing in for the GPU driver that the build machines do not have.
 * It is not NVIDIA's code and talks to no hardware: it implements the few
 * NVML entry points envparity calls, with NVML's names and prototypes,
 * and answers with fixed values for H100s (two by default, up to 64),
 * whose health a test sets.
 *
 * Build it as the soname envparity looks for and put it on the loader's
 * path:
 *
 *	cc -shared -fPIC -o DIR/libnvidia-ml.so.1 tests/doubles/fake_nvml.c \
 *	    tests/doubles/fake_nvml_health.c
 *	LD_LIBRARY_PATH=DIR envparity capture
 *
 * FAKE_NVML_MODE chooses how it behaves:
 *	ok (default)	two devices, all calls succeed (device 1 has no MIG
 *			support and a row remap pending)
 *	init_fails	nvmlInit_v2 returns NVML_ERROR_DRIVER_NOT_LOADED
 *	no_devices	the driver answers, with no GPU
 *	hang		nvmlInit_v2 never returns
 *	crash		the driver version is given, then nvmlDeviceGetCount_v2
 *			dereferences NULL
 *	crash_on_load	the library's constructor dereferences NULL (a crash
 *			inside dlopen itself)
 *
 * FAKE_NVML_GPUS and FAKE_NVML_HEALTH (fake_nvml_health.c) give N GPUs
 * whose health a test sets.
 *
 * Compiled with -DFAKE_NVML_OLD it lacks the symbols an older NVML
 * lacks (nvmlDeviceGetMemoryInfo_v2, nvmlDeviceGetComputeRunningProcesses_v3,
 * nvmlDeviceGetCurrentClocksEventReasons: it has only the older name
 * nvmlDeviceGetCurrentClocksThrottleReasons) and the ones a future NVML
 * may drop (nvmlDeviceGetApplicationsClock, deprecated in NVML 13), so
 * that a test sees "not checked" where envparity meets one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_nvml.h"

static int initialized;

static int
mode_is(const char *m)
{
	const char *v = getenv("FAKE_NVML_MODE");

	return v != NULL && strcmp(v, m) == 0;
}

static void
crash(void)
{
	volatile int *p = NULL;

	*p = 1;
}

__attribute__((constructor)) static void
fake_nvml_load(void)
{
	if (mode_is("crash_on_load"))
		crash();
}

static nvmlReturn_t
copy_string(char *buf, unsigned size, const char *s)
{
	if (buf == NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (strlen(s) + 1 > size)
		return NVML_ERROR_INSUFFICIENT_SIZE;
	memcpy(buf, s, strlen(s) + 1);
	return NVML_SUCCESS;
}

/* Exported: NVML's names, so no prototypes elsewhere. */
nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
const char *nvmlErrorString(nvmlReturn_t);
nvmlReturn_t nvmlSystemGetDriverVersion(char *, unsigned);
nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *);
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned, nvmlDevice_t *);
nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t, char *, unsigned);
nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t, int *, int *);
nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t, char *, unsigned);
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t, char *, unsigned);
nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t, char *, unsigned);
nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t, int *, int *);
nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t, int *);
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t, unsigned *, unsigned *);
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t *);
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t, unsigned *, unsigned *,
    unsigned *, unsigned *);
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t, unsigned *);
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t, unsigned *);
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t, unsigned *);
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t, unsigned *);
nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t, int *);
nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t, unsigned *);
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t, unsigned *);
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t, int, int,
    unsigned long long *);
nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t, int *);
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t,
    unsigned long long *);
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t, unsigned, int *);
nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t, unsigned, unsigned *);
nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t, nvmlDevice_t,
    int *);
#ifndef FAKE_NVML_OLD
nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t, int, unsigned *);
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t, nvmlMemory_v2_t *);
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t,
    unsigned *, nvmlProcessInfo_t *);
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t,
    unsigned long long *);
#endif

nvmlReturn_t
nvmlInit_v2(void)
{
	if (mode_is("init_fails"))
		return NVML_ERROR_DRIVER_NOT_LOADED;
	if (mode_is("hang"))
		for (;;)
			pause();
	if (fake_nvml_setup() < 0)
		return NVML_ERROR_INVALID_ARGUMENT;
	initialized = 1;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlShutdown(void)
{
	initialized = 0;
	return NVML_SUCCESS;
}

const char *
nvmlErrorString(nvmlReturn_t rc)
{
	switch (rc) {
	case NVML_SUCCESS:
		return "Success";
	case NVML_ERROR_UNINITIALIZED:
		return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT:
		return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED:
		return "Not Supported";
	case NVML_ERROR_INSUFFICIENT_SIZE:
		return "Insufficient Size";
	case NVML_ERROR_DRIVER_NOT_LOADED:
		return "Driver Not Loaded";
	default:
		return "Unknown Error";
	}
}

nvmlReturn_t
nvmlSystemGetDriverVersion(char *buf, unsigned size)
{
	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	return copy_string(buf, size, "580.159.04");
}

nvmlReturn_t
nvmlSystemGetCudaDriverVersion_v2(int *v)
{
	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	*v = 13000;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetCount_v2(unsigned *n)
{
	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	if (mode_is("crash"))
		crash();
	*n = mode_is("no_devices") ? 0 : ndevices;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d)
{
	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	if (i >= ndevices || mode_is("no_devices"))
		return NVML_ERROR_INVALID_ARGUMENT;
	*d = &devices[i];
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetName(nvmlDevice_t d, char *buf, unsigned size)
{
	return copy_string(buf, size, d->name);
}

nvmlReturn_t
nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int *major, int *minor)
{
	*major = d->ccmajor;
	*minor = d->ccminor;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetVbiosVersion(nvmlDevice_t d, char *buf, unsigned size)
{
	return copy_string(buf, size, d->vbios);
}

/* Present, as in the real library, so that a test can tell that envparity
 * chose not to record them. */
nvmlReturn_t
nvmlDeviceGetUUID(nvmlDevice_t d, char *buf, unsigned size)
{
	char s[64];

	snprintf(s, sizeof s, "GPU-%08x-1111-2222-3333-444444444444",
	    (unsigned)(d - devices) * 0x11111111U);
	return copy_string(buf, size, s);
}

nvmlReturn_t
nvmlDeviceGetSerial(nvmlDevice_t d, char *buf, unsigned size)
{
	char s[32];

	snprintf(s, sizeof s, "%llu", 1650123456789ULL +
	    (unsigned long long)(d - devices));
	return copy_string(buf, size, s);
}

nvmlReturn_t
nvmlDeviceGetEccMode(nvmlDevice_t d, int *current, int *pending)
{
	*current = *pending = d->ecc;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetPersistenceMode(nvmlDevice_t d, int *mode)
{
	*mode = d->persistence;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned *current, unsigned *pending)
{
	if (d->mig < 0)
		return NVML_ERROR_NOT_SUPPORTED;
	*current = *pending = (unsigned)d->mig;
	return NVML_SUCCESS;
}

#define TOTAL	85520809984ULL		/* 81559 MiB */
#define RESERVED	553648128ULL	/* what the driver keeps */

nvmlReturn_t
nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *mem)
{
	mem->total = TOTAL;
	/* Version 1's used includes what the driver reserves. */
	mem->used = RESERVED + d->memory_used;
	mem->free = mem->total - mem->used;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned *corrected,
    unsigned *uncorrected, unsigned *pending, unsigned *failed)
{
	if (d->unsupported & U_REMAPPED)
		return NVML_ERROR_NOT_SUPPORTED;
	*corrected = 0;
	*uncorrected = d->remap_pending;
	*pending = d->remap_pending;
	*failed = d->remap_failure;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned *v)
{
	if (d->unsupported & U_PCIE)
		return NVML_ERROR_NOT_SUPPORTED;
	*v = d->pcie_gen_max;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned *v)
{
	if (d->unsupported & U_PCIE)
		return NVML_ERROR_NOT_SUPPORTED;
	*v = d->pcie_width_max;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned *v)
{
	if (d->unsupported & U_PCIE)
		return NVML_ERROR_NOT_SUPPORTED;
	*v = d->pcie_gen;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned *v)
{
	if (d->unsupported & U_PCIE)
		return NVML_ERROR_NOT_SUPPORTED;
	*v = d->pcie_width;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetComputeMode(nvmlDevice_t d, int *mode)
{
	if (d->unsupported & U_COMPUTE_MODE)
		return NVML_ERROR_NOT_SUPPORTED;
	*mode = d->compute_mode;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetPowerManagementLimit(nvmlDevice_t d, unsigned *mw)
{
	if (d->unsupported & U_POWER)
		return NVML_ERROR_NOT_SUPPORTED;
	*mw = d->power_limit;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned *mw)
{
	if (d->unsupported & U_POWER)
		return NVML_ERROR_NOT_SUPPORTED;
	*mw = d->power_limit;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, int type, int counter,
    unsigned long long *n)
{
	if ((d->unsupported & U_ECC_TOTAL) || !d->ecc)
		return NVML_ERROR_NOT_SUPPORTED;
	if (type < 0 || type > 1 || counter < 0 || counter > 1)
		return NVML_ERROR_INVALID_ARGUMENT;
	/* Only uncorrected (1) errors are made up: corrected are 0. */
	*n = type == 0 ? 0 : counter == 0 ? d->ecc_volatile :
	    d->ecc_aggregate;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t d, int *pending)
{
	if (d->unsupported & U_RETIRED)
		return NVML_ERROR_NOT_SUPPORTED;
	*pending = d->retired_pending != 0;
	return NVML_SUCCESS;
}

static nvmlReturn_t
reasons(nvmlDevice_t d, unsigned long long *r)
{
	if (d->unsupported & U_CLOCKS)
		return NVML_ERROR_NOT_SUPPORTED;
	*r = d->reasons;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d,
    unsigned long long *r)
{
	return reasons(d, r);
}

/* NVLink as nvml.h documents it: a link number past the GPU's links is
 * INVALID_ARGUMENT; a GPU without NVLink answers NOT_SUPPORTED; the
 * state is nvmlEnableState_t (1: active).  The version is asked of
 * active links (pynvml's users see an error for an inactive one). */
nvmlReturn_t
nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned link, int *active)
{
	if (active == NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (d->unsupported & U_NVLINK || d->nvlinks == 0)
		return NVML_ERROR_NOT_SUPPORTED;
	if (link >= d->nvlinks)
		return NVML_ERROR_INVALID_ARGUMENT;
	*active = !(d->nvlink_down & 1ULL << link);
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetNvLinkVersion(nvmlDevice_t d, unsigned link, unsigned *v)
{
	if (v == NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (d->unsupported & U_NVLINK || d->nvlinks == 0)
		return NVML_ERROR_NOT_SUPPORTED;
	if (link >= d->nvlinks || d->nvlink_down & 1ULL << link)
		return NVML_ERROR_INVALID_ARGUMENT;
	*v = d->nvlink_version;
	return NVML_SUCCESS;
}

/* nvmlGpuTopologyLevel_t between two GPUs: NODE (40) on the same NUMA
 * node, SYSTEM (50) across. */
nvmlReturn_t
nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b,
    int *level)
{
	int na, nb;

	if (level == NULL || a == NULL || b == NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	if ((a->unsupported | b->unsupported) & U_TOPO)
		return NVML_ERROR_NOT_SUPPORTED;
	na = a->numa >= 0 ? a->numa : (int)(a - devices) / 4;
	nb = b->numa >= 0 ? b->numa : (int)(b - devices) / 4;
	*level = na == nb ? 40 : 50;
	return NVML_SUCCESS;
}

#ifndef FAKE_NVML_OLD
nvmlReturn_t
nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *r)
{
	return reasons(d, r);
}

nvmlReturn_t
nvmlDeviceGetApplicationsClock(nvmlDevice_t d, int type, unsigned *mhz)
{
	if (d->unsupported & U_APP_CLOCKS)
		return NVML_ERROR_NOT_SUPPORTED;
	if (type == 0)
		*mhz = d->app_graphics;
	else if (type == 2)
		*mhz = d->app_mem;
	else
		return NVML_ERROR_INVALID_ARGUMENT;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *mem)
{
	/* NVML checks the version it is given: so does its double. */
	if (mem->version != ((unsigned)sizeof *mem | 2U << 24))
		return 25;	/* NVML_ERROR_ARGUMENT_VERSION_MISMATCH */
	if (d->unsupported & U_MEMORY_V2)
		return NVML_ERROR_NOT_SUPPORTED;
	mem->total = TOTAL;
	mem->reserved = RESERVED;
	mem->used = d->memory_used;
	mem->free = mem->total - mem->reserved - mem->used;
	return NVML_SUCCESS;
}

/* As NVML documents it: with *count 0, SUCCESS if none are running, else
 * INSUFFICIENT_SIZE and *count set to how many. */
nvmlReturn_t
nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t d, unsigned *count,
    nvmlProcessInfo_t *infos)
{
	if (d->unsupported & U_PROCESSES)
		return NVML_ERROR_NOT_SUPPORTED;
	if (count == NULL)
		return NVML_ERROR_INVALID_ARGUMENT;
	if (*count < d->processes) {
		*count = d->processes;
		return NVML_ERROR_INSUFFICIENT_SIZE;
	}
	for (unsigned i = 0; i < d->processes; i++) {
		infos[i].pid = 4242 + i;
		infos[i].usedGpuMemory = d->memory_used / d->processes;
		infos[i].gpuInstanceId = infos[i].computeInstanceId =
		    0xFFFFFFFFU;
	}
	*count = d->processes;
	return NVML_SUCCESS;
}
#endif
