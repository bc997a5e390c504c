/*
 * checks_gpu.c: stack.gpu.<i>.<check>, each GPU's health when it was
 * captured, read from meta.gpu.<i> (collect/gpudrv_nvml.c puts there what
 * NVML said, and in meta.gpu.<i>.not_checked why it said nothing).  These
 * values change between two runs of a healthy machine, so they are never
 * facts: no golden drifts on them, and they are judged here, against
 * fixed rules, not against a golden.
 *
 *   stack.gpu.<i>.busy            fail: a compute process runs on the GPU,
 *                                 or more than BUSY_BASELINE of its memory
 *                                 is allocated (nvmlDeviceGetMemoryInfo_v2's
 *                                 "used", which leaves out what the driver
 *                                 reserves: an idle GPU shows 0, a process
 *                                 that only created a CUDA context some
 *                                 hundreds of MiB).  Processes in other
 *                                 containers may be invisible to NVML in
 *                                 this one; their memory is not.
 *   stack.gpu.<i>.ecc_volatile    fail: uncorrected ECC errors since the
 *                                 driver loaded.
 *   stack.gpu.<i>.ecc_aggregate   warn: uncorrected ECC errors over the
 *                                 GPU's life (the rows may since have been
 *                                 remapped: history, not a fault now).
 *   stack.gpu.<i>.retired_pages   fail: pages pending retirement (a reboot
 *                                 is needed; GPUs before Ampere).
 *   stack.gpu.<i>.remapped_rows   fail: row remappings pending (a GPU reset
 *                                 is needed) or a remapping that failed
 *                                 (Ampere and later).
 *   stack.gpu.<i>.throttle        fail: clocks held down now by software
 *                                 or hardware thermal slowdown, the power
 *                                 brake, or hardware slowdown; the other
 *                                 reasons (idle, applications clocks, the
 *                                 software power cap, sync boost) pass.
 *   stack.gpu.<i>.pcie            warn: the link runs narrower than it can
 *                                 (x8 of x16: a riser, a slot, a seating);
 *                                 a generation below the top passes, since
 *                                 idle GPUs drop their link speed to save
 *                                 power (the top generation is the fact
 *                                 gpu.<i>.pcie_gen_max, compared with the
 *                                 golden).
 *   stack.gpu.xid                 skip, once: NVML reports XID errors only
 *                                 as events that occur after a program
 *                                 registers for them
 *                                 (nvmlDeviceRegisterEvents: "all events
 *                                 that occurred before this call are not
 *                                 recorded"), so a check at one point in
 *                                 time sees none of the past ones.
 *
 * A result the policy would fail becomes a warning where the first rule
 * matching its key has "severity": "warn" (the same field that makes a
 * drift a warning); an ignore rule turns a check off and waivers apply,
 * as to every check.  The thresholds are fixed: the policy decides what
 * a finding means, not where it starts.  A machine with no GPU facts gets
 * none of these results.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "checks_int.h"
#include "xalloc.h"

/* More allocated than this on a GPU is someone else's work. */
#define BUSY_BASELINE	(256ULL << 20)
#define BUSY_BASELINE_TEXT	"256 MiB"

/* nvmlClocksEventReason* bits (nvml.h). */
static const struct {
	unsigned long long bit;
	const char *name;
	int bad;
} reasons[] = {
	{ 0x1, "gpu idle", 0 },
	{ 0x2, "applications clocks setting", 0 },
	{ 0x4, "software power cap", 0 },
	{ 0x8, "hardware slowdown", 1 },
	{ 0x10, "sync boost", 0 },
	{ 0x20, "software thermal slowdown", 1 },
	{ 0x40, "hardware thermal slowdown", 1 },
	{ 0x80, "hardware power brake slowdown", 1 },
	{ 0x100, "display clock setting", 0 },
};

/* The GPUs a capture may say it has; more is garbage. */
#define GPUS_MAX	1024

struct gpu {
	struct checks *k;
	unsigned i;
	json_t *h;		/* meta.gpu.<i>, borrowed */
	char *label;		/* "GPU 3 (NVIDIA H100 80GB HBM3)" */
};

static const char *
hget(struct gpu *g, const char *field)
{
	return json_string_value(json_object_get(g->h, field));
}

/* Why NVML gave no field, a new string. */
static char *
reason_of(struct gpu *g, const char *field)
{
	const char *why = json_string_value(json_object_get(json_object_get(
	    g->h, "not_checked"), field));

	return why != NULL ? xstrdup(why) : xasprintf("NVML gave no %s",
	    field);
}

