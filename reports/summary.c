/*
 * summary.c: the short human summary `check`, `diff` and `fleet` print on standard
 * output: a verdict line, what failed, what was waived (with its expiry),
 * what could not be checked here, the changes a built-in rule ignores
 * (one line), and the counts.  Skips of one reason are
 * folded into one line: a runner without a GPU should say so once, not
 * forty times.  Every line goes out through ep_say (clean.h), so that a
 * value can neither drive the terminal (an ANSI escape shows as U+241B)
 * nor be read by a CI runner as a command.  On a terminal the verdicts
 * (PARITY, DRIFT, FAIL, ERROR, warn) are painted (colour.h); never in a
 * file, a pipe or a CI log unless --color=always says so.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "colour.h"
#include "report.h"
#include "xalloc.h"

static const char *
or_dash(const char *s)
{
	return s != NULL ? s : "(none)";
}


static void
print_skips(FILE *f, const struct ep_results *rs)
{
	char *done = xcalloc(rs->n ? rs->n : 1, 1);
	size_t groups = 0;

	for (size_t i = 0; i < rs->n; i++) {
		const struct ep_result *r = &rs->v[i];
		const char *why = ep_result_reason(r);
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
		if (++groups > EP_SUMMARY_LINES_MAX) {
			if (groups == EP_SUMMARY_LINES_MAX + 1)
				ep_say(f, "  ...     and more skips (the "
				    "reports list them)");
			continue;
		}
		if (same == 1)
			ep_say(f, "  skip    %s", r->message != NULL &&
			    *r->message ? r->message : r->key);
		else
			ep_say(f, "  skip    %zu %s facts: %s", same, r->area,
			    why);
	}
	free(done);
}

/* The changes a built-in ignore rule kept out of the results (os.kernel):
 * one line, so that a change is never silent. */
static void
print_ignored(FILE *f, const struct ep_results *rs)
{
	const struct ep_ignored *g = rs->ign;

	if (rs->nign == 1)
		ep_say(f, "  ignored 1 change a built-in rule does not judge: "
		    "%s %s -> %s (the JSON report lists it)", g->key,
		    or_dash(g->expected), or_dash(g->actual));
	else if (rs->nign > 1)
		ep_say(f, "  ignored %zu changes built-in rules do not judge "
		    "(%s, ...): the JSON report lists them", rs->nign, g->key);
}

/* The fleet's nodes with such changes: one line for them all. */
static void
print_fleet_ignored(FILE *f, const struct ep_fleet_view *v)
{
	for (size_t i = 0; i < v->nnodes; i++) {
		const struct ep_fleet_node *n = &v->nodes[i];

		if (n->ignored.nign == 0)
			continue;
		ep_say(f, "  ignored changes built-in rules do not judge on "
		    "%zu node%s (%s on %s%s): the JSON report lists them",
		    v->nignored, v->nignored == 1 ? "" : "s",
		    n->ignored.ign[0].key, n->name, v->nignored > 1 ||
		    n->ignored.nign > 1 ? ", ..." : "");
		return;
	}
}

void
ep_report_summary(FILE *f, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, int brief)
{
	size_t c[EP_NSTATUS], total = 0;
	char *head;

	ep_results_count(rs, c);
	for (int i = 0; i < EP_NSTATUS; i++)
		total += c[i];
	head = xasprintf("envparity %s: ", ctx->command);
	ep_colour_say(f, head, ctx->exit_status == 0 ? EP_PAINT_GOOD :
	    EP_PAINT_BAD, ctx->exit_status == 0 ? "PARITY" : "DRIFT",
	    ": %s against %s%s%.12s%s",
	    or_dash(ctx->current_name), or_dash(ctx->golden_name),
	    ctx->golden_commit != NULL ? " (commit " : "",
	    ctx->golden_commit != NULL ? ctx->golden_commit : "",
	    ctx->golden_commit != NULL ? ")" : "");
	free(head);
	for (size_t i = 0, shown = 0; i < rs->n && !brief; i++) {
		const struct ep_result *r = &rs->v[i];

		if (r->status != EP_FAIL && r->status != EP_ERROR)
			continue;
		if (shown++ < EP_SUMMARY_LINES_MAX)
			ep_colour_say(f, "  ", EP_PAINT_BAD, r->status ==
			    EP_FAIL ? "FAIL" : "ERROR", "%s%s%s%s",
			    r->status == EP_FAIL ? "    " : "   ",
			    r->node ? r->node : "", r->node ? ": " : "",
			    r->message ? r->message : r->key);
		else if (shown == c[EP_FAIL] + c[EP_ERROR])
			ep_say(f, "  ...     and %zu more failures and errors "
			    "(the reports list them)",
			    shown - EP_SUMMARY_LINES_MAX);
	}
	for (size_t i = 0, shown = 0; i < rs->n && !brief; i++) {
		const struct ep_result *r = &rs->v[i];

		if (r->status != EP_WARN)
			continue;
		if (shown++ < EP_SUMMARY_LINES_MAX)
			ep_colour_say(f, "  ", EP_PAINT_WARN, "warn",
			    "    %s%s%s", r->node ? r->node : "",
			    r->node ? ": " : "", r->message ? r->message :
			    r->key);
		else if (shown == c[EP_WARN])
			ep_say(f, "  ...     and %zu more warnings (the reports "
			    "list them)", shown - EP_SUMMARY_LINES_MAX);
	}
	for (size_t i = 0, shown = 0; i < rs->n && !brief; i++) {
		const struct ep_result *r = &rs->v[i];

		if (r->status != EP_WAIVED)
			continue;
		if (shown++ < EP_SUMMARY_LINES_MAX)
			ep_say(f, "  waived  %s%s%s", r->node ? r->node : "",
			    r->node ? ": " : "", r->message ? r->message :
			    r->key);
		else if (shown == c[EP_WAIVED])
			ep_say(f, "  ...     and %zu more waived (the reports "
			    "list them)", shown - EP_SUMMARY_LINES_MAX);
	}
	if (!brief)
		print_skips(f, rs);
	if (!brief)
		print_ignored(f, rs);
	if (!brief && ctx->fleet != NULL)
		print_fleet_ignored(f, ctx->fleet);
	ep_say(f, "%zu results: %zu pass, %zu fail, %zu warn, %zu waived, "
	    "%zu skip, %zu error", total, c[EP_PASS], c[EP_FAIL], c[EP_WARN],
	    c[EP_WAIVED], c[EP_SKIP], c[EP_ERROR]);
}
