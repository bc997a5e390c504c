/*
 * summary.c: the short human summary `check` and `diff` print on standard
 * output: a verdict line, what failed, what was waived (with its expiry),
 * what could not be checked here, and the counts.  Skips of one reason are
 * folded into one line: a runner without a GPU should say so once, not
 * forty times.  Text from facts is cleaned (text.c) so that a value
 * cannot drive the terminal (an ANSI escape shows as U+241B).
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

/* Print before, s cleaned of control characters, then after. */
static void
line(FILE *f, const char *before, const char *s, const char *after)
{
	char *c = ep_text_clean(s != NULL ? s : "", 0);

	fputs(before, f);
	fputs(c, f);
	fputs(after, f);
	free(c);
}

static void
print_skips(FILE *f, const struct ep_results *rs)
{
	char *done = xcalloc(rs->n ? rs->n : 1, 1);

	for (size_t i = 0; i < rs->n; i++) {
		const struct ep_result *r = &rs->v[i];
		const char *why = ep_result_reason(r);
		char *area;
		size_t same = 0;

		if (r->status != EP_SKIP || done[i])
			continue;
		/* The same reason whatever the key: "KEY: " is not part of
		 * it. */
		for (size_t j = i; j < rs->n; j++)
			if (rs->v[j].status == EP_SKIP && !done[j] &&
			    strcmp(rs->v[j].area, r->area) == 0 &&
			    strcmp(ep_result_reason(&rs->v[j]), why) == 0) {
				done[j] = 1;
				same++;
			}
		if (same == 1)
			line(f, "  skip    ", r->message != NULL &&
			    *r->message ? r->message : r->key, "\n");
		else {
			area = ep_text_clean(r->area, 0);
			fprintf(f, "  skip    %zu %s facts: ", same, area);
			line(f, "", why, "\n");
			free(area);
		}
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
	fprintf(f, "envparity %s: %s: ", ctx->command,
	    ctx->exit_status == 0 ? "PARITY" : "DRIFT");
	line(f, "", or_dash(ctx->current_name), " against ");
	line(f, "", or_dash(ctx->golden_name), "");
	if (ctx->golden_commit != NULL)
		fprintf(f, " (commit %.12s)", ctx->golden_commit);
	fputc('\n', f);
	for (size_t i = 0; i < rs->n && !brief; i++) {
		const struct ep_result *r = &rs->v[i];

		if (r->status == EP_FAIL || r->status == EP_ERROR)
			line(f, r->status == EP_FAIL ? "  FAIL    " :
			    "  ERROR   ", r->message ? r->message : r->key, "\n");
	}
	for (size_t i = 0; i < rs->n && !brief; i++) {
		const struct ep_result *r = &rs->v[i];

		if (r->status == EP_WAIVED)
			line(f, "  waived  ", r->message ? r->message : r->key,
			    "\n");
	}
	if (!brief)
		print_skips(f, rs);
	fprintf(f, "%zu results: %zu pass, %zu fail, %zu waived, %zu skip, "
	    "%zu error\n", total, c[EP_PASS], c[EP_FAIL], c[EP_WAIVED],
	    c[EP_SKIP], c[EP_ERROR]);
}
