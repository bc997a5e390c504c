/*
 * imglocal.h: resolving local images: an OCI image layout directory
 * (oci:DIR[:TAG]) or a `docker save` archive (docker-archive:FILE[:REF],
 * read with imgtar.c).
 */
#ifndef EP_IMGLOCAL_H
#define EP_IMGLOCAL_H

#include "imgtypes.h"

/* imglocal.c: ref->kind is EP_IMG_OCI or EP_IMG_ARCHIVE.  Every failure
 * is EP_E_INPUT (the image the user named is missing, malformed or
 * tampered with: a blob that does not hash to its name is named in the
 * message); every JSON document and config read is capped by
 * o->max_body, layers are never read.  An archive with an OCI layout
 * inside (docker 25 and later) is walked as oci: is; a legacy one gives
 * digest = config_digest = the image ID (see struct ep_imgres). */
void ep_imglocal_resolve(const struct ep_imgref *ref,
    const struct ep_imgopt *o, struct ep_imgres *out);

#endif
