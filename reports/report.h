/*
 * report.h: the writers that render results (DESIGN.md: reports only
 * render results).  Each writes to a temporary file beside the target and
 * renames it, so a crash or a full disk never leaves a half report.
 */
#ifndef EP_REPORT_H
#define EP_REPORT_H

#include <stdio.h>
#include <time.h>

#include "compare.h"
#include "manifest.h"

#define EP_REPORT_SCHEMA "envparity/report@1"

/* What the results were of: a check against a golden from a store, or a
 * diff of two manifests. */
struct ep_report_ctx {
	const char *command;		/* "check" or "diff" */
	const char *golden_name;	/* a file, or STORE#REF:PROFILE */
	const char *golden_store;	/* NULL for a file */
	const char *golden_ref;
	const char *golden_commit;
	const char *golden_profile;
	const char *current_name;	/* "this machine" or a file or spec */
	const struct ep_manifest *current;	/* for meta.unavailable; may
						   be NULL */
	time_t generated;
	int exit_status;
};

/* The JSON report (manifests/report.schema.json) as text; *out is owned
 * by the caller. */
int ep_report_json(char **out, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, struct ep_err *err);

/* Write it to path atomically (EP_E_IO naming the path on failure). */
int ep_report_json_write(const char *path, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, struct ep_err *err);

/* The human summary for standard output (summary.c): the verdict, then
 * unless brief what failed, what was waived and what was skipped, then the
 * counts. */
void ep_report_summary(FILE *f, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, int brief);

/* The report options check and diff share, like capture.h's. */
enum {
	EP_OPT_JSON = 0x300,
	EP_OPT_REPORT_LAST,
};
#define EP_REPORT_LONGOPTS						\
	{ "json", required_argument, NULL, EP_OPT_JSON }
#define EP_REPORT_HELP							\
"Report options:\n"							\
"  --json FILE          the JSON report (manifests/report.schema.json)\n"

struct ep_reportopt {
	const char *json;
};

/* Apply one report option; 1 if c was one, 0 if not. */
int ep_report_opt(struct ep_reportopt *o, int c, const char *arg);

/* Write every report asked for, each atomically.  Stops at the first
 * that fails (EP_E_IO naming its path). */
int ep_reports_write(const struct ep_reportopt *o,
    const struct ep_report_ctx *ctx, const struct ep_results *rs,
    struct ep_err *err);

/* What check and diff do last: sort rs, set ctx->exit_status from it,
 * write every report asked for, print the summary on standard output.
 * Returns the exit status, or -1 with err when a report cannot be written
 * (then nothing is printed). */
int ep_reports_finish(struct ep_report_ctx *ctx, struct ep_results *rs,
    const struct ep_reportopt *o, int brief, struct ep_err *err);

#endif
