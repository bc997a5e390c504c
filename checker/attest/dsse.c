/*
 * dsse.c: DSSE envelopes: PAE, signing one, opening one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "b64.h"
#include "dsse.h"
#include "errors.h"
#include "xalloc.h"

unsigned char *
ep_dsse_pae(size_t *len, const char *type, size_t typelen, const void *body,
    size_t n)
{
	char head[64];
	int h1, h2;
	unsigned char *p;

	h1 = snprintf(head, sizeof head, "DSSEv1 %zu ", typelen);
	p = xmalloc((size_t)h1 + typelen + 48 + n);
	memcpy(p, head, (size_t)h1);
	memcpy(p + h1, type, typelen);
	h2 = snprintf(head, sizeof head, " %zu ", n);
	memcpy(p + (size_t)h1 + typelen, head, (size_t)h2);
	if (n > 0)
		memcpy(p + (size_t)h1 + typelen + (size_t)h2, body, n);
	*len = (size_t)h1 + typelen + (size_t)h2 + n;
	p[*len] = '\0';
	return p;
}

int
ep_dsse_sign(char **out, const char *type, const void *body, size_t n,
    const struct ep_sigkey *key, struct ep_err *err)
{
	unsigned char sig[EP_ED25519_SIG], *pae;
	json_t *env, *s, *sigs;
	char *payload, *sigtext, *text;
	size_t paelen, tl;
	int rc;

	*out = NULL;
	pae = ep_dsse_pae(&paelen, type, strlen(type), body, n);
	rc = ep_sigkey_sign(sig, key, pae, paelen, err);
	free(pae);
	if (rc < 0)
		return -1;
	payload = ep_b64_encode(body, n);
	sigtext = ep_b64_encode(sig, sizeof sig);
	env = json_object();
	json_object_set_new(env, "payload", json_string(payload));
	json_object_set_new(env, "payloadType", json_string(type));
	s = json_object();
	json_object_set_new(s, "keyid", json_string(ep_sigkey_id(key)));
	json_object_set_new(s, "sig", json_string(sigtext));
	sigs = json_array();
	json_array_append_new(sigs, s);
	json_object_set_new(env, "signatures", sigs);
	text = json_dumps(env, JSON_SORT_KEYS | JSON_INDENT(2));
	json_decref(env);
	free(payload);
	free(sigtext);
	if (text == NULL)
		return ep_err_set(err, EP_E_IO, "cannot serialize the "
		    "envelope");
	tl = strlen(text);
	*out = xmalloc(tl + 2);
	memcpy(*out, text, tl);
	(*out)[tl] = '\n';
	(*out)[tl + 1] = '\0';
	free(text);
	return 0;
}

/* The string member name of o, or NULL with err saying so. */
static const char *
member(json_t *o, const char *name, const char *where, size_t *len,
    struct ep_err *err)
{
	json_t *v = json_object_get(o, name);

	if (!json_is_string(v)) {
		ep_err_set(err, EP_E_INPUT, "not a DSSE envelope: %s%s\"%s\" "
		    "%s", where, *where ? " " : "", name, v == NULL ?
		    "is missing" : "is not a string");
		return NULL;
	}
	*len = json_string_length(v);
	return json_string_value(v);
}

int
ep_dsse_open(unsigned char **body, size_t *len, size_t *which,
    const char *text, size_t n, const char *type,
    struct ep_sigkey *const *keys, size_t nkeys, struct ep_err *err)
{
	json_error_t je;
	json_t *env = NULL, *sigs, *s;
	const char *payload, *ptype, *sigtext, *kid;
	unsigned char *pl = NULL, *pae = NULL, *sig = NULL;
	size_t pllen, plen, tlen, slen, siglen, paelen, i, k, nsig;
	char where[48];
	int rc = -1, held = 0;

