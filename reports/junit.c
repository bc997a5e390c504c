/*
 * junit.c: the JUnit XML report, in the shape Ant wrote and Jenkins
 * (junit, and xunit's junit-10.xsd), GitLab, EnricoMi/publish-unit-test-
 * result-action, dorny/test-reporter and mikepenz/action-junit-report read
 * (manifests/junit.xsd, manifests/junit-jenkins-10.xsd):
 *
 *   <testsuites name="envparity" tests failures errors time>
 *     <testsuite name="AREA" tests failures errors skipped time timestamp
 *         hostname id package>		one per area with results
 *       <properties>				where the golden came from
 *       <testcase name="KEY" classname="envparity.AREA" time="0.000">
 *
 * For `fleet` the suites are one per node (name and hostname the node's,
 * classname "envparity.NODE.AREA") and one named "fleet" for the fleet's
 * own results, so that a test view lists the nodes.
 *
 * Every testsuite carries name, tests, failures, errors, skipped, time and
 * timestamp: some readers reject a suite without them; the root carries
 * only what xunit's schema allows there.  A fail is a <failure>, an error
 * an <error>, a skip a <skipped message="why">; a warning and a waived
 * finding, which are seen but never fail the run, are <skipped> of type
 * "warn" and "waived" (pytest's convention for an expected failure), the
 * one outcome every one of those readers shows without failing.
 * Text is cleaned (ep_text_nocmd, clean.h) before libxml2's writer
 * escapes it: the writer escapes markup but passes control characters
 * and broken UTF-8 through, and those would make the file unreadable as
 * XML 1.0.  And readers print what they decode into the job's log
 * (dorny/test-reporter its whole summary, each message line after a tab;
 * mikepenz/action-junit-report a message's first line after the last
 * '.'-separated part of the classname): an XML escape ("&#58;") is
 * decoded back, so no text holds "::" or "##[" at all, the second ':'
 * and the '[' written out as "<U+003A>" and "<U+005B>".  The document
 * itself goes through ep_xml_clean, for a `cat` of it in a log.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "report.h"
#include "version.h"
#include "errors.h"
#include "xalloc.h"

struct jw {
	xmlTextWriterPtr w;
	int bad;		/* a libxml2 call failed (out of memory) */
};

static void
start(struct jw *j, const char *name)
{
	if (xmlTextWriterStartElement(j->w, BAD_CAST name) < 0)
		j->bad = 1;
}

static void
end(struct jw *j)
{
	if (xmlTextWriterEndElement(j->w) < 0)
		j->bad = 1;
}

static void
attr(struct jw *j, const char *name, const char *value)
{
	char *c = ep_text_nocmd(value);

	if (xmlTextWriterWriteAttribute(j->w, BAD_CAST name, BAD_CAST c) < 0)
		j->bad = 1;
	free(c);
}

static void __attribute__((format(printf, 3, 4)))
attrf(struct jw *j, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	attr(j, name, s);
	free(s);
}

static void
text(struct jw *j, const char *s)
{
	char *c = ep_text_nocmd(s);

	if (xmlTextWriterWriteString(j->w, BAD_CAST c) < 0)
		j->bad = 1;
	free(c);
}

static void
property(struct jw *j, const char *name, const char *value)
{
	if (value == NULL)
		return;
	start(j, "property");
	attr(j, "name", name);
	attr(j, "value", value);
	end(j);
}

static const char *
or_absent(const char *s)
{
	return s != NULL ? s : "(absent)";
}

/* The counts of rs->v[from, to). */
static void
count(const struct ep_results *rs, size_t from, size_t to,
    size_t c[EP_NSTATUS])
{
	memset(c, 0, EP_NSTATUS * sizeof c[0]);
	for (size_t i = from; i < to; i++)
		if (rs->v[i].status >= 0 && rs->v[i].status < EP_NSTATUS)
			c[rs->v[i].status]++;
}

/* tests, failures, errors, skipped, time, timestamp; when is NULL for
 * the root, where xunit's junit-10.xsd allows neither skipped nor
 * timestamp.  JUnit's skipped is envparity's skip, warn and waived: none
 * of them fails the run. */
