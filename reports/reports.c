/*
 * reports.c: the report options and writing every report asked for.
 */
#include "report.h"

int
ep_report_opt(struct ep_reportopt *o, int c, const char *arg)
{
	switch (c) {
	case EP_OPT_JSON:
		o->json = arg;
		return 1;
	}
	return 0;
}

int
ep_reports_write(const struct ep_reportopt *o,
    const struct ep_report_ctx *ctx, const struct ep_results *rs,
    struct ep_err *err)
{
	if (o->json != NULL &&
	    ep_report_json_write(o->json, ctx, rs, err) < 0)
		return -1;
	return 0;
}

int
ep_reports_finish(struct ep_report_ctx *ctx, struct ep_results *rs,
    const struct ep_reportopt *o, int brief, struct ep_err *err)
{
	ep_results_sort(rs);
	ctx->exit_status = ep_results_exit(rs);
	if (ep_reports_write(o, ctx, rs, err) < 0)
		return -1;
	ep_report_summary(stdout, ctx, rs, brief);
	return ctx->exit_status;
}
