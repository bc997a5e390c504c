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
 *	cc -shared -fPIC -o DIR/libnvidia-ml.so.1 tests/doubles/fake_nvml.c
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
 * FAKE_NVML_GPUS=N (1 to 64) gives N identical, healthy, idle H100s
 * instead of the two above: persistence on, MIG disabled, ECC on and no
 * error, no process, 0 bytes used, the link at PCIe gen 1 of 5 and x16 of
 * x16 (an idle GPU's link drops its speed), clocks held only for being
 * idle (nvmlClocksEventReasonGpuIdle), power limit 700 W, applications
 * clocks 1755 and 2619 MHz.  FAKE_NVML_GPUS=0 is a driver with no GPU.
 *
 * FAKE_NVML_HEALTH sets what differs, per GPU: a comma-separated list of
 * INDEX:FIELD=VALUE, e.g. "3:ecc_volatile=2,5:throttle=hw_thermal".
 *	processes=N		compute processes running
 *	memory_used=BYTES	nvmlDeviceGetMemoryInfo_v2's used
 *	ecc_volatile=N		uncorrected ECC errors since the driver loaded
 *	ecc_aggregate=N		uncorrected ECC errors over the GPU's life
 *	retired_pending=1	pages pending retirement
 *	remap_pending=1		row remappings pending (a reset needed)
 *	remap_failure=1		a row remapping failed
 *	throttle=R[+R...]	current clocks event reasons, replacing
 *				gpu_idle: gpu_idle, app_clocks,
 *				sw_power_cap, hw_slowdown, sync_boost,
 *				sw_thermal, hw_thermal, hw_power_brake, or a
 *				number (0x28); "none" for 0
 *	pcie_gen=CUR/MAX	the link generation now and at most
 *	pcie_width=CUR/MAX	the link width now and at most
 *	power_limit=MW		the power management limit, milliwatts
 *	app_clocks=GR/MEM	applications clocks, MHz
 *	compute_mode=N		nvmlComputeMode_t (3: exclusive process)
 *	ecc_mode=0		ECC disabled (nvmlDeviceGetTotalEccErrors then
 *				answers NOT_SUPPORTED: nvml.h says it
 *				"requires ECC Mode to be enabled" without
 *				naming the status; this one is a guess)
 *	unsupported=CALL	that call answers NVML_ERROR_NOT_SUPPORTED:
 *				ecc_total, retired, remapped, processes,
 *				memory_v2, clocks, pcie, power, app_clocks,
 *				compute_mode
 * An unknown field or a malformed entry makes nvmlInit_v2 fail with
 * NVML_ERROR_INVALID_ARGUMENT, so that a typo in a test cannot pass.
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
	U_COMPUTE_MODE = 1 << 9,
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
};

#define HEALTHY	0, 0, 0, 0, 0, 0, 0x1, 1, 5, 16, 16, 700000, 1755, 2619, 0, 0

static const struct fake_device legacy[] = {
	{ "NVIDIA H100 80GB HBM3", "96.00.99.00.01", 9, 0, 1, 1, 0, 0,
	    HEALTHY },
	{ "NVIDIA H100 80GB HBM3", "96.00.99.00.02", 9, 0, 1, 0, -1, 1,
	    HEALTHY },
};
static const struct fake_device healthy = { "NVIDIA H100 80GB HBM3",
    "96.00.99.00.01", 9, 0, 1, 1, 0, 0, HEALTHY };

static struct fake_device devices[MAX_GPUS];
static unsigned ndevices;
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

static int
number(const char *s, unsigned long long *v)
{
	char *end;

	if (*s == '\0' || *s == '-')
		return -1;
	*v = strtoull(s, &end, 0);
	return *end == '\0' ? 0 : -1;
}

static int
pair(const char *s, unsigned *a, unsigned *b)
{
	char x;

	return sscanf(s, "%u/%u%c", a, b, &x) == 2 ? 0 : -1;
}

static int
throttle(const char *s, unsigned long long *v)
{
	static const struct { const char *name; unsigned long long bit; }
	    names[] = {
		{ "gpu_idle", 0x1 }, { "app_clocks", 0x2 },
		{ "sw_power_cap", 0x4 }, { "hw_slowdown", 0x8 },
		{ "sync_boost", 0x10 }, { "sw_thermal", 0x20 },
		{ "hw_thermal", 0x40 }, { "hw_power_brake", 0x80 },
		{ "none", 0 },
	};
	char buf[256], *tok, *save;

	if (number(s, v) == 0)
		return 0;
	if (strlen(s) >= sizeof buf)
		return -1;
	strcpy(buf, s);
	*v = 0;
	for (tok = strtok_r(buf, "+", &save); tok != NULL;
	    tok = strtok_r(NULL, "+", &save)) {
		size_t i;

		for (i = 0; i < sizeof names / sizeof names[0]; i++)
			if (strcmp(tok, names[i].name) == 0)
				break;
		if (i == sizeof names / sizeof names[0])
			return -1;
		*v |= names[i].bit;
	}
	return 0;
}

