/*
 * nodesig.c: a node's signature over its manifest (nodesig.h), a DSSE
 * envelope made and opened with dsse.h and sigkey.h.  Signing reads the
 * key at the last moment, after the capture and its helpers are done,
 * and frees it at once; opening picks the key by the node the file is
 * named for, never by anything the envelope says (its keyid is a hint a
 * forger writes too).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jansson.h>

#include "dsse.h"
#include "nodesig.h"
#include "sigkey.h"
#include "errors.h"
#include "xalloc.h"

struct ep_nodekeys {
	char *dir;
};

int
ep_nodesig_sign(char **out, const char *text, size_t n,
    struct ep_sigkey_src *src, struct ep_err *err)
{
	struct ep_sigkey *key = NULL;
	int rc;

	*out = NULL;
	/* The capture's helpers ran the node's own code: nothing they
	 * started may be alive while the key is in memory. */
	if (ep_sigkey_src_read_late(&key, src, err) < 0)
		return -1;
	rc = ep_dsse_sign(out, EP_NODESIG_TYPE, text, n, key, err);
	ep_sigkey_free(key);	/* wipes it */
	return rc;
}

int
ep_nodekeys_open(struct ep_nodekeys **out, const char *dir,
    struct ep_err *err)
{
	struct stat st;

	*out = NULL;
	if (stat(dir, &st) < 0)
		return ep_err_set(err, EP_E_INPUT, "--node-keys %s: %s", dir,
		    strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ep_err_set(err, EP_E_INPUT, "--node-keys %s: not a "
		    "directory (it holds NODE.pub for each node)", dir);
	*out = xcalloc(1, sizeof **out);
	(*out)->dir = xstrdup(dir);
	return 0;
}

void
ep_nodekeys_free(struct ep_nodekeys *k)
{
	if (k == NULL)
		return;
	free(k->dir);
	free(k);
}

/* Whether text is a manifest rather than an envelope: said as such. */
static int
is_manifest(const char *text, size_t n)
{
	json_t *j = json_loadb(text, n, 0, NULL);
	int yes = json_is_object(json_object_get(j, "facts")) &&
	    json_object_get(j, "payloadType") == NULL;

	json_decref(j);
	return yes;
}

int
ep_nodesig_open(char **body, size_t *len, void *keys, const char *node,
    const char *path, const char *text, size_t n, struct ep_err *err)
{
	const struct ep_nodekeys *nk = keys;
	struct ep_sigkey *key = NULL;
	struct ep_err e = { 0 };
	unsigned char *pl = NULL;
	char *kpath = xasprintf("%s/%s.pub", nk->dir, node);
	size_t which;
	int rc = -1;

	*body = NULL;
	*len = 0;
	if (ep_sigkey_load_public(&key, kpath, &e) < 0) {
		ep_err_set(err, EP_E_INPUT, "%s: no key of node %s to open it "
		    "with: %s", path, node, e.msg);
		goto done;
	}
	if (ep_dsse_open(&pl, len, &which, text, n, EP_NODESIG_TYPE, &key, 1,
	    &e) < 0) {
		if (e.kind == EP_E_INPUT && is_manifest(text, n))
			ep_err_set(err, EP_E_INPUT, "%s: not signed: a manifest "
			    "without node %s's signature (--node-keys takes "
			    "only manifests their node signed, capture "
			    "--sign-key)", path, node);
		else if (e.kind == EP_E_DENIED)
			ep_err_set(err, EP_E_DENIED, "%s: not signed by node "
			    "%s's key (%s): %s", path, node, kpath, e.msg);
		else
			ep_err_set(err, e.kind, "%s: %s", path, e.msg);
		goto done;
	}
	*body = (char *)pl;
	rc = 0;
done:
	ep_sigkey_free(key);
	free(kpath);
	return rc;
}
