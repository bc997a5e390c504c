/*
 * reports.c: the report options, and writing every report asked for.
 * All of them are rendered to memory first, so a writer that fails leaves
 * nothing behind, then each is written to a temporary file and renamed
 * (ep_write_atomic): a crash or a full disk never leaves a half report.
 */
#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>

#include "report.h"

/* GitHub takes at most 1 MiB of step summary: with this many rows per
 * table (and 512 bytes a cell) it stays under. */
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
	}
	return 0;
}

struct out {
	const char *path;	/* as given, for messages */
	char *target;		/* where to write: path, or what its link
				   points to */
	char *text;
};

/* A report replaces the file at its path by a rename: refuse anything
 * that is not a regular file (renaming over /dev/full, as root, would
 * replace the device), and write through a symbolic link to its target so
 * that the link stays. */
static int
resolve(struct out *o, struct ep_err *err)
{
	struct stat st;
	char *real;

	if (*o->path == '\0')
		return ep_err_set(err, EP_E_INPUT, "a report path is empty");
	if (lstat(o->path, &st) == 0 && S_ISLNK(st.st_mode) &&
	    (real = realpath(o->path, NULL)) != NULL) {
		o->target = xstrdup(real);
		free(real);
	} else
		o->target = xstrdup(o->path);
	if (stat(o->target, &st) == 0 && !S_ISREG(st.st_mode))
		return ep_err_set(err, EP_E_IO, "%s: cannot write a report "
		    "there: not a regular file (a report is written beside "
		    "it and renamed over it)", o->path);
	return 0;
}

int
ep_reports_write(const struct ep_reportopt *o,
    const struct ep_report_ctx *ctx, const struct ep_results *rs,
    struct ep_err *err)
{
	struct out v[3] = { { 0 } };
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
		v[n++].text = ep_report_markdown(ctx, rs, 0);
	}
	if (summary != NULL && *summary != '\0')
		md = ep_report_markdown(ctx, rs, STEP_SUMMARY_ROWS);
	for (size_t i = 0; i < n; i++) {
		if (resolve(&v[i], err) < 0)
			goto done;
		for (size_t k = 0; k < i; k++)
			if (strcmp(v[k].target, v[i].target) == 0) {
				ep_err_set(err, EP_E_INPUT, "%s: given for "
				    "two reports", v[i].path);
				goto done;
			}
	}
	for (size_t i = 0; i < n; i++)
		if (ep_write_atomic(v[i].target, v[i].text,
		    strlen(v[i].text), err) < 0) {
			/* Name the path as the user gave it. */
			if (err != NULL &&
			    strcmp(v[i].target, v[i].path) != 0) {
				char *m = xstrdup(err->msg);

				ep_err_set(err, EP_E_IO, "%s: %s", v[i].path,
				    m);
				free(m);
			}
			goto done;
		}
	if (md != NULL && ep_report_append(summary, md, err) < 0)
		goto done;
	rc = 0;
done:
	for (size_t i = 0; i < n; i++) {
		free(v[i].target);
		free(v[i].text);
	}
	free(md);
	return rc;
}

int
ep_reports_finish(struct ep_report_ctx *ctx, struct ep_results *rs,
    const struct ep_reportopt *o, int brief, struct ep_err *err)
{
	const char *gha = getenv("GITHUB_ACTIONS");

	ep_results_sort(rs);
	ctx->exit_status = ep_results_exit(rs);
	if (ctx->elapsed == 0)
		ctx->elapsed = (double)(ep_now_ns() - started_ns) / 1e9;
	if (ep_reports_write(o, ctx, rs, err) < 0)
		return -1;
	if (gha != NULL && strcmp(gha, "true") == 0)
		ep_report_annotations(stderr, rs);
	ep_report_summary(stdout, ctx, rs, brief);
	return ctx->exit_status;
}