static int
unsupported(const char *s, unsigned *mask)
{
	static const struct { const char *name; unsigned bit; } calls[] = {
		{ "ecc_total", U_ECC_TOTAL }, { "retired", U_RETIRED },
		{ "remapped", U_REMAPPED }, { "processes", U_PROCESSES },
		{ "memory_v2", U_MEMORY_V2 }, { "clocks", U_CLOCKS },
		{ "pcie", U_PCIE }, { "power", U_POWER },
		{ "app_clocks", U_APP_CLOCKS },
		{ "compute_mode", U_COMPUTE_MODE },
	};

	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (strcmp(s, calls[i].name) == 0) {
			*mask |= calls[i].bit;
			return 0;
		}
	return -1;
}

/* One "INDEX:FIELD=VALUE". */
static int
health_one(char *e)
{
	char *colon = strchr(e, ':'), *eq, *end;
	struct fake_device *d;
	unsigned long long v = 0;
	unsigned long i;
	int num;

	if (colon == NULL || (eq = strchr(colon, '=')) == NULL)
		return -1;
	*colon = *eq = '\0';
	i = strtoul(e, &end, 10);
	if (*e == '\0' || *end != '\0' || i >= ndevices)
		return -1;
	d = &devices[i];
	e = colon + 1;
	num = number(eq + 1, &v);
	if (strcmp(e, "processes") == 0 && num == 0)
		d->processes = (unsigned)v;
	else if (strcmp(e, "memory_used") == 0 && num == 0)
		d->memory_used = v;
	else if (strcmp(e, "ecc_volatile") == 0 && num == 0)
		d->ecc_volatile = v;
	else if (strcmp(e, "ecc_aggregate") == 0 && num == 0)
		d->ecc_aggregate = v;
	else if (strcmp(e, "retired_pending") == 0 && num == 0)
		d->retired_pending = (unsigned)v;
	else if (strcmp(e, "remap_pending") == 0 && num == 0)
		d->remap_pending = (unsigned)v;
	else if (strcmp(e, "remap_failure") == 0 && num == 0)
		d->remap_failure = (unsigned)v;
	else if (strcmp(e, "power_limit") == 0 && num == 0)
		d->power_limit = (unsigned)v;
	else if (strcmp(e, "compute_mode") == 0 && num == 0)
		d->compute_mode = (int)v;
	else if (strcmp(e, "ecc_mode") == 0 && num == 0)
		d->ecc = v != 0;
	else if (strcmp(e, "throttle") == 0)
		return throttle(eq + 1, &d->reasons);
	else if (strcmp(e, "pcie_gen") == 0)
		return pair(eq + 1, &d->pcie_gen, &d->pcie_gen_max);
	else if (strcmp(e, "pcie_width") == 0)
		return pair(eq + 1, &d->pcie_width, &d->pcie_width_max);
	else if (strcmp(e, "app_clocks") == 0)
		return pair(eq + 1, &d->app_graphics, &d->app_mem);
	else if (strcmp(e, "unsupported") == 0)
		return unsupported(eq + 1, &d->unsupported);
	else
		return -1;
	return 0;
}

/* The devices, from FAKE_NVML_GPUS and FAKE_NVML_HEALTH; -1 if either is
 * malformed. */
static int
setup(void)
{
	const char *n = getenv("FAKE_NVML_GPUS"), *h = getenv("FAKE_NVML_HEALTH");
	unsigned long long v;
	char *buf, *tok, *save;
	int rc = 0;

	if (n == NULL) {
		ndevices = 2;
		memcpy(devices, legacy, sizeof legacy);
	} else {
		if (number(n, &v) < 0 || v > MAX_GPUS)
			return -1;
		ndevices = (unsigned)v;
		for (unsigned i = 0; i < ndevices; i++)
			devices[i] = healthy;
	}
	if (h == NULL || *h == '\0')
		return 0;
	if ((buf = strdup(h)) == NULL)
		return -1;
	for (tok = strtok_r(buf, ",", &save); tok != NULL && rc == 0;
	    tok = strtok_r(NULL, ",", &save))
		rc = health_one(tok);
	free(buf);
	return rc;
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
	if (setup() < 0)
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
