/*
 * reap.h: no process of ours left.  A secret read after the judged
 * environment's code is done (the signing key) is read only when that
 * code is gone: every child of envparity still alive is killed and
 * reaped.  envparity is the subreaper of its descendants (child.h), so a
 * process a child left behind, even one that left its session, is a
 * child of ours by then, and goes the same way.
 */
#ifndef EP_REAP_H
#define EP_REAP_H

#include "errors.h"

/* Kill (SIGKILL) and reap every child of this process, and every orphan
 * that becomes one as they die, until none is left: 0.  -1 with err
 * (EP_E_IO) naming one that is still alive after grace_ms, or when /proc
 * cannot be read (then nothing can be said). */
int ep_reap_all(int grace_ms, struct ep_err *err);

#endif
