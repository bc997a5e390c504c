/*
 * probe_gpus.c: which GPUs the GPU backends run on (--gpus, the capture's
 * gpu.count, CUDA_VISIBLE_DEVICES), and whether the GPUs of one
 * determinism domain computed the same bits (probe.h says how).  Nothing
 * here starts a process: probe_run.c runs the GPUs, and the unit tests
 * feed this file facts.
 */
#include "probe.h"
#include "errors.h"
#include "strv.h"
#include "xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The entries of a list "a,b,c" up to the first empty one (CUDA stops
 * reading CUDA_VISIBLE_DEVICES at the first entry it cannot use). */
static void
split_visible(struct ep_strv *out, const char *cvd)
{
	const char *p = cvd, *comma;

	while (*p != '\0') {
		comma = strchr(p, ',');
		if (comma == p)
			break;
		if (comma == NULL) {
			ep_strv_push(out, p);
			break;
		}
		ep_strv_push_owned(out, xstrndup(p, (size_t)(comma - p)));
		p = comma + 1;
	}
}

#define NODUP	((unsigned)-1)

/* The indexes of --gpus into idx (at most EP_PROBE_GPUS_MAX), or -1. */
static int
parse_list(const char *arg, unsigned *idx, size_t *n, unsigned *dup)
{
	const char *p = arg;
	char *end;
	unsigned long v;

	*n = 0;
	*dup = NODUP;
	for (;;) {
		if (*p < '0' || *p > '9')
			return -1;
		v = strtoul(p, &end, 10);
		if (v > 9999 || (*end != ',' && *end != '\0'))
			return -1;
		for (size_t i = 0; i < *n; i++)
			if (idx[i] == v && *dup == NODUP)
				*dup = (unsigned)v;
		idx[(*n)++] = (unsigned)v;
		if (*end == '\0')
			return 0;
		if (*n == EP_PROBE_GPUS_MAX)
			return -1;
		p = end + 1;
	}
}

int
ep_probe_gpus_parse(const char *arg, struct ep_err *err)
{
	unsigned idx[EP_PROBE_GPUS_MAX], dup;
	size_t n;

	if (strcmp(arg, "all") == 0)
		return 0;
	if (parse_list(arg, idx, &n, &dup) < 0)
		return ep_err_set(err, EP_E_INPUT, "--gpus %s: not \"all\" or "
		    "a comma-separated list of at most %d GPU indexes (such "
		    "as 0,3)", arg, EP_PROBE_GPUS_MAX);
	if (dup != NODUP)
		return ep_err_set(err, EP_E_INPUT, "--gpus %s: GPU %u named "
		    "twice", arg, dup);
	return 0;
}

static void
add_gpu(struct ep_probe_gpus *out, unsigned index, const char *visible,
    int preset)
{
	struct ep_probe_gpu *g;

	out->v = xreallocarray(out->v, out->n + 1, sizeof *out->v);
	g = &out->v[out->n++];
	memset(g, 0, sizeof *g);
	g->index = index;
	g->key = xasprintf("gpu%u", index);
	g->label = preset ? xasprintf("GPU %u (CUDA_VISIBLE_DEVICES entry "
	    "%s)", index, visible) : xasprintf("GPU %u", index);
	if (visible != NULL)
		g->visible = xstrdup(visible);
	g->pci_order = visible != NULL && !preset;
}

/* 1 when the capture's GPU k takes one process at a time: in
 * EXCLUSIVE_PROCESS mode a second context on it fails ("all CUDA-capable
 * devices are busy or unavailable"), and runs side by side would be
 * reported as failures of the machine. */
static int
exclusive(const struct ep_manifest *captured, long k)
{
	const char *m;
	char key[64];

	snprintf(key, sizeof key, "gpu.%ld.compute_mode", k);
	m = captured != NULL ? ep_manifest_get(captured, key) : NULL;
	return m != NULL && (strcmp(m, "exclusive_process") == 0 ||
	    strcmp(m, "exclusive_thread") == 0);
}

/* Which of out's GPUs take one process at a time: by the capture's own
 * index where out's GPUs are NVML's (by_index), else every one when any
 * GPU of the capture does, since an entry of CUDA_VISIBLE_DEVICES cannot
 * be matched with NVML's index here. */
static void
mark_exclusive(struct ep_probe_gpus *out, const struct ep_manifest *captured,
    long count, int by_index)
{
	int any = 0;

	for (long k = 0; k < count && k < 4096 && !any; k++)
		any = exclusive(captured, k);
	for (size_t j = 0; j < out->n; j++)
		out->v[j].one_at_a_time = by_index ?
		    exclusive(captured, (long)out->v[j].index) : any;
}

