/*
 * line.c: the probe's output, one JSON object per workload per line, and
 * the bookkeeping of results that feeds it.
 *
 * The contract (shared with the runner, checker/probe/probe_line.c):
 * every line has every field, in this order:
 *	schema, backend, workload, status ("ok" | "skip" | "error"),
 *	reason (string | null), sha256 (64 hex | null), known_answer
 *	(true | false | null), canary (bool), elapsed_ms (number), device
 *	(object | null), libs (object), probe ("envparity-probe N").
 * The SHA-256 is of the output buffer's bytes as stored (little-endian
 * float32), through OpenSSL's EVP interface.
 */
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "probe.h"
#include "clock.h"
#include "str.h"
#include "xalloc.h"

int
probe_err_set(struct probe_err *err, int status, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	err->status = status;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof err->msg, fmt, ap);
	va_end(ap);
	return -1;
}

void
probe_libs_set(struct probe_libs *libs, const char *key, const char *value)
{
	size_t i;

	for (i = 0; i < libs->n; i++)
		if (strcmp(libs->v[i].key, key) == 0)
			break;
	if (i == PROBE_MAXLIBS)
		return;
	if (i == libs->n)
		libs->n++;
	snprintf(libs->v[i].key, sizeof libs->v[i].key, "%s", key);
	snprintf(libs->v[i].value, sizeof libs->v[i].value, "%s", value);
}

void
probe_run_init(struct probe_run *run, const char *backend,
    const char *const *workloads, size_t n)
{
	size_t i;

	memset(run, 0, sizeof *run);
	run->backend = backend;
	run->n = n < PROBE_MAXWORK ? n : PROBE_MAXWORK;
	for (i = 0; i < run->n; i++) {
		run->res[i].workload = workloads[i];
		run->res[i].status = PROBE_ERROR;
		snprintf(run->res[i].reason, sizeof run->res[i].reason,
		    "not run");
		run->res[i].known_answer = -1;
		run->res[i].canary = strcmp(workloads[i], "atomic") == 0;
	}
}

void
probe_result_fail(struct probe_result *r, int status, const char *reason)
{
	r->status = status;
	snprintf(r->reason, sizeof r->reason, "%s", reason);
	r->sha256[0] = '\0';
	r->known_answer = -1;
}

void
probe_run_fail_rest(struct probe_run *run, size_t from, int status,
    const char *reason)
{
	size_t i;

	for (i = from; i < run->n; i++)
		probe_result_fail(&run->res[i], status, reason);
}

int
probe_sha256(char *hex, const void *buf, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0, i;

	if (EVP_Digest(buf, len, md, &mdlen, EVP_sha256(), NULL) != 1 ||
	    mdlen != 32)
		return -1;
	for (i = 0; i < mdlen; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
	return 0;
}

void
probe_result_ok(struct probe_result *r, const void *buf, size_t len,
    double elapsed_ms)
{
	r->elapsed_ms = elapsed_ms;
	if (probe_sha256(r->sha256, buf, len) == -1) {
		r->status = PROBE_ERROR;
		r->sha256[0] = '\0';
		r->known_answer = -1;
		snprintf(r->reason, sizeof r->reason,
		    "SHA-256 of the output failed (OpenSSL EVP)");
		return;
	}
	r->status = PROBE_OK;
	/* A kat that missed its answer keeps its description. */
	if (r->known_answer != 0)
		r->reason[0] = '\0';
}

double
probe_ms_since(uint64_t t0)
{
	return (double)(ep_now_ns() - t0) / 1e6;
}

int
probe_threads(const struct probe_opts *opts)
{
	cpu_set_t set;
	int n;

	if (opts != NULL && opts->nthreads > 0)
		return opts->nthreads;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		n = CPU_COUNT(&set);
	else
		n = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (n < 1)
		n = 1;
	return n > 16 ? 16 : n;
}

struct sbuf {
	char *s;
	size_t len, cap;
};

static void
sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		b->cap = (b->len + n + 1) * 2;
		b->s = xrealloc(b->s, b->cap);
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void
sb_printf(struct sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	sb_add(b, s, strlen(s));
	free(s);
}

/* A JSON string: valid UTF-8 (bad bytes become U+FFFD), with quotes,
 * backslashes and control characters escaped. */
static void
sb_str(struct sbuf *b, const char *s)
{
	char *u = ep_utf8_sanitize(s, strlen(s)), esc[8];
	const unsigned char *p;

	sb_add(b, "\"", 1);
	for (p = (const unsigned char *)u; *p != '\0'; p++) {
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\', esc[1] = (char)*p;
			sb_add(b, esc, 2);
		} else if (*p < 0x20) {
			snprintf(esc, sizeof esc, "\\u%04x", *p);
			sb_add(b, esc, 6);
		} else
			sb_add(b, (const char *)p, 1);
	}
	sb_add(b, "\"", 1);
	free(u);
}