static void
totals(struct jw *j, const size_t c[EP_NSTATUS], double time,
    const char *when)
{
	size_t n = 0;

	for (int i = 0; i < EP_NSTATUS; i++)
		n += c[i];
	attrf(j, "tests", "%zu", n);
	attrf(j, "failures", "%zu", c[EP_FAIL]);
	attrf(j, "errors", "%zu", c[EP_ERROR]);
	if (when != NULL)
		attrf(j, "skipped", "%zu", c[EP_SKIP] + c[EP_WARN] +
		    c[EP_WAIVED]);
	attrf(j, "time", "%.3f", time);
	if (when != NULL)
		attr(j, "timestamp", when);
}

/* Where the golden came from, on every suite: a reader that shows one
 * suite (GitLab, Jenkins) shows it whole. */
/* Why the current side could not look at area, or NULL. */
static const char *
unavailable(const struct ep_report_ctx *ctx, const char *area)
{
	for (size_t i = 0; i < ctx->nunavailable; i++)
		if (strcmp(ctx->unavailable[i].area, area) == 0)
			return ctx->unavailable[i].why;
	return NULL;
}

static void
suite_properties(struct jw *j, const struct ep_report_ctx *ctx,
    const char *area)
{
	start(j, "properties");
	property(j, "envparity.version", EP_VERSION);
	property(j, "envparity.command", ctx->command);
	property(j, "golden", ctx->golden_name);
	property(j, "golden.store", ctx->golden_store);
	property(j, "golden.ref", ctx->golden_ref);
	property(j, "golden.commit", ctx->golden_commit);
	property(j, "golden.profile", ctx->golden_profile);
	property(j, "current", ctx->current_name);
	/* Why a whole area could not be looked at here (no GPU). */
	property(j, "unavailable", unavailable(ctx, area));
	end(j);
}

static void
details(struct jw *j, const struct ep_result *r)
{
	char *s;

	s = xasprintf("%s\nkey:      %s\nexpected: %s\nactual:   %s\n"
	    "rule:     %s\n", r->message != NULL ? r->message : r->key, r->key,
	    or_absent(r->expected), or_absent(r->actual),
	    r->rule != NULL ? r->rule : "(none)");
	text(j, s);
	free(s);
	if (r->waiver_owner != NULL || r->waiver_reason != NULL ||
	    r->waiver_expires != NULL) {
		s = xasprintf("waiver:   owner %s, expires %s, reason: %s\n",
		    or_absent(r->waiver_owner), or_absent(r->waiver_expires),
		    or_absent(r->waiver_reason));
		text(j, s);
		free(s);
	}
}

static void
testcase(struct jw *j, const struct ep_result *r)
{
	char *s;

	start(j, "testcase");
	attr(j, "name", *r->key != '\0' ? r->key : "(empty key)");
	if (r->node != NULL)
		attrf(j, "classname", "envparity.%s.%s", r->node, r->area);
	else
		attrf(j, "classname", "envparity.%s", r->area);
	attr(j, "time", "0.000");
	switch (r->status) {
	case EP_FAIL:
		start(j, "failure");
		s = xasprintf("expected %s, got %s (rule %s)",
		    or_absent(r->expected), or_absent(r->actual),
		    r->rule != NULL ? r->rule : "(none)");
		attr(j, "message", s);
		free(s);
		attr(j, "type", "drift");
		details(j, r);
		end(j);
		break;
	case EP_ERROR:
		start(j, "error");
		attr(j, "message", ep_result_reason(r));
		attr(j, "type", "error");
		details(j, r);
		end(j);
		break;
	case EP_SKIP:
		start(j, "skipped");
		attr(j, "message", ep_result_reason(r));
		end(j);
		break;
	case EP_WARN:
		/* Seen in every test view, never failing it. */
		start(j, "skipped");
		attr(j, "type", "warn");
		s = xasprintf("warning: %s", ep_result_reason(r));
		attr(j, "message", s);
		free(s);
		details(j, r);
		end(j);
		break;
	case EP_WAIVED:
		/*
		 * JUnit has no "waived".  A <failure> would turn the test view
		 * red while envparity exits 0; a passing case is what every
		 * reader shows as a plain pass, the finding hidden.  pytest
		 * writes an expected failure (xfail) as a skip that says why:
		 * so does envparity, naming who waived it until when.
		 */
		start(j, "skipped");
		attr(j, "type", "waived");
		s = xasprintf("waived by %s until %s: %s",
		    or_absent(r->waiver_owner), or_absent(r->waiver_expires),
		    or_absent(r->waiver_reason));
		attr(j, "message", s);
		free(s);
		details(j, r);
		end(j);
		break;
	}
	end(j);
}

