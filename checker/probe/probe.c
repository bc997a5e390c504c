/*
 * probe.c: how N runs of a backend become results, facts and summary
 * lines (the semantics are listed in probe.h).  Nothing here starts a
 * process, so the unit tests feed it canned lines; probe_line.c reads
 * the lines, probe_run.c runs the probe.
 */
#include "probe.h"
#include "strv.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *
str_field(json_t *o, const char *name)
{
	return json_string_value(json_object_get(o, name));
}

/* "run 2", "runs 2 and 4", "runs 2, 3 and 4". */
static char *
fmt_runs(const size_t *v, size_t n)
{
	char *s, *t;

	if (n == 1)
		return xasprintf("run %zu", v[0]);
	s = xasprintf("runs %zu", v[0]);
	for (size_t i = 1; i < n; i++) {
		t = xasprintf("%s%s%zu", s, i + 1 == n ? " and " : ", ", v[i]);
		free(s);
		s = t;
	}
	return s;
}

static void
add_result(struct ep_results *rs, const char *key, int status,
    const char *expected, const char *actual, const char *rule,
    const char *message)
{
	struct ep_result r = { 0 };

	r.key = (char *)key;
	r.status = status;
	r.expected = (char *)expected;
	r.actual = (char *)actual;
	r.rule = (char *)rule;
	r.message = (char *)message;
	ep_results_add(rs, &r);
}

/* Worse of two statuses for the summary: fail and error over skip over
 * pass. */
static int
worse(int a, int b)
{
	static const int rank[EP_NSTATUS] = {
		[EP_PASS] = 0, [EP_WAIVED] = 0, [EP_SKIP] = 1,
		[EP_ERROR] = 2, [EP_FAIL] = 3,
	};

	return rank[b] > rank[a] ? b : a;
}

static void
push_summary(struct ep_strv *summary, const char *backend, const char *what,
    int status, const char *text)
{
	ep_strv_push_owned(summary, xasprintf("%-6s %-15s %-5s %s", backend,
	    what, ep_status_name(status), text));
}

/* A result key of s: "probe.<b>.<rest>", or "probe.<b>.gpu<i>.<rest>"
 * when its results are per GPU; rest NULL: the backend's own key. */
static char *
rkey(const struct ep_probe_set *s, const char *rest)
{
	const char *gpu = s->gpu_results ? s->gpu : NULL;

	if (rest == NULL)
		return gpu ? xasprintf("probe.%s.%s", s->backend, gpu) :
		    xasprintf("probe.%s", s->backend);
	return gpu ? xasprintf("probe.%s.%s.%s", s->backend, gpu, rest) :
	    xasprintf("probe.%s.%s", s->backend, rest);
}

/* rkey of "<a><b>". */
static char *
rkeyf(const struct ep_probe_set *s, const char *a, const char *b)
{
	char *rest = xasprintf("%s%s", a, b), *k = rkey(s, rest);

	free(rest);
	return k;
}

/* The summary's first column: "cuda", or "cuda:3" per GPU. */
static char *
sname(const struct ep_probe_set *s)
{
	if (s->gpu_results && s->gpu != NULL)
		return xasprintf("%s:%s", s->backend, s->gpu + 3);
	return xstrdup(s->backend);
}

/* push_summary for set s. */
static void
set_summary(struct ep_strv *summary, const struct ep_probe_set *s,
    const char *what, int status, const char *text)
{
	char *b = sname(s);

	push_summary(summary, b, what, status, text);
	free(b);
}

/* The runs of a backend, sorted for one workload. */
struct wl {
	size_t *ok, nok;		/* run numbers with status "ok" */
	json_t **okl;			/* their lines (borrowed) */
	size_t *bad, nbad;		/* "skip" or "error" */
	json_t **badl;
	size_t *missing, nmissing;	/* not in the output */
};

static void
wl_fill(struct wl *w, const struct ep_probe_set *s, const char *workload)
{
	json_t *l;

	memset(w, 0, sizeof *w);
	w->ok = xcalloc(s->n, sizeof *w->ok);
	w->okl = xcalloc(s->n, sizeof *w->okl);
	w->bad = xcalloc(s->n, sizeof *w->bad);
	w->badl = xcalloc(s->n, sizeof *w->badl);
	w->missing = xcalloc(s->n, sizeof *w->missing);
	for (size_t i = 0; i < s->n; i++) {
		if (s->runs[i].outcome != EP_PROBE_OK)
			continue;
		if ((l = ep_probe_line_for(s->runs[i].lines, workload)) == NULL)
			w->missing[w->nmissing++] = i + 1;
		else if (strcmp(str_field(l, "status"), "ok") == 0) {
			w->okl[w->nok] = l;
			w->ok[w->nok++] = i + 1;
		} else {
			w->badl[w->nbad] = l;
			w->bad[w->nbad++] = i + 1;
		}
	}
}

