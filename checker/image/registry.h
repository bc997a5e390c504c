/*
 * registry.h: resolving references in registries over the OCI
 * distribution API: regsession.c on top, then regresolve.c, registry.c
 * (the transport, the only libcurl user), regauth.c and regrealm.c
 * (credentials and token realms); regxfer.h is what they share.
 */
#ifndef EP_REGISTRY_H
#define EP_REGISTRY_H

#include "imgtypes.h"

/* regsession.c: refs[i]->kind is EP_IMG_REGISTRY for every i. */
void ep_registry_resolve(const struct ep_imgref *const *refs, size_t n,
    const struct ep_imgopt *o, struct ep_imgres *const *out);

/* "libcurl 7.88.1 (OpenSSL/3.0.19)", for `envparity version`
 * (registry.c). */
const char *ep_registry_library_version(void);

#endif