/* "not checked: " and the reason, a new string. */
static char *
why_not(struct gpu *g, const char *field)
{
	char *why = reason_of(g, field), *s;

	s = xasprintf("not checked: %s", why);
	free(why);
	return s;
}

/* An unsigned number of meta.gpu.<i>, as capture writes it: decimal
 * digits, or "0x" and hex digits for a bit mask (hex); 0, or -1 when
 * missing or not one (*bad set for the latter). */
static int
hnum_base(struct gpu *g, const char *field, unsigned long long *v, int *bad,
    int hex)
{
	json_t *j = json_object_get(g->h, field);
	const char *s = json_string_value(j);
	char *end;

	if (j == NULL || json_is_null(j))
		return -1;
	/* "0x10" or "010" read in another base, or a count past 2^64
	 * clamped, would be a number NVML never said. */
	if (s != NULL && hex) {
		if (s[0] != '0' || s[1] != 'x')
			s = NULL;
		else
			s += 2;
	}
	if (s == NULL || !(hex ? isxdigit((unsigned char)*s) :
	    *s >= '0' && *s <= '9')) {
		*bad = 1;
		return -1;
	}
	errno = 0;
	*v = strtoull(s, &end, hex ? 16 : 10);
	if (*end != '\0' || errno == ERANGE) {
		*bad = 1;
		return -1;
	}
	return 0;
}

static int
hnum(struct gpu *g, const char *field, unsigned long long *v, int *bad)
{
	return hnum_base(g, field, v, bad, 0);
}

static void
add(struct gpu *g, const char *check, int status, const char *expected,
    const char *actual, char *message)
{
	char *key = xasprintf("stack.gpu.%u.%s", g->i, check);
	char *rule = xasprintf("check:gpu-%s", check);
	const struct ep_rule *r = ep_policy_match(g->k->policy, key);
	char *m;

	if (status == EP_FAIL && r->severity == EP_SEVERITY_WARN) {
		status = EP_WARN;
		m = xasprintf("%s (a warning under the policy's rule for %s%s%s)",
		    message, r->key, r->reason ? ": " : "",
		    r->reason ? r->reason : "");
		free(message);
		message = m;
	}
	m = xasprintf("%s: %s: %s", key, g->label, message);
	free(message);
	ep_checks_add(g->k, key, status, rule, expected, actual, m);
	free(rule);
	free(key);
}

static void
bad_value(struct gpu *g, const char *check, const char *field)
{
	if (hget(g, field) == NULL)
		add(g, check, EP_ERROR, NULL, NULL, xasprintf("meta.gpu.%u.%s "
		    "is not a string of digits", g->i, field));
	else
		add(g, check, EP_ERROR, NULL, hget(g, field), xasprintf(
		    "meta.gpu.%u.%s \"%s\" is not a number", g->i, field,
		    hget(g, field)));
}

static void
check_busy(struct gpu *g)
{
	unsigned long long np = 0, used = 0;
	int bp = 0, bu = 0, hp, hu;
	char *actual, *wp = NULL, *wu = NULL;

	hp = hnum(g, "processes", &np, &bp) == 0;
	hu = hnum(g, "memory_used", &used, &bu) == 0;
	if (bp || bu) {
		bad_value(g, "busy", bp ? "processes" : "memory_used");
		return;
	}
	if (!hp)
		wp = why_not(g, "processes");
	if (!hu)
		wu = why_not(g, "memory_used");
	actual = xasprintf("%s compute processes, %s MiB allocated",
	    hp ? "" : "?", hu ? "" : "?");
	if (hp || hu) {
		free(actual);
		actual = xasprintf("%s%llu compute process%s, %s%llu MiB "
		    "allocated", hp ? "" : "?", np, np == 1 ? "" : "es",
		    hu ? "" : "?", used >> 20);
	}
	if (!hp && !hu)
		add(g, "busy", EP_SKIP, "idle", NULL, xasprintf("processes %s; "
		    "memory %s", wp, wu));
	else if ((hp && np > 0) || (hu && used > BUSY_BASELINE))
		add(g, "busy", EP_FAIL, "idle", actual, xasprintf("in use: %s "
		    "(an idle GPU has no compute process and no more than %s "
		    "allocated)", actual, BUSY_BASELINE_TEXT));
	else
		add(g, "busy", EP_PASS, "idle", actual, xasprintf("idle: %s%s%s",
		    actual, wp ? "; processes " : wu ? "; memory " : "",
		    wp ? wp : wu ? wu : ""));
	free(actual);
	free(wp);
	free(wu);
}