static void
wl_clear(struct wl *w)
{
	free(w->ok);
	free(w->okl);
	free(w->bad);
	free(w->badl);
	free(w->missing);
}

static const char *
reason_of(json_t *line)
{
	const char *r = str_field(line, "reason");

	return r != NULL ? r : "no reason given";
}

/* probe.<b>.<w>.runs for the runs whose line is "ok": returns its status
 * and appends its message to text. */
static int
runs_result(struct ep_results *rs, struct ep_manifest *facts,
    const struct ep_probe_set *s, const char *workload, const struct wl *w,
    char **text)
{
	const char *ref = str_field(w->okl[0], "sha256"), *h;
	int canary = json_is_true(json_object_get(w->okl[0], "canary"));
	size_t *differ = xcalloc(w->nok, sizeof *differ), ndiffer = 0;
	size_t distinct = 0, j;
	char *key, *msg, *runs = NULL, *of = NULL;
	const char *actual = ref;
	int status;

	for (size_t i = 0; i < w->nok; i++) {
		h = str_field(w->okl[i], "sha256");
		if (strcmp(h, ref) != 0) {
			if (ndiffer == 0)
				actual = h;
			differ[ndiffer++] = w->ok[i];
		}
		for (j = 0; j < i; j++)
			if (strcmp(str_field(w->okl[j], "sha256"), h) == 0)
				break;
		if (j == i)
			distinct++;
	}
	if (w->nok < s->n)
		of = xasprintf(" (of %zu)", s->n);
	key = rkeyf(s, workload, ".runs");
	if (canary && distinct > 1) {
		status = EP_PASS;
		msg = xasprintf("canary: varied across runs (%zu distinct "
		    "outputs): the check can see non-determinism", distinct);
	} else if (canary || ndiffer == 0) {
		status = EP_PASS;
		msg = xasprintf("%sidentical in %zu run%s%s",
		    canary ? "canary: " : "", w->nok, w->nok == 1 ? "" : "s",
		    of ? of : "");
	} else {
		status = EP_FAIL;
		runs = fmt_runs(differ, ndiffer);
		msg = xasprintf("%s differ%s from run %zu (%zu distinct "
		    "outputs)", runs, ndiffer == 1 ? "s" : "", w->ok[0],
		    distinct);
	}
	add_result(rs, key, status, ref, actual,
	    canary ? "probe:canary" : "probe:runs", msg);
	free(key);
	if (!canary && ndiffer == 0) {
		key = s->gpu != NULL ? xasprintf("probe.%s.%s.%s.sha256",
		    s->backend, s->gpu, workload) :
		    xasprintf("probe.%s.%s.sha256", s->backend, workload);
		ep_manifest_set(facts, key, ref);
		free(key);
	}
	*text = msg;
	free(runs);
	free(of);
	free(differ);
	return status;
}

/* probe.<b>.<w>.known_answer where a run gave one (status, message to
 * *text); -1 when no run did. */
static int
kat_result(struct ep_results *rs, const struct ep_probe_set *s,
    const char *workload, const struct wl *w, char **text)
{
	size_t *wrong = xcalloc(w->nok, sizeof *wrong), nwrong = 0, nkat = 0;
	char *key, *runs = NULL;
	json_t *v;
	int status = -1;

	*text = NULL;
	for (size_t i = 0; i < w->nok; i++) {
		v = json_object_get(w->okl[i], "known_answer");
		if (json_is_null(v))
			continue;
		nkat++;
		if (json_is_false(v))
			wrong[nwrong++] = w->ok[i];
	}
	if (nkat == 0)
		goto done;
	if (nwrong == 0) {
		status = EP_PASS;
		*text = xasprintf("known answer exact in %zu run%s", nkat,
		    nkat == 1 ? "" : "s");
	} else {
		status = EP_FAIL;
		runs = fmt_runs(wrong, nwrong);
		*text = xasprintf("known answer wrong in %s", runs);
	}
	key = rkeyf(s, workload, ".known_answer");
	add_result(rs, key, status, "exact", nwrong ? "wrong" : "exact",
	    "probe:known-answer", *text);
	free(key);
done:
	free(runs);
	free(wrong);
	return status;
}

/* A skipped backend or workload: a skip, or a failure under --require-gpu
 * for a GPU backend. */
