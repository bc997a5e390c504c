/*
 * attestopt.c: --attest, --statement and the signing key's options for
 * check and fleet (attestopt.h): the key checked before the work, read
 * after it, and wiped before anything is written.
 */
#include <stdlib.h>
#include <string.h>

#include "attestopt.h"
#include "dsse.h"
#include "outfile.h"
#include "errors.h"
#include "xalloc.h"

const char *
ep_attestopt_unpaired(const struct ep_attestopt *o)
{
	if (o->key_path != NULL && o->key_fd != NULL)
		return "--sign-key and --sign-key-fd exclude each other (one "
		    "key signs)";
	if (o->file != NULL && o->key_path == NULL && o->key_fd == NULL)
		return "--attest needs --sign-key KEY.pem (or --sign-key -, "
		    "--sign-key-fd N: the Ed25519 private key to sign with); "
		    "--statement FILE writes the statement unsigned";
	if (o->file == NULL && o->key_path != NULL)
		return "--sign-key needs --attest FILE (where to write the "
		    "attestation)";
	if (o->file == NULL && o->key_fd != NULL)
		return "--sign-key-fd needs --attest FILE (where to write the "
		    "attestation)";
	return NULL;
}

int
ep_attestopt_key_check(struct ep_attestopt *o, struct ep_err *err)
{
	long fd;
	char *end;
	int rc;

	if (o->key_fd != NULL) {
		fd = strtol(o->key_fd, &end, 10);
		if (o->key_fd[0] < '0' || o->key_fd[0] > '9' || *end != '\0' ||
		    fd > 1 << 20)
			return ep_err_set(err, EP_E_INPUT, "--sign-key-fd %s: "
			    "not a descriptor number", o->key_fd);
		rc = ep_sigkey_src_fd(&o->src, (int)fd, err);
	} else if (strcmp(o->key_path, "-") == 0)
		rc = ep_sigkey_src_fd(&o->src, 0, err);
	else
		rc = ep_sigkey_src_path(&o->src, o->key_path, err);
	if (rc == 0)
		o->have_src = 1;
	return rc;
}

int
ep_attestopt_prepare(struct ep_attestopt *o, struct ep_err *err)
{
	const char *why = ep_attestopt_unpaired(o);

	if (why != NULL)
		return ep_err_set(err, EP_E_INPUT, "%s", why);
	if (o->file == NULL)
		return 0;
	return ep_attestopt_key_check(o, err);
}

int
ep_attestopt_sign_text(struct ep_attestopt *o, const void *body, size_t n,
    struct ep_err *err)
{
	struct ep_sigkey *key = NULL;
	int rc;

	/* The judged environment's code is done: nothing it started may
	 * be running while the key is in memory. */
	if (ep_sigkey_src_read_late(&key, &o->src, err) < 0)
		return -1;
	free(o->envelope);
	o->envelope = NULL;
	rc = ep_dsse_sign(&o->envelope, EP_DSSE_INTOTO, body, n, key, err);
	ep_sigkey_free(key);	/* wipes it */
	return rc;
}

int
ep_attestopt_sign(struct ep_attestopt *o, const struct ep_attest_in *in,
    struct ep_err *err)
{
	if (o->file == NULL && o->statement == NULL)
		return 0;
	if (ep_attest_statement(&o->statement_text, &o->statement_len, in,
	    err) < 0)
		return -1;
	if (o->file == NULL)
		return 0;
	return ep_attestopt_sign_text(o, o->statement_text, o->statement_len,
	    err);
}

int
ep_attestopt_write(const struct ep_attestopt *o, struct ep_err *err)
{
	char *text;
	int rc = 0;

	if (o->statement != NULL && o->statement_text != NULL) {
		text = xasprintf("%s\n", o->statement_text);
		rc = ep_out_write(o->statement, text, strlen(text),
		    EP_OUT_STDOUT, err);
		free(text);
	}
	if (rc == 0 && o->file != NULL && o->envelope != NULL)
		rc = ep_out_write(o->file, o->envelope, strlen(o->envelope),
		    EP_OUT_STDOUT, err);
	return rc;
}

void
ep_attestopt_clear(struct ep_attestopt *o)
{
	if (o->have_src)
		ep_sigkey_src_clear(&o->src);
	o->have_src = 0;
	free(o->statement_text);
	free(o->envelope);
	o->statement_text = o->envelope = NULL;
	o->statement_len = 0;
}
