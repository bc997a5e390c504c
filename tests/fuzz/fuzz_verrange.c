/*
 * fuzz_verrange.c: versions and version ranges (vercmp.h, verrange.h),
 * as policy rules and the stack checks use them.  The input is a range, a newline,
 * then versions one per line.  The range is parsed and matched against
 * each version; the versions are compared pairwise and with themselves,
 * holding ep_vercmp to the total order its header promises.
 */
#include "fuzz.h"
#include "vercmp.h"
#include "verrange.h"

#define MAXV	6

static int
sign(int x)
{
	return (x > 0) - (x < 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_verrange *r = NULL;
	struct ep_err err = { 0 };
	const uint8_t *part;
	size_t partn, nv = 0;
	unsigned long rel[4];
	char *range, *v[MAXV];
	int m;

	if (size > 4096)	/* the pairwise loops are quadratic */
		return 0;
	fz_split(&data, &size, "\n", &part, &partn);
	range = fz_cstr(part, partn);
	while (size > 0 && nv < MAXV) {
		fz_split(&data, &size, "\n", &part, &partn);
		v[nv++] = fz_cstr(part, partn);
	}

	if (ep_verrange_parse(&r, range, &err) == 0) {
		FZ_CHECK(r != NULL && ep_verrange_text(r) != NULL);
		for (size_t i = 0; i < nv; i++) {
			m = ep_verrange_match(r, v[i]);
			FZ_CHECK(m == 1 || m == 0 || m == -1);
			/* -1 for what is not a version, unless the range
			 * compares strings (===). */
			FZ_CHECK(m != -1 || !ep_version_valid(v[i]));
			if (m != -1 && !ep_version_valid(v[i]))
				FZ_CHECK(strstr(ep_verrange_text(r), "===") !=
				    NULL);
		}
		ep_verrange_free(r);
	} else
		FZ_CHECK(r == NULL && err.kind == EP_E_INPUT);

	for (size_t i = 0; i < nv; i++) {
		FZ_CHECK(ep_vercmp(v[i], v[i]) == 0);
		if (ep_version_valid(v[i]))
			FZ_CHECK(ep_version_release(rel, 4, v[i]) > 0);
		else
			FZ_CHECK(ep_version_release(rel, 4, v[i]) == 0);
		for (size_t j = 0; j < nv; j++) {
			int ij = sign(ep_vercmp(v[i], v[j]));

			FZ_CHECK(ij == -sign(ep_vercmp(v[j], v[i])));
			for (size_t k = 0; k < nv; k++) {
				int jk = sign(ep_vercmp(v[j], v[k]));

				/* Transitive: i <= j <= k gives i <= k. */
				if (ij <= 0 && jk <= 0)
					FZ_CHECK(ep_vercmp(v[i], v[k]) <= 0);
			}
		}
	}
	for (size_t i = 0; i < nv; i++)
		free(v[i]);
	free(range);
	return 0;
}
