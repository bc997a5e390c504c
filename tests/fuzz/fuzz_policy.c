/*
 * fuzz_policy.c: policies (ep_policy_parse), as `check` reads
 * <profile>/policy.json from the store: rules with globs and version
 * ranges, waivers with dates.  A policy that parses is then used: every
 * rule and waiver key is looked up, waivers are tried at several dates,
 * and a golden and a current manifest made of those keys are compared
 * under it.
 */
#include "results.h"
#include "compare.h"
#include "checks.h"
#include "fuzz.h"
#include "manifest.h"
#include "policy.h"

/* 1970-01-01, 2026-01-01, 9999-12-31 and a year strftime cannot write
 * in four digits. */
static const time_t dates[] = { 0, 1767225600, 253402300799LL,
    253402300800LL };

/* 1 if s has none of the glob's special bytes: it matches only itself. */
static int
literal(const char *s)
{
	return strpbrk(s, "*?[\\") == NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_policy *p = NULL;
	struct ep_manifest *golden, *current;
	struct ep_results rs = { 0 };
	struct ep_err err = { 0 };
	const struct ep_rule *rules, *r;
	const struct ep_waiver *waivers, *w;
	size_t nrules, nwaivers;
	int state;

	if (ep_policy_parse(&p, (const char *)data, size, "fuzz", &err) < 0) {
		FZ_CHECK(p == NULL && err.kind == EP_E_INPUT &&
		    strncmp(err.msg, "fuzz: ", 6) == 0);
		return 0;
	}
	FZ_CHECK(p != NULL);
	rules = ep_policy_rules(p, &nrules);
	waivers = ep_policy_waivers(p, &nwaivers);
	/* The defaults end with a catch-all. */
	FZ_CHECK(nrules > 0 && strcmp(rules[nrules - 1].key, "*") == 0);

	golden = ep_manifest_new();
	current = ep_manifest_new();
	for (size_t i = 0; i < nrules; i++) {
		r = ep_policy_match(p, rules[i].key);
		FZ_CHECK(r != NULL);
		/* First match wins: a literal key is matched by its own
		 * rule or by one before it. */
		if (literal(rules[i].key))
			FZ_CHECK(r <= &rules[i]);
		if (rules[i].kind == EP_RULE_VERSION)
			FZ_CHECK(rules[i].range != NULL);
		if (!rules[i].builtin && (i & 1) == 0)
			ep_manifest_set(golden, rules[i].key, rules[i].key);
		if (!rules[i].builtin && (i & 2) == 0)
			ep_manifest_set(current, rules[i].key,
			    rules[i].text);
	}
	for (size_t i = 0; i < nwaivers; i++) {
		FZ_CHECK(strlen(waivers[i].expires) == 10);
		/* A waiver that names a value accepts it; one that does
		 * not accepts any, a missing key included. */
		FZ_CHECK((waivers[i].actual == NULL &&
		    waivers[i].range == NULL) == (waivers[i].accepts == NULL));
		FZ_CHECK(strcmp(waivers[i].key, "*") != 0);
		for (size_t d = 0; d < sizeof dates / sizeof *dates; d++) {
			w = ep_policy_waiver(p, waivers[i].key,
			    waivers[i].actual, dates[d], &state);
			FZ_CHECK((w == NULL) == (state == EP_WAIVER_NONE));
			/* Waiver i accepts its own value (a range-only one
			 * never a missing key): the first live one that does
			 * is found, else the first expired one, i or before. */
			if (literal(waivers[i].key) && d < 3 &&
			    (waivers[i].actual != NULL ||
			    waivers[i].range == NULL))
				FZ_CHECK(w != NULL &&
				    (state == EP_WAIVER_LIVE ||
				    (state == EP_WAIVER_EXPIRED &&
				    w <= &waivers[i])));
			/* A key no waiver names is never waived. */
			w = ep_policy_waiver(p, "\x01unnamed", "1", dates[d],
			    &state);
			FZ_CHECK(w == NULL || !literal(w->key));
		}
		ep_waivers_review(&rs, p, dates[0], EP_EXPIRY_WARNING_DAYS);
		ep_results_clear(&rs);
		ep_manifest_set(golden, waivers[i].key, waivers[i].owner);
		ep_manifest_set(current, waivers[i].key, waivers[i].reason);
	}
	for (size_t d = 0; d < sizeof dates / sizeof *dates; d++) {
		ep_compare(&rs, golden, current, p, dates[d]);
		ep_checks_run(&rs, current, p, dates[d]);
		ep_waivers_review(&rs, p, dates[d], EP_EXPIRY_WARNING_DAYS);
		ep_results_clear(&rs);
	}
	ep_manifest_free(golden);
	ep_manifest_free(current);
	ep_policy_free(p);
	return 0;
}
