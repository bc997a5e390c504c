/*
 * fuzz_manifest.c: manifests (ep_manifest_parse), as `check`, `diff` and
 * `bless` read a golden or a node's manifest.  What parses must dump and
 * parse again to the same bytes (blessed manifests diff cleanly in git),
 * compare with itself under the default policy without drift, and go
 * through the checks that need no golden (checks.c reads versions out of
 * the facts).
 */
#include <jansson.h>

#include "results.h"
#include "compare.h"
#include "checks.h"
#include "fuzz.h"
#include "manifest.h"
#include "policy.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_manifest *m = NULL, *again = NULL;
	struct ep_results rs = { 0 };
	struct ep_policy *def;
	struct ep_err err = { 0 };
	char *text = NULL, *text2 = NULL;
	size_t counts[EP_NSTATUS];

	if (ep_manifest_parse(&m, (const char *)data, size, "fuzz", &err) < 0) {
		FZ_CHECK(m == NULL && err.kind == EP_E_INPUT &&
		    strncmp(err.msg, "fuzz: ", 6) == 0);
		return 0;
	}
	FZ_CHECK(m != NULL);
	FZ_CHECK(ep_manifest_dump(&text, m, &err) == 0);
	FZ_CHECK(ep_manifest_parse(&again, text, strlen(text), "dump",
	    &err) == 0);
	FZ_CHECK(ep_manifest_dump(&text2, again, &err) == 0);
	FZ_CHECK(strcmp(text, text2) == 0);

	def = ep_policy_default();
	ep_compare(&rs, m, again, def, 1767225600);
	ep_results_count(&rs, counts);
	/* A manifest agrees with itself: no failure, and no error but the
	 * one that says a golden without facts compared nothing. */
	FZ_CHECK(counts[EP_FAIL] == 0);
	for (size_t i = 0; i < rs.n; i++)
		FZ_CHECK(rs.v[i].status != EP_ERROR ||
		    (strcmp(rs.v[i].key, "golden.compared") == 0 &&
		    counts[EP_PASS] == 0));
	ep_results_clear(&rs);
	ep_checks_run(&rs, m, def, 1767225600);
	ep_results_sort(&rs);
	ep_results_clear(&rs);

	ep_policy_free(def);
	free(text);
	free(text2);
	ep_manifest_free(again);
	ep_manifest_free(m);
	return 0;
}