static void
skip_result(struct ep_results *rs, struct ep_strv *summary,
    const struct ep_probe_set *s, const char *key, const char *what,
    const char *reason, int require_gpu)
{
	const char *backend = s->backend;
	char *msg;
	int status;

	if (require_gpu && ep_probe_backend_is_gpu(backend)) {
		status = EP_FAIL;
		msg = xasprintf("--require-gpu: %s", reason);
	} else {
		status = EP_SKIP;
		msg = xstrdup(reason);
	}
	add_result(rs, key, status, NULL, NULL,
	    status == EP_FAIL ? "probe:require-gpu" : "probe:skip", msg);
	set_summary(summary, s, what, status, msg);
	free(msg);
}

static void
aggregate_workload(struct ep_results *rs, struct ep_manifest *facts,
    struct ep_strv *summary, const struct ep_probe_set *s,
    const char *workload, int require_gpu)
{
	struct wl w;
	char *key = rkeyf(s, workload, ".runs");
	char *msg = NULL, *runs = NULL, *kat = NULL, *text;
	int status, kst, all_skip = 1;
	double ms = 0;

	wl_fill(&w, s, workload);
	/* Every run failed as a process: the run<N> results say why. */
	if (w.nok + w.nbad + w.nmissing == 0)
		goto done;
	if (w.nmissing > 0) {
		runs = fmt_runs(w.missing, w.nmissing);
		msg = xasprintf("missing from the output of %s", runs);
		add_result(rs, key, EP_ERROR, NULL, NULL, "probe:contract", msg);
		set_summary(summary, s, workload, EP_ERROR, msg);
		goto done;
	}
	if (w.nbad > 0) {
		for (size_t i = 0; i < w.nbad; i++)
			if (strcmp(str_field(w.badl[i], "status"), "skip") != 0)
				all_skip = 0;
		if (w.nok == 0 && all_skip) {
			skip_result(rs, summary, s, key, workload,
			    reason_of(w.badl[0]), require_gpu);
			goto done;
		}
		runs = fmt_runs(w.bad, w.nbad);
		msg = xasprintf("%s reported %s: %s", runs,
		    str_field(w.badl[0], "status"), reason_of(w.badl[0]));
		add_result(rs, key, EP_FAIL, NULL, NULL, "probe:runs", msg);
		set_summary(summary, s, workload, EP_FAIL, msg);
		goto done;
	}

	status = runs_result(rs, facts, s, workload, &w, &msg);
	if ((kst = kat_result(rs, s, workload, &w, &kat)) >= 0)
		status = worse(status, kst);
	for (size_t i = 0; i < w.nok; i++)
		ms += json_number_value(json_object_get(w.okl[i],
		    "elapsed_ms"));
	text = xasprintf("%s%s%s; %.2f ms mean", msg, kat ? "; " : "",
	    kat ? kat : "", ms / (double)w.nok);
	set_summary(summary, s, workload, status, text);
	free(text);
done:
	wl_clear(&w);
	free(key);
	free(msg);
	free(runs);
	free(kat);
}

/* 1 when the runs that produced output skipped every workload (a backend
 * that cannot run here: no driver, no device); *first is the first such
 * line, for its reason. */
static int
backend_skipped(const struct ep_probe_set *s, json_t **first)
{
	const char *const *wls = ep_probe_workloads(s->backend);
	int any = 0;
	json_t *l;

	*first = NULL;
	for (size_t i = 0; i < s->n; i++) {
		if (s->runs[i].outcome != EP_PROBE_OK)
			continue;
		for (size_t j = 0; wls[j] != NULL; j++) {
			l = ep_probe_line_for(s->runs[i].lines, wls[j]);
			if (l == NULL || strcmp(str_field(l, "status"),
			    "skip") != 0)
				return 0;
			if (*first == NULL)
				*first = l;
			any = 1;
		}
	}
	return any;
}

static void
run_failures(struct ep_results *rs, struct ep_strv *summary,
    const struct ep_probe_set *s)
{
	const struct ep_probe_run *r;
	char *key, *what, *msg;
	int status;

	for (size_t i = 0; i < s->n; i++) {
		r = &s->runs[i];
		if (r->outcome == EP_PROBE_OK)
			continue;
		/* A crash or a hang is the stack misbehaving here; anything
		 * else is the probe breaking its contract. */
		status = (r->outcome == EP_PROBE_HUNG ||
		    r->outcome == EP_PROBE_CRASHED) ? EP_FAIL : EP_ERROR;
		what = xasprintf("run %zu", i + 1);
		key = rkeyf(s, "run", what + 4);
		msg = xasprintf("run %zu of %s%s%s: %s", i + 1, s->backend,
		    s->where ? " on " : "", s->where ? s->where : "",
		    r->why ? r->why : "failed");
		add_result(rs, key, status, NULL, NULL, "probe:run", msg);
		set_summary(summary, s, what, status, msg);
		free(key);
		free(what);
		free(msg);
	}
}

