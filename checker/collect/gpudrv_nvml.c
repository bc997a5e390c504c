/*
 * gpudrv_nvml.c: the questions the child that loaded NVML asks it, and
 * the lines it writes (dynload.h, job "gpu"): the driver, then for each
 * GPU its facts ("<i>.<field>", compared with the golden) and its health
 * now ("health.<i>.<field>", which gpudrv.c keeps in meta.gpu, never
 * among the facts: error counters, memory in use and throttling change
 * between two runs of a healthy machine).  A health field NVML cannot
 * give (a symbol missing from an older driver's NVML, a call the GPU does
 * not support, or any other failure) is "unchecked.<i>.<field>" with the
 * reason, so that the check says "not checked" and why.
 *
 * The calls up to the remapped rows have run on an H100 (what it said is
 * in tests/fixtures/gpu/h100/); every other call here was written from
 * NVML's header and has run only against the test double
 * tests/doubles/fake_nvml.c, not yet against a real driver.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "gpudrv_nvml.h"

#define NVML_SUCCESS			0
#define NVML_ERROR_INVALID_ARGUMENT	2
#define NVML_ERROR_NOT_SUPPORTED	3
#define NVML_ERROR_INSUFFICIENT_SIZE	7

/* nvmlClockType_t */
#define NVML_CLOCK_GRAPHICS		0
#define NVML_CLOCK_MEM			2
/* nvmlMemoryErrorType_t, nvmlEccCounterType_t */
#define NVML_MEMORY_ERROR_TYPE_UNCORRECTED	1
#define NVML_VOLATILE_ECC		0
#define NVML_AGGREGATE_ECC		1
/* NVML_NVLINK_MAX_LINKS: links are numbered below it */
#define NVML_NVLINK_MAX_LINKS		36
/* nvmlMemory_v2: NVML_STRUCT_VERSION(Memory, 2), sizeof | 2 << 24 */
#define NVML_MEMORY_V2	((unsigned)sizeof(struct ep_nvml_mem2) | 2U << 24)

#define SYM(s, f, r)	{ s, offsetof(struct ep_nvml, f), r }

static const struct ep_nvml_sym syms[] = {
	SYM("nvmlInit_v2", init, 1),
	SYM("nvmlShutdown", shutdown, 1),
	SYM("nvmlErrorString", error_string, 1),
	SYM("nvmlSystemGetDriverVersion", driver_version, 1),
	SYM("nvmlSystemGetCudaDriverVersion_v2", cuda_version, 0),
	SYM("nvmlDeviceGetCount_v2", count, 1),
	SYM("nvmlDeviceGetHandleByIndex_v2", handle, 1),
	SYM("nvmlDeviceGetName", name, 0),
	SYM("nvmlDeviceGetCudaComputeCapability", cc, 0),
	SYM("nvmlDeviceGetVbiosVersion", vbios, 0),
	SYM("nvmlDeviceGetEccMode", ecc, 0),
	SYM("nvmlDeviceGetPersistenceMode", persistence, 0),
	SYM("nvmlDeviceGetMigMode", mig, 0),
	SYM("nvmlDeviceGetMemoryInfo", memory, 0),
	SYM("nvmlDeviceGetRemappedRows", remapped, 0),
	SYM("nvmlDeviceGetMaxPcieLinkGeneration", pcie_gen_max, 0),
	SYM("nvmlDeviceGetMaxPcieLinkWidth", pcie_width_max, 0),
	SYM("nvmlDeviceGetComputeMode", compute_mode, 0),
	SYM("nvmlDeviceGetPowerManagementLimit", power_limit, 0),
	SYM("nvmlDeviceGetApplicationsClock", app_clock, 0),
	SYM("nvmlDeviceGetNvLinkState", nvlink_state, 0),
	SYM("nvmlDeviceGetNvLinkVersion", nvlink_version, 0),
	SYM("nvmlDeviceGetTopologyCommonAncestor", topo, 0),
	SYM("nvmlDeviceGetCurrPcieLinkGeneration", pcie_gen_cur, 0),
	SYM("nvmlDeviceGetCurrPcieLinkWidth", pcie_width_cur, 0),
	SYM("nvmlDeviceGetEnforcedPowerLimit", power_enforced, 0),
	SYM("nvmlDeviceGetMemoryInfo_v2", memory_v2, 0),
	SYM("nvmlDeviceGetComputeRunningProcesses_v3", processes, 0),
	SYM("nvmlDeviceGetTotalEccErrors", ecc_total, 0),
	SYM("nvmlDeviceGetRetiredPagesPendingStatus", retired_pending, 0),
	SYM("nvmlDeviceGetCurrentClocksEventReasons", clocks_event, 0),
	/* The same call under the name it had before NVIDIA renamed it,
	 * deprecated in 13.0: asked only where the new name is missing. */
	SYM("nvmlDeviceGetCurrentClocksThrottleReasons", clocks_throttle, 0),
};

