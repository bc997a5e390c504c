/*
 * capture.h: run every collector, hash what they queued, and return the
 * manifest.  Shared by `capture` and `check`.
 */
#ifndef EP_CAPTURE_H
#define EP_CAPTURE_H

#include "collect.h"
#include "manifest.h"

/* The node name a capture records: node when given, else
 * $SLURMD_NODENAME when it is a valid node name (hostlist.h), else the
 * host name.  EP_E_INPUT naming --node when node is given and is not a
 * valid node name ([A-Za-z0-9._-], not "." or "..": fleet names files
 * after it).  *out is a new string. */
int ep_capture_node(char **out, const char *node, struct ep_err *err);

/* meta.host, meta.node (ep_capture_node's; node as for it, already
 * checked), meta.captured_at and meta.tool, as every manifest this
 * machine writes carries them. */
void ep_capture_meta(struct ep_manifest *m, const char *node);

/* Capture the machine.  *out belongs to the caller.  Fails (EP_E_INPUT)
 * only when an explicitly named input is bad. */
int ep_capture(struct ep_manifest **out, const struct ep_capture_opts *o,
    struct ep_err *err);

#endif
