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
#include "str.h"
#include "xalloc.h"

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
	line_is("\xc2\x9b" "2J", "<U+009B>2J");		/* C1 CSI */
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

/* Append the UTF-8 of c to o. */
static char *
put_utf8(char *o, uint32_t c)
{
	if (c < 0x80)
		*o++ = (char)c;
	else if (c < 0x800) {
		*o++ = (char)(0xc0 | (c >> 6));
		*o++ = (char)(0x80 | (c & 0x3f));
	} else if (c < 0x10000) {
		*o++ = (char)(0xe0 | (c >> 12));
		*o++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*o++ = (char)(0x80 | (c & 0x3f));
	} else {
		*o++ = (char)(0xf0 | (c >> 18));
		*o++ = (char)(0x80 | ((c >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((c >> 6) & 0x3f));
		*o++ = (char)(0x80 | (c & 0x3f));
	}
	return o;
}

/* The inverse of ep_text_clean on what it writes: "<U+X>" is the code
 * point X, a Control Picture the control it stands for, anything else
 * itself.  That there is one is what makes two keys stay two. */
static char *
unclean(const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t n = strlen(s);
	char *out = xmalloc(n + 1), *o = out, *end;
	uint32_t c;

	for (size_t i = 0, k; i < n; i += k) {
		if (strncmp(s + i, "<U+", 3) == 0) {
			c = (uint32_t)strtoul(s + i + 3, &end, 16);
			assert_true(end > s + i + 3 && *end == '>');
			k = (size_t)(end + 1 - (s + i));
		} else {
			assert_true((k = ep_utf8_decode(u + i, n - i, &c)) > 0);
			if (c >= 0x2400 && c <= 0x241f)
				c -= 0x2400;
			else if (c == 0x2421)
				c = 0x7f;
		}
		o = put_utf8(o, c);
	}
	*o = '\0';
	return out;
}

static void
round_trip(const char *in, int keep_lines)
{
	char *c = ep_text_clean(in, keep_lines), *back = unclean(c);

	if (strcmp(back, in) != 0)
		fail_msg("ep_text_clean(\"%s\", %d) = \"%s\", which reads back "
		    "as \"%s\"", in, keep_lines, c, back);
	free(back);
	free(c);
}

static void
test_text_clean_injective(void **state)
{
	/* What a clean text is made of, and what could pass for it. */
	static const char *piece[] = {
		"a", "U", "+", "<", ">", "<U+", "2401", "<U+2401>", "0085",
		"\x01", "\x1b", "\t", "\n", "\r", "\x7f",
		"\xe2\x90\x81", "\xe2\x90\x8a", "\xe2\x90\x9b", "\xe2\x90\xa1",
		"\xe2\x90\xa4", "\xc2\x85", "\xc2\x9b", "\xef\xbf\xbd",
		"\xef\xbf\xbe", "\xef\xbf\xbf", "\xe2\x80\x8b", "\xe2\x80\xae",
		"\xf3\xa0\x80\x81", "\xc3\xa9", "::", "##[",
	};
	const size_t np = sizeof piece / sizeof piece[0];
	uint32_t seed = 1;
	char *a, *b, buf[256];

	(void)state;
	/* Two keys a report once showed as one testcase. */
	a = ep_text_clean("env.X\x01", 1);
	b = ep_text_clean("env.X\xe2\x90\x81", 1);
	assert_string_equal(a, "env.X\xe2\x90\x81");
	assert_string_equal(b, "env.X<U+2401>");
	free(a);
	free(b);
	a = ep_text_clean("<U+200B>", 0);
	b = ep_text_clean("\xe2\x80\x8b", 0);
	assert_string_equal(a, "<U+003C>U+200B>");
	assert_string_equal(b, "<U+200B>");
	free(a);
	free(b);
	/* Every string of up to eight pieces, drawn at random, reads back:
	 * no two clean to the same text. */
	for (int t = 0; t < 20000; t++) {
		size_t len = 0;
		int n;

		seed = seed * 1103515245 + 12345;
		n = (int)((seed >> 16) % 9);
		for (int i = 0; i < n; i++) {
			const char *p;

			seed = seed * 1103515245 + 12345;
			p = piece[(seed >> 16) % np];
			memcpy(buf + len, p, strlen(p));
			len += strlen(p);
		}
		buf[len] = '\0';
		round_trip(buf, 0);
		round_trip(buf, 1);
	}
}

static void
nocmd_is(const char *in, const char *want)
{
	char *got = ep_text_nocmd(in);

	if (strcmp(got, want) != 0)
		fail_msg("ep_text_nocmd(\"%s\") = \"%s\", want \"%s\"", in, got,
		    want);
	free(got);
}

static void
test_text_nocmd(void **state)
{
	(void)state;
	/* Lines stay lines; no "::" and no "##[" anywhere, whatever a
	 * reader cuts out of the text or drops from it. */
	nocmd_is("2\n::stop-commands::tok", "2\n:<U+003A>stop-commands:<U+003A>tok");
	nocmd_is(" \t::set-output name=x::y", " \t:<U+003A>set-output name=x:<U+003A>y");
	nocmd_is("a\r::error::cr", "a\r:<U+003A>error:<U+003A>cr");
	nocmd_is("envparity.::add-mask::x", "envparity.:<U+003A>add-mask:<U+003A>x");
	nocmd_is("x ##[error]y", "x ##<U+005B>error]y");
	nocmd_is(":::", ":<U+003A><U+003A>");
	nocmd_is("###[", "###<U+005B>");
	/* An emoji or a CR between them: a reader may drop it. */
	nocmd_is("#\xf0\x9f\x98\x80#[w", "#\xf0\x9f\x98\x80#<U+005B>w");
	nocmd_is(":\xe2\x98\x83:x", ":\xe2\x98\x83<U+003A>x");
	nocmd_is("#\r#[x", "#\r#<U+005B>x");
	/* What is no command stays. */
	nocmd_is("a:b # [c] #x[ [##", "a:b # [c] #x[ [##");
	nocmd_is("caf\xc3\xa9 1.26.4", "caf\xc3\xa9 1.26.4");
	nocmd_is(NULL, "");
	/* The other cleaning is ep_text_clean's. */
	nocmd_is("\x1b[2J\xe2\x80\xae", "\xe2\x90\x9b[2J<U+202E>");
}

/* Read back as a reader that drops what vanishes would print it. */
static void
nocmd_round_trip(const char *in)
{
	char *c = ep_text_nocmd(in), *back = unclean(c), *seen, *o;

	if (strcmp(back, in) != 0)
		fail_msg("ep_text_nocmd(\"%s\") = \"%s\", which reads back as "
		    "\"%s\"", in, c, back);
	seen = o = xstrdup(c);
	for (const char *p = c; *p != '\0'; p++)
		if ((unsigned char)*p < 0x80 && *p != '\r')
			*o++ = *p;
	*o = '\0';
	if (strstr(seen, "::") != NULL || strstr(seen, "##[") != NULL)
		fail_msg("ep_text_nocmd(\"%s\") = \"%s\"", in, c);
	free(seen);
	free(back);
	free(c);
}

static void
test_text_nocmd_injective(void **state)
{
	static const char *piece[] = {
		":", "::", "#", "##", "[", "##[", "<U+", "<U+003A>", "003A>",
		"\r", "\n", " ", "\t", "\xf0\x9f\x98\x80", "\xc2\xa0", "a",
		"\\", "<",
	};
	const size_t np = sizeof piece / sizeof piece[0];
	uint32_t seed = 7;
	char buf[256];

	(void)state;
	/* Two keys that differ only in the written-out form are two. */
	nocmd_round_trip("a::b");
	nocmd_round_trip("a:<U+003A>b");
	for (int t = 0; t < 20000; t++) {
		size_t len = 0;
		int n;

		seed = seed * 1103515245 + 12345;
		n = (int)((seed >> 16) % 9);
		for (int i = 0; i < n; i++) {
			const char *p;

			seed = seed * 1103515245 + 12345;
			p = piece[(seed >> 16) % np];
			memcpy(buf + len, p, strlen(p));
			len += strlen(p);
		}
		buf[len] = '\0';
		nocmd_round_trip(buf);
	}
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
		cmocka_unit_test(test_text_clean_injective),
		cmocka_unit_test(test_text_nocmd),
		cmocka_unit_test(test_text_nocmd_injective),
		cmocka_unit_test(test_json_clean),
		cmocka_unit_test(test_xml_clean),
		cmocka_unit_test(test_scrub_userinfo),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