const struct ep_nvml_sym *
ep_nvml_syms(size_t *n)
{
	*n = sizeof syms / sizeof syms[0];
	return syms;
}

/* One GPU being asked. */
struct dev {
	const struct ep_nvml *t;
	ep_nvml_emit emit;
	unsigned i;
	ep_nvml_dev d;
	char key[64];
};

static const char *
key(struct dev *g, const char *prefix, const char *field)
{
	snprintf(g->key, sizeof g->key, "%s%u.%s", prefix, g->i, field);
	return g->key;
}

/* A health field NVML could not give: why, from the call's status (or
 * NULL fn: the symbol is missing). */
static void
unchecked(struct dev *g, const char *field, const char *sym, int have,
    int rc)
{
	const char *k = key(g, "unchecked.", field);

	if (!have)
		g->emit(k, "%s is not in this driver's NVML", sym);
	else if (rc == NVML_ERROR_NOT_SUPPORTED)
		g->emit(k, "%s: not supported on this GPU "
		    "(NVML_ERROR_NOT_SUPPORTED)", sym);
	else
		g->emit(k, "%s: %s (%d)", sym, g->t->error_string(rc), rc);
}

/* "enabled", "disabled" or "unsupported" from a call's status and state;
 * NULL (and a warning) for any other failure. */
static const char *
state(struct dev *g, int rc, int on, const char *what)
{
	if (rc == NVML_SUCCESS)
		return on ? "enabled" : "disabled";
	if (rc == NVML_ERROR_NOT_SUPPORTED)
		return "unsupported";
	g->emit("warning", "GPU %u: %s: %s (%d)", g->i, what,
	    g->t->error_string(rc), rc);
	return NULL;
}

/* A number compared with the golden: its value, "unsupported", or, for
 * a missing symbol or another failure, no fact and a note why. */
static void
fact_num(struct dev *g, const char *field, const char *sym, int have,
    int rc, unsigned v)
{
	if (have && rc == NVML_SUCCESS)
		g->emit(key(g, "", field), "%u", v);
	else if (have && rc == NVML_ERROR_NOT_SUPPORTED)
		g->emit(key(g, "", field), "unsupported");
	else
		unchecked(g, field, sym, have, rc);
}

