/*
 * reports.c: the report options, the table of report writers, and
 * writing every report asked for.  What the writers are given besides the
 * results (the host's name, what could not be looked at, when the run
 * ended) is read here once, before any of them runs: a writer only
 * renders.  All reports are rendered to memory first, so a writer that
 * fails leaves nothing behind, then each is written under outfile.h's
 * rule (a temporary file renamed into place; never through a link, never
 * over a device): a crash or a full disk never leaves a half report.
 */
#include <sys/stat.h>

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "outfile.h"
#include "report.h"
#include "clock.h"
#include "errors.h"
#include "hostname.h"
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

const struct ep_report_writer ep_report_writers[EP_REPORT_NFORMATS] = {
	[EP_REPORT_JSON] = { "json", "--json",
	    offsetof(struct ep_reportopt, json), ep_report_json },
	[EP_REPORT_JUNIT] = { "junit", "--junit",
	    offsetof(struct ep_reportopt, junit), ep_report_junit },
	[EP_REPORT_MARKDOWN] = { "markdown", "--markdown",
	    offsetof(struct ep_reportopt, markdown),
	    ep_report_markdown_render },
	[EP_REPORT_PROM] = { "prom", "--prom",
	    offsetof(struct ep_reportopt, prom), ep_report_prom },
};

/* The file o names for writer f, or NULL when that report is not asked
 * for. */
static const char *
path_of(const struct ep_reportopt *o, int f)
{
	return *(const char *const *)(const void *)((const char *)o +
	    ep_report_writers[f].path_offset);
}

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
	for (int i = 0; i < EP_REPORT_NFORMATS; i++) {
		const char *p = path_of(o, i);

		if (p == NULL)
			continue;
		if (ep_out_check(p, EP_OUT_STDOUT, err) < 0)
			return -1;
		for (int k = 0; k < i; k++)
			if (path_of(o, k) != NULL &&
			    ep_out_same(path_of(o, k), p, EP_OUT_STDOUT))
				return ep_reports_clash(err, p,
				    ep_report_writers[k].option,
				    ep_report_writers[i].option);
	}
	return 0;
}

int
ep_reports_to_stdout(const struct ep_reportopt *o)
{
	for (int i = 0; i < EP_REPORT_NFORMATS; i++)
		if (path_of(o, i) != NULL &&
		    ep_out_stream(path_of(o, i), EP_OUT_STDOUT))
			return 1;
	return 0;
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
	char *text[EP_REPORT_NFORMATS] = { 0 };
	const char *summary = getenv("GITHUB_STEP_SUMMARY");
	char *md = NULL;
	int rc = -1;

	for (int i = 0; i < EP_REPORT_NFORMATS; i++)
		if (path_of(o, i) != NULL &&
		    ep_report_writers[i].render(&text[i], ctx, rs, err) < 0)
			goto done;
	if (summary != NULL && *summary != '\0')
		md = ep_report_markdown(ctx, rs, STEP_SUMMARY_ROWS,
		    summary_room(summary));
	if (ep_reports_check(o, err) < 0)
		goto done;
	for (int i = 0; i < EP_REPORT_NFORMATS; i++)
		if (text[i] != NULL && ep_out_write(path_of(o, i), text[i],
		    strlen(text[i]), EP_OUT_STDOUT, err) < 0)
			goto done;
	if (md != NULL && ep_report_append(summary, md, err) < 0)
		goto done;
	rc = 0;
done:
	for (int i = 0; i < EP_REPORT_NFORMATS; i++)
		free(text[i]);
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

/* What the writers are given besides the results, read once.  (The host
 * name's fallback is util's to own; until it does, it is read here.) */
static void
prepare(struct ep_report_ctx *ctx)
{
	struct ep_report_unavailable *u = NULL;
	json_t *obj = NULL, *why;
	const char *area;
	size_t n = 0;

	ep_hostname(ctx->host, sizeof ctx->host);
	if (ctx->current != NULL)
		obj = json_object_get(ctx->current->meta, "unavailable");
	if (json_is_object(obj)) {
		u = xcalloc(json_object_size(obj) + 1, sizeof *u);
		json_object_foreach(obj, area, why)
			if (json_is_string(why)) {
				u[n].area = area;
				u[n++].why = json_string_value(why);
			}
	}
	ctx->unavailable = u;
	ctx->nunavailable = n;
	if (ctx->elapsed == 0)
		ctx->elapsed = (double)(ep_now_ns() - started_ns) / 1e9;
	ctx->ended = time(NULL);
}

int
ep_reports_finish(struct ep_report_ctx *ctx, struct ep_results *rs,
    const struct ep_reportopt *o, int brief, struct ep_err *err)
{
	const char *gha = getenv("GITHUB_ACTIONS");
	int rc;

	ep_results_sort(rs);
	ctx->exit_status = ep_results_exit(rs);
	report_cap(ctx, rs);
	prepare(ctx);
	rc = ep_reports_write(o, ctx, rs, err);
	free((void *)ctx->unavailable);
	ctx->unavailable = NULL;
	ctx->nunavailable = 0;
	if (rc < 0)
		return -1;
	if (gha != NULL && strcmp(gha, "true") == 0)
		ep_report_annotations(stderr, rs);
	/* A report on standard output keeps it to itself. */
	if (!ctx->own_summary)
		ep_report_summary(ep_reports_to_stdout(o) ||
		    ctx->stdout_taken ? stderr : stdout, ctx, rs, brief);
	return ctx->exit_status;
}
