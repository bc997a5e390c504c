/*
 * report.h: the writers that render results (DESIGN.md: reports only
 * render results): JSON (json.c, the fleet's object in fleet_json.c),
 * JUnit XML (junit.c), Markdown (markdown.c), Prometheus (prom.c),
 * GitHub Actions' step summary and annotations (github.c), the human
 * summary (summary.c).  The four a file is asked for are rows of one
 * table, ep_report_writers, that reports.c loops over.  Every report is
 * rendered to memory first, then each is written to a temporary file
 * beside the target and renamed (reports.c), so a crash or a full disk
 * never leaves a half report.  Untrusted text passes through text.c on
 * the way.
 */
#ifndef EP_REPORT_H
#define EP_REPORT_H

#include <stdio.h>
#include <time.h>

#include <jansson.h>

#include "clean.h"
#include "results.h"
#include "fleetview.h"
#include "manifest.h"

#define EP_REPORT_SCHEMA "envparity/report@1"

/* A report lists at most this many results (errors, failures, waivers
 * and skips first) and says how many more there were: a lockfile flood
 * must not become gigabytes of reports. */
#define EP_REPORT_RESULTS_MAX	10000

/* The human summary prints at most this many lines of each status. */
#define EP_SUMMARY_LINES_MAX	100

/* One area the current side could not look at, and why (its
 * manifest's meta.unavailable.<area>); both borrowed. */
struct ep_report_unavailable {
	const char *area;
	const char *why;
};

/* What the results were of: a check against a golden from a store, or a
 * diff of two manifests.  Writers render this and the results, and read
 * nothing else: no manifest, no environment, no clock, not the machine's
 * name.  What they need of those, ep_reports_finish fills in once, before
 * any of them runs (the fields under "filled by ep_reports_finish"). */
struct ep_report_ctx {
	const char *command;		/* "check", "diff", "fleet", "probe" */
	const char *golden_name;	/* a file, or STORE#REF:PROFILE; NULL
					   when there is none (probe) */
	const char *golden_store;	/* NULL for a file */
	const char *golden_ref;
	const char *golden_commit;
	const char *golden_profile;
	const char *current_name;	/* "this machine" or a file or spec */
	const struct ep_manifest *current;	/* ep_reports_finish reads
						   its meta.unavailable into
						   unavailable; no writer
						   reads it; may be NULL */
	time_t generated;
	int exit_status;
	size_t omitted[EP_NSTATUS];	/* results not listed
					   (EP_REPORT_RESULTS_MAX) */
	double elapsed;		/* seconds the run took; ep_reports_finish
				   fills it when 0 */
	const struct ep_fleet_view *fleet;	/* `fleet`: the nodes and the
						   splits; NULL otherwise */
	int stdout_taken;	/* another output of the command went to
				   standard output (check -o -, --attest
				   -): the summary goes to standard error */
	int own_summary;	/* the command prints its own summary
				   (probe): ep_reports_finish prints none */
	/* Filled by ep_reports_finish: */
	char host[256];		/* this machine's name; "unknown" when it
				   has none */
	const struct ep_report_unavailable *unavailable;	/* the areas
				   current could not look at, nunavailable of
				   them; owned by ep_reports_finish */
	size_t nunavailable;
	time_t ended;		/* when the run ended (the Prometheus
				   report's last run time) */
};

/* A report format (curl's struct Curl_ssl is the model: one descriptor
 * per backend, and the code above them loops over the table): its name,
 * the option that names its file and where struct ep_reportopt keeps
 * that file, and how it is rendered.  reports.c checks, renders and
 * writes every format by looping over ep_report_writers; adding a format
 * is a row there and the writer's own file (with its render function's
 * prototype below). */
enum ep_report_format {
	EP_REPORT_JSON,
	EP_REPORT_JUNIT,
	EP_REPORT_MARKDOWN,
	EP_REPORT_PROM,
	EP_REPORT_NFORMATS
};

