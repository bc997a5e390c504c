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
