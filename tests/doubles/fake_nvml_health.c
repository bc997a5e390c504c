/*
 * fake_nvml_health.c: the devices of the NVML TEST DOUBLE (fake_nvml.c),
 * as the environment sets them.
 *
 * FAKE_NVML_GPUS=N (1 to 64) gives N identical, healthy, idle H100s
 * instead of the two of FAKE_NVML_MODE=ok (fake_nvml.c): persistence on, MIG disabled, ECC on and no
 * error, no process, 0 bytes used, the link at PCIe gen 1 of 5 and x16 of
 * x16 (an idle GPU's link drops its speed), clocks held only for being
 * idle (nvmlClocksEventReasonGpuIdle), power limit 700 W, applications
 * clocks 1755 and 2619 MHz, 18 NVLinks of version 4.0 all active (an
 * H100 SXM), GPUs 0-3 on one NUMA node and 4-7 on the next (an HGX
 * board: nvmlDeviceGetTopologyCommonAncestor says NODE within a node,
 * SYSTEM across).  FAKE_NVML_GPUS=0 is a driver with no GPU.
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
 *	nvlinks=N		NVLinks the GPU has (0: none, a PCIe card:
 *				nvmlDeviceGetNvLinkState answers
 *				NOT_SUPPORTED)
 *	nvlink_version=V	nvmlNvlinkVersion_t of every link (7: 5.0)
 *	nvlink_down=L[+L...]	links that are not active
 *	numa=N			the NUMA node the GPU hangs off
 *	unsupported=CALL	that call answers NVML_ERROR_NOT_SUPPORTED:
 *				ecc_total, retired, remapped, processes,
 *				memory_v2, clocks, pcie, power, app_clocks,
 *				compute_mode, nvlink, topo
 * An unknown field or a malformed entry makes nvmlInit_v2 fail with
 * NVML_ERROR_INVALID_ARGUMENT, so that a typo in a test cannot pass.
 *
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_nvml.h"

#define HEALTHY	0, 0, 0, 0, 0, 0, 0x1, 1, 5, 16, 16, 700000, 1755, 2619, 0, 0, \
	18, 6, 0, -1

static const struct fake_device legacy[] = {
	{ "NVIDIA H100 80GB HBM3", "96.00.99.00.01", 9, 0, 1, 1, 0, 0,
	    HEALTHY },
	{ "NVIDIA H100 80GB HBM3", "96.00.99.00.02", 9, 0, 1, 0, -1, 1,
	    HEALTHY },
};
static const struct fake_device healthy = { "NVIDIA H100 80GB HBM3",
    "96.00.99.00.01", 9, 0, 1, 1, 0, 0, HEALTHY };

struct fake_device devices[MAX_GPUS];
unsigned ndevices;

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

/* "L[+L...]": a mask of link numbers below 36. */
static int
links(const char *s, unsigned long long *mask)
{
	char buf[256], *tok, *save, *end;
	unsigned long l;

	if (strlen(s) >= sizeof buf || *s == '\0')
		return -1;
	strcpy(buf, s);
	*mask = 0;
	for (tok = strtok_r(buf, "+", &save); tok != NULL;
	    tok = strtok_r(NULL, "+", &save)) {
		l = strtoul(tok, &end, 10);
		if (*tok == '\0' || *end != '\0' || l >= 36)
			return -1;
		*mask |= 1ULL << l;
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
		{ "compute_mode", U_COMPUTE_MODE }, { "nvlink", U_NVLINK },
		{ "topo", U_TOPO },
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
	else if (strcmp(e, "nvlinks") == 0 && num == 0 && v <= 36)
		d->nvlinks = (unsigned)v;
	else if (strcmp(e, "nvlink_version") == 0 && num == 0)
		d->nvlink_version = (unsigned)v;
	else if (strcmp(e, "numa") == 0 && num == 0 && v < 64)
		d->numa = (int)v;
	else if (strcmp(e, "nvlink_down") == 0)
		return links(eq + 1, &d->nvlink_down);
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

int
fake_nvml_setup(void)
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