struct ep_report_writer {
	const char *name;	/* "json" */
	const char *option;	/* "--json" */
	size_t path_offset;	/* offsetof(struct ep_reportopt, the
				   format's path) */
	/* The whole report as text in *out (owned by the caller; NULL on
	 * failure, when err says why, EP_E_IO). */
	int (*render)(char **out, const struct ep_report_ctx *ctx,
	    const struct ep_results *rs, struct ep_err *err);
};

/* Indexed by enum ep_report_format, in the order reports are checked,
 * rendered and written. */
extern const struct ep_report_writer ep_report_writers[EP_REPORT_NFORMATS];

/* The JSON report (manifests/report.schema.json) as text; *out is owned
 * by the caller. */
int ep_report_json(char **out, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, struct ep_err *err);

/* Write it to path atomically (EP_E_IO naming the path on failure). */
int ep_report_json_write(const char *path, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, struct ep_err *err);

/* s (NULL: JSON null) as a JSON string, invalid UTF-8 replaced; new. */
json_t *ep_report_str(const char *s);

/* The "fleet" object of the fleet's JSON report (fleet_json.c): the node
 * counts, every node with its verdict, every split with its value groups
 * and likely causes.  A new reference. */
json_t *ep_report_fleet_json(const struct ep_fleet_view *v);

/* rs's ignored changes (rs->ign) as a JSON array of key, expected,
 * actual, reason: check's "ignored_changes", and each fleet node's. */
json_t *ep_report_ignored_json(const struct ep_results *rs);

/* At most this many envparity_fact_failed series (one per failing key)
 * in a --prom file; envparity_facts_failed_omitted counts the rest. */
#define EP_PROM_FACTS_MAX	20

/* Prometheus text exposition (prom.c) for node_exporter's textfile
 * collector: counts per status, a drift gauge for the profile (and per
 * node for the fleet), a series per failing key (EP_PROM_FACTS_MAX at
 * most, the rest counted), odd facts per node, nodes missing, the run's end
 * (ctx->ended) as a gauge value (the collector refuses sample
 * timestamps); HELP and TYPE once per metric, no series twice, label
 * values escaped.  *out is a new string; never fails. */
int ep_report_prom(char **out, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, struct ep_err *err);

/* The human summary for standard output (summary.c): the verdict, then
 * unless brief what failed, what was waived and what was skipped, then the
 * counts. */
void ep_report_summary(FILE *f, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, int brief);

/* The JUnit XML report (manifests/junit.xsd): one testsuite per result
 * area, one testcase per result.  *out is owned by the caller; fails
 * (EP_E_IO) only if libxml2 cannot render. */
int ep_report_junit(char **out, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, struct ep_err *err);

/* The Markdown report: the verdict and the golden, the counts, what
 * drifted, what warned, what was waived, what was skipped.  max_rows
 * limits each table (0: no limit); max_bytes (0: no limit) bounds the
 * whole: rows are cut, from the first that does not fit, with "… and N
 * more", so that the report stays within max_bytes (GitHub's step summary
 * takes at most 1 MiB), the heading, the counts and each table's head
 * always shown.  A new string. */
char *ep_report_markdown(const struct ep_report_ctx *ctx,
    const struct ep_results *rs, size_t max_rows, size_t max_bytes);

/* The Markdown report unbounded, for --markdown (ep_report_writers);
 * *out is a new string; never fails. */
int ep_report_markdown_render(char **out, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, struct ep_err *err);

/* GitHub Actions workflow commands (::error, ::notice) for the failures,
 * errors and waivers in rs, at most a screenful, on f (standard error:
 * standard output carries the human summary only). */
void ep_report_annotations(FILE *f, const struct ep_results *rs);

/* Append text to the file at path (GitHub's $GITHUB_STEP_SUMMARY) in one
 * write, after a blank line when the file has content; on failure the
 * file is cut back to its old length and err (EP_E_IO) names the path. */