/* A field's value as text: strings as they are, numbers printed; NULL for
 * anything else. */
static char *
field_text(json_t *o, const char *name)
{
	json_t *v = json_object_get(o, name);

	if (json_is_string(v))
		return xstrdup(json_string_value(v));
	if (json_is_integer(v))
		return xasprintf("%lld", (long long)json_integer_value(v));
	if (json_is_real(v))
		return xasprintf("%g", json_real_value(v));
	return NULL;
}

static void
cpu_domain(struct ep_manifest *facts, const struct ep_probe_set *s)
{
	const char *arch;
	size_t j;
	json_t *l;

	for (size_t i = 0; i < s->n; i++) {
		json_array_foreach(s->runs[i].lines, j, l) {
			arch = str_field(json_object_get(l, "device"), "arch");
			if (arch != NULL) {
				ep_manifest_setf(facts, "probe.cpu.domain",
				    "%s %s", arch, str_field(l, "probe"));
				return;
			}
		}
	}
}

int
ep_probe_set_skipped(const struct ep_probe_set *s)
{
	json_t *first;

	return backend_skipped(s, &first);
}

void
ep_probe_aggregate(struct ep_results *rs, struct ep_manifest *facts,
    struct ep_strv *summary, const struct ep_probe_set *s, int require_gpu)
{
	const char *const *wls = ep_probe_workloads(s->backend);
	json_t *first;
	char *key;

	run_failures(rs, summary, s);
	if (backend_skipped(s, &first)) {
		key = rkey(s, NULL);
		skip_result(rs, summary, s, key, "-",
		    reason_of(first), require_gpu);
		free(key);
		return;
	}
	for (size_t i = 0; wls != NULL && wls[i] != NULL; i++)
		aggregate_workload(rs, facts, summary, s, wls[i], require_gpu);
	if (strcmp(s->backend, "cpu") == 0)
		cpu_domain(facts, s);
}

/* Append " <label> <value>" (label may be "") when value is not NULL;
 * takes value. */
static void
domain_part(char **d, const char *label, const char *sep, char *value)
{
	char *t;

	if (value == NULL)
		return;
	t = xasprintf("%s %s%s%s", *d, label, sep, value);
	free(*d);
	free(value);
	*d = t;
}

void
ep_probe_domain(struct ep_manifest *facts, const struct ep_probe_set *sets,
    size_t n)
{
	ep_probe_domain_key(facts, "probe.domain", sets, n);
}

const char *
ep_probe_device_name(const struct ep_probe_set *sets, size_t n)
{
	const char *name;
	size_t j;
	json_t *l;

	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < sets[k].n; i++)
			json_array_foreach(sets[k].runs[i].lines, j, l)
				if ((name = str_field(json_object_get(l,
				    "device"), "name")) != NULL)
					return name;
	return NULL;
}

void
ep_probe_domain_key(struct ep_manifest *facts, const char *key,
    const struct ep_probe_set *sets, size_t n)
{
	json_t *dev = NULL, *devline = NULL, *l, *libs;
	char *cublas = NULL, *cudnn = NULL, *d, *sm;
	size_t j;

	for (size_t k = 0; k < n; k++) {
		if (!ep_probe_backend_is_gpu(sets[k].backend))
			continue;
		for (size_t i = 0; i < sets[k].n; i++) {
			json_array_foreach(sets[k].runs[i].lines, j, l) {
				libs = json_object_get(l, "libs");
				if (dev == NULL && str_field(json_object_get(l,
				    "device"), "name") != NULL) {
					dev = json_object_get(l, "device");
					devline = l;
				}
				if (cublas == NULL &&
				    strcmp(sets[k].backend, "cublas") == 0)
					cublas = field_text(libs, "cublas");
				if (cudnn == NULL &&
				    strcmp(sets[k].backend, "cudnn") == 0)
					cudnn = field_text(libs, "cudnn");
			}
		}
	}
	if (dev == NULL) {
		free(cublas);
		free(cudnn);
		return;
	}
	d = xstrdup(str_field(dev, "name"));
	domain_part(&d, "cc", " ", field_text(dev, "cc"));
	if ((sm = field_text(dev, "sm_count")) != NULL) {
		domain_part(&d, "", "", sm);
		domain_part(&d, "SMs", "", xstrdup(""));
	}
	domain_part(&d, "driver", " ", field_text(dev, "driver"));
	domain_part(&d, "cuda", " ", field_text(dev, "cuda_driver"));
	domain_part(&d, "cublas", " ", cublas);
	domain_part(&d, "cudnn", " ", cudnn);
	domain_part(&d, "", "", field_text(devline, "probe"));
	ep_manifest_set(facts, key, d);
	free(d);
}
