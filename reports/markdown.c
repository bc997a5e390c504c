/*
 * markdown.c: the Markdown report, for GitHub's job summary, a merge
 * request comment or a wiki page.  In the order a reader needs it: a
 * heading with the verdict and where the golden came from, the counts,
 * then what drifted (a table of key, expected, actual, rule and why), then
 * what warned, then what was waived with its owner and expiry, then what
 * was skipped and why (folded in a <details>).
 *
 * Every value is escaped by ep_md_escape (text.c): one table row stays one
 * line with its cells, whatever the fact held, and no value can become a
 * link, an image, HTML or a heading.  Values are shown in <code>, not in
 * backticks, because a code span would show the entities literally.
 *
 * The report can be bounded in bytes (GitHub drops a step summary past
 * 1 MiB, and escaping can make a value six times longer): every row is
 * rendered first and written only if it fits, so the rows are cut, not
 * the summary.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_int.h"
#include "report.h"
#include "version.h"
#include "xalloc.h"

#define SKIP_KEYS	10	/* keys listed for one reason of skip */

/* "KEY | EXPECTED | ACTUAL | ": the cells every finding's row starts
 * with. */
static void
key_values(FILE *f, const struct ep_result *r)
{
	if (r->node != NULL) {
		md_code(f, r->node);
		fputs(": ", f);
	}
	md_code(f, r->key);
	fputs(" | ", f);
	md_code(f, r->expected);
	fputs(" | ", f);
	md_code(f, r->actual);
	fputs(" | ", f);
}

/* What a failure's message says beyond "expected E, got A" (which the
 * row shows already): why a check failed (stack.*: "13.1" against
 * "13.0.96" says nothing), an expired waiver.  Borrowed; "" for none. */
static const char *
fail_note(const struct ep_result *r, char **tmp)
{
	const char *why = ep_result_reason(r);
	size_t n;

	*tmp = xasprintf("expected %s, got %s", r->expected != NULL ?
	    r->expected : "(absent)", r->actual != NULL ? r->actual :
	    "(absent)");
	n = strlen(*tmp);
	if (strncmp(why, *tmp, n) == 0) {
		why += n;
		if (strncmp(why, "; ", 2) == 0)
			why += 2;
	}
	return why;
}

/* The heading counts what its table lists: a node's odd value is in the
 * fleet's matrix already, and is said to be there, not counted twice. */
static void
drift(struct md *m, const struct ep_results *rs, const size_t c[EP_NSTATUS])
{
	size_t nfail = c[EP_FAIL], nerr = c[EP_ERROR], n, shown = 0;

	for (size_t i = 0; i < rs->n; i++)
		if (md_fleet_shown(&rs->v[i])) {
			nfail -= rs->v[i].status == EP_FAIL;
			nerr -= rs->v[i].status == EP_ERROR;
		}
	if ((n = nfail + nerr) == 0)
		return;
	fprintf(m->f, "### Drift: %zu failed, %zu could not be checked", nfail,
	    nerr);
	if (n < c[EP_FAIL] + c[EP_ERROR])
		fprintf(m->f, " (and %zu odd values of nodes, in the facts "
		    "that differ across nodes above)", c[EP_FAIL] +
		    c[EP_ERROR] - n);
	fputs("\n\n", m->f);
	fputs("| Status | Key | Expected | Actual | Rule | Why |\n"
	    "| --- | --- | --- | --- | --- | --- |\n", m->f);
	for (size_t i = 0; i < rs->n && md_row_room(m, shown); i++) {
		const struct ep_result *r = &rs->v[i];
		struct row w;
		char *tmp = NULL;
		FILE *f;

		if ((r->status != EP_FAIL && r->status != EP_ERROR) ||
		    md_fleet_shown(r))
			continue;
		f = md_row_open(&w);
		fprintf(f, "| %s | ", r->status == EP_FAIL ? "fail" : "error");
		key_values(f, r);
		md_plain(f, r->rule);
		fputs(" | ", f);
		md_plain(f, r->status == EP_ERROR ? ep_result_reason(r) :
		    fail_note(r, &tmp));
		fputs(" |\n", f);
		free(tmp);
		if (!md_row_put(m, &w))
			break;
		shown++;
	}
	md_more(m->f, shown, n);
	fputc('\n', m->f);
}

/* Warnings: seen, never failing the run. */
static void
warned(struct md *m, const struct ep_results *rs, const size_t c[EP_NSTATUS])
{
	size_t shown = 0, n = c[EP_WARN];

	for (size_t i = 0; i < rs->n; i++)
		if (rs->v[i].status == EP_WARN && md_fleet_shown(&rs->v[i]))
			n--;
	if (n == 0)
		return;
	fprintf(m->f, "### Warnings: %zu\n\n", n);
	fputs("| Key | Expected | Actual | Why |\n"
	    "| --- | --- | --- | --- |\n", m->f);
	for (size_t i = 0; i < rs->n && md_row_room(m, shown); i++) {
		const struct ep_result *r = &rs->v[i];
		struct row w;
		FILE *f;

		if (r->status != EP_WARN || md_fleet_shown(r))
			continue;
		f = md_row_open(&w);
		fputs("| ", f);
		key_values(f, r);
		md_plain(f, ep_result_reason(r));
		fputs(" |\n", f);
		if (!md_row_put(m, &w))
			break;
		shown++;
	}
	md_more(m->f, shown, n);
	fputc('\n', m->f);
}

