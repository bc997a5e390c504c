/* test_clean.c: what a printed line, a report cell and a JSON document
 * may carry of untrusted text (clean.c). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clean.h"
#include "util.h"

static void
line_is(const char *in, const char *want)
{
	char *got = ep_line_clean(in);

	if (strcmp(got, want) != 0)
		fail_msg("ep_line_clean(\"%s\") = \"%s\", want \"%s\"", in, got,
		    want);
	free(got);
}

static void
test_line_controls(void **state)
{
	(void)state;
	/* A newline or CR cannot start a new line; ESC cannot drive the
	 * terminal; tab shows too. */
	line_is("a\nb", "a\xe2\x90\x8a" "b");
	line_is("a\r::error::x", "a\xe2\x90\x8d::error::x");
	line_is("\x1b[31mred", "\xe2\x90\x9b[31mred");
	line_is("t\tab", "t\xe2\x90\x89" "ab");
	line_is("\x7f", "\xe2\x90\xa1");
	line_is("\xc2\x9b" "2J", "\xef\xbf\xbd" "2J");	/* C1 CSI */
	line_is("\xff\xfe", "\xef\xbf\xbd\xef\xbf\xbd");
	line_is(NULL, "");
}

static void
test_line_bidi_and_invisible(void **state)
{
	(void)state;
	/* Trojan Source: an override reorders what a reader sees. */
	line_is("numpy\xe2\x80\xae" "4.62.1", "numpy<U+202E>4.62.1");
	line_is("\xe2\x81\xa6x\xe2\x81\xa9", "<U+2066>x<U+2069>");
	line_is("a\xe2\x80\x8b" "b", "a<U+200B>b");		/* ZWSP */
	line_is("soft\xc2\xad" "hyphen", "soft<U+00AD>hyphen");
	line_is("\xef\xbb\xbf" "bom", "<U+FEFF>bom");
	line_is("tag\xf3\xa0\x80\x81", "tag<U+E0001>");
	line_is("sep\xe2\x80\xa8" "x", "sep<U+2028>x");
	/* Visible non-ASCII stays as it is. */
	line_is("Intel(R) Xeon\xc2\xae caf\xc3\xa9", "Intel(R) Xeon\xc2\xae caf\xc3\xa9");
}

static void
test_line_workflow_commands(void **state)
{
	(void)state;
	/* GitHub's runner trims leading white space, then reads "::". */
	line_is("::error::forged", "\\::error::forged");
	line_is("   ::stop-commands::t", "   \\::stop-commands::t");
	line_is("\xc2\xa0\xe3\x80\x80::warning::x",
	    "\xc2\xa0\xe3\x80\x80\\::warning::x");
	line_is("x ::error::not at the start", "x ::error::not at the start");
	/* The legacy syntax counts anywhere in a line. */
	line_is("value ##[add-mask]secret", "value ##\\[add-mask]secret");
	line_is("##[error]a ##[warning]b", "##\\[error]a ##\\[warning]b");
	line_is("###[x", "###\\[x");
	line_is("# #[x", "# #[x");
	/* An invisible character between the two cannot hide it: ICU, which
	 * the runner matches with, would ignore it; we show it. */
	line_is("#\xe2\x80\x8b#[add-mask]x", "#<U+200B>#[add-mask]x");
	line_is("\xe2\x80\x8b::error::x", "<U+200B>::error::x");
	/* A newline inside a value cannot start a command line either. */
	line_is("ok\n::error::forged", "ok\xe2\x90\x8a::error::forged");
}

static void
test_text_clean_keeps_lines(void **state)
{
	char *s;

	(void)state;
	s = ep_text_clean("a\nb\tc\x01\xe2\x80\xae", 1);
	assert_string_equal(s, "a\nb\tc\xe2\x90\x81<U+202E>");
	free(s);
	assert_null(ep_text_clean(NULL, 0));
}

static void
json_round_trip(const char *value)
{
	json_t *o = json_object(), *back;
	char *raw, *clean;

	json_object_set_new(o, value, json_string(value));
	raw = json_dumps(o, JSON_SORT_KEYS | JSON_INDENT(2));
	clean = ep_json_clean(raw);
	assert_null(strstr(clean, "##["));
	assert_null(strstr(clean, "\xe2\x80\xae"));
	back = json_loads(clean, 0, NULL);
	assert_non_null(back);
	assert_true(json_equal(o, back));
	json_decref(back);
	json_decref(o);
	free(raw);
	free(clean);
}

static void
test_json_clean(void **state)
{
	char *s;

	(void)state;
	json_round_trip("##[add-mask]secret");
	json_round_trip("a\xe2\x80\xae" "b");
	json_round_trip("tag\xf3\xa0\x80\x81");
	json_round_trip("[##[[x]]]");
	json_round_trip("plain caf\xc3\xa9");
	s = ep_json_clean("[\"##[x\", \"\xe2\x80\x8f\", \"\xf3\xa0\x80\x81\"]");
	assert_string_equal(s,
	    "[\"##\\u005bx\", \"\\u200f\", \"\\udb40\\udc01\"]");
	free(s);
}

static void
test_xml_clean(void **state)
{
	const char *x = "<a t=\"##[x\">\n  <b>v\n::error::forged\n"
	    "  \xc2\xa0::warning::y ##[add-mask]z</b>\n</a>\n";
	char *s = ep_xml_clean(x, strlen(x));

	(void)state;
	assert_string_equal(s, "<a t=\"##&#91;x\">\n  <b>v\n&#58;:error::forged\n"
	    "  \xc2\xa0&#58;:warning::y ##&#91;add-mask]z</b>\n</a>\n");
	free(s);
}

static void
scrub_is(const char *in, const char *want)
{
	char *got = ep_scrub_userinfo(in);

	if (strcmp(got, want) != 0)
		fail_msg("ep_scrub_userinfo(\"%s\") = \"%s\"", in, got);
	free(got);
}

static void
test_scrub_userinfo(void **state)
{
	(void)state;
	scrub_is("fetch https://user:s3cret@host/repo.git failed",
	    "fetch https://***@host/repo.git failed");
	scrub_is("https://u:p/a#b?c@d@host/x and git://h/y",
	    "https://***@host/x and git://h/y");
	scrub_is("'ssh://git@h:22/r' \"http://a@b\"",
	    "'ssh://git@h:22/r' \"http://***@b\"");
	scrub_is("git+ssh://u:pw@h/r", "git+ssh://***@h/r");
	scrub_is("https://ghp_TOKEN@github.com/o/r",
	    "https://***@github.com/o/r");
	scrub_is("no url here: user@host", "no url here: user@host");
	scrub_is("https://host/path", "https://host/path");
	scrub_is("x://@h", "x://***@h");
	scrub_is("", "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_controls),
		cmocka_unit_test(test_line_bidi_and_invisible),
		cmocka_unit_test(test_line_workflow_commands),
		cmocka_unit_test(test_text_clean_keeps_lines),
		cmocka_unit_test(test_json_clean),
		cmocka_unit_test(test_xml_clean),
		cmocka_unit_test(test_scrub_userinfo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
