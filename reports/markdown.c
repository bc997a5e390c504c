/*
 * markdown.c: the Markdown report, for GitHub's job summary, a merge
 * request comment or a wiki page.  In the order a reader needs it: a
 * heading with the verdict and where the golden came from, then what
 * drifted (a table of key, expected, actual, rule), then what was waived
 * with its owner and expiry, then what was skipped and why (folded in a
 * <details>), then the counts.
 *
 * Every value is escaped by ep_md_escape (text.c): one table row stays one
 * line with its cells, whatever the fact held, and no value can become a
 * link, an image, HTML or a heading.  Values are shown in <code>, not in
 * backticks, because a code span would show the entities literally.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "version.h"

#define CELL_MAX	512	/* bytes of a value shown in a cell */
#define SKIP_KEYS	10	/* keys listed for one reason of skip */

static void
plain(FILE *f, const char *s)
{
	char *e = ep_md_escape(s, CELL_MAX);

	fputs(e, f);
	free(e);
}

/* A value: <code>…</code>, or what its absence means. */
static void
code(FILE *f, const char *s)
{
	if (s == NULL)
		fputs("*(absent)*", f);
	else if (*s == '\0')
		fputs("*(empty)*", f);
	else {
		fputs("<code>", f);
		plain(f, s);
		fputs("</code>", f);
	}
}

static void
header(FILE *f, const struct ep_report_ctx *ctx, const size_t c[EP_NSTATUS])
{
	fprintf(f, "## envparity %s: %s\n\n", ctx->command,
	    ctx->exit_status == 0 ? "PARITY" : "DRIFT");
	fputs("**Golden:** ", f);
	code(f, ctx->golden_name);
	if (ctx->golden_store != NULL) {
		fputs(" (store ", f);
		code(f, ctx->golden_store);
		fputs(", ref ", f);
		code(f, ctx->golden_ref);
		fputs(", profile ", f);
		code(f, ctx->golden_profile);
		if (ctx->golden_commit != NULL) {
			fputs(", commit ", f);
			code(f, ctx->golden_commit);
		}
		fputs(")", f);
	}
	fputs("<br>\n**Current:** ", f);
	code(f, ctx->current_name);
	fputs("\n\n", f);
	if (c[EP_FAIL] + c[EP_ERROR] == 0)
		fputs("No drift: every fact matched, or was waived or "
		    "skipped as shown below.\n\n", f);
}

/* "KEY | EXPECTED | ACTUAL | ": the cells every finding's row starts
 * with. */
static void
key_values(FILE *f, const struct ep_result *r)
{
	code(f, r->key);
	fputs(" | ", f);
	code(f, r->expected);
	fputs(" | ", f);
	code(f, r->actual);
	fputs(" | ", f);
}

static void
more(FILE *f, size_t shown, size_t n)
{
	if (shown < n)
		fprintf(f, "\n*… and %zu more, not shown here: see the JSON or "
		    "JUnit report.*\n", n - shown);
}

static void
drift(FILE *f, const struct ep_results *rs, const size_t c[EP_NSTATUS],
    size_t max)
{
	size_t n = c[EP_FAIL] + c[EP_ERROR], shown = 0;

	if (n == 0)
		return;
	fprintf(f, "### Drift: %zu failed, %zu could not be checked\n\n",
	    c[EP_FAIL], c[EP_ERROR]);
	fputs("| Status | Key | Expected | Actual | Rule | Note |\n"
	    "| --- | --- | --- | --- | --- | --- |\n", f);
	for (size_t i = 0; i < rs->n; i++) {
		const struct ep_result *r = &rs->v[i];
		char *note = NULL;

		if (r->status != EP_FAIL && r->status != EP_ERROR)
			continue;
		if (max != 0 && shown == max)
			break;
		shown++;
		fprintf(f, "| %s | ", r->status == EP_FAIL ? "fail" : "error");
		key_values(f, r);
		plain(f, r->rule);
		fputs(" | ", f);
		if (r->status == EP_ERROR)
			plain(f, ep_result_reason(r));
		else if (r->waiver_expires != NULL) {
			note = xasprintf("waiver by %s expired on %s: %s",
			    r->waiver_owner ? r->waiver_owner : "(nobody)",
			    r->waiver_expires,
			    r->waiver_reason ? r->waiver_reason : "");
			plain(f, note);
			free(note);
		}
		fputs(" |\n", f);
	}
	more(f, shown, n);
	fputc('\n', f);
}