static void
waived(struct md *m, const struct ep_results *rs, const size_t c[EP_NSTATUS])
{
	size_t shown = 0;

	if (c[EP_WAIVED] == 0)
		return;
	fprintf(m->f, "### Waived: %zu\n\n", c[EP_WAIVED]);
	fputs("| Key | Expected | Actual | Expires | Owner | Reason |\n"
	    "| --- | --- | --- | --- | --- | --- |\n", m->f);
	for (size_t i = 0; i < rs->n && md_row_room(m, shown); i++) {
		const struct ep_result *r = &rs->v[i];
		struct row w;
		FILE *f;

		if (r->status != EP_WAIVED)
			continue;
		f = md_row_open(&w);
		fputs("| ", f);
		key_values(f, r);
		md_plain(f, r->waiver_expires);
		fputs(" | ", f);
		md_plain(f, r->waiver_owner);
		fputs(" | ", f);
		md_plain(f, r->waiver_reason);
		fputs(" |\n", f);
		if (!md_row_put(m, &w))
			break;
		shown++;
	}
	md_more(m->f, shown, c[EP_WAIVED]);
	fputc('\n', m->f);
}

/* Skips folded by area and reason: a runner without a GPU says so once,
 * with the keys it could not check. */
static void
skipped(struct md *m, const struct ep_results *rs,
    const size_t c[EP_NSTATUS])
{
	char *done;
	size_t rows = 0, groups = 0;

	if (c[EP_SKIP] == 0)
		return;
	done = xcalloc(rs->n, 1);
	fprintf(m->f, "<details><summary>Skipped: %zu, not checked here"
	    "</summary>\n\n", c[EP_SKIP]);
	fputs("| Area | Why | Facts |\n| --- | --- | --- |\n", m->f);
	for (size_t i = 0; i < rs->n; i++) {
		const struct ep_result *r = &rs->v[i];
		const char *why = ep_result_reason(r);
		size_t same = 0;
		struct row w;
		FILE *f = NULL;

		if (r->status != EP_SKIP || done[i])
			continue;
		groups++;
		if (md_row_room(m, rows)) {
			f = md_row_open(&w);
			fputs("| ", f);
			md_plain(f, r->area);
			fputs(" | ", f);
			md_plain(f, *why ? why : "(no reason given)");
			fputs(" | ", f);
		}
		for (size_t k = i; k < rs->n; k++) {
			const struct ep_result *q = &rs->v[k];

			if (q->status != EP_SKIP || done[k] ||
			    strcmp(q->area, r->area) != 0 ||
			    strcmp(ep_result_reason(q), why) != 0)
				continue;
			done[k] = 1;
			if (f != NULL && same < SKIP_KEYS) {
				if (same > 0)
					fputs(", ", f);
				md_code(f, q->key);
			}
			same++;
		}
		if (f != NULL) {
			if (same > SKIP_KEYS)
				fprintf(f, " and %zu more", same - SKIP_KEYS);
			fputs(" |\n", f);
			rows += md_row_put(m, &w);
		}
	}
	md_more(m->f, rows, groups);
	fputs("\n</details>\n\n", m->f);
	free(done);
}

char *
ep_report_markdown(const struct ep_report_ctx *ctx,
    const struct ep_results *rs, size_t max_rows, size_t max_bytes)
{
	struct md m = { 0 };
	size_t c[EP_NSTATUS], len = 0;
	char *buf = NULL;
	long used;

	ep_results_count(rs, c);
	m.f = md_memstream(&buf, &len);
	m.max_rows = max_rows;
	md_header(m.f, ctx, c);
	m.left = SIZE_MAX;
	if (max_bytes != 0) {
		used = ftell(m.f);
		m.left = used >= 0 && (size_t)used + TAIL_MAX < max_bytes ?
		    max_bytes - (size_t)used - TAIL_MAX : 0;
	}
	if (ctx->fleet != NULL)
		md_fleet(&m, ctx->fleet);
	drift(&m, rs, c);
	warned(&m, rs, c);
	waived(&m, rs, c);
	skipped(&m, rs, c);
	fputs("<sub>envparity " EP_VERSION "</sub>\n", m.f);
	md_memstream_close(m.f, &buf);
	return buf;
}

int
ep_report_markdown_render(char **out, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, struct ep_err *err)
{
	(void)err;
	*out = ep_report_markdown(ctx, rs, 0, 0);
	return 0;
}
