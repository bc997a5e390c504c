/*
 * nodesig.h: a node's own signature over its manifest, for a fleet whose
 * manifests go through a directory every node can write (a volume of a
 * Kubernetes Indexed Job, a shared file system): there any writer can
 * speak for any node, unless each node signs what it says with a key
 * only it holds.  `capture --sign-key KEY` writes the manifest inside a
 * DSSE envelope (dsse.h) of type EP_NODESIG_TYPE signed with the node's
 * Ed25519 key; `fleet --node-keys DIR` opens NODE.json only under
 * DIR/NODE.pub, and only then reads the manifest, whose meta.node must be
 * NODE (checker/fleet/ checks that).  The payload type is the manifest's
 * own, so a node's signature is never an attestation's, nor the reverse.
 */
#ifndef EP_NODESIG_H
#define EP_NODESIG_H

#include <stddef.h>

#include "errors.h"

#define EP_NODESIG_TYPE	"application/vnd.envparity.manifest+json"

struct ep_sigkey_src;

/* After the work: the manifest text (n bytes) signed with the node's
 * private key into *out, a DSSE envelope (new, JSON with a trailing
 * newline).  src was checked before the work (sigkey.h's
 * ep_sigkey_src_path or ep_sigkey_src_fd, which also keep every output
 * off the key's file); its key is read only now, once every process the
 * capture started has been reaped (reap.h), and freed, its text wiped,
 * before this returns.  EP_E_IO when a process cannot be reaped (the key
 * is then not read); sigkey.h's refusals of the key itself. */
int ep_nodesig_sign(char **out, const char *text, size_t n,
    struct ep_sigkey_src *src, struct ep_err *err);

/* The nodes' public keys: DIR/NODE.pub for each node (DIR must be a
 * directory; each key is read when its node's manifest is opened). */
struct ep_nodekeys;
int ep_nodekeys_open(struct ep_nodekeys **out, const char *dir,
    struct ep_err *err);
void ep_nodekeys_free(struct ep_nodekeys *k);	/* accepts NULL */

/* Open node's signed manifest, the n bytes of text read from path: a
 * signature by node's key (keys, an ep_nodekeys) must hold over it;
 * *body is the manifest's text (new, *len bytes).  Fails with one line
 * naming path and node: EP_E_INPUT for a file that is no envelope (an
 * unsigned manifest is named as such), a node without a key in the
 * directory, a key that is not one; EP_E_DENIED when no signature holds
 * under the node's key (tampered, or signed by another node's key).
 * Fits fleet.h's ep_fleet_open_fn. */
int ep_nodesig_open(char **body, size_t *len, void *keys, const char *node,
    const char *path, const char *text, size_t n, struct ep_err *err);

#endif
