/*
 * factsince.h: which facts a release of envparity began to capture
 * (factsince.c), so that a golden blessed by an older release is not
 * said to lack what that release could never see: such a key, new
 * here, is a note ("fact new since envparity 0.3"), not drift, until the
 * profile is blessed again.  CHANGELOG.md lists the same keys.
 */
#ifndef EP_FACTSINCE_H
#define EP_FACTSINCE_H

#include "manifest.h"

/* The release ("0.3.0") that began to capture key, or NULL when key is
 * not one that a release added (or it came with the first).  Borrowed,
 * static. */
const char *ep_fact_since(const char *key);

/* The release that wrote golden: the version of its meta.tool
 * ("envparity 0.2.0" gives "0.2.0"), or NULL when golden names none or
 * no version.  Borrowed from golden. */
const char *ep_fact_golden_release(const struct ep_manifest *golden);

/* When key is a fact that a release newer than the one that wrote golden
 * began to capture: that release (as ep_fact_since), else NULL. */
const char *ep_fact_new_since(const struct ep_manifest *golden,
    const char *key);

#endif
