/*
 * collect.c: what the collectors share beneath them (collect.h): files
 * queued for hashing, which capture.c hashes together once every
 * collector has run.
 */
#include "collect.h"

void
ep_collect_hash_later(struct ep_collect *c, const char *key, const char *path)
{
	ep_strv_push(&c->hash_keys, key);
	ep_strv_push(&c->hash_paths, path);
}

size_t
ep_collect_hash_part(struct ep_collect *c, const char *path)
{
	ep_strv_push(&c->hash_keys, "");
	ep_strv_push(&c->hash_paths, path);
	return c->hash_paths.n - 1;
}
