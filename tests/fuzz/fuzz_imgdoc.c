/*
 * fuzz_imgdoc.c: image documents, as the registry client and the local
 * layouts read them: manifests and indexes (ep_imgdoc_parse), the
 * platform an index entry is picked for (ep_imgdoc_pick), and an image
 * config's platform (ep_imgconfig_platform).  The first byte picks the
 * Content-Type the body came with (none, or one of the four media
 * types); the rest is the body.
 */
#include "fuzz.h"
#include "image.h"

static const char *const types[] = { NULL, EP_MT_OCI_INDEX,
    EP_MT_OCI_MANIFEST, EP_MT_DOCKER_LIST, EP_MT_DOCKER_MANIFEST,
    "application/json; charset=utf-8", EP_MT_OCI_INDEX "; q=1",
    "text/plain" };

static const char *const platforms[] = { "linux/amd64", "linux/arm64",
    "linux/arm64/v8", "linux/arm/v7", "windows/amd64", "", "/", "//" };

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct ep_imgdoc_entry *e;
	struct ep_imgdoc d;
	struct ep_err err = { 0 };
	char *why, *plat;

	if (size == 0)
		return 0;
	if (ep_imgdoc_parse(&d, (const char *)data + 1, size - 1,
	    types[data[0] % (sizeof types / sizeof *types)], &err) == 0) {
		FZ_CHECK(d.media_type != NULL);
		if (d.is_index) {
			for (size_t i = 0; i < d.n; i++) {
				FZ_CHECK(ep_digest_valid(d.v[i].digest));
				if (d.v[i].platform == NULL)
					continue;
				/* Every platform listed can be picked. */
				e = ep_imgdoc_pick(&d, d.v[i].platform, &why);
				FZ_CHECK(e != NULL && why == NULL);
			}
			for (size_t i = 0; i < sizeof platforms /
			    sizeof *platforms; i++) {
				e = ep_imgdoc_pick(&d, platforms[i], &why);
				FZ_CHECK((e == NULL) == (why != NULL));
				free(why);
			}
		} else
			FZ_CHECK(d.config_digest != NULL &&
			    ep_digest_valid(d.config_digest));
		ep_imgdoc_clear(&d);
	} else
		FZ_CHECK(err.kind == EP_E_INPUT && d.media_type == NULL &&
		    d.v == NULL);
	plat = ep_imgconfig_platform((const char *)data + 1, size - 1, &err);
	FZ_CHECK(plat == NULL || strchr(plat, '/') != NULL);
	free(plat);
	return 0;
}
