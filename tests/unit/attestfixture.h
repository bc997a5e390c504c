/*
 * attestfixture.h: what the attestation unit tests share (test_attest.c,
 * test_attest_read.c): key A (RFC 8032 section 7.1 TEST 1's seed) in
 * PEM, private and public, and a key read from PEM.  Header-only: each
 * test binary is its own program.
 */
#ifndef EP_ATTESTFIXTURE_H
#define EP_ATTESTFIXTURE_H

#include <string.h>

#include "sigkey.h"

#define ATFX_UNUSED __attribute__((unused))

/* PKCS#8: 302e020100300506032b657004220420 then the 32-byte seed. */
static ATFX_UNUSED const char key_a_pem[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MC4CAQAwBQYDK2VwBCIEIJ1hsZ3v/VpguoRK9JLsLMREScVpezJpGXA7rAMcrn9g\n"
    "-----END PRIVATE KEY-----\n";
/* Key A's public key. */
static ATFX_UNUSED const char pub_a_pem[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MCowBQYDK2VwAyEA11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=\n"
    "-----END PUBLIC KEY-----\n";

static ATFX_UNUSED struct ep_sigkey *
key(const char *pem, int private)
{
	struct ep_sigkey *k = NULL;
	struct ep_err err = { 0 };

	assert_int_equal(ep_sigkey_from_pem(&k, pem, strlen(pem), "test.pem",
	    private, &err), 0);
	return k;
}

#endif
