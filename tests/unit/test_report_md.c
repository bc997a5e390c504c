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
#include "errors.h"
#include "files.h"
#include "xalloc.h"

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
	char *s, *want;

	(void)state;
	s = ep_text_clean("a\x01\x1b[1m\x7f\tb\n\xff\xc2\x85\xef\xbf\xbe", 0);
	assert_string_equal(s, "a\xe2\x90\x81\xe2\x90\x9b[1m\xe2\x90\xa1"
	    "\xe2\x90\x89" "b\xe2\x90\x8a\xef\xbf\xbd<U+0085><U+FFFE>");
	free(s);
	s = ep_text_clean("a\tb\nc\xe2\x82\xac", 1);
	assert_string_equal(s, "a\tb\nc\xe2\x82\xac");	/* euro kept */
	free(s);
	assert_null(ep_text_clean(NULL, 0));
	/* A newline and a CR stay visible, as pictures (GitHub hides a
	 * <br> in <code> and drops a CR). */
	s = ep_md_escape("a|b\nc\r<d>&\\|`*_[]~", 0);
	assert_string_equal(s, "a\\|b\xe2\x90\x8a" "c\xe2\x90\x8d&lt;d&gt;"
	    "&amp;&#92;\\|\\`\\*\\_\\[\\]\\~");
	free(s);
	/* No value becomes a link: GFM autolinks "://", "www." and
	 * addresses in any text node; a <wbr> splits the node. */
	s = ep_md_escape("see https://e.example/x, WWW.x.org, a@b.co", 0);
	assert_string_equal(s, "see https:<wbr>//e.example/x, WWW<wbr>.x.org, "
	    "a@<wbr>b.co");
	free(s);
	/* A long unbroken value may break every EP_MD_WRAP characters;
	 * an escape is one character, and a space starts a new run. */
	s = ep_md_escape("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
	    "\"\" y", 0);
	want = xasprintf("%.32s<wbr>%.32s<wbr>&quot;&quot; y",
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	assert_string_equal(s, want);
	free(want);
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
	md = ep_report_markdown(&ctx, &rs, 0, 0);
	assert_true(strncmp(md, "## envparity diff: DRIFT\n", 25) == 0);
	assert_non_null(strstr(md, "<code>b\\|c.json</code>"));
	/* In the order a reader needs: the counts first. */
	assert_non_null(counts = strstr(md, "| Total | Pass | Fail |"));
	assert_non_null(drift = strstr(md, "### Drift: 2 failed"));
	assert_non_null(waived = strstr(md, "### Waived: 1"));
	assert_non_null(skipped = strstr(md, "<details><summary>Skipped: 2"));
	assert_true(counts < drift && drift < waived && waived < skipped);
	/* "expected 1.26.4, got 2.0.0" says nothing the row does not. */
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
	assert_null(strchr(md, '\r'));
	assert_non_null(strstr(md, "\\[l\\](http:<wbr>//e)"));
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
	md = ep_report_markdown(&ctx, &rs, 1, 0);
	assert_null(strstr(md, "python.pkg.numpy"));
	assert_non_null(strstr(md, "and 1 more, not shown here"));
	free(md);
	ep_results_clear(&rs);

	/* Parity says so, and shows no drift table. */
	add(&rs, "os.name", EP_PASS, "Debian", "Debian", NULL);
	ctx = ctx_of(&rs);
	md = ep_report_markdown(&ctx, &rs, 0, 0);
	assert_true(strncmp(md, "## envparity diff: PARITY\n", 26) == 0);
	assert_null(strstr(md, "### Drift"));
	free(md);
	ep_results_clear(&rs);
}