static void
check_ecc(struct gpu *g, const char *check, const char *field, int status,
    const char *what)
{
	unsigned long long n = 0;
	int bad = 0;
	char *actual;

	if (hnum(g, field, &n, &bad) < 0) {
		char *fk = xasprintf("gpu.%u.ecc", g->i);
		const char *mode = ep_checks_get(g->k, fk);

		free(fk);
		if (bad)
			bad_value(g, check, field);
		else if (mode != NULL && strcmp(mode, "disabled") == 0) {
			/* NVML counts only with ECC on. */
			char *why = reason_of(g, field);

			add(g, check, EP_SKIP, "0", NULL, xasprintf("not "
			    "checked: ECC is disabled on this GPU (gpu.%u.ecc; "
			    "%s)", g->i, why));
			free(why);
		} else
			add(g, check, EP_SKIP, "0", NULL, why_not(g, field));
		return;
	}
	actual = xasprintf("%llu", n);
	if (n > 0)
		add(g, check, status, "0", actual, xasprintf("%llu uncorrected "
		    "ECC error%s %s", n, n == 1 ? "" : "s", what));
	else
		add(g, check, EP_PASS, "0", actual, xasprintf("no uncorrected "
		    "ECC error %s", what));
	free(actual);
}

static void
check_retired(struct gpu *g)
{
	const char *v = hget(g, "retired_pages_pending");

	if (v == NULL)
		add(g, "retired_pages", EP_SKIP, "no", NULL, why_not(g,
		    "retired_pages_pending"));
	else if (strcmp(v, "yes") == 0)
		add(g, "retired_pages", EP_FAIL, "no", v, xstrdup("memory pages "
		    "are pending retirement: the GPU needs a reboot to retire "
		    "them"));
	else
		add(g, "retired_pages", EP_PASS, "no", v, xstrdup("no page "
		    "pending retirement"));
}

static void
check_remapped(struct gpu *g)
{
	const char *p = hget(g, "remapped_rows_pending"),
	    *f = hget(g, "remapped_rows_failure");
	int pend, fail;
	char *actual;

	if (p == NULL || f == NULL) {
		add(g, "remapped_rows", EP_SKIP, "pending no, failure no", NULL,
		    why_not(g, "remapped_rows"));
		return;
	}
	pend = strcmp(p, "no") != 0;
	fail = strcmp(f, "no") != 0;
	actual = xasprintf("pending %s, failure %s", p, f);
	if (pend || fail)
		add(g, "remapped_rows", EP_FAIL, "pending no, failure no",
		    actual, xasprintf("%s%s%s", pend ? "row remappings are "
		    "pending: the GPU needs a reset to apply them" : "",
		    pend && fail ? "; " : "", fail ? "a row remapping has "
		    "failed: the GPU has no spare row left where it needed one"
		    : ""));
	else
		add(g, "remapped_rows", EP_PASS, "pending no, failure no",
		    actual, xstrdup("no row remapping pending or failed"));
	free(actual);
}

/* The reasons in mask that are (bad) or are not (!bad) findings, as a
 * list; a new string, "" for none. */
static char *
reason_list(unsigned long long mask, int bad)
{
	char *out = xstrdup(""), *n;

	for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
		if ((mask & reasons[i].bit) && reasons[i].bad == bad) {
			n = xasprintf("%s%s%s", out, *out ? ", " : "",
			    reasons[i].name);
			free(out);
			out = n;
		}
	return out;
}

static void
check_throttle(struct gpu *g)
{
	const char *v = hget(g, "clocks_event_reasons");
	unsigned long long mask = 0;
	int bad = 0;
	char *b, *ok;

	if (hnum_base(g, "clocks_event_reasons", &mask, &bad, 1) < 0) {
		if (bad)
			bad_value(g, "throttle", "clocks_event_reasons");
		else
			add(g, "throttle", EP_SKIP, NULL, NULL, why_not(g,
			    "clocks_event_reasons"));
		return;
	}
	b = reason_list(mask, 1);
	ok = reason_list(mask, 0);
	if (*b != '\0')
		add(g, "throttle", EP_FAIL, "no thermal, power brake or "
		    "hardware slowdown", v, xasprintf("clocks held down by %s",
		    b));
	else
		add(g, "throttle", EP_PASS, "no thermal, power brake or "
		    "hardware slowdown", v, xasprintf("no thermal, power brake "
		    "or hardware slowdown%s%s%s", *ok ? " (clocks reasons now: "
		    : "", ok, *ok ? ")" : ""));
	free(b);
	free(ok);
}

static int
digits(const char *s)
{
	return s != NULL && *s != '\0' && strspn(s, "0123456789") ==
	    strlen(s);
}