static int
same_suite(const struct ep_report_ctx *ctx, const struct ep_result *a,
    const struct ep_result *b)
{
	if (ctx->fleet == NULL)
		return strcmp(a->area, b->area) == 0;
	if (a->node == NULL || b->node == NULL)
		return a->node == b->node;
	return strcmp(a->node, b->node) == 0;
}

int
ep_report_junit(char **out, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, struct ep_err *err)
{
	struct jw j = { 0 };
	xmlBufferPtr buf;
	size_t c[EP_NSTATUS];
	char when[32];
	struct tm tm;
	int id = 0;

	*out = NULL;
	/* Ant's form, with no zone (its schema's pattern); the time is UTC,
	 * as the JSON report's generated_at says with its "Z". */
	gmtime_r(&ctx->generated, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
	if ((buf = xmlBufferCreate()) == NULL ||
	    (j.w = xmlNewTextWriterMemory(buf, 0)) == NULL) {
		xmlBufferFree(buf);
		return ep_err_set(err, EP_E_IO, "cannot render the JUnit "
		    "report: out of memory");
	}
	xmlTextWriterSetIndent(j.w, 1);
	xmlTextWriterSetIndentString(j.w, BAD_CAST "  ");
	if (xmlTextWriterStartDocument(j.w, "1.0", "UTF-8", NULL) < 0)
		j.bad = 1;
	start(&j, "testsuites");
	attr(&j, "name", "envparity");
	count(rs, 0, rs->n, c);
	totals(&j, c, ctx->elapsed, NULL);
	/* rs is sorted by node, then area: each run of one area (of one
	 * node, for the fleet) is a suite. */
	for (size_t i = 0, k; i < rs->n; i = k) {
		for (k = i; k < rs->n && same_suite(ctx, &rs->v[k],
		    &rs->v[i]); k++)
			;
		start(&j, "testsuite");
		attr(&j, "name", ctx->fleet == NULL ? rs->v[i].area :
		    rs->v[i].node != NULL ? rs->v[i].node : "fleet");
		count(rs, i, k, c);
		totals(&j, c, 0.0, when);
		attr(&j, "hostname", rs->v[i].node != NULL ? rs->v[i].node :
		    ctx->host);
		attrf(&j, "id", "%d", id++);
		attr(&j, "package", "envparity");
		suite_properties(&j, ctx, rs->v[i].area);
		for (size_t t = i; t < k; t++)
			testcase(&j, &rs->v[t]);
		end(&j);
	}
	end(&j);
	if (xmlTextWriterEndDocument(j.w) < 0)
		j.bad = 1;
	xmlFreeTextWriter(j.w);
	if (!j.bad)
		*out = ep_xml_clean((const char *)xmlBufferContent(buf),
		    (size_t)xmlBufferLength(buf));
	xmlBufferFree(buf);
	if (*out == NULL)
		return ep_err_set(err, EP_E_IO, "cannot render the JUnit "
		    "report");
	return 0;
}

const char *
ep_report_library_version(void)
{
	/* The library loaded, not the headers built against. */
	static char buf[64];

	if (buf[0] == '\0') {
		int v = atoi(xmlParserVersion);

		snprintf(buf, sizeof buf, "libxml2 %d.%d.%d", v / 10000,
		    v / 100 % 100, v % 100);
	}
	return buf;
}