int
ep_probe_gpus_select(struct ep_probe_gpus *out, const char *want,
    const char *cvd, const struct ep_manifest *captured, struct ep_err *err)
{
	unsigned idx[EP_PROBE_GPUS_MAX], dup;
	struct ep_strv vis = { 0 };
	const char *count = captured ? ep_manifest_get(captured, "gpu.count") :
	    NULL;
	char buf[16], *where;
	long known = -1;	/* visible GPUs; -1: not known */
	long ncaptured = -1;	/* the capture's gpu.count */
	size_t n = 0;
	int rc = -1;

	memset(out, 0, sizeof *out);
	if (want != NULL && strcmp(want, "all") == 0)
		want = NULL;
	if (want != NULL && ep_probe_gpus_parse(want, err) < 0)
		return -1;
	if (want != NULL)
		(void)parse_list(want, idx, &n, &dup);
	if (count != NULL && *count >= '0' && *count <= '9')
		ncaptured = strtol(count, NULL, 10);
	if (cvd != NULL) {
		split_visible(&vis, cvd);
		known = (long)vis.n;
	} else
		known = ncaptured;

	if (want == NULL) {
		if (known <= 0) {
			/* Not known, or none: one process as things are
			 * (no device is then a skip with CUDA's reason). */
			add_gpu(out, 0, NULL, 0);
			mark_exclusive(out, captured, ncaptured, 0);
			rc = 0;
			goto done;
		}
		for (long i = 0; i < known && i < EP_PROBE_GPUS_MAX; i++)
			idx[n++] = (unsigned)i;
	}
	for (size_t i = 0; i < n; i++) {
		if (known >= 0 && idx[i] >= (unsigned long)known) {
			where = cvd != NULL ? xasprintf("CUDA_VISIBLE_DEVICES=%s",
			    cvd) : xstrdup("gpu.count");
			if (known == 0)
				ep_err_set(err, EP_E_INPUT, "--gpus %s: no GPU "
				    "is visible here (%s)", want, where);
			else
				ep_err_set(err, EP_E_INPUT, "--gpus %s: GPU %u "
				    "is not visible here (%ld GPU%s, 0 to "
				    "%ld, by %s)", want, idx[i], known,
				    known == 1 ? "" : "s", known - 1, where);
			free(where);
			ep_probe_gpus_clear(out);
			goto done;
		}
		if (cvd != NULL)
			add_gpu(out, idx[i], vis.v[idx[i]], 1);
		else {
			snprintf(buf, sizeof buf, "%u", idx[i]);
			add_gpu(out, idx[i], buf, 0);
		}
	}
	mark_exclusive(out, captured, ncaptured, cvd == NULL);
	rc = 0;
done:
	ep_strv_clear(&vis);
	return rc;
}

void
ep_probe_gpus_clear(struct ep_probe_gpus *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].key);
		free(g->v[i].label);
		free(g->v[i].visible);
	}
	free(g->v);
	memset(g, 0, sizeof *g);
}

/* "GPU 3", "GPUs 0 and 2", "GPUs 0-2, 4, 5 and 7" from sorted indexes. */
static char *
fmt_gpus(const unsigned *v, size_t n)
{
	struct ep_strv parts = { 0 };
	char *s = xstrdup(n == 1 ? "GPU" : "GPUs"), *t;
	size_t i, j;

	for (i = 0; i < n; i = j + 1) {
		for (j = i; j + 1 < n && v[j + 1] == v[j] + 1; j++)
			;
		if (j >= i + 2)
			ep_strv_push_owned(&parts, xasprintf("%u-%u", v[i],
			    v[j]));
		else
			for (size_t k = i; k <= j; k++)
				ep_strv_push_owned(&parts, xasprintf("%u",
				    v[k]));
	}
	for (i = 0; i < parts.n; i++) {
		t = xasprintf("%s%s%s", s, i == 0 ? " " : i + 1 == parts.n ?
		    " and " : ", ", parts.v[i]);
		free(s);
		s = t;
	}
	ep_strv_clear(&parts);
	return s;
}

struct item {
	unsigned index;
	const char *hash, *domain, *model;
	int group;		/* the domain group */
};

/* The GPUs of domain group d with hash h (h NULL: any), into v. */
static size_t
pick(const struct item *it, size_t n, int d, const char *h, unsigned *v)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (it[i].group == d && (h == NULL ||
		    strcmp(it[i].hash, h) == 0))
			v[k++] = it[i].index;
	return k;
}

/* Judge domain group d: 1 when its GPUs agree.  Appends what it found
 * to *msg; *maj and *odd the majority and a differing hash. */
