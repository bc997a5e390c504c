/*
 * prom.c: Prometheus text exposition (version 0.0.4) for node_exporter's
 * textfile collector, the way a nightly audit's results reach a
 * dashboard and an alert.  The collector's traps, each avoided here:
 * a sample with a timestamp makes it skip the whole file (the run's end
 * time is a gauge's value instead); a series twice is a gather error
 * (each metric's series are sorted and made unique); HELP and TYPE come
 * once, before the metric's samples, and a metric's samples are never
 * interleaved with another's; label values escape \\, \" and \n and are
 * valid UTF-8; the text ends in a newline.  Every metric is a gauge: each
 * file says what the last run found, not a count since some start.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clean.h"
#include "report.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

#define STR_(x)	#x
#define STR(x)	STR_(x)
#define EP_PROM_FACTS_MAX_TEXT	STR(EP_PROM_FACTS_MAX)

struct metric {
	const char *name, *help;
	struct ep_strv series;	/* "{labels} value" */
};

/* A label value as the exposition format wants it, and safe to print in
 * a CI log (--prom -): a key may hold what a lockfile's name held (ESC,
 * CR, a bidirectional override), which ep_text_clean shows, never
 * passes. */
static char *
label_value(const char *s)
{
	char *u = ep_text_clean(s != NULL ? s : "", 0), *o, *p;

	o = p = xmalloc(strlen(u) * 2 + 1);
	for (const char *q = u; *q != '\0'; q++) {
		if (*q == '\\' || *q == '"') {
			*p++ = '\\';
			*p++ = *q;
		} else if (*q == '\n') {
			*p++ = '\\';
			*p++ = 'n';
		} else
			*p++ = *q;
	}
	*p = '\0';
	free(u);
	return o;
}

/* One sample of m: labels as name/value pairs (NULL-terminated). */
static void
sample(struct metric *m, double value, ...)
{
	char *labels = xstrdup(""), *t, *v;
	const char *name;
	va_list ap;

	va_start(ap, value);
	while ((name = va_arg(ap, const char *)) != NULL) {
		v = label_value(va_arg(ap, const char *));
		t = xasprintf("%s%s%s=\"%s\"", labels, *labels ? "," : "",
		    name, v);
		free(v);
		free(labels);
		labels = t;
	}
	va_end(ap);
	ep_strv_push_owned(&m->series, xasprintf("{%s} %.17g", labels,
	    value));
	free(labels);
}

/* Sorted, each label set once (the first value kept), with HELP and
 * TYPE before. */
static void
render(FILE *f, struct metric *m)
{
	const char *prev = NULL;
	size_t plen = 0, n;

	if (m->series.n == 0)
		return;
	ep_strv_sort(&m->series);
	fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", m->name, m->help,
	    m->name);
	for (size_t i = 0; i < m->series.n; i++) {
		const char *s = m->series.v[i];

		n = (size_t)(strrchr(s, '}') - s);
		if (prev != NULL && n == plen && strncmp(prev, s, n) == 0)
			continue;
		fprintf(f, "%s%s\n", m->name, s);
		prev = s;
		plen = n;
	}
	ep_strv_clear(&m->series);
}

/* The fleet's own metrics: nodes by state, and each node's. */
static void
fleet_samples(struct metric *nodes, struct metric *ndrift,
    struct metric *nodd, struct metric *nrep, const struct ep_fleet_view *v,
    const char *profile)
{
	sample(nodes, (double)v->nreported, "profile", profile,
	    "state", ep_fleet_state_name(EP_NODE_OK), (char *)NULL);
	sample(nodes, (double)v->nmissing, "profile", profile,
	    "state", ep_fleet_state_name(EP_NODE_MISSING), (char *)NULL);
	sample(nodes, (double)v->nerror, "profile", profile,
	    "state", ep_fleet_state_name(EP_NODE_ERROR), (char *)NULL);
	sample(nodes, (double)v->nodd, "profile", profile,
	    "state", "odd", (char *)NULL);
	for (size_t i = 0; i < v->nnodes; i++) {
		const struct ep_fleet_node *n = &v->nodes[i];

		sample(ndrift, ep_fleet_node_verdict(n) != EP_VERDICT_PARITY,
		    "node", n->name, "profile", profile, (char *)NULL);
		sample(nodd, (double)n->odd, "node", n->name,
		    "profile", profile, (char *)NULL);
		sample(nrep, n->state == EP_NODE_OK, "node",
		    n->name, "profile", profile, (char *)NULL);
	}
}

/* A series per failing key (fail or error), the first EP_PROM_FACTS_MAX
 * distinct keys in byte order, and one series counting the rest and the
 * failures the report left out: bounded whatever a run finds, so a
 * fleet's bad night cannot flood the time-series database. */
