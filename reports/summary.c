/*
 * summary.c: the short human summary `check` and `diff` print on standard
 * output: a verdict line, what failed, what was waived (with its expiry),
 * what could not be checked here, and the counts.  Skips of one reason are
 * folded into one line: a runner without a GPU should say so once, not
 * forty times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"

static const char *
or_dash(const char *s)
{
	return s != NULL ? s : "(none)";
}

static void
print_skips(FILE *f, const struct ep_results *rs)
{
	char *done = xcalloc(rs->n ? rs->n : 1, 1);

	for (size_t i = 0; i < rs->n; i++) {
		const struct ep_result *r = &rs->v[i];
		const char *msg = r->message != NULL ? r->message : "";
		size_t same = 0;

		if (r->status != EP_SKIP || done[i])
			continue;
		for (size_t j = i; j < rs->n; j++)
			if (rs->v[j].status == EP_SKIP && !done[j] &&
			    strcmp(rs->v[j].area, r->area) == 0 &&
			    strcmp(rs->v[j].message ? rs->v[j].message : "",
			    msg) == 0) {
				done[j] = 1;
				same++;
			}
		if (same == 1)
			fprintf(f, "  skip    %s\n", *msg ? msg : r->key);
		else
			fprintf(f, "  skip    %zu %s facts: %s\n", same, r->area,
			    msg);
	}
	free(done);
}

void
ep_report_summary(FILE *f, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, int brief)
{
	size_t c[EP_NSTATUS], total = 0;

	ep_results_count(rs, c);
	for (int i = 0; i < EP_NSTATUS; i++)
		total += c[i];
	fprintf(f, "envparity %s: %s: %s against %s", ctx->command,
	    ctx->exit_status == 0 ? "PARITY" : "DRIFT",
	    or_dash(ctx->current_name), or_dash(ctx->golden_name));
	if (ctx->golden_commit != NULL)
		fprintf(f, " (commit %.12s)", ctx->golden_commit);
	fputc('\n', f);
	for (size_t i = 0; i < rs->n && !brief; i++) {
		const struct ep_result *r = &rs->v[i];

		if (r->status == EP_FAIL || r->status == EP_ERROR)
			fprintf(f, "  %-7s %s\n", r->status == EP_FAIL ?
			    "FAIL" : "ERROR", r->message ? r->message : r->key);
	}
	for (size_t i = 0; i < rs->n && !brief; i++) {
		const struct ep_result *r = &rs->v[i];

		if (r->status == EP_WAIVED)
			fprintf(f, "  waived  %s\n", r->message ? r->message :
			    r->key);
	}
	if (!brief)
		print_skips(f, rs);
	fprintf(f, "%zu results: %zu pass, %zu fail, %zu waived, %zu skip, "
	    "%zu error\n", total, c[EP_PASS], c[EP_FAIL], c[EP_WAIVED],
	    c[EP_SKIP], c[EP_ERROR]);
}