static void
facts_before(struct dev *g)
{
	const struct ep_nvml *t = g->t;
	struct ep_nvml_mem mem;
	char buf[128];
	unsigned cur = 0, pend = 0, corr, unc, fail;
	int major, minor, on = 0, pending, rc;
	const char *s;
	ep_nvml_dev d = g->d;

	if (t->name != NULL && t->name(d, buf, sizeof buf) == NVML_SUCCESS)
		g->emit(key(g, "", "name"), "%s", buf);
	if (t->cc != NULL && t->cc(d, &major, &minor) == NVML_SUCCESS)
		g->emit(key(g, "", "cc"), "%d.%d", major, minor);
	if (t->vbios != NULL && t->vbios(d, buf, sizeof buf) == NVML_SUCCESS)
		g->emit(key(g, "", "vbios"), "%s", buf);
	rc = t->ecc != NULL ? t->ecc(d, &on, &pending) : NVML_ERROR_NOT_SUPPORTED;
	if ((s = state(g, rc, on, "ECC mode")) != NULL)
		g->emit(key(g, "", "ecc"), "%s", s);
	rc = t->persistence != NULL ? t->persistence(d, &on) :
	    NVML_ERROR_NOT_SUPPORTED;
	if ((s = state(g, rc, on, "persistence mode")) != NULL)
		g->emit(key(g, "", "persistence"), "%s", s);
	rc = t->mig != NULL ? t->mig(d, &cur, &pend) : NVML_ERROR_NOT_SUPPORTED;
	if ((s = state(g, rc, rc == 0 && cur == 1, "MIG mode")) != NULL)
		g->emit(key(g, "", "mig"), "%s", s);
	if (t->memory != NULL && t->memory(d, &mem) == NVML_SUCCESS)
		g->emit(key(g, "", "memory_total"), "%llu", mem.total);
	/* gpu.<i>.remapped_rows_pending stays a fact, as it was before the
	 * health checks; its health twin is health.<i>.remapped_rows_*. */
	corr = unc = pend = fail = 0;
	rc = t->remapped != NULL ? t->remapped(d, &corr, &unc, &pend, &fail) :
	    NVML_ERROR_NOT_SUPPORTED;
	if ((s = state(g, rc, rc == 0 && pend != 0, "remapped rows")) != NULL)
		g->emit(key(g, "", "remapped_rows_pending"), "%s",
		    strcmp(s, "enabled") == 0 ? "yes" :
		    strcmp(s, "disabled") == 0 ? "no" : s);
	if (t->remapped == NULL)
		unchecked(g, "remapped_rows", "nvmlDeviceGetRemappedRows", 0,
		    0);
	else if (rc != NVML_SUCCESS)
		unchecked(g, "remapped_rows", "nvmlDeviceGetRemappedRows", 1,
		    rc);
	else {
		g->emit(key(g, "health.", "remapped_rows_pending"), "%s",
		    pend != 0 ? "yes" : "no");
		g->emit(key(g, "health.", "remapped_rows_failure"), "%s",
		    fail != 0 ? "yes" : "no");
		g->emit(key(g, "health.", "remapped_rows_uncorrectable"), "%u",
		    unc);
	}
}

/* nvmlComputeMode_t */
static const char *
compute_mode_name(int m)
{
	switch (m) {
	case 0:
		return "default";
	case 1:
		return "exclusive_thread";
	case 2:
		return "prohibited";
	case 3:
		return "exclusive_process";
	default:
		return NULL;
	}
}

static void
facts_config(struct dev *g)
{
	const struct ep_nvml *t = g->t;
	unsigned v = 0;
	int rc = 0, mode = 0;
	const char *s;

	if (t->pcie_gen_max != NULL)
		rc = t->pcie_gen_max(g->d, &v);
	fact_num(g, "pcie_gen_max", "nvmlDeviceGetMaxPcieLinkGeneration",
	    t->pcie_gen_max != NULL, rc, v);
	if (t->pcie_width_max != NULL)
		rc = t->pcie_width_max(g->d, &v);
	fact_num(g, "pcie_width_max", "nvmlDeviceGetMaxPcieLinkWidth",
	    t->pcie_width_max != NULL, rc, v);
	if (t->power_limit != NULL)
		rc = t->power_limit(g->d, &v);
	fact_num(g, "power_limit_mw", "nvmlDeviceGetPowerManagementLimit",
	    t->power_limit != NULL, rc, v);
	if (t->app_clock != NULL)
		rc = t->app_clock(g->d, NVML_CLOCK_GRAPHICS, &v);
	fact_num(g, "app_clock_graphics_mhz", "nvmlDeviceGetApplicationsClock",
	    t->app_clock != NULL, rc, v);
	if (t->app_clock != NULL)
		rc = t->app_clock(g->d, NVML_CLOCK_MEM, &v);
	fact_num(g, "app_clock_mem_mhz", "nvmlDeviceGetApplicationsClock",
	    t->app_clock != NULL, rc, v);
	if (t->compute_mode == NULL)
		unchecked(g, "compute_mode", "nvmlDeviceGetComputeMode", 0, 0);
	else if ((rc = t->compute_mode(g->d, &mode)) == NVML_SUCCESS &&
	    (s = compute_mode_name(mode)) != NULL)
		g->emit(key(g, "", "compute_mode"), "%s", s);
	else if (rc == NVML_SUCCESS)
		g->emit(key(g, "", "compute_mode"), "unknown %d", mode);
	else if (rc == NVML_ERROR_NOT_SUPPORTED)
		g->emit(key(g, "", "compute_mode"), "unsupported");
	else
		unchecked(g, "compute_mode", "nvmlDeviceGetComputeMode", 1, rc);
}

