/*
 * md_common.c: what the Markdown writers share (md_int.h): the report in
 * memory, rows rendered before they are written so that the bounds cut
 * rows and never a row in half, escaped cells, the heading and counts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "md_int.h"

FILE *
md_memstream(char **buf, size_t *len)
{
	FILE *f = open_memstream(buf, len);

	if (f == NULL) {
		fputs("envparity: out of memory\n", stderr);
		abort();
	}
	return f;
}

void
md_memstream_close(FILE *f, char **buf)
{
	if (fclose(f) != 0 || *buf == NULL) {
		fputs("envparity: out of memory\n", stderr);
		abort();
	}
}

FILE *
md_row_open(struct row *w)
{
	w->buf = NULL;
	w->len = 0;
	return w->f = md_memstream(&w->buf, &w->len);
}

int
md_row_put(struct md *m, struct row *w)
{
	int ok;

	md_memstream_close(w->f, &w->buf);
	if ((ok = w->len <= m->left)) {
		fwrite(w->buf, 1, w->len, m->f);
		if (m->left != SIZE_MAX)
			m->left -= w->len;
	} else
		m->left = 0;
	free(w->buf);
	return ok;
}

/* Whether another row of a table that has shown `shown` may be tried. */
int
md_row_room(const struct md *m, size_t shown)
{
	return (m->max_rows == 0 || shown < m->max_rows) && m->left > 0;
}

void
md_plain(FILE *f, const char *s)
{
	char *e = ep_md_escape(s, CELL_MAX);

	fputs(e, f);
	free(e);
}

/* A value: <code>…</code>, or what its absence means. */
void
md_code(FILE *f, const char *s)
{
	if (s == NULL)
		fputs("*(absent)*", f);
	else if (*s == '\0')
		fputs("*(empty)*", f);
	else {
		fputs("<code>", f);
		md_plain(f, s);
		fputs("</code>", f);
	}
}

const char *
md_verdict(const struct ep_report_ctx *ctx, const size_t c[EP_NSTATUS])
{
	if (ctx->exit_status == 0)
		return "PARITY";
	if (c[EP_FAIL] == 0 && c[EP_ERROR] > 0)
		return "ERROR";
	return "DRIFT";
}

void
md_header(FILE *f, const struct ep_report_ctx *ctx, const size_t c[EP_NSTATUS])
{
	size_t total = 0;

	for (int i = 0; i < EP_NSTATUS; i++)
		total += c[i];
	fprintf(f, "## envparity %s: %s\n\n", ctx->command, md_verdict(ctx, c));
	fputs("**Golden:** ", f);
	if (ctx->golden_name == NULL)
		fputs("none (the runs compared with each other and with the "
		    "known answers)", f);
	else
		md_code(f, ctx->golden_name);
	if (ctx->golden_store != NULL) {
		fputs(" (store ", f);
		md_code(f, ctx->golden_store);
		fputs(", ref ", f);
		md_code(f, ctx->golden_ref);
		fputs(", profile ", f);
		md_code(f, ctx->golden_profile);
		if (ctx->golden_commit != NULL) {
			fputs(", commit ", f);
			md_code(f, ctx->golden_commit);
		}
		fputs(")", f);
	}
	fputs("<br>\n**Current:** ", f);
	md_code(f, ctx->current_name);
	fputs("\n\n", f);
	/* The counts first: they are never cut. */
	fputs("| Total | Pass | Fail | Error | Warn | Waived | Skipped |\n"
	    "| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n", f);
	fprintf(f, "| %zu | %zu | %zu | %zu | %zu | %zu | %zu |\n\n", total,
	    c[EP_PASS], c[EP_FAIL], c[EP_ERROR], c[EP_WARN], c[EP_WAIVED],
	    c[EP_SKIP]);
	if (c[EP_FAIL] + c[EP_ERROR] == 0)
		fputs("No drift: every fact matched, or was waived or "
		    "skipped as shown below.\n\n", f);
}

void
md_more(FILE *f, size_t shown, size_t n)
{
	if (shown < n)
		fprintf(f, "\n*… and %zu more, not shown here: see the JSON or "
		    "JUnit report.*\n", n - shown);
}