static void
sb_str_or_null(struct sbuf *b, const char *s)
{
	if (*s == '\0')
		sb_add(b, "null", 4);
	else
		sb_str(b, s);
}

static void
sb_key(struct sbuf *b, const char *key)
{
	if (b->len > 0 && b->s[b->len - 1] != '{')
		sb_add(b, ",", 1);
	sb_str(b, key);
	sb_add(b, ":", 1);
}

static void
sb_device(struct sbuf *b, const struct probe_device *d)
{
	switch (d->kind) {
	case PROBE_DEV_CPU:
		sb_add(b, "{", 1);
		sb_key(b, "arch");
		sb_str(b, d->arch);
		sb_add(b, "}", 1);
		break;
	case PROBE_DEV_GPU:
		sb_add(b, "{", 1);
		sb_key(b, "name");
		sb_str(b, d->name);
		sb_key(b, "cc");
		sb_printf(b, "\"%d.%d\"", d->cc_major, d->cc_minor);
		sb_key(b, "sm_count");
		sb_printf(b, "%d", d->sm_count);
		sb_key(b, "driver");
		sb_str_or_null(b, d->driver);
		sb_key(b, "cuda_driver");
		sb_str_or_null(b, d->cuda_driver);
		sb_add(b, "}", 1);
		break;
	default:
		sb_add(b, "null", 4);
	}
}

static const char *
status_name(int status)
{
	switch (status) {
	case PROBE_OK:
		return "ok";
	case PROBE_SKIP:
		return "skip";
	default:
		return "error";
	}
}

char *
probe_line(const struct probe_run *run, size_t i)
{
	const struct probe_result *r = &run->res[i];
	struct sbuf b = { 0 };
	size_t l;

	sb_add(&b, "{", 1);
	sb_key(&b, "schema");
	sb_str(&b, PROBE_SCHEMA);
	sb_key(&b, "backend");
	sb_str(&b, run->backend);
	sb_key(&b, "workload");
	sb_str(&b, r->workload);
	sb_key(&b, "status");
	sb_str(&b, status_name(r->status));
	sb_key(&b, "reason");
	sb_str_or_null(&b, r->reason);
	sb_key(&b, "sha256");
	sb_str_or_null(&b, r->status == PROBE_OK ? r->sha256 : "");
	sb_key(&b, "known_answer");
	sb_printf(&b, "%s", r->known_answer < 0 ? "null" :
	    r->known_answer ? "true" : "false");
	sb_key(&b, "canary");
	sb_printf(&b, "%s", r->canary ? "true" : "false");
	sb_key(&b, "elapsed_ms");
	sb_printf(&b, "%.3f", r->elapsed_ms >= 0 ? r->elapsed_ms : 0.0);
	sb_key(&b, "device");
	sb_device(&b, &run->dev);
	sb_key(&b, "libs");
	sb_add(&b, "{", 1);
	for (l = 0; l < run->libs.n; l++) {
		sb_key(&b, run->libs.v[l].key);
		sb_str(&b, run->libs.v[l].value);
	}
	sb_add(&b, "}", 1);
	sb_key(&b, "probe");
	sb_str(&b, PROBE_VERSION);
	sb_add(&b, "}", 1);
	return b.s;
}
