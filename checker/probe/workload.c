/*
 * workload.c: the pure half of a team's own reference run (workload.h):
 * reading --workload NAME=COMMAND, turning a workload's runs into results
 * and facts, and its determinism domain from the capture's facts.  What
 * binds bit-exactness is the stack, not the settings: a changed
 * OMP_NUM_THREADS or TF32 switch is drift the env.* facts already name,
 * and a node whose hash differs because of it must fail with that fact
 * as the likely cause (fleet_cause.c), not hide in a domain of its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "str.h"
#include "workload.h"
#include "xalloc.h"

void
ep_workload_clear(struct ep_workload *w)
{
	free(w->name);
	free(w->command);
	w->name = w->command = NULL;
}

static int
name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '-';
}

int
ep_workload_parse(struct ep_workload *out, const char *arg,
    struct ep_err *err)
{
	const char *eq = strchr(arg, '=');
	size_t n;

	memset(out, 0, sizeof *out);
	if (eq == NULL)
		return ep_err_set(err, EP_E_INPUT, "--workload: expected "
		    "NAME=COMMAND, got no '='");
	n = (size_t)(eq - arg);
	if (n == 0 || n > EP_WORKLOAD_NAME_MAX)
		return ep_err_set(err, EP_E_INPUT, "--workload: the name "
		    "before '=' must have 1 to %d characters",
		    EP_WORKLOAD_NAME_MAX);
	for (size_t i = 0; i < n; i++)
		if (!name_char(arg[i]))
			return ep_err_set(err, EP_E_INPUT, "--workload: the "
			    "name may hold only letters, digits, '_' and "
			    "'-' (it becomes the fact key workload.NAME)");
	if (eq[1] == '\0')
		return ep_err_set(err, EP_E_INPUT, "--workload %.*s: the "
		    "command after '=' is empty", (int)n, arg);
	out->name = xstrndup(arg, n);
	out->command = xstrdup(eq + 1);
	return 0;
}

void
ep_workload_set_clear(struct ep_workload_set *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->runs[i].why);
	free(s->runs);
	s->runs = NULL;
	s->n = 0;
}

static void
add_result(struct ep_results *rs, const char *key, int status,
    const char *actual, const char *rule, const char *message)
{
	struct ep_result r = { 0 };

	r.key = (char *)key;
	r.status = status;
	r.actual = (char *)actual;
	r.rule = (char *)rule;
	r.message = (char *)message;
	ep_results_add(rs, &r);
}

/* The runs that failed as processes: one result each. */
static void
run_failures(struct ep_results *rs, const struct ep_workload_set *s)
{
	const struct ep_workload_run *r;
	char *key, *msg;

	for (size_t i = 0; i < s->n; i++) {
		r = &s->runs[i];
		if (r->outcome == EP_WORKLOAD_OK)
			continue;
		key = xasprintf("workload.%s.run%zu", s->name, i + 1);
		msg = xasprintf("workload %s: run %zu of %zu: %s", s->name,
		    i + 1, s->n, r->why ? r->why : "failed");
		add_result(rs, key, r->outcome == EP_WORKLOAD_UNREADABLE ?
		    EP_ERROR : EP_FAIL, NULL, "workload:run", msg);
		free(key);
		free(msg);
	}
}

/* Append to *msg the runs (1-based numbers) whose hash is h. */
static void
runs_with(char **msg, const struct ep_workload_set *s, const char *h)
{
	char *t;
	int first = 1;

	for (size_t i = 0; i < s->n; i++) {
		if (s->runs[i].outcome != EP_WORKLOAD_OK ||
		    strcmp(s->runs[i].sha256, h) != 0)
			continue;
		t = xasprintf("%s%s%zu", *msg, first ? "" : ",", i + 1);
		free(*msg);
		*msg = t;
		first = 0;
	}
}

/* The times of the runs, in meta.workload.<NAME>.seconds. */
static void
times_meta(struct ep_manifest *m, const struct ep_workload_set *s)
{
	json_t *all = json_object_get(m->meta, "workload"), *one, *secs;

	if (!json_is_object(all)) {
		all = json_object();
		json_object_set_new(m->meta, "workload", all);
	}
	one = json_object();
	secs = json_array();
	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(secs, json_real(
		    (double)(long long)(s->runs[i].seconds * 1000 + 0.5) /
		    1000));
	json_object_set_new(one, "seconds", secs);
	json_object_set_new(all, s->name, one);
}