/* Warnings: seen, never failing the run. */
static void
warned(FILE *f, const struct ep_results *rs, const size_t c[EP_NSTATUS],
    size_t max)
{
	size_t shown = 0;

	if (c[EP_WARN] == 0)
		return;
	fprintf(f, "### Warnings: %zu\n\n", c[EP_WARN]);
	fputs("| Key | Expected | Actual | Note |\n"
	    "| --- | --- | --- | --- |\n", f);
	for (size_t i = 0; i < rs->n; i++) {
		const struct ep_result *r = &rs->v[i];

		if (r->status != EP_WARN)
			continue;
		if (max != 0 && shown == max)
			break;
		shown++;
		fputs("| ", f);
		key_values(f, r);
		plain(f, ep_result_reason(r));
		fputs(" |\n", f);
	}
	more(f, shown, c[EP_WARN]);
	fputc('\n', f);
}

static void
waived(FILE *f, const struct ep_results *rs, const size_t c[EP_NSTATUS],
    size_t max)
{
	size_t shown = 0;

	if (c[EP_WAIVED] == 0)
		return;
	fprintf(f, "### Waived: %zu\n\n", c[EP_WAIVED]);
	fputs("| Key | Expected | Actual | Expires | Owner | Reason |\n"
	    "| --- | --- | --- | --- | --- | --- |\n", f);
	for (size_t i = 0; i < rs->n; i++) {
		const struct ep_result *r = &rs->v[i];

		if (r->status != EP_WAIVED)
			continue;
		if (max != 0 && shown == max)
			break;
		shown++;
		fputs("| ", f);
		key_values(f, r);
		plain(f, r->waiver_expires);
		fputs(" | ", f);
		plain(f, r->waiver_owner);
		fputs(" | ", f);
		plain(f, r->waiver_reason);
		fputs(" |\n", f);
	}
	more(f, shown, c[EP_WAIVED]);
	fputc('\n', f);
}

/* Skips folded by area and reason: a runner without a GPU says so once,
 * with the keys it could not check. */
static void
skipped(FILE *f, const struct ep_results *rs, const size_t c[EP_NSTATUS],
    size_t max)
{
	char *done;
	size_t rows = 0, groups = 0;

	if (c[EP_SKIP] == 0)
		return;
	done = xcalloc(rs->n, 1);
	fprintf(f, "<details><summary>Skipped: %zu, not checked here"
	    "</summary>\n\n", c[EP_SKIP]);
	fputs("| Area | Why | Facts |\n| --- | --- | --- |\n", f);
	for (size_t i = 0; i < rs->n; i++) {
		const struct ep_result *r = &rs->v[i];
		const char *why = ep_result_reason(r);
		size_t same = 0;
		int show;

		if (r->status != EP_SKIP || done[i])
			continue;
		show = max == 0 || groups < max;
		groups++;
		if (show) {
			fputs("| ", f);
			plain(f, r->area);
			fputs(" | ", f);
			plain(f, *why ? why : "(no reason given)");
			fputs(" | ", f);
		}
		for (size_t k = i; k < rs->n; k++) {
			const struct ep_result *q = &rs->v[k];

			if (q->status != EP_SKIP || done[k] ||
			    strcmp(q->area, r->area) != 0 ||
			    strcmp(ep_result_reason(q), why) != 0)
				continue;
			done[k] = 1;
			if (show && same < SKIP_KEYS) {
				if (same > 0)
					fputs(", ", f);
				code(f, q->key);
			}
			same++;
		}
		if (show) {
			if (same > SKIP_KEYS)
				fprintf(f, " and %zu more", same - SKIP_KEYS);
			fputs(" |\n", f);
			rows++;
		}
	}
	more(f, rows, groups);
	fputs("\n</details>\n\n", f);
	free(done);
}

char *
ep_report_markdown(const struct ep_report_ctx *ctx,
    const struct ep_results *rs, size_t max_rows)
{
	size_t c[EP_NSTATUS], total = 0, len = 0;
	char *buf = NULL;
	FILE *f;

	ep_results_count(rs, c);
	for (int i = 0; i < EP_NSTATUS; i++)
		total += c[i];
	if ((f = open_memstream(&buf, &len)) == NULL) {
		fputs("envparity: out of memory\n", stderr);
		abort();
	}
	header(f, ctx, c);
	drift(f, rs, c, max_rows);
	warned(f, rs, c, max_rows);
	waived(f, rs, c, max_rows);
	skipped(f, rs, c, max_rows);
	fputs("### Counts\n\n"
	    "| Total | Pass | Fail | Error | Warn | Waived | Skipped |\n"
	    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n", f);
	fprintf(f, "| %zu | %zu | %zu | %zu | %zu | %zu | %zu |\n\n", total,
	    c[EP_PASS], c[EP_FAIL], c[EP_ERROR], c[EP_WARN], c[EP_WAIVED],
	    c[EP_SKIP]);
	fputs("<sub>envparity " EP_VERSION "</sub>\n", f);
	if (fclose(f) != 0 || buf == NULL) {
		fputs("envparity: out of memory\n", stderr);
		abort();
	}
	return buf;
}
