/*
 * fuzz_ldcache.c: the loader cache (/etc/ld.so.cache, glibc's
 * "glibc-ld.so.cache1.1" format, with or without the old table in front)
 * as the CUDA library search reads it (ep_ldcache_parse).  Every entry of
 * a cache that parses lies inside it and is looked at as the search
 * does.
 */
#include "fuzz.h"
#include "libsearch.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_ldcache c;
	struct ep_err err = { 0 };

	if (ep_ldcache_parse(&c, data, size, "fuzz", &err) < 0) {
		FZ_CHECK(c.n == 0 && c.v == NULL && err.kind == EP_E_INPUT &&
		    strncmp(err.msg, "fuzz: ", 6) == 0);
		ep_ldcache_clear(&c);
		return 0;
	}
	for (size_t i = 0; i < c.n; i++) {
		const struct ep_ldcache_entry *e = &c.v[i];

		FZ_CHECK(e->key >= c.data && e->key < c.data + size &&
		    e->value >= c.data && e->value < c.data + size);
		FZ_CHECK(strlen(e->key) < size && strlen(e->value) < size);
		ep_ldcache_entry_usable(e);
	}
	ep_ldcache_clear(&c);
	return 0;
}