/* What could not be checked is no drift; a check's failure says why. */
static void
test_markdown_verdicts(void **state)
{
	struct ep_results rs = { 0 };
	struct ep_report_ctx ctx;
	char *md;

	(void)state;
	add(&rs, "stack.driver_min", EP_ERROR, ">=580", "bogus",
	    "stack.driver_min: gpu.driver.version \"bogus\" is not a version");
	add(&rs, "os.name", EP_PASS, "Debian", "Debian", NULL);
	ctx = ctx_of(&rs);
	md = ep_report_markdown(&ctx, &rs, 0, 0);
	assert_true(strncmp(md, "## envparity diff: ERROR\n", 25) == 0);
	free(md);
	add(&rs, "stack.cuda_driver", EP_FAIL, "13.0", "13.1",
	    "stack.cuda_driver: CUDA runtime 13.1 is a newer major release "
	    "than the driver supports (CUDA 13.0)");
	add(&rs, "python.pkg.old", EP_FAIL, "1", "2", "python.pkg.old: "
	    "expected 1, got 2; waiver by someone expired on 2020-01-31: x");
	ctx = ctx_of(&rs);
	md = ep_report_markdown(&ctx, &rs, 0, 0);
	assert_true(strncmp(md, "## envparity diff: DRIFT\n", 25) == 0);
	assert_non_null(strstr(md, "| <code>13.0</code> | <code>13.1</code> | "
	    "exact | CUDA runtime 13.1 is a newer major release than the "
	    "driver supports (CUDA 13.0) |\n"));
	assert_non_null(strstr(md, "| exact | waiver by someone expired on "
	    "2020-01-31: x |\n"));
	free(md);
	ep_results_clear(&rs);
}

/* Values that escaping makes six times longer: the rows are cut so that
 * the whole stays within the bytes given, the counts always shown. */
static void
test_markdown_budget(void **state)
{
	struct ep_results rs = { 0 };
	struct ep_report_ctx ctx;
	char key[32], *v, *w, *md;
	size_t full;

	(void)state;
	v = xmalloc(2001);
	memset(v, '"', 2000);
	v[2000] = '\0';
	w = xstrdup(v);
	w[0] = '<';
	for (int i = 0; i < 300; i++) {
		snprintf(key, sizeof key, "python.pkg.p%03d", i);
		add(&rs, key, i % 3 == 0 ? EP_WAIVED : EP_FAIL, v, w, key);
	}
	ep_results_sort(&rs);
	ctx = ctx_of(&rs);
	md = ep_report_markdown(&ctx, &rs, 0, 0);
	full = strlen(md);
	free(md);
	assert_true(full > 2 * 200000);
	md = ep_report_markdown(&ctx, &rs, 0, 200000);
	assert_true(strlen(md) <= 200000);
	assert_true(strlen(md) > 150000);
	assert_non_null(strstr(md, "| 300 | 0 | 200 | 0 | 0 | 100 | 0 |\n"));
	assert_non_null(strstr(md, "### Drift: 200 failed"));
	assert_non_null(strstr(md, "more, not shown here"));
	/* The waived table is cut whole once the drift table was. */
	assert_non_null(strstr(md, "### Waived: 100\n"));
	assert_non_null(strstr(md, "*… and 100 more, not shown here"));
	free(md);
	/* Even a limit smaller than the heading: heading, counts, the tables'
	 * heads, nothing more. */
	md = ep_report_markdown(&ctx, &rs, 0, 1);
	assert_true(strlen(md) < 4096);
	assert_non_null(strstr(md, "| 300 | 0 | 200 | 0 | 0 | 100 | 0 |\n"));
	free(md);
	free(v);
	free(w);
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
	/* A blank line before ours, whatever the file ends with: an HTML
	 * block left open ends only at one. */
	f = fopen(path, "a");
	fputs("<div>", f);
	fclose(f);
	assert_int_equal(ep_report_append(path, "# two\n", &err), 0);
	assert_int_equal(ep_report_append(path, "# three\n\n", &err), 0);
	assert_int_equal(ep_report_append(path, "# four\n", &err), 0);
	assert_int_equal(ep_read_file(&text, &len, path, 4096, &err), 0);
	assert_string_equal(text, "# one\n<div>\n\n# two\n\n# three\n\n"
	    "# four\n");
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
		cmocka_unit_test(test_markdown_verdicts),
		cmocka_unit_test(test_markdown_budget),
		cmocka_unit_test(test_annotations),
		cmocka_unit_test(test_append),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