void
ep_workload_aggregate(struct ep_results *rs, struct ep_manifest *facts,
    const struct ep_workload_set *s)
{
	const char **distinct = xcalloc(s->n + 1, sizeof *distinct);
	size_t nd = 0, nok = 0, j;
	char *key, *msg, *fkey;

	run_failures(rs, s);
	times_meta(facts, s);
	for (size_t i = 0; i < s->n; i++) {
		if (s->runs[i].outcome != EP_WORKLOAD_OK)
			continue;
		nok++;
		for (j = 0; j < nd; j++)
			if (strcmp(distinct[j], s->runs[i].sha256) == 0)
				break;
		if (j == nd)
			distinct[nd++] = s->runs[i].sha256;
	}
	key = xasprintf("workload.%s", s->name);
	fkey = xasprintf("workload.%s.runs", s->name);
	if (nok == 0) {
		msg = xasprintf("workload %s: no run of %zu gave an output",
		    s->name, s->n);
		add_result(rs, key, EP_FAIL, NULL, "workload:runs", msg);
		ep_manifest_set(facts, fkey, "no output");
	} else if (nd == 1) {
		msg = xasprintf("workload %s: identical output in %zu run%s%s"
		    " (sha256 %.12s)", s->name, nok, nok == 1 ? "" : "s",
		    nok < s->n ? " that gave one" : "", distinct[0]);
		add_result(rs, key, EP_PASS, distinct[0], "workload:runs",
		    msg);
		ep_manifest_set(facts, fkey, "identical");
		free(fkey);
		fkey = xasprintf("workload.%s.sha256", s->name);
		ep_manifest_set(facts, fkey, distinct[0]);
	} else {
		msg = xasprintf("workload %s: %zu distinct outputs in %zu "
		    "runs:", s->name, nd, nok);
		for (j = 0; j < nd; j++) {
			size_t k, same = 0;
			char *t;

			for (k = 0; k < s->n; k++)
				same += s->runs[k].outcome == EP_WORKLOAD_OK &&
				    strcmp(s->runs[k].sha256, distinct[j]) == 0;
			t = xasprintf("%s%s %.12s in run%s ", msg,
			    j ? ";" : "", distinct[j], same > 1 ? "s" : "");

			free(msg);
			msg = t;
			runs_with(&msg, s, distinct[j]);
		}
		add_result(rs, key, EP_FAIL, NULL, "workload:runs", msg);
		free(msg);
		msg = xasprintf("%zu distinct", nd);
		ep_manifest_set(facts, fkey, msg);
	}
	free(msg);
	free(fkey);
	free(key);
	free(distinct);
}

/* What the domain is made of: a label and the fact that gives it. */
static const struct {
	const char *label, *key;
} domain_parts[] = {
	{ "", "gpu.0.name" },
	{ "cc", "gpu.0.cc" },
	{ "mig", "gpu.0.mig" },	/* a MIG slice has fewer SMs */
	{ "driver", "gpu.driver.version" },
	{ "cuda", "gpu.cuda_driver.version" },
	{ "cudart", "lib.cudart.version" },
	{ "cublas", "lib.cublas.version" },
	{ "cublaslt", "lib.cublaslt.version" },
	{ "cudnn", "lib.cudnn.version" },
	{ "torch", "framework.torch.version" },
	{ "torch-git", "framework.torch.git_version" },
	{ "torch-cuda", "framework.torch.cuda" },
	{ "torch-cudnn", "framework.torch.cudnn" },
	{ "tensorflow", "framework.tensorflow.version" },
	{ "tensorflow-cuda", "framework.tensorflow.cuda_version" },
	{ "tensorflow-cudnn", "framework.tensorflow.cudnn_version" },
	{ "jax", "framework.jax.version" },
	{ "jaxlib", "framework.jax.jaxlib" },
	{ "jax-cuda", "framework.jax.cuda" },
	{ "cpu", "cpu.isa" },
};

void
ep_workload_domain(struct ep_manifest *m)
{
	char *d = xstrdup(""), *t;
	const char *v;

	for (size_t i = 0; i < sizeof domain_parts / sizeof *domain_parts;
	    i++) {
		if ((v = ep_manifest_get(m, domain_parts[i].key)) == NULL ||
		    *v == '\0')
			continue;
		t = xasprintf("%s%s%s%s%s", d, *d ? " " : "",
		    domain_parts[i].label, *domain_parts[i].label ? " " : "",
		    v);
		free(d);
		d = t;
	}
	ep_manifest_set(m, "workload.domain", *d ? d : "cpu");
	free(d);
}