/* nvmlNvlinkVersion_t: the NVLink generation NVML names (some drivers
 * name 5.0 for an H100's 4.0 links: compared with the golden as NVML
 * says it). */
static const char *
nvlink_version_name(unsigned v)
{
	static const char *const names[] = { NULL, "1.0", "2.0", "2.2", "3.0",
	    "3.1", "4.0", "5.0", "6.0" };

	return v < sizeof names / sizeof names[0] ? names[v] : NULL;
}

/* gpu.<i>.nvlink_links (the links NVML answers for), .nvlink_inactive
 * ("none", or the numbers of the links that are not active: a dead or
 * untrained link) and .nvlink_version (the versions of the active links,
 * each once).  A GPU without NVLink (NOT_SUPPORTED for link 0) has
 * nvlink_links "unsupported"; a link number past the GPU's answers
 * INVALID_ARGUMENT, which ends the list. */
static void
facts_nvlink(struct dev *g)
{
	const struct ep_nvml *t = g->t;
	char down[NVML_NVLINK_MAX_LINKS * 3 + 1] = "", vers[64] = "";
	unsigned links = 0, v, seen = 0;
	int rc = NVML_SUCCESS, on;

	if (t->nvlink_state == NULL) {
		unchecked(g, "nvlink", "nvmlDeviceGetNvLinkState", 0, 0);
		return;
	}
	for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
		on = 0;
		if ((rc = t->nvlink_state(g->d, l, &on)) != NVML_SUCCESS)
			break;
		links++;
		if (on != 1) {
			snprintf(down + strlen(down), sizeof down - strlen(down),
			    "%s%u", down[0] ? "," : "", l);
			continue;
		}
		if (t->nvlink_version != NULL &&
		    t->nvlink_version(g->d, l, &v) == NVML_SUCCESS &&
		    v < 32 && !(seen & 1U << v))
			seen |= 1U << v;
	}
	if (links == 0 && rc == NVML_ERROR_NOT_SUPPORTED) {
		g->emit(key(g, "", "nvlink_links"), "unsupported");
		return;
	}
	if (links == 0 || (rc != NVML_SUCCESS &&
	    rc != NVML_ERROR_INVALID_ARGUMENT &&
	    rc != NVML_ERROR_NOT_SUPPORTED)) {
		unchecked(g, "nvlink", "nvmlDeviceGetNvLinkState", 1, rc);
		return;
	}
	g->emit(key(g, "", "nvlink_links"), "%u", links);
	g->emit(key(g, "", "nvlink_inactive"), "%s", down[0] ? down : "none");
	for (v = 31; v > 0; v--) {	/* newest first */
		const char *name = nvlink_version_name(v);

		if (!(seen & 1U << v))
			continue;
		snprintf(vers + strlen(vers), sizeof vers - strlen(vers),
		    "%s%s", vers[0] ? " " : "", name != NULL ? name : "?");
	}
	if (vers[0] != '\0')
		g->emit(key(g, "", "nvlink_version"), "%s", vers);
}

