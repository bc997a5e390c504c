/*
 * probefixture.h: what the probe runner's unit tests (test_probe_runner.c,
 * test_contract_line.c) share: canned contract lines and run outputs, as the
 * runner would have read them from the probe, and aggregating them.
 */
#ifndef EP_PROBEFIXTURE_H
#define EP_PROBEFIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "strv.h"
#include "xalloc.h"
#include "resultsfixture.h"

#define PRFX_UNUSED __attribute__((unused))

#define H_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define H_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define H_C "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
#define H_K "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

#define H100 "{\"name\": \"NVIDIA H100 80GB HBM3\", \"cc\": \"9.0\", " \
	"\"sm_count\": 132, \"driver\": \"580.159.04\", \"cuda_driver\": \"13.0\"}"

/* One contract line; sha NULL writes null, kat is "true", "false" or
 * "null", dev and libs are JSON text. */
static PRFX_UNUSED char *
line(const char *backend, const char *workload, const char *status,
    const char *reason, const char *sha, const char *kat, int canary,
    const char *dev, const char *libs)
{
	char *r = reason ? xasprintf("\"%s\"", reason) : xstrdup("null");
	char *s = sha ? xasprintf("\"%s\"", sha) : xstrdup("null");
	char *l = xasprintf("{\"schema\": \"envparity/probe@1\", "
	    "\"backend\": \"%s\", \"workload\": \"%s\", \"status\": \"%s\", "
	    "\"reason\": %s, \"sha256\": %s, \"known_answer\": %s, "
	    "\"canary\": %s, \"elapsed_ms\": 2.0, \"device\": %s, "
	    "\"libs\": %s, \"probe\": \"envparity-probe 1\"}\n", backend,
	    workload, status, r, s, kat, canary ? "true" : "false", dev, libs);

	free(r);
	free(s);
	return l;
}

static PRFX_UNUSED const char *const cpu_dev = "{\"arch\": \"x86_64\"}";

/* The output of one cpu run: gemm and atomic hashes and kat's verdict
 * given. */
static PRFX_UNUSED char *
cpu_output(const char *gemm, const char *atomic, const char *kat)
{
	char *a = line("cpu", "kat", "ok", NULL, H_K, kat, 0, cpu_dev, "{}");
	char *b = line("cpu", "gemm", "ok", NULL, gemm, "null", 0, cpu_dev,
	    "{}");
	char *c = line("cpu", "reduce", "ok", NULL, H_C, "null", 0, cpu_dev,
	    "{}");
	char *d = line("cpu", "atomic", "ok", NULL, atomic, "null", 1,
	    cpu_dev, "{}");
	char *all = xasprintf("%s%s%s%s", a, b, c, d);

	free(a);
	free(b);
	free(c);
	free(d);
	return all;
}

static PRFX_UNUSED void
add_output(struct ep_probe_set *s, char *text)
{
	struct ep_probe_run *r = ep_probe_set_add(s);

	ep_probe_output_parse(r, text, strlen(text), s->backend);
	assert_int_equal(r->outcome, EP_PROBE_OK);
	free(text);
}

struct agg {
	struct ep_results rs;
	struct ep_manifest *facts;
	struct ep_strv summary;
};

static PRFX_UNUSED void
agg_run(struct agg *a, struct ep_probe_set *s, int require_gpu)
{
	memset(a, 0, sizeof *a);
	a->facts = ep_manifest_new();
	ep_probe_aggregate(&a->rs, a->facts, &a->summary, s, require_gpu);
}

static PRFX_UNUSED void
agg_clear(struct agg *a, struct ep_probe_set *s)
{
	ep_results_clear(&a->rs);
	ep_manifest_free(a->facts);
	ep_strv_clear(&a->summary);
	ep_probe_set_clear(s);
}

#endif