	*body = NULL;
	*len = 0;
	*which = 0;
	if (n > EP_DSSE_MAX)
		return ep_err_set(err, EP_E_INPUT, "not a DSSE envelope: "
		    "larger than %u bytes", EP_DSSE_MAX);
	/* Duplicate members refused: two readers must not see two
	 * payloads in one envelope. */
	if ((env = json_loadb(text, n, JSON_REJECT_DUPLICATES, &je)) == NULL)
		return ep_err_set(err, EP_E_INPUT, "not a DSSE envelope: "
		    "line %d column %d: %s", je.line, je.column, je.text);
	if (!json_is_object(env)) {
		ep_err_set(err, EP_E_INPUT, "not a DSSE envelope: not a JSON "
		    "object");
		goto done;
	}
	if ((payload = member(env, "payload", "", &plen, err)) == NULL ||
	    (ptype = member(env, "payloadType", "", &tlen, err)) == NULL)
		goto done;
	sigs = json_object_get(env, "signatures");
	if (!json_is_array(sigs) || (nsig = json_array_size(sigs)) == 0) {
		ep_err_set(err, EP_E_INPUT, "not a DSSE envelope: %s",
		    sigs == NULL ? "\"signatures\" is missing" :
		    !json_is_array(sigs) ? "\"signatures\" is not an array" :
		    "no signatures");
		goto done;
	}
	if (nsig > EP_DSSE_SIGS_MAX) {
		ep_err_set(err, EP_E_INPUT, "not a DSSE envelope: %zu "
		    "signatures (at most %d are read)", nsig,
		    EP_DSSE_SIGS_MAX);
		goto done;
	}
	if (ep_b64_decode(&pl, &pllen, payload, plen, "payload", err) < 0)
		goto done;
	pae = ep_dsse_pae(&paelen, ptype, tlen, pl, pllen);
	/* Every signature well formed before any is tried, so that a bad
	 * one is said whichever key holds. */
	for (i = 0; i < nsig; i++) {
		s = json_array_get(sigs, i);
		snprintf(where, sizeof where, "signatures[%zu]", i);
		if (!json_is_object(s)) {
			ep_err_set(err, EP_E_INPUT, "not a DSSE envelope: %s "
			    "is not an object", where);
			goto done;
		}
		if ((sigtext = member(s, "sig", where, &slen, err)) == NULL)
			goto done;
		kid = json_string_value(json_object_get(s, "keyid"));
		if (json_object_get(s, "keyid") != NULL && kid == NULL) {
			ep_err_set(err, EP_E_INPUT, "not a DSSE envelope: %s "
			    "\"keyid\" is not a string", where);
			goto done;
		}
		snprintf(where, sizeof where, "signatures[%zu].sig", i);
		if (ep_b64_decode(&sig, &siglen, sigtext, slen, where,
		    err) < 0)
			goto done;
		for (k = 0; k < nkeys && !held; k++)
			if (ep_sigkey_verify(keys[k], sig, siglen, pae,
			    paelen)) {
				held = 1;
				*which = k;
			}
		free(sig);
		sig = NULL;
	}
	if (!held) {
		ep_err_set(err, EP_E_DENIED, "no signature holds under %s "
		    "(%zu signature%s): the envelope was changed after it was "
		    "signed, or signed with another key", nkeys == 1 ?
		    "the key given" : "any of the keys given", nsig,
		    nsig == 1 ? "" : "s");
		goto done;
	}
	/* Only now, with the type authenticated, is it judged. */
	if (tlen != strlen(type) || memcmp(ptype, type, tlen) != 0) {
		ep_err_set(err, EP_E_INPUT, "payloadType \"%.*s\" is not %s",
		    (int)(tlen > 200 ? 200 : tlen), ptype, type);
		goto done;
	}
	*body = pl;
	*len = pllen;
	pl = NULL;
	rc = 0;
done:
	free(pl);
	free(pae);
	free(sig);
	json_decref(env);
	return rc;
}