static int
judge_domain(const struct item *it, size_t n, int d, char **msg,
    const char **maj, const char **odd)
{
	unsigned *v = xcalloc(n, sizeof *v), *w = xcalloc(n, sizeof *w);
	size_t best = 0, nbest = 0, distinct = 0, k, nw;
	const char *bh = NULL, *model = NULL;
	char *a, *b, *t;
	int agree;

	for (size_t i = 0; i < n; i++) {
		if (it[i].group != d)
			continue;
		if (model == NULL)
			model = it[i].model;
		for (k = 0; k < i; k++)
			if (it[k].group == d &&
			    strcmp(it[k].hash, it[i].hash) == 0)
				break;
		if (k < i)
			continue;
		distinct++;
		k = pick(it, n, d, it[i].hash, v);
		if (k > best) {
			best = k;
			nbest = 1;
			bh = it[i].hash;
		} else if (k == best)
			nbest++;
	}
	k = pick(it, n, d, NULL, v);
	a = fmt_gpus(v, k);
	agree = distinct == 1;
	if (agree)
		t = xasprintf("identical on %s%s%s%s", a, model ? " (" : "",
		    model ? model : "", model ? ")" : "");
	else if (nbest > 1)
		t = xasprintf("%s%s%s%s disagree with no majority (%zu "
		    "distinct outputs)", a, model ? " (" : "",
		    model ? model : "", model ? ")" : "", distinct);
	else {
		nw = 0;
		for (size_t i = 0; i < n; i++)
			if (it[i].group == d && strcmp(it[i].hash, bh) != 0) {
				w[nw++] = it[i].index;
				if (*odd == NULL)
					*odd = it[i].hash;
			}
		free(a);
		a = fmt_gpus(w, nw);
		k = pick(it, n, d, bh, v);
		b = fmt_gpus(v, k);
		t = xasprintf("%s%s%s%s differ%s from the majority, %s (%zu "
		    "distinct outputs)", a, model ? " (" : "",
		    model ? model : "", model ? ")" : "", nw == 1 ? "s" : "",
		    b, distinct);
		free(b);
	}
	if (*maj == NULL)
		*maj = bh;
	if (!agree && *odd == NULL) {
		for (size_t i = 0; i < n; i++)
			if (it[i].group == d && strcmp(it[i].hash, bh) != 0) {
				*odd = it[i].hash;
				break;
			}
	}
	b = *msg == NULL ? t : xasprintf("%s; another determinism domain, "
	    "not compared with the first: %s", *msg, t);
	if (b != t)
		free(t);
	free(*msg);
	*msg = b;
	free(a);
	free(v);
	free(w);
	return agree;
}

static void
agree_workload(struct ep_results *rs, struct ep_manifest *facts,
    struct ep_strv *summary, const char *backend, const char *workload,
    const struct ep_probe_gpuinfo *g, size_t n)
{
	struct item *it = xcalloc(n, sizeof *it);
	unsigned *left = xcalloc(n, sizeof *left);
	const char *maj = NULL, *odd = NULL, *agg;
	size_t nit = 0, nleft = 0;
	struct ep_result r = { 0 };
	char *key, *msg = NULL, *t;
	int ngroups = 0, status = EP_PASS;

	for (size_t i = 0; i < n; i++) {
		key = xasprintf("probe.%s.%s.%s.sha256", backend, g[i].key,
		    workload);
		if ((agg = ep_manifest_get(facts, key)) != NULL) {
			it[nit] = (struct item){ g[i].index, agg,
			    g[i].domain ? g[i].domain : "", g[i].model, -1 };
			for (size_t k = 0; k < nit; k++)
				if (strcmp(it[k].domain, it[nit].domain) == 0)
					it[nit].group = it[k].group;
			if (it[nit].group < 0)
				it[nit].group = ngroups++;
			nit++;
		} else
			left[nleft++] = g[i].index;
		free(key);
	}
	if (nit == 0)
		goto done;
	/* The first GPU's domain speaks for the node when it agrees. */
	agg = it[0].hash;
	for (size_t i = 1; i < nit && agg != NULL; i++)
		if (it[i].group == 0 && strcmp(it[i].hash, agg) != 0)
			agg = NULL;
	if (agg != NULL) {
		key = xasprintf("probe.%s.%s.sha256", backend, workload);
		ep_manifest_set(facts, key, agg);
		free(key);
	}
	if (n < 2)
		goto done;
	if (nit < 2) {
		status = EP_SKIP;
		msg = xasprintf("only GPU %u gave a stable output: nothing to "
		    "compare it with", it[0].index);
	} else {
		for (int d = 0; d < ngroups; d++)
			if (!judge_domain(it, nit, d, &msg, &maj, &odd))
				status = EP_FAIL;
		if (nleft > 0) {
			t = fmt_gpus(left, nleft);
			key = msg;
			msg = xasprintf("%s; %s left out (no stable output)",
			    key, t);
			free(key);
			free(t);
		}
	}
	key = xasprintf("probe.%s.%s.gpus", backend, workload);
	r.key = key;
	r.status = status;
	r.expected = (char *)maj;
	r.actual = (char *)(odd != NULL ? odd : maj);
	r.rule = "probe:gpus";
	r.message = msg;
	ep_results_add(rs, &r);
	t = xasprintf("%s gpus", workload);
	ep_strv_push_owned(summary, xasprintf("%-6s %-15s %-5s %s", backend,
	    t, ep_status_name(status), msg));
	free(t);
	free(key);
done:
	free(msg);
	free(it);
	free(left);
}

void
ep_probe_gpus_agree(struct ep_results *rs, struct ep_manifest *facts,
    struct ep_strv *summary, const char *backend,
    const struct ep_probe_gpuinfo *g, size_t n)
{
	const char *const *wls = ep_probe_workloads(backend);

	for (size_t i = 0; wls != NULL && wls[i] != NULL; i++)
		agree_workload(rs, facts, summary, backend, wls[i], g, n);
}
