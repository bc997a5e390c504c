/* test_report_junit.c: the JUnit XML report is well-formed XML 1.0 that
 * validates against manifests/junit.xsd and the Jenkins xunit plugin's
 * junit-10.xsd whatever bytes the facts held, with the counts, outcomes
 * and waivers a CI test view shows. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlschemas.h>
#include <libxml/xpath.h>

#include "report.h"
#include "xalloc.h"

/* Every status, and every kind of hostile text: markup, a CDATA end,
 * control characters, an ANSI escape, invalid UTF-8, a C1 CSI, U+FFFF. */
static void
fill(struct ep_results *rs)
{
	struct ep_result r = { 0 };

	r.key = "python.pkg.numpy";
	r.status = EP_FAIL;
	r.expected = "1.26.4";
	r.actual = "2.0.0";
	r.rule = "exact";
	r.message = "python.pkg.numpy: expected 1.26.4, got 2.0.0";
	ep_results_add(rs, &r);
	memset(&r, 0, sizeof r);
	r.key = "python.pkg.evil]]><&\"'\x01\x1b[31m";
	r.status = EP_FAIL;
	r.expected = "]]><b>&amp;\"'\x02\x1b[0m\x7f";
	r.actual = "bad \xff\xfe utf-8 \xc2\x9b csi \xef\xbf\xbf end\x0b\x0c";
	r.rule = "exact";
	r.message = "evil\r\nline";
	ep_results_add(rs, &r);
	memset(&r, 0, sizeof r);
	r.key = "lib.x.version";
	r.status = EP_WAIVED;
	r.expected = "1";
	r.actual = "2";
	r.rule = "exact";
	r.message = "lib.x.version: expected 1, got 2; waived by ml-platform "
	    "until 2099-12-31: known";
	r.waiver_reason = "known \x1b[1m";
	r.waiver_owner = "ml-platform";
	r.waiver_expires = "2099-12-31";
	ep_results_add(rs, &r);
	memset(&r, 0, sizeof r);
	r.key = "stack.driver_min";
	r.status = EP_ERROR;
	r.expected = ">=580";
	r.actual = "bogus";
	r.rule = "check:driver-min";
	r.message = "stack.driver_min: gpu.driver.version \"bogus\" is not a "
	    "version";
	ep_results_add(rs, &r);
	memset(&r, 0, sizeof r);
	for (int i = 0; i < 2; i++) {
		char key[32];

		snprintf(key, sizeof key, "gpu.%d.name", i);
		r.key = key;
		r.status = EP_SKIP;
		r.expected = "NVIDIA H100";
		r.message = xasprintf("%s: not checked here: no GPU on this "
		    "runner", key);
		ep_results_add(rs, &r);
		free(r.message);
	}
	memset(&r, 0, sizeof r);
	r.key = "os.name";
	r.status = EP_PASS;
	r.expected = r.actual = "Debian";
	r.rule = "exact";
	ep_results_add(rs, &r);
	ep_results_sort(rs);
}

static char *
render(struct ep_results *rs)
{
	struct ep_report_ctx ctx = { 0 };
	char *s;

	ctx.command = "check";
	ctx.golden_name = "store#main:default";
	ctx.golden_store = "store";
	ctx.golden_ref = "main";
	ctx.golden_profile = "default";
	ctx.golden_commit = "0123456789abcdef0123456789abcdef01234567";
	ctx.current_name = "this machine";
	ctx.generated = 1795000000;
	ctx.elapsed = 1.25;
	ctx.exit_status = ep_results_exit(rs);
	assert_int_equal(ep_report_junit(&s, &ctx, rs, NULL), 0);
	return s;
}

static char *
xpath_str(xmlDocPtr doc, const char *expr)
{
	xmlXPathContextPtr x = xmlXPathNewContext(doc);
	xmlXPathObjectPtr o = xmlXPathEvalExpression(BAD_CAST expr, x);
	char *s;

	assert_non_null(o);
	s = (char *)xmlXPathCastToString(o);
	xmlXPathFreeObject(o);
	xmlXPathFreeContext(x);
	return s;
}

static void
assert_xpath(xmlDocPtr doc, const char *expr, const char *want)
{
	char *s = xpath_str(doc, expr);

	if (strcmp(s, want) != 0)
		fail_msg("%s: got \"%s\", want \"%s\"", expr, s, want);
	xmlFree(s);
}