int ep_report_append(const char *path, const char *text, struct ep_err *err);

/* "libxml2 2.9.14", for `envparity version` (junit.c). */
const char *ep_report_library_version(void);

/*
 * text.c: every string from a fact or a manifest goes through these.
 */
/* ep_text_clean (clean.h) makes a value safe for every report. */

/* An unbroken run of this many characters in a Markdown cell gets a
 * <wbr> (a place the browser may break the line). */
#define EP_MD_WRAP	32

/* s (NULL as "") cleaned (ep_text_clean: a newline shows as U+240A, a CR
 * as U+240D), cut to max bytes (0: no limit) with an ellipsis, and
 * escaped to be literal text in a Markdown table cell: | as \|, HTML and
 * Markdown syntax as entities or backslash escapes, and a <wbr> after
 * "://" and "@", before the dot of "www." and in every EP_MD_WRAP
 * characters without a space, so that no value becomes a link (GFM's
 * autolinks) or widens a table past the page.  A new string. */
char *ep_md_escape(const char *s, size_t max);

/* s (NULL as "") cleaned and escaped for a GitHub workflow command: %,
 * CR and LF as %25, %0D, %0A; in a property (title=) also ':' and ','.
 * A new string. */
char *ep_gh_escape(const char *s, int property);

/* Why a result was skipped or errored: its message without the leading
 * "KEY: " producers write (borrowed; "" when there is none). */
const char *ep_result_reason(const struct ep_result *r);

/* The report options check and diff share, like capture.h's. */
struct ep_reportopt {
	const char *json;
	const char *junit;
	const char *markdown;
	const char *prom;
};

/* Whether every report path can take a report (outfile.h's rule: "-"
 * is standard output; a link, device, FIFO or directory is refused with
 * EP_E_INPUT; a missing directory is EP_E_IO) and no two name the same
 * output (EP_E_INPUT).  Commands call it before doing the work. */
int ep_reports_check(const struct ep_reportopt *o, struct ep_err *err);

/* Fill err (EP_E_INPUT) for two outputs, named what1 and what2, given
 * the same path: "--json and -o both asked for standard output; only one
 * output can take it" for a stream, "PATH: given for --json and -o"
 * otherwise; returns -1. */
int ep_reports_clash(struct ep_err *err, const char *path, const char *what1,
    const char *what2);

/* 1 when a report goes to standard output ("-", /dev/stdout): the human summary then
 * goes to standard error. */
int ep_reports_to_stdout(const struct ep_reportopt *o);

/* Render every report asked for (ctx as ep_reports_finish fills it) to
 * memory, check the paths
 * (ep_reports_check), then write each under outfile.h's rule, then
 * append the Markdown to $GITHUB_STEP_SUMMARY when that is set.  Stops at
 * the first that fails (err names its path); reports written before it
 * stay whole, the failed one is left as it was. */
int ep_reports_write(const struct ep_reportopt *o,
    const struct ep_report_ctx *ctx, const struct ep_results *rs,
    struct ep_err *err);

/* What check, diff, fleet and probe do last: fill what the writers are
 * given (ctx->host, ctx->unavailable from ctx->current, ctx->ended,
 * ctx->elapsed), sort rs, set ctx->exit_status from it,
 * keep at most EP_REPORT_RESULTS_MAX results (ep_results_truncate; the
 * cut is counted in ctx->omitted and shown as a "report.omitted" skip),
 * write every report asked for, print GitHub annotations on standard
 * error when GITHUB_ACTIONS=true, print the summary on standard output
 * (standard error when a report goes to standard output, or
 * ctx->stdout_taken says another output did).
 * Returns the exit status, or -1 with err when a report cannot be written
 * (then nothing is printed).  ctx->unavailable is freed and NULL again
 * when it returns. */
int ep_reports_finish(struct ep_report_ctx *ctx, struct ep_results *rs,
    const struct ep_reportopt *o, int brief, struct ep_err *err);

#endif