/* A number of now: health.<i>.<field>, or why not. */
static void
health_num(struct dev *g, const char *field, const char *sym, int have,
    int rc, unsigned long long v)
{
	if (have && rc == NVML_SUCCESS)
		g->emit(key(g, "health.", field), "%llu", v);
	else
		unchecked(g, field, sym, have, rc);
}

static void
health(struct dev *g)
{
	const struct ep_nvml *t = g->t;
	struct ep_nvml_mem2 m2;
	unsigned long long n = 0, reasons = 0;
	unsigned v = 0;
	/* Room for a process entry of any layout, never written: asked
	 * with a count of 0, NVML only says how many there are. */
	unsigned long long scratch[8];
	unsigned np = 0;
	int rc = 0, on = 0;
	const char *sym;

	if (t->pcie_gen_cur != NULL)
		rc = t->pcie_gen_cur(g->d, &v);
	health_num(g, "pcie_gen", "nvmlDeviceGetCurrPcieLinkGeneration",
	    t->pcie_gen_cur != NULL, rc, v);
	if (t->pcie_width_cur != NULL)
		rc = t->pcie_width_cur(g->d, &v);
	health_num(g, "pcie_width", "nvmlDeviceGetCurrPcieLinkWidth",
	    t->pcie_width_cur != NULL, rc, v);
	if (t->power_enforced != NULL)
		rc = t->power_enforced(g->d, &v);
	health_num(g, "power_limit_enforced_mw",
	    "nvmlDeviceGetEnforcedPowerLimit", t->power_enforced != NULL, rc,
	    v);

	memset(&m2, 0, sizeof m2);
	if (t->memory_v2 != NULL) {
		m2.version = NVML_MEMORY_V2;
		rc = t->memory_v2(g->d, &m2);
	}
	health_num(g, "memory_used", "nvmlDeviceGetMemoryInfo_v2",
	    t->memory_v2 != NULL, rc, m2.used);
	if (t->memory_v2 != NULL && rc == NVML_SUCCESS)
		g->emit(key(g, "health.", "memory_reserved"), "%llu",
		    m2.reserved);
	if (t->processes != NULL) {
		memset(scratch, 0, sizeof scratch);
		rc = t->processes(g->d, &np, scratch);
		if (rc == NVML_ERROR_INSUFFICIENT_SIZE)
			rc = NVML_SUCCESS;	/* np holds the count */
		else if (rc == NVML_SUCCESS)
			np = 0;
	}
	health_num(g, "processes", "nvmlDeviceGetComputeRunningProcesses_v3",
	    t->processes != NULL, rc, np);

	sym = "nvmlDeviceGetTotalEccErrors";
	if (t->ecc_total != NULL)
		rc = t->ecc_total(g->d, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
		    NVML_VOLATILE_ECC, &n);
	health_num(g, "ecc_uncorrected_volatile", sym, t->ecc_total != NULL,
	    rc, n);
	if (t->ecc_total != NULL)
		rc = t->ecc_total(g->d, NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
		    NVML_AGGREGATE_ECC, &n);
	health_num(g, "ecc_uncorrected_aggregate", sym, t->ecc_total != NULL,
	    rc, n);

	sym = "nvmlDeviceGetRetiredPagesPendingStatus";
	if (t->retired_pending == NULL)
		unchecked(g, "retired_pages_pending", sym, 0, 0);
	else if ((rc = t->retired_pending(g->d, &on)) != NVML_SUCCESS)
		unchecked(g, "retired_pages_pending", sym, 1, rc);
	else
		g->emit(key(g, "health.", "retired_pages_pending"), "%s",
		    on ? "yes" : "no");

	if (t->clocks_event != NULL) {
		sym = "nvmlDeviceGetCurrentClocksEventReasons";
		rc = t->clocks_event(g->d, &reasons);
	} else if (t->clocks_throttle != NULL) {
		sym = "nvmlDeviceGetCurrentClocksThrottleReasons";
		rc = t->clocks_throttle(g->d, &reasons);
	} else
		sym = "nvmlDeviceGetCurrentClocksEventReasons (nor "
		    "nvmlDeviceGetCurrentClocksThrottleReasons)";
	if (t->clocks_event == NULL && t->clocks_throttle == NULL)
		unchecked(g, "clocks_event_reasons", sym, 0, 0);
	else if (rc != NVML_SUCCESS)
		unchecked(g, "clocks_event_reasons", sym, 1, rc);
	else
		g->emit(key(g, "health.", "clocks_event_reasons"), "0x%llx",
		    reasons);
}