/* Strict parse: no recovery, so anything XML 1.0 forbids fails it. */
static void
test_wellformed_and_counts(void **state)
{
	struct ep_results rs = { 0 };
	char *s, *v;
	xmlDocPtr doc;

	(void)state;
	fill(&rs);
	s = render(&rs);
	/* Nothing a terminal acts on, no forbidden byte, no raw CR. */
	for (const unsigned char *p = (unsigned char *)s; *p; p++)
		assert_true(*p >= 0x20 || *p == '\n');
	assert_null(strstr(s, "]]>"));
	doc = xmlReadMemory(s, (int)strlen(s), "r.xml", NULL,
	    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	assert_non_null(doc);
	assert_xpath(doc, "string(/testsuites/@name)", "envparity");
	assert_xpath(doc, "string(/testsuites/@tests)", "7");
	assert_xpath(doc, "string(/testsuites/@failures)", "2");
	assert_xpath(doc, "string(/testsuites/@errors)", "1");
	/* xunit's junit-10.xsd allows neither on the root. */
	assert_xpath(doc, "count(/testsuites/@skipped)", "0");
	assert_xpath(doc, "string(/testsuites/@time)", "1.250");
	assert_xpath(doc, "count(/testsuites/@timestamp)", "0");
	assert_xpath(doc, "string(//testsuite[@name='gpu']/@timestamp)",
	    "2026-11-18T11:06:40");
	/* JUnit's skipped: skip, warn and waived. */
	assert_xpath(doc, "sum(//testsuite/@skipped)", "3");
	assert_xpath(doc, "string(//testsuite[@name='lib']/@skipped)", "1");
	/* One suite per area present, each with every attribute. */
	assert_xpath(doc, "count(/testsuites/testsuite)", "5");
	assert_xpath(doc, "count(//testsuite[@name and @tests and @failures "
	    "and @errors and @skipped and @time and @timestamp])", "5");
	assert_xpath(doc, "string(//testsuite[@name='python']/"
	    "@failures)", "2");
	assert_xpath(doc, "string(//testsuite[1]/properties/"
	    "property[@name='golden.commit']/@value)",
	    "0123456789abcdef0123456789abcdef01234567");
	/* A failure says what and by which rule; details in its body. */
	assert_xpath(doc, "string(//testcase[@name='python.pkg.numpy']/"
	    "failure/@message)", "expected 1.26.4, got 2.0.0 (rule exact)");
	assert_xpath(doc, "string(//testcase[@name='python.pkg.numpy']/"
	    "@classname)", "envparity.python");
	v = xpath_str(doc, "string(//testcase[@name='python.pkg.numpy']/"
	    "failure)");
	assert_non_null(strstr(v, "expected: 1.26.4\n"));
	xmlFree(v);
	/* Hostile text: markup kept as text, controls as pictures,
	 * invalid UTF-8 as U+FFFD, C1 controls and non-characters written
	 * out. */
	assert_xpath(doc, "string(//testcase[starts-with(@name, "
	    "'python.pkg.evil')]/@name)",
	    "python.pkg.evil]]><&\"'\xe2\x90\x81\xe2\x90\x9b[31m");
	assert_xpath(doc, "string(//testcase[starts-with(@name, "
	    "'python.pkg.evil')]/failure/@message)",
	    "expected ]]><b>&amp;\"'\xe2\x90\x82\xe2\x90\x9b[0m\xe2\x90\xa1, "
	    "got bad \xef\xbf\xbd\xef\xbf\xbd utf-8 <U+009B> csi "
	    "<U+FFFF> end\xe2\x90\x8b\xe2\x90\x8c (rule exact)");
	/* A waived result is an expected failure, as pytest writes one: a
	 * skip that says who waived it until when, the finding in its body;
	 * no properties in a testcase (xunit's schema has none there). */
	assert_xpath(doc, "count(//testcase[@name='lib.x.version']/*"
	    "[self::failure or self::error])", "0");
	assert_xpath(doc, "string(//testcase[@name='lib.x.version']/"
	    "skipped/@type)", "waived");
	assert_xpath(doc, "string(//testcase[@name='lib.x.version']/"
	    "skipped/@message)", "waived by ml-platform until 2099-12-31: "
	    "known \xe2\x90\x9b[1m");
	assert_xpath(doc, "count(//testcase/properties)", "0");
	v = xpath_str(doc, "string(//testcase[@name='lib.x.version']/"
	    "skipped)");
	assert_non_null(strstr(v, "owner ml-platform, expires 2099-12-31"));
	assert_non_null(strstr(v, "actual:   2\n"));
	xmlFree(v);
	/* A skip says why; an error is an <error>. */
	assert_xpath(doc, "string(//testcase[@name='gpu.1.name']/skipped/"
	    "@message)", "not checked here: no GPU on this runner");
	assert_xpath(doc, "string(//testcase[@name='stack.driver_min']/"
	    "error/@message)", "gpu.driver.version \"bogus\" is not a version");
	assert_xpath(doc, "count(//testcase[@name='os.name']/*)", "0");
	xmlFreeDoc(doc);
	free(s);
	ep_results_clear(&rs);
}

static void
validate(const char *xsd)
{
	struct ep_results rs = { 0 };
	xmlSchemaParserCtxtPtr pc;
	xmlSchemaValidCtxtPtr vc;
	xmlSchemaPtr schema;
	xmlDocPtr doc;
	char *s;

	/* tests/run.sh runs the unit tests from the top of the tree. */
	if (access(xsd, R_OK) != 0)
		skip();
	assert_non_null(pc = xmlSchemaNewParserCtxt(xsd));
	assert_non_null(schema = xmlSchemaParse(pc));
	assert_non_null(vc = xmlSchemaNewValidCtxt(schema));
	fill(&rs);
	s = render(&rs);
	doc = xmlReadMemory(s, (int)strlen(s), "r.xml", NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	assert_int_equal(xmlSchemaValidateDoc(vc, doc), 0);
	xmlFreeDoc(doc);
	free(s);
	ep_results_clear(&rs);
	/* No results: an empty root, still valid. */
	s = render(&rs);
	doc = xmlReadMemory(s, (int)strlen(s), "r.xml", NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	assert_int_equal(xmlSchemaValidateDoc(vc, doc), 0);
	assert_non_null(strstr(s, "tests=\"0\""));
	xmlFreeDoc(doc);
	free(s);
	xmlSchemaFreeValidCtxt(vc);
	xmlSchemaFree(schema);
	xmlSchemaFreeParserCtxt(pc);
}

static void
test_schema(void **state)
{
	(void)state;
	validate("manifests/junit.xsd");
}

/* What Jenkins' xunit plugin validates a JUnit report with. */
static void
test_schema_jenkins(void **state)
{
	(void)state;
	validate("manifests/junit-jenkins-10.xsd");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wellformed_and_counts),
		cmocka_unit_test(test_schema),
		cmocka_unit_test(test_schema_jenkins),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	xmlCleanupParser();
	return rc;
}
