/*
 * fuzz_probe_line.c: the probe's contract lines (envparity/probe@1), as
 * `probe` and `check` read each run's standard output
 * (ep_probe_output_parse), then aggregate the runs of each backend into
 * results and facts (ep_probe_aggregate, ep_probe_domain).
 *
 * The first byte picks the first backend (low two bits) and whether a GPU
 * is required (bit 2).  The rest is runs separated by a 0x01 byte, a 0x03
 * byte moving on to the next backend; a run that starts with 0x02 is one
 * that crashed (its output is not read, as probe_run.c does).
 */
#include "results.h"
#include "fuzz.h"
#include "manifest.h"
#include "probe.h"

#define MAXRUNS	8

/* A run as ep_probe_output_parse leaves it. */
static void
check_run(const struct ep_probe_run *r, const char *backend)
{
	const char *const *work = ep_probe_workloads(backend);
	json_t *l;
	size_t i;

	if (r->outcome == EP_PROBE_GARBAGE) {
		FZ_CHECK(r->why != NULL && r->lines == NULL);
		/* A message for reports and terminals: printable. */
		for (const char *p = r->why; *p != '\0'; p++)
			FZ_CHECK((unsigned char)*p >= 0x20 && *p != 0x7f);
		return;
	}
	FZ_CHECK(r->outcome == EP_PROBE_OK && r->why == NULL &&
	    json_is_array(r->lines));
	json_array_foreach(r->lines, i, l) {
		const char *w = json_string_value(json_object_get(l,
		    "workload"));
		size_t k;

		FZ_CHECK(w != NULL && ep_probe_line_for(r->lines, w) == l);
		for (k = 0; work[k] != NULL && strcmp(work[k], w) != 0; k++)
			;
		FZ_CHECK(work[k] != NULL);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_probe_set sets[4];
	struct ep_results rs = { 0 };
	struct ep_strv summary = { 0 };
	struct ep_manifest *facts;
	struct ep_probe_run *r;
	const uint8_t *part;
	size_t partn, nsets = 1, b;
	int require_gpu;

	if (size == 0)
		return 0;
	b = data[0] & 3;
	require_gpu = (data[0] >> 2) & 1;
	data++, size--;
	memset(sets, 0, sizeof sets);
	sets[0].backend = ep_probe_backends[b];
	while (size > 0) {
		fz_split(&data, &size, "\x01", &part, &partn);
		if (partn > 0 && part[0] == 0x03 && nsets < 4) {
			sets[nsets].backend = ep_probe_backends[(b + nsets) &
			    3];
			nsets++;
			part++, partn--;
		}
		if (sets[nsets - 1].n == MAXRUNS)
			continue;
		r = ep_probe_set_add(&sets[nsets - 1]);
		if (partn > 0 && part[0] == 0x02) {
			r->outcome = EP_PROBE_CRASHED;
			r->why = xstrdup("crashed (SIGSEGV)");
			continue;
		}
		ep_probe_output_parse(r, (const char *)part, partn,
		    sets[nsets - 1].backend);
		check_run(r, sets[nsets - 1].backend);
	}

	facts = ep_manifest_new();
	for (size_t i = 0; i < nsets; i++) {
		ep_probe_set_skipped(&sets[i]);
		ep_probe_aggregate(&rs, facts, &summary, &sets[i],
		    require_gpu);
	}
	ep_probe_domain(facts, sets, nsets);
	for (size_t i = 0; i < rs.n; i++)
		FZ_CHECK(rs.v[i].key != NULL && rs.v[i].status >= 0 &&
		    rs.v[i].status < EP_NSTATUS);
	ep_results_clear(&rs);
	ep_strv_clear(&summary);
	ep_manifest_free(facts);
	for (size_t i = 0; i < nsets; i++)
		ep_probe_set_clear(&sets[i]);
	return 0;
}