static void
device(const struct ep_nvml *t, ep_nvml_emit emit, unsigned i)
{
	struct dev g = { t, emit, i, NULL, "" };
	int rc;

	if ((rc = t->handle(i, &g.d)) != NVML_SUCCESS) {
		emit("warning", "GPU %u: nvmlDeviceGetHandleByIndex_v2: %s (%d)",
		    i, t->error_string(rc), rc);
		return;
	}
	facts_before(&g);
	facts_config(&g);
	facts_nvlink(&g);
	health(&g);
}

/* nvmlGpuTopologyLevel_t, as nvidia-smi topo -m names the same paths */
static const char *
topo_name(int level)
{
	switch (level) {
	case 0:
		return "internal";	/* the same board (multi-GPU board) */
	case 10:
		return "single";	/* PIX: one PCIe switch */
	case 20:
		return "multiple";	/* PXB: several PCIe switches */
	case 30:
		return "hostbridge";	/* PHB: the same host bridge */
	case 40:
		return "node";		/* NODE: the same NUMA node */
	case 50:
		return "system";	/* SYS: across the CPUs' link */
	default:
		return NULL;
	}
}

/* gpu.<i>.topo.<j> for every pair i < j: the PCIe path between them
 * (nvmlDeviceGetTopologyCommonAncestor): a GPU in another slot or
 * behind another switch than on its siblings. */
static void
topology(const struct ep_nvml *t, ep_nvml_emit emit, unsigned n)
{
	ep_nvml_dev a, b;
	char k[64];
	const char *name;
	int level, rc;

	if (t->topo == NULL)
		return;
	for (unsigned i = 0; i < n; i++) {
		if (t->handle(i, &a) != NVML_SUCCESS)
			continue;
		for (unsigned j = i + 1; j < n; j++) {
			if (t->handle(j, &b) != NVML_SUCCESS)
				continue;
			snprintf(k, sizeof k, "%u.topo.%u", i, j);
			level = -1;
			rc = t->topo(a, b, &level);
			if (rc == NVML_SUCCESS &&
			    (name = topo_name(level)) != NULL)
				emit(k, "%s", name);
			else if (rc == NVML_SUCCESS)
				emit(k, "unknown %d", level);
			else if (rc == NVML_ERROR_NOT_SUPPORTED)
				emit(k, "unsupported");
			else
				emit("warning", "GPUs %u and %u: "
				    "nvmlDeviceGetTopologyCommonAncestor: %s "
				    "(%d)", i, j, t->error_string(rc), rc);
		}
	}
}

void
ep_nvml_query(const struct ep_nvml *t, ep_nvml_emit emit)
{
	char buf[96];
	unsigned n = 0;
	int v, rc;

	if ((rc = t->init()) != NVML_SUCCESS) {
		emit("unavailable", "nvmlInit_v2: %s (%d)", t->error_string(rc),
		    rc);
		return;
	}
	if ((rc = t->driver_version(buf, sizeof buf)) == NVML_SUCCESS)
		emit("driver.version", "%s", buf);
	if (t->cuda_version != NULL && t->cuda_version(&v) == NVML_SUCCESS)
		emit("cuda_driver.version", "%d.%d", v / 1000, v % 1000 / 10);
	if ((rc = t->count(&n)) != NVML_SUCCESS)
		emit("warning", "nvmlDeviceGetCount_v2: %s (%d)",
		    t->error_string(rc), rc);
	else {
		emit("count", "%u", n);
		for (unsigned i = 0; i < n; i++)
			device(t, emit, i);
		topology(t, emit, n);
	}
	t->shutdown();
}
