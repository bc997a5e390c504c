/*
 * fake_nvml.c: a TEST DOUBLE of the NVIDIA driver's libnvidia-ml.so.1,
 * standing in for the GPU driver that the build machines do not have.
 * It is not NVIDIA's code and talks to no hardware: it implements the few
 * NVML entry points envparity calls, with NVML's names and prototypes,
 * and answers with fixed values for two H100s.
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
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NVML_SUCCESS			0
#define NVML_ERROR_UNINITIALIZED	1
#define NVML_ERROR_INVALID_ARGUMENT	2
#define NVML_ERROR_NOT_SUPPORTED	3
#define NVML_ERROR_INSUFFICIENT_SIZE	7
#define NVML_ERROR_DRIVER_NOT_LOADED	9

typedef int nvmlReturn_t;
typedef struct fake_device *nvmlDevice_t;
typedef struct {
	unsigned long long total, free, used;
} nvmlMemory_t;

struct fake_device {
	const char *name, *vbios;
	int ccmajor, ccminor, ecc, persistence;
	int mig;		/* -1: not supported */
	unsigned remap_pending;
};

static struct fake_device devices[] = {
	{ "NVIDIA H100 80GB HBM3", "96.00.99.00.01", 9, 0, 1, 1, 0, 0 },
	{ "NVIDIA H100 80GB HBM3", "96.00.99.00.02", 9, 0, 1, 0, -1, 1 },
};

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

nvmlReturn_t
nvmlInit_v2(void)
{
	if (mode_is("init_fails"))
		return NVML_ERROR_DRIVER_NOT_LOADED;
	if (mode_is("hang"))
		for (;;)
			pause();
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
	case NVML_ERROR_NOT_SUPPORTED:
		return "Not Supported";
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
	*n = mode_is("no_devices") ? 0 : 2;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d)
{
	if (!initialized)
		return NVML_ERROR_UNINITIALIZED;
	if (i >= 2 || mode_is("no_devices"))
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
	return copy_string(buf, size, d == &devices[0] ?
	    "GPU-00000000-1111-2222-3333-444444444444" :
	    "GPU-55555555-6666-7777-8888-999999999999");
}

nvmlReturn_t
nvmlDeviceGetSerial(nvmlDevice_t d, char *buf, unsigned size)
{
	return copy_string(buf, size, d == &devices[0] ? "1650123456789" :
	    "1650123456790");
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

nvmlReturn_t
nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *mem)
{
	(void)d;
	mem->total = 85520809984ULL;	/* 81559 MiB */
	mem->used = 553648128ULL;
	mem->free = mem->total - mem->used;
	return NVML_SUCCESS;
}

nvmlReturn_t
nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned *corrected,
    unsigned *uncorrected, unsigned *pending, unsigned *failed)
{
	*corrected = 0;
	*uncorrected = d->remap_pending;
	*pending = d->remap_pending;
	*failed = 0;
	return NVML_SUCCESS;
}
