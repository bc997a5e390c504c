/*
 * attestopt.c: --attest and --sign-key for check and fleet.
 */
#include <stdlib.h>
#include <string.h>

#include "attestopt.h"
#include "outfile.h"

int
ep_attest_opt(struct ep_attestopt *o, int c, const char *arg)
{
	switch (c) {
	case EP_OPT_ATTEST:
		o->file = arg;
		return 1;
	case EP_OPT_SIGN_KEY:
		o->key_path = arg;
		return 1;
	default:
		return 0;
	}
}

int
ep_attestopt_wanted(const struct ep_attestopt *o)
{
	return o->file != NULL;
}

const char *
ep_attestopt_unpaired(const struct ep_attestopt *o)
{
	if (o->file != NULL && o->key_path == NULL)
		return "--attest needs --sign-key KEY.pem (the Ed25519 "
		    "private key to sign with)";
	if (o->file == NULL && o->key_path != NULL)
		return "--sign-key needs --attest FILE (where to write the "
		    "attestation)";
	return NULL;
}

int
ep_attestopt_prepare(struct ep_sigkey **key, const struct ep_attestopt *o,
    struct ep_err *err)
{
	const char *why = ep_attestopt_unpaired(o);

	*key = NULL;
	if (why != NULL)
		return ep_err_set(err, EP_E_INPUT, "%s", why);
	if (o->file == NULL)
		return 0;
	if (ep_out_check(o->file, EP_OUT_STDOUT, err) < 0)
		return -1;
	return ep_sigkey_load_private(key, o->key_path, err);
}

int
ep_attestopt_write(const struct ep_attestopt *o, const struct ep_sigkey *key,
    const struct ep_attest_in *in, struct ep_err *err)
{
	char *env;
	int rc;

	if (o->file == NULL)
		return 0;
	if (ep_attest_envelope(&env, in, key, err) < 0)
		return -1;
	rc = ep_out_write(o->file, env, strlen(env), EP_OUT_STDOUT, err);
	free(env);
	return rc;
}
