/*
 * reports.c: the report options, and writing every report asked for.
 * All of them are rendered to memory first, so a writer that fails leaves
 * nothing behind, then each is written under outfile.h's rule (a
 * temporary file renamed into place; never through a link, never over a
 * device): a crash or a full disk never leaves a half report.
 */
#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "report.h"
#include "clock.h"
#include "errors.h"
#include "xalloc.h"

/* GitHub drops a step summary past 1 MiB, whole: ours is cut to fit
 * beside what the file holds already, and to this many rows a table, which
 * is as much as anyone reads on a summary page. */
#define STEP_SUMMARY_BYTES	(1024 * 1024)
#define STEP_SUMMARY_ROWS	200

/* When the process started, for the run's time in the JUnit report. */
static uint64_t started_ns;

static void __attribute__((constructor))
mark_start(void)
{
	started_ns = ep_now_ns();
}

int
ep_report_opt(struct ep_reportopt *o, int c, const char *arg)
{
	switch (c) {
	case EP_OPT_JSON:
		o->json = arg;
		return 1;
	case EP_OPT_JUNIT:
		o->junit = arg;
		return 1;
	case EP_OPT_MARKDOWN:
		o->markdown = arg;
		return 1;
	case EP_OPT_PROM:
		o->prom = arg;
		return 1;
	}
	return 0;
}

struct out {
	const char *path;	/* as given */
	char *text;
};

int
ep_reports_clash(struct ep_err *err, const char *path, const char *what1,
    const char *what2)
{
	int st = ep_out_stream(path, EP_OUT_STDOUT);

	if (st != 0)
		return ep_err_set(err, EP_E_INPUT, "%s and %s both asked for "
		    "standard %s; only one output can take it", what1, what2,
		    st == 1 ? "output" : "error");
	return ep_err_set(err, EP_E_INPUT, "%s: given for %s and %s", path,
	    what1, what2);
}

int
ep_reports_check(const struct ep_reportopt *o, struct ep_err *err)
{
	const char *v[4], *w[4];
	size_t n = 0;

	if (o->json != NULL) {
		w[n] = "--json";
		v[n++] = o->json;
	}
	if (o->junit != NULL) {
		w[n] = "--junit";
		v[n++] = o->junit;
	}
	if (o->markdown != NULL) {
		w[n] = "--markdown";
		v[n++] = o->markdown;
	}
	if (o->prom != NULL) {
		w[n] = "--prom";
		v[n++] = o->prom;
	}
	for (size_t i = 0; i < n; i++) {
		if (ep_out_check(v[i], EP_OUT_STDOUT, err) < 0)
			return -1;
		for (size_t k = 0; k < i; k++)
			if (ep_out_same(v[k], v[i], EP_OUT_STDOUT))
				return ep_reports_clash(err, v[i], w[k], w[i]);
	}
	return 0;
}

int
ep_reports_to_stdout(const struct ep_reportopt *o)
{
	return (o->json != NULL && ep_out_stream(o->json, EP_OUT_STDOUT)) ||
	    (o->junit != NULL && ep_out_stream(o->junit, EP_OUT_STDOUT)) ||
	    (o->markdown != NULL &&
	    ep_out_stream(o->markdown, EP_OUT_STDOUT)) ||
	    (o->prom != NULL && ep_out_stream(o->prom, EP_OUT_STDOUT));
}

/* Bytes the step summary at path can still take (the blank lines
 * ep_report_append puts first included); at least 1, so that the report
 * is bounded, the heading and the counts still written. */
static size_t
summary_room(const char *path)
{
	struct stat st;
	size_t have = 0;

	if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
		have = (size_t)st.st_size + 2;
	return have < STEP_SUMMARY_BYTES ? STEP_SUMMARY_BYTES - have : 1;
}

int
ep_reports_write(const struct ep_reportopt *o,
    const struct ep_report_ctx *ctx, const struct ep_results *rs,
    struct ep_err *err)
{
	struct out v[4] = { { 0 } };
	const char *summary = getenv("GITHUB_STEP_SUMMARY");
	char *md = NULL;
	size_t n = 0;
	int rc = -1;

	if (o->json != NULL) {
		v[n].path = o->json;
		if (ep_report_json(&v[n++].text, ctx, rs, err) < 0)
			goto done;
	}
	if (o->junit != NULL) {
		v[n].path = o->junit;
		if (ep_report_junit(&v[n++].text, ctx, rs, err) < 0)
			goto done;
	}
	if (o->markdown != NULL) {
		v[n].path = o->markdown;
		v[n++].text = ep_report_markdown(ctx, rs, 0, 0);
	}
	if (o->prom != NULL) {
		v[n].path = o->prom;
		v[n++].text = ep_report_prom(ctx, rs);
	}
	if (summary != NULL && *summary != '\0')
		md = ep_report_markdown(ctx, rs, STEP_SUMMARY_ROWS,
		    summary_room(summary));
	if (ep_reports_check(o, err) < 0)
		goto done;
	for (size_t i = 0; i < n; i++)
		if (ep_out_write(v[i].path, v[i].text, strlen(v[i].text),
		    EP_OUT_STDOUT, err) < 0)
			goto done;
	if (md != NULL && ep_report_append(summary, md, err) < 0)
		goto done;
	rc = 0;
done:
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(md);
	return rc;
}

/* Keep the reports bounded, and say so in every one of them. */
static void
report_cap(struct ep_report_ctx *ctx, struct ep_results *rs)
{
	struct ep_result r = { 0 };
	size_t n = 0;

	ep_results_truncate(rs, EP_REPORT_RESULTS_MAX, ctx->omitted);
	for (int i = 0; i < EP_NSTATUS; i++)
		n += ctx->omitted[i];
	if (n == 0)
		return;
	r.key = "report.omitted";
	r.status = EP_SKIP;
	r.rule = "limit";
	r.message = xasprintf("report.omitted: %zu more results not listed "
	    "(a report lists at most %d, errors, failures, waivers and skips "
	    "first): %zu error, %zu fail, %zu waived, %zu skip, %zu pass", n,
	    EP_REPORT_RESULTS_MAX, ctx->omitted[EP_ERROR],
	    ctx->omitted[EP_FAIL], ctx->omitted[EP_WAIVED],
	    ctx->omitted[EP_SKIP], ctx->omitted[EP_PASS]);
	ep_results_add(rs, &r);
	free(r.message);
	ep_results_sort(rs);
}

int
ep_reports_finish(struct ep_report_ctx *ctx, struct ep_results *rs,
    const struct ep_reportopt *o, int brief, struct ep_err *err)
{
	const char *gha = getenv("GITHUB_ACTIONS");

	ep_results_sort(rs);
	ctx->exit_status = ep_results_exit(rs);
	report_cap(ctx, rs);
	if (ctx->elapsed == 0)
		ctx->elapsed = (double)(ep_now_ns() - started_ns) / 1e9;
	if (ep_reports_write(o, ctx, rs, err) < 0)
		return -1;
	if (gha != NULL && strcmp(gha, "true") == 0)
		ep_report_annotations(stderr, rs);
	/* A report on standard output keeps it to itself. */
	if (!ctx->own_summary)
		ep_report_summary(ep_reports_to_stdout(o) ||
		    ctx->stdout_taken ? stderr : stdout, ctx, rs, brief);
	return ctx->exit_status;
}
