/*
 * json.c: the JSON report, {"schema": "envparity/report@1", ...}: where
 * the golden came from, the exit status, counts by status, and every
 * result, byte-stable (sorted keys, two-space indent).  For `fleet` the
 * schema is envparity/fleet@1: each result names its node, and "fleet"
 * holds the nodes and the splits (fleet_json.c).  "ignored_changes"
 * lists the facts a built-in ignore rule kept out of the results that
 * differ (not judged, never silent).
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "outfile.h"
#include "report.h"
#include "version.h"
#include "errors.h"
#include "xalloc.h"

static json_t *
result_json(const struct ep_result *r)
{
	json_t *o = json_object(), *w;

	json_object_set_new(o, "key", ep_report_str(r->key));
	json_object_set_new(o, "area", ep_report_str(r->area));
	json_object_set_new(o, "status", json_string(ep_status_name(r->status)));
	json_object_set_new(o, "expected", ep_report_str(r->expected));
	json_object_set_new(o, "actual", ep_report_str(r->actual));
	json_object_set_new(o, "rule", ep_report_str(r->rule));
	json_object_set_new(o, "message", ep_report_str(r->message));
	if (r->node != NULL)
		json_object_set_new(o, "node", ep_report_str(r->node));
	if (r->waiver_reason != NULL || r->waiver_owner != NULL ||
	    r->waiver_expires != NULL) {
		w = json_object();
		json_object_set_new(w, "reason", ep_report_str(r->waiver_reason));
		json_object_set_new(w, "owner", ep_report_str(r->waiver_owner));
		json_object_set_new(w, "expires",
		    ep_report_str(r->waiver_expires));
		json_object_set_new(o, "waiver", w);
	} else
		json_object_set_new(o, "waiver", json_null());
	return o;
}

/* Counts by status and their total. */
static json_t *
counts_json(const size_t c[EP_NSTATUS], size_t *total)
{
	json_t *o = json_object();

	*total = 0;
	for (int i = 0; i < EP_NSTATUS; i++) {
		json_object_set_new(o, ep_status_name(i),
		    json_integer((json_int_t)c[i]));
		*total += c[i];
	}
	json_object_set_new(o, "total", json_integer((json_int_t)*total));
	return o;
}

/* Where the golden came from, and what it was compared with. */
static void
provenance(json_t *root, const struct ep_report_ctx *ctx)
{
	json_t *golden = json_object();
	char when[32];
	struct tm tm;

	gmtime_r(&ctx->generated, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
	json_object_set_new(root, "schema", json_string(ctx->fleet != NULL ?
	    EP_FLEET_SCHEMA : EP_REPORT_SCHEMA));
	json_object_set_new(root, "tool", json_string("envparity " EP_VERSION));
	json_object_set_new(root, "command", ep_report_str(ctx->command));
	json_object_set_new(root, "generated_at", json_string(when));
	json_object_set_new(root, "host", ep_report_str(ctx->host));
	json_object_set_new(golden, "name", ep_report_str(ctx->golden_name));
	json_object_set_new(golden, "store", ep_report_str(ctx->golden_store));
	json_object_set_new(golden, "ref", ep_report_str(ctx->golden_ref));
	json_object_set_new(golden, "commit", ep_report_str(ctx->golden_commit));
	json_object_set_new(golden, "profile",
	    ep_report_str(ctx->golden_profile));
	json_object_set_new(root, "golden", golden);
	json_object_set_new(root, "current", ep_report_str(ctx->current_name));
}

static json_t *
unavailable_json(const struct ep_report_ctx *ctx)
{
	json_t *o = json_object();

	for (size_t i = 0; i < ctx->nunavailable; i++)
		json_object_set_new(o, ctx->unavailable[i].area,
		    ep_report_str(ctx->unavailable[i].why));
	return o;
}

int
ep_report_json(char **out, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, struct ep_err *err)
{
	size_t counts[EP_NSTATUS];
	json_t *root = json_object(), *c, *arr;
	char *raw, *s;
	size_t n;

	*out = NULL;
	ep_results_count(rs, counts);
	provenance(root, ctx);
	json_object_set_new(root, "exit_status",
	    json_integer(ctx->exit_status));
	json_object_set_new(root, "counts", counts_json(counts, &n));
	/* Results the report does not list (EP_REPORT_RESULTS_MAX). */
	c = counts_json(ctx->omitted, &n);
	if (n > 0)
		json_object_set_new(root, "omitted", c);
	else
		json_decref(c);
	json_object_set_new(root, "unavailable", unavailable_json(ctx));
	arr = json_array();
	for (size_t i = 0; i < rs->n; i++)
		json_array_append_new(arr, result_json(&rs->v[i]));
	json_object_set_new(root, "results", arr);
	if (ctx->fleet == NULL)
		json_object_set_new(root, "ignored_changes",
		    ep_report_ignored_json(rs));
	if (ctx->fleet != NULL)
		json_object_set_new(root, "fleet",
		    ep_report_fleet_json(ctx->fleet));

	raw = json_dumps(root, JSON_SORT_KEYS | JSON_INDENT(2));
	json_decref(root);
	if (raw == NULL)
		return ep_err_set(err, EP_E_IO, "cannot serialize the report");
	s = ep_json_clean(raw);
	free(raw);
	n = strlen(s);
	*out = xmalloc(n + 2);
	memcpy(*out, s, n);
	memcpy(*out + n, "\n", 2);
	free(s);
	return 0;
}

int
ep_report_json_write(const char *path, const struct ep_report_ctx *ctx,
    const struct ep_results *rs, struct ep_err *err)
{
	char *s;
	int rc;

	if (ep_report_json(&s, ctx, rs, err) < 0)
		return -1;
	rc = ep_write_atomic(path, s, strlen(s), err);
	free(s);
	return rc;
}