static void
failed_samples(struct metric *fact, struct metric *rest,
    const struct ep_report_ctx *ctx, const struct ep_results *rs,
    const char *cmd, const char *profile)
{
	struct ep_strv keys = { 0 };
	size_t distinct = 0, omitted;

	for (size_t i = 0; i < rs->n; i++)
		if (rs->v[i].status == EP_FAIL || rs->v[i].status == EP_ERROR)
			ep_strv_push(&keys, rs->v[i].key);
	ep_strv_sort(&keys);
	for (size_t i = 0; i < keys.n; i++) {
		if (i > 0 && strcmp(keys.v[i], keys.v[i - 1]) == 0)
			continue;
		if (distinct++ < EP_PROM_FACTS_MAX)
			sample(fact, 1, "command", cmd, "key", keys.v[i],
			    "profile", profile, (char *)NULL);
	}
	omitted = (distinct > EP_PROM_FACTS_MAX ? distinct -
	    EP_PROM_FACTS_MAX : 0) + ctx->omitted[EP_FAIL] +
	    ctx->omitted[EP_ERROR];
	sample(rest, (double)omitted, "command", cmd, "profile", profile,
	    (char *)NULL);
	ep_strv_clear(&keys);
}

int
ep_report_prom(char **out, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, struct ep_err *err)
{
	struct metric results = { "envparity_results",
	    "Results of the last run by status (pass, fail, warn, waived, "
	    "skip, error).", { 0 } };
	struct metric drift = { "envparity_drift",
	    "1 when the last run found drift or a failed check, else 0.",
	    { 0 } };
	struct metric exitm = { "envparity_exit_status",
	    "The last run's exit status (0 parity, 1 drift, 2 input, 3 could "
	    "not run).", { 0 } };
	struct metric when = { "envparity_last_run_timestamp_seconds",
	    "When the last run ended, in seconds since the epoch.", { 0 } };
	struct metric nodes = { "envparity_fleet_nodes",
	    "Nodes of the fleet by state (reported, missing, unreadable, "
	    "odd).", { 0 } };
	struct metric ndrift = { "envparity_node_drift",
	    "1 when the node drifted, has an odd fact, or did not report.",
	    { 0 } };
	struct metric nodd = { "envparity_node_odd_facts",
	    "Facts where the node differs from the fleet's majority.", { 0 } };
	struct metric nrep = { "envparity_node_reported",
	    "1 when the node's manifest was read, 0 when it is missing or "
	    "unreadable.", { 0 } };
	struct metric fact = { "envparity_fact_failed",
	    "1 for a key that failed or errored in the last run (at most "
	    EP_PROM_FACTS_MAX_TEXT " keys, the first in byte order).",
	    { 0 } };
	struct metric rest = { "envparity_facts_failed_omitted",
	    "Failing keys of the last run without an envparity_fact_failed "
	    "series of their own, plus failures the report left out.",
	    { 0 } };
	struct metric *all[] = { &results, &drift, &exitm, &when, &fact,
	    &rest, &nodes, &ndrift, &nodd, &nrep };
	const char *cmd = ctx->command != NULL ? ctx->command : "check";
	const char *profile = ctx->golden_profile != NULL ?
	    ctx->golden_profile : "none";
	size_t c[EP_NSTATUS], len = 0;
	FILE *f;

	(void)err;
	*out = NULL;
	ep_results_count(rs, c);
	for (int i = 0; i < EP_NSTATUS; i++)
		sample(&results, (double)(c[i] + ctx->omitted[i]), "command",
		    cmd, "profile", profile, "status", ep_status_name(i),
		    (char *)NULL);
	sample(&drift, ctx->exit_status == EP_EXIT_DRIFT, "command", cmd,
	    "profile", profile, (char *)NULL);
	sample(&exitm, ctx->exit_status, "command", cmd, "profile", profile,
	    (char *)NULL);
	sample(&when, (double)ctx->ended, "command", cmd, "profile", profile,
	    (char *)NULL);
	failed_samples(&fact, &rest, ctx, rs, cmd, profile);
	if (ctx->fleet != NULL)
		fleet_samples(&nodes, &ndrift, &nodd, &nrep, ctx->fleet,
		    profile);
	if ((f = open_memstream(out, &len)) == NULL) {
		fputs("envparity: out of memory\n", stderr);
		abort();
	}
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		render(f, all[i]);
	if (fclose(f) != 0 || *out == NULL) {
		fputs("envparity: out of memory\n", stderr);
		abort();
	}
	return 0;
}
