/* test_report_md.c: the Markdown report, GitHub's workflow commands and
 * step summary, and the escaping under them (text.c): each table row one
 * line with its cells, no value able to become markup or a command. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "testutil.h"

static void
add(struct ep_results *rs, const char *key, int status, const char *exp,
    const char *act, const char *msg)
{
	struct ep_result r = { 0 };

	r.key = (char *)key;
	r.status = status;
	r.expected = (char *)exp;
	r.actual = (char *)act;
	r.rule = "exact";
	r.message = (char *)msg;
	if (status == EP_WAIVED) {
		r.waiver_owner = "ml-platform";
		r.waiver_expires = "2099-12-31";
		r.waiver_reason = "known | issue";
	}
	ep_results_add(rs, &r);
}

static void
fill(struct ep_results *rs)
{
	add(rs, "python.pkg.numpy", EP_FAIL, "1.26.4", "2.0.0",
	    "python.pkg.numpy: expected 1.26.4, got 2.0.0");
	add(rs, "python.pkg.evil|x", EP_FAIL, "a|b\nc<script>&`x`\\",
	    "\x1b[31m*bold* _u_ [l](http://e) \xff", "m");
	add(rs, "lib.x.version", EP_WAIVED, "1", "2", "waived");
	add(rs, "gpu.0.name", EP_SKIP, "H100", NULL,
	    "gpu.0.name: not checked here: no GPU");
	add(rs, "gpu.1.name", EP_SKIP, "H100", NULL,
	    "gpu.1.name: not checked here: no GPU");
	add(rs, "os.name", EP_PASS, "Debian", "Debian", NULL);
	ep_results_sort(rs);
}

static struct ep_report_ctx
ctx_of(const struct ep_results *rs)
{
	struct ep_report_ctx ctx = { 0 };

	ctx.command = "diff";
	ctx.golden_name = "a.json";
	ctx.current_name = "b|c.json";
	ctx.exit_status = ep_results_exit(rs);
	return ctx;
}

/* Cells of a table row: pipes not escaped by a backslash, less one. */
static int
cells(const char *line, size_t len)
{
	int n = 0;

	for (size_t i = 0; i < len; i++)
		if (line[i] == '|' && (i == 0 || line[i - 1] != '\\'))
			n++;
	return n - 1;
}

