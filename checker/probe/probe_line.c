/*
 * probe_line.c: what a line of envparity-probe's output is (the contract
 * envparity/probe@1, shared with gpu_probes/line.c), how a run's whole
 * output is read, and the containers that hold the runs.  A line that
 * breaks the contract is rejected with a message saying what is wrong, so
 * that a probe of another version, or one that printed something else on
 * standard output, is an error result and never a silent pass.
 */
#include "probe.h"
#include "errors.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ep_probe_backends[] = {
	"cpu", "cuda", "cublas", "cudnn", NULL,
};

static const char *const cpu_workloads[] = {
	"kat", "gemm", "reduce", "atomic", NULL,
};
static const char *const cublas_workloads[] = {
	"sgemm_pedantic", "sgemm_default", NULL,
};
static const char *const cudnn_workloads[] = {
	"conv_fwd", NULL,
};

/* Messages quote at most this much of a bad line. */
#define QUOTE_MAX 80

const char *const *
ep_probe_workloads(const char *backend)
{
	if (strcmp(backend, "cpu") == 0 || strcmp(backend, "cuda") == 0)
		return cpu_workloads;	/* the same four on both */
	if (strcmp(backend, "cublas") == 0)
		return cublas_workloads;
	if (strcmp(backend, "cudnn") == 0)
		return cudnn_workloads;
	return NULL;
}

int
ep_probe_backend_is_gpu(const char *backend)
{
	return strcmp(backend, "cuda") == 0 || strcmp(backend, "cublas") == 0 ||
	    strcmp(backend, "cudnn") == 0;
}

struct ep_probe_run *
ep_probe_set_add(struct ep_probe_set *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->runs = xreallocarray(s->runs, s->cap, sizeof *s->runs);
	}
	memset(&s->runs[s->n], 0, sizeof s->runs[s->n]);
	return &s->runs[s->n++];
}

void
ep_probe_run_clear(struct ep_probe_run *r)
{
	free(r->why);
	json_decref(r->lines);
	memset(r, 0, sizeof *r);
}

void
ep_probe_set_clear(struct ep_probe_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		ep_probe_run_clear(&s->runs[i]);
	free(s->runs);
	s->runs = NULL;
	s->n = s->cap = 0;
}

char *
ep_probe_printable(const char *s, size_t len, size_t max)
{
	char *out = xmalloc(max * 4 + 4), *o = out;
	size_t shown = 0;

	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		int w = (c >= 0x20 && c < 0x7f) ? 1 : 4;

		if (shown + (size_t)w > max) {
			memcpy(o, "...", 3);
			o += 3;
			break;
		}
		if (w == 1)
			*o++ = (char)c;
		else
			o += sprintf(o, "\\x%02x", c);
		shown += (size_t)w;
	}
	*o = '\0';
	return out;
}

static int
in_list(const char *const *list, const char *s)
{
	for (size_t i = 0; list[i] != NULL; i++)
		if (strcmp(list[i], s) == 0)
			return 1;
	return 0;
}