static void
check_pcie(struct gpu *g)
{
	const char *gmax, *wmax;
	unsigned long long gen = 0, width = 0;
	int bg = 0, bw = 0, hg, hw;
	char *fk, *actual, *expected;

	fk = xasprintf("gpu.%u.pcie_gen_max", g->i);
	gmax = ep_checks_get(g->k, fk);
	free(fk);
	fk = xasprintf("gpu.%u.pcie_width_max", g->i);
	wmax = ep_checks_get(g->k, fk);
	free(fk);
	hg = hnum(g, "pcie_gen", &gen, &bg) == 0;
	hw = hnum(g, "pcie_width", &width, &bw) == 0;
	if (bg || bw) {
		bad_value(g, "pcie", bg ? "pcie_gen" : "pcie_width");
		return;
	}
	if (!hg || !hw || !digits(wmax) || !digits(gmax)) {
		add(g, "pcie", EP_SKIP, NULL, NULL, !hw ? why_not(g,
		    "pcie_width") : !hg ? why_not(g, "pcie_gen") :
		    xasprintf("not checked: the link's maximum is %s",
		    !digits(wmax) ? (wmax ? wmax : "unknown") : gmax ? gmax :
		    "unknown"));
		return;
	}
	actual = xasprintf("gen %llu x%llu", gen, width);
	expected = xasprintf("x%s", wmax);
	if (width < strtoull(wmax, NULL, 10))
		add(g, "pcie", EP_WARN, expected, actual, xasprintf("PCIe link "
		    "x%llu, narrower than its x%s: look at the slot, the "
		    "riser and the seating (gen %llu of %s)", width, wmax, gen,
		    gmax));
	else
		add(g, "pcie", EP_PASS, expected, actual, xasprintf("PCIe gen "
		    "%llu of %s, x%llu of x%s%s", gen, gmax, width, wmax,
		    gen < strtoull(gmax, NULL, 10) ? " (a link below its top "
		    "generation is normal on an idle GPU, which drops the "
		    "link speed to save power)" : ""));
	free(actual);
	free(expected);
}

void
ep_checks_gpu(struct checks *k)
{
	const char *count = ep_checks_get(k, "gpu.count"), *name;
	json_t *all = json_object_get(k->m->meta, "gpu");
	unsigned long n;
	char *end, idx[24], *fk;

	if (count == NULL || *count == '\0')
		return;
	n = strtoul(count, &end, 10);
	if (*end != '\0' || n > GPUS_MAX) {
		ep_checks_add(k, "stack.gpu", EP_ERROR, "check:gpu", NULL,
		    count, xasprintf("stack.gpu: gpu.count \"%s\" is not a "
		    "number of GPUs", count));
		return;
	}
	if (n == 0)
		return;
	for (unsigned i = 0; i < n; i++) {
		struct gpu g = { k, i, NULL, NULL };

		snprintf(idx, sizeof idx, "%u", i);
		fk = xasprintf("gpu.%u.name", i);
		name = ep_checks_get(k, fk);
		free(fk);
		g.label = name != NULL ? xasprintf("GPU %u (%s)", i, name) :
		    xasprintf("GPU %u", i);
		g.h = json_object_get(all, idx);
		if (!json_is_object(g.h)) {
			fk = xasprintf("stack.gpu.%u", i);
			ep_checks_add(k, fk, EP_SKIP, "check:gpu", NULL, NULL,
			    xasprintf("%s: %s: not checked: this capture has "
			    "no health for it (meta.gpu.%u)", fk, g.label, i));
			free(fk);
			free(g.label);
			continue;
		}
		check_busy(&g);
		check_ecc(&g, "ecc_volatile", "ecc_uncorrected_volatile",
		    EP_FAIL, "since the driver loaded");
		check_ecc(&g, "ecc_aggregate", "ecc_uncorrected_aggregate",
		    EP_WARN, "over the GPU's life (the rows may since have "
		    "been remapped)");
		check_retired(&g);
		check_remapped(&g);
		check_throttle(&g);
		check_pcie(&g);
		free(g.label);
	}
	ep_checks_add(k, "stack.gpu.xid", EP_SKIP, "check:gpu-xid", NULL, NULL,
	    xstrdup("stack.gpu.xid: not checked: NVML reports XID errors only "
	    "as events that happen after a program registers for them "
	    "(nvmlDeviceRegisterEvents), so a capture at one point in time "
	    "sees none of the past ones; read the kernel log (\"NVRM: Xid\") "
	    "or DCGM for those"));
}
