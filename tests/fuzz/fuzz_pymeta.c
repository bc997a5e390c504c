/*
 * fuzz_pymeta.c: core metadata (METADATA, PKG-INFO) as the Python
 * collector reads it for each distribution in site-packages
 * (ep_pymeta_parse), then what the collector does with the fields: the
 * name checked and normalized, the version made a fact.  The first byte
 * says whether the buffer was read whole (low bit) and is used as the
 * dist-info entry name's first character; the rest is the file.  The
 * Requires-Dist values, and the whole input read as an egg-info's
 * requires.txt, must be what meta.python.requires can hold.
 */
#include <jansson.h>

#include "fuzz.h"
#include "manifest.h"
#include "python.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_pymeta meta;
	struct ep_manifest *m;
	char *norm, *again, *key, *ent;

	if (size == 0)
		return 0;
	ep_pymeta_parse(&meta, (const char *)data + 1, size - 1, data[0] & 1);
	FZ_CHECK(meta.name == NULL || meta.name[0] != '\0');
	FZ_CHECK(meta.version == NULL || meta.version[0] != '\0');
	/* Requirements as pip holds them: stripped, and valid UTF-8 (each
	 * goes into meta.python.requires as a JSON string). */
	for (size_t i = 0; i < meta.requires.n; i++) {
		const char *q = meta.requires.v[i];
		size_t n = strlen(q);
		json_t *j = json_string(q);

		FZ_CHECK(j != NULL);
		json_decref(j);
		FZ_CHECK(ep_pyspace_len((const unsigned char *)q,
		    (const unsigned char *)q + n) == 0);
		FZ_CHECK(n == 0 || (q[n - 1] != ' ' && q[n - 1] != '\n'));
	}
	/* The same bytes as an egg-info's requires.txt. */
	{
		struct ep_strv sv = { 0 };

		ep_requires_txt_parse(&sv, (const char *)data, size);
		for (size_t i = 0; i < sv.n; i++) {
			json_t *j = json_string(sv.v[i]);

			FZ_CHECK(j != NULL && sv.v[i][0] != '\0');
			json_decref(j);
		}
		ep_strv_clear(&sv);
	}
	m = ep_manifest_new();
	if (meta.name != NULL && ep_pep508_name_valid(meta.name)) {
		norm = ep_pep503_normalize(meta.name);
		again = ep_pep503_normalize(norm);
		FZ_CHECK(strcmp(norm, again) == 0 && ep_pep508_name_valid(norm));
		key = xasprintf("python.pkg.%s", norm);
		ep_manifest_set(m, key, meta.version != NULL ? meta.version :
		    "");
		FZ_CHECK(ep_manifest_get(m, key) != NULL);
		free(key);
		free(again);
		free(norm);
	}
	ent = xasprintf("%c%s-%s.dist-info", data[0] | 1,
	    meta.name != NULL ? meta.name : "",
	    meta.version != NULL ? meta.version : "");
	free(ep_pydist_entry_name(ent));
	free(ent);
	ep_pymeta_clear(&meta);
	ep_manifest_free(m);
	return 0;
}