static int
is_hex64(const char *s)
{
	size_t i;

	for (i = 0; s[i] != '\0'; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return i == 64;
}

/* A string field's value, quoted safely for a message. */
static char *
quote(const char *s)
{
	return ep_probe_printable(s, strlen(s), 40);
}

/* The field checks that only look at one field.  Returns 0 or -1 with
 * err set. */
static int
check_fields(json_t *o, const char *status, struct ep_err *err)
{
	json_t *v;

	v = json_object_get(o, "reason");
	if (v == NULL || !(json_is_string(v) || json_is_null(v)))
		return ep_err_set(err, EP_E_INPUT,
		    "field \"reason\" is not a string or null");
	v = json_object_get(o, "sha256");
	if (strcmp(status, "ok") == 0) {
		if (!json_is_string(v) || !is_hex64(json_string_value(v)))
			return ep_err_set(err, EP_E_INPUT, "field \"sha256\" "
			    "is not 64 lowercase hex digits in an \"ok\" line");
	} else if (!json_is_null(v))
		return ep_err_set(err, EP_E_INPUT, "field \"sha256\" is not "
		    "null in a \"%s\" line", status);
	v = json_object_get(o, "known_answer");
	if (v == NULL || !(json_is_boolean(v) || json_is_null(v)))
		return ep_err_set(err, EP_E_INPUT,
		    "field \"known_answer\" is not true, false or null");
	if (!json_is_boolean(json_object_get(o, "canary")))
		return ep_err_set(err, EP_E_INPUT,
		    "field \"canary\" is not true or false");
	v = json_object_get(o, "elapsed_ms");
	if (!json_is_number(v) || json_number_value(v) < 0)
		return ep_err_set(err, EP_E_INPUT,
		    "field \"elapsed_ms\" is not a number >= 0");
	v = json_object_get(o, "device");
	if (v == NULL || !(json_is_object(v) || json_is_null(v)))
		return ep_err_set(err, EP_E_INPUT,
		    "field \"device\" is not an object or null");
	if (!json_is_object(json_object_get(o, "libs")))
		return ep_err_set(err, EP_E_INPUT,
		    "field \"libs\" is not an object");
	v = json_object_get(o, "probe");
	if (!json_is_string(v) || json_string_length(v) == 0)
		return ep_err_set(err, EP_E_INPUT,
		    "field \"probe\" is not a non-empty string");
	return 0;
}

int
ep_probe_line_parse(json_t **out, const char *line, size_t len,
    const char *backend, struct ep_err *err)
{
	static const char *const statuses[] = { "ok", "skip", "error", NULL };
	const char *const *workloads = ep_probe_workloads(backend);
	json_error_t je;
	json_t *o, *v;
	const char *s;
	char *q = NULL;
	int rc = -1;

	*out = NULL;
	o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &je);
	if (o == NULL) {
		/* jansson quotes the bytes near the error as they are. */
		ep_err_set(err, EP_E_INPUT, "not JSON (%s)", q =
		    ep_probe_printable(je.text, strlen(je.text), QUOTE_MAX));
		goto done;
	}
	if (!json_is_object(o)) {
		ep_err_set(err, EP_E_INPUT, "not a JSON object");
		goto done;
	}
	v = json_object_get(o, "schema");
	if (!json_is_string(v)) {
		ep_err_set(err, EP_E_INPUT, "no \"schema\" string");
		goto done;
	}
	if (strcmp(s = json_string_value(v), EP_PROBE_SCHEMA) != 0) {
		ep_err_set(err, EP_E_INPUT, "unknown schema \"%s\" (this "
		    "envparity reads %s)", q = quote(s), EP_PROBE_SCHEMA);
		goto done;
	}
	v = json_object_get(o, "backend");
	if (!json_is_string(v) || strcmp(json_string_value(v), backend) != 0) {
		ep_err_set(err, EP_E_INPUT, "field \"backend\" is not \"%s\"",
		    backend);
		goto done;
	}
	v = json_object_get(o, "workload");
	if (!json_is_string(v)) {
		ep_err_set(err, EP_E_INPUT, "no \"workload\" string");
		goto done;
	}
	if (workloads == NULL || !in_list(workloads, json_string_value(v))) {
		ep_err_set(err, EP_E_INPUT, "workload \"%s\" is not one of "
		    "the %s backend's", q = quote(json_string_value(v)),
		    backend);
		goto done;
	}
	v = json_object_get(o, "status");
	if (!json_is_string(v) || !in_list(statuses, json_string_value(v))) {
		ep_err_set(err, EP_E_INPUT,
		    "field \"status\" is not \"ok\", \"skip\" or \"error\"");
		goto done;
	}
	if (check_fields(o, json_string_value(v), err) < 0)
		goto done;
	*out = o;
	o = NULL;
	rc = 0;
done:
	free(q);
	json_decref(o);
	return rc;
}

static const char *
str_field(json_t *o, const char *name)
{
	return json_string_value(json_object_get(o, name));
}

json_t *
ep_probe_line_for(json_t *lines, const char *workload)
{
	size_t i;
	json_t *l;

	json_array_foreach(lines, i, l)
		if (strcmp(str_field(l, "workload"), workload) == 0)
			return l;
	return NULL;
}

void
ep_probe_output_parse(struct ep_probe_run *r, const char *text, size_t len,
    const char *backend)
{
	struct ep_err err = { 0 };
	const char *p = text, *end = text + len, *nl;
	json_t *line;
	char *shown;

	r->outcome = EP_PROBE_OK;
	r->lines = json_array();
	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		if (nl == p) {
			p++;
			continue;
		}
		if (ep_probe_line_parse(&line, p, (size_t)(nl - p), backend,
		    &err) == 0 && ep_probe_line_for(r->lines,
		    str_field(line, "workload")) != NULL) {
			ep_err_set(&err, EP_E_INPUT, "workload \"%s\" "
			    "reported twice", str_field(line, "workload"));
			json_decref(line);
			line = NULL;
		}
		if (line == NULL) {
			shown = ep_probe_printable(p, (size_t)(nl - p),
			    QUOTE_MAX);
			r->outcome = EP_PROBE_GARBAGE;
			r->why = xasprintf("garbage output: %s (%s)", shown,
			    err.msg);
			free(shown);
			json_decref(r->lines);
			r->lines = NULL;
			return;
		}
		json_array_append_new(r->lines, line);
		p = nl + 1;
	}
}