static void
test_text(void **state)
{
	char *s;

	(void)state;
	s = ep_text_clean("a\x01\x1b[1m\x7f\tb\n\xff\xc2\x85\xef\xbf\xbe", 0);
	assert_string_equal(s, "a\xe2\x90\x81\xe2\x90\x9b[1m\xe2\x90\xa1"
	    "\xe2\x90\x89" "b\xe2\x90\x8a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
	s = ep_text_clean("a\tb\nc\xe2\x82\xac", 1);
	assert_string_equal(s, "a\tb\nc\xe2\x82\xac");	/* euro kept */
	free(s);
	assert_null(ep_text_clean(NULL, 0));
	s = ep_md_escape("a|b\nc<d>&\\|`*_[]~", 0);
	assert_string_equal(s, "a\\|b<br>c&lt;d&gt;&amp;&#92;\\|\\`\\*\\_"
	    "\\[\\]\\~");
	free(s);
	/* Cut on a character boundary, with an ellipsis. */
	s = ep_md_escape("ab\xe2\x82\xac", 3);
	assert_string_equal(s, "ab\xe2\x80\xa6");
	free(s);
	s = ep_gh_escape("100% a\r\nb:c,d", 0);
	assert_string_equal(s, "100%25 a%0D%0Ab:c,d");
	free(s);
	s = ep_gh_escape("k:v,w%\n", 1);
	assert_string_equal(s, "k%3Av%2Cw%25%0A");
	free(s);
}

static void
test_markdown(void **state)
{
	struct ep_results rs = { 0 };
	struct ep_report_ctx ctx;
	char *md, *drift, *waived, *skipped, *counts, *line, *nl;
	int rows = 0;

	(void)state;
	fill(&rs);
	ctx = ctx_of(&rs);
	md = ep_report_markdown(&ctx, &rs, 0);
	assert_true(strncmp(md, "## envparity diff: DRIFT\n", 25) == 0);
	assert_non_null(strstr(md, "<code>b\\|c.json</code>"));
	/* In the order a reader needs. */
	assert_non_null(drift = strstr(md, "### Drift: 2 failed"));
	assert_non_null(waived = strstr(md, "### Waived: 1"));
	assert_non_null(skipped = strstr(md, "<details><summary>Skipped: 2"));
	assert_non_null(counts = strstr(md, "### Counts"));
	assert_true(drift < waived && waived < skipped && skipped < counts);
	assert_non_null(strstr(md, "| fail | <code>python.pkg.numpy</code> | "
	    "<code>1.26.4</code> | <code>2.0.0</code> | exact |  |\n"));
	assert_non_null(strstr(md, "| <code>lib.x.version</code> | <code>1"
	    "</code> | <code>2</code> | 2099-12-31 | ml-platform | known \\| "
	    "issue |\n"));
	/* Two skips of one reason are one row. */
	assert_non_null(strstr(md, "| gpu | not checked here: no GPU | "
	    "<code>gpu.0.name</code>, <code>gpu.1.name</code> |\n"));
	assert_non_null(strstr(md, "| 6 | 1 | 2 | 0 | 0 | 1 | 2 |\n"));
	/* The hostile row: one line, six cells, nothing live. */
	assert_null(strstr(md, "<script"));
	assert_null(strchr(md, '\x1b'));
	assert_non_null(strstr(md, "\\[l\\](http://e)"));
	for (line = md; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		assert_non_null(nl);
		if (strncmp(line, "| fail |", 8) == 0) {
			assert_int_equal(cells(line, (size_t)(nl - line)), 6);
			rows++;
		}
	}
	assert_int_equal(rows, 2);
	free(md);

	/* A limit on rows says how many more there are. */
	md = ep_report_markdown(&ctx, &rs, 1);
	assert_null(strstr(md, "python.pkg.numpy"));
	assert_non_null(strstr(md, "and 1 more, not shown here"));
	free(md);
	ep_results_clear(&rs);

	/* Parity says so, and shows no drift table. */
	add(&rs, "os.name", EP_PASS, "Debian", "Debian", NULL);
	ctx = ctx_of(&rs);
	md = ep_report_markdown(&ctx, &rs, 0);
	assert_true(strncmp(md, "## envparity diff: PARITY\n", 26) == 0);
	assert_null(strstr(md, "### Drift"));
	free(md);
	ep_results_clear(&rs);
}

static void
test_annotations(void **state)
{
	struct ep_results rs = { 0 };
	char *buf = NULL, key[32];
	size_t len = 0, lines = 0;
	FILE *f;

	(void)state;
	fill(&rs);
	f = open_memstream(&buf, &len);
	ep_report_annotations(f, &rs);
	fclose(f);
	assert_non_null(strstr(buf, "::error title=envparity drift%3A "
	    "python.pkg.numpy::python.pkg.numpy: expected 1.26.4, got 2.0.0 "
	    "(rule exact)\n"));
	assert_non_null(strstr(buf, "::notice title=envparity waived%3A "
	    "lib.x.version::waived\n"));
	/* No skips; nothing that could start a line of its own. */
	assert_null(strstr(buf, "gpu.0.name"));
	for (char *p = buf; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 3);
	assert_null(strchr(buf, '\x1b'));
	free(buf);
	ep_results_clear(&rs);

	/* Past a screenful, one line says how many more. */
	for (int i = 0; i < 60; i++) {
		snprintf(key, sizeof key, "python.pkg.p%02d", i);
		add(&rs, key, EP_FAIL, "1", "2", key);
	}
	buf = NULL;
	f = open_memstream(&buf, &len);
	ep_report_annotations(f, &rs);
	fclose(f);
	assert_null(strstr(buf, "p50"));
	assert_non_null(strstr(buf, "::warning title=envparity::10 more "
	    "findings are not annotated"));
	free(buf);
	ep_results_clear(&rs);
}

static void
test_append(void **state)
{
	char dir[256], *path, *text;
	struct ep_err err = { 0 };
	size_t len;
	FILE *f;

	(void)state;
	assert_int_equal(tu_scratch_make(dir, sizeof dir, "report-md"), 0);
	path = xasprintf("%s/summary.md", dir);
	assert_int_equal(ep_report_append(path, "# one\n", &err), 0);
	f = fopen(path, "a");
	fputs("no newline", f);
	fclose(f);
	assert_int_equal(ep_report_append(path, "# two\n", &err), 0);
	assert_int_equal(ep_read_file(&text, &len, path, 4096, &err), 0);
	assert_string_equal(text, "# one\nno newline\n# two\n");
	free(text);
	free(path);
	/* A directory is no summary file. */
	assert_int_equal(ep_report_append(dir, "x", &err), -1);
	assert_int_equal(err.kind, EP_E_IO);
	assert_non_null(strstr(err.msg, dir));
	assert_int_equal(tu_scratch_remove(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_markdown),
		cmocka_unit_test(test_annotations),
		cmocka_unit_test(test_append),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
