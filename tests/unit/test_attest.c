/*
 * test_attest.c: the parts of an attestation that others must compute
 * the same way (base64 is test_b64.c's): DSSE's PAE (protocol.md's
 * example and the DSSE test vectors' bytes), Ed25519 through OpenSSL
 * (RFC 8032 section 7.1 TEST 1, and the DSSE vectors' signatures made
 * and checked), the keyid (SHA-256
 * of the DER SubjectPublicKeyInfo), the key types refused, the facts'
 * canonical digest (as `jq -cjS .facts | sha256sum` gives it) and git
 * blob ids (as `git hash-object`).  Statements written and read back,
 * and what verify types, are in test_attest_read.c.
 *
 * DSSE vectors: secure-systems-lab/dsse testvectors/vectors.json
 * (82043adf); keys A and B are RFC 8032's TEST 1 and TEST 2 seeds.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attest.h"
#include "attestfixture.h"
#include "b64.h"
#include "dsse.h"
#include "hash.h"
#include "manifest.h"
#include "outfile.h"
#include "sigkey.h"
#include "testutil.h"

/* PKCS#8: 302e020100300506032b657004220420 then the 32-byte seed. */
static const char key_b_pem[] =
    "-----BEGIN PRIVATE KEY-----\n"
    "MC4CAQAwBQYDK2VwBCIEIEzNCJso/5banbbDRuwRTg9bijGfNaumJNqM9u1PuKb7\n"
    "-----END PRIVATE KEY-----\n";
/* SubjectPublicKeyInfo: 302a300506032b6570032100 then the public key. */
static const char pub_a_hex[] =
    "302a300506032b6570032100"
    "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";
static const char ec_pub_pem[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE5mMgTGdvv2U/ztd/KSn9GHfeXRvV\n"
    "kzlGI4GKUvwL2lYF+PSFefhTFd3Fi54JsLuOrQ8vhpfULyh98GEKgseaeA==\n"
    "-----END PUBLIC KEY-----\n";
static const char ed448_pub_pem[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MEMwBQYDK2VxAzoA1XSml9iq1ka3bu2Lxo+TabFVAzgJSHb6Sa5mXeqBEMqRQG+h\n"
    "h7lSbvVnrl/xobi210JZnJXnU3IA\n"
    "-----END PUBLIC KEY-----\n";

/* RFC 8032 7.1 TEST 1: the signature of the empty message. */
static const char rfc8032_test1_sig[] =
    "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8"
    "821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b";

#define INTOTO "application/vnd.in-toto+json"
#define STMT "{\"_type\":\"https://in-toto.io/Statement/v1\"}"
#define STMT_B64 "eyJfdHlwZSI6Imh0dHBzOi8vaW4tdG90by5pby9TdGF0ZW1lbnQvdjEifQ=="
#define SIG_A_STMT \
    "2WAfaHm5jluo0w+0rk8uVkluELJYWjSmU9x7EUzx+AyteDGJ4/nqyJXfmAUVFIAoQaf" \
    "Wm7AxBZNw5M9ixNHiCA=="

static void
hex_of(char *out, const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static unsigned char *
unhex(size_t *n, const char *hex)
{
	unsigned char *b = xmalloc(strlen(hex) / 2 + 1);
	unsigned v;

	*n = strlen(hex) / 2;
	for (size_t i = 0; i < *n; i++) {
		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		b[i] = (unsigned char)v;
	}
	return b;
}

static void
test_pae(void **state)
{
	unsigned char *p, *want;
	size_t n, wn;

	(void)state;
	/* protocol.md's example. */
	p = ep_dsse_pae(&n, "http://example.com/HelloWorld", 29,
	    "hello world", 11);
	assert_int_equal(n, strlen("DSSEv1 29 http://example.com/HelloWorld "
	    "11 hello world"));
	assert_memory_equal(p, "DSSEv1 29 http://example.com/HelloWorld 11 "
	    "hello world", n);
	free(p);
	/* The vectors' pae fields: single-signature, non-ascii-payload-type
	 * (LEN counts the UTF-8 bytes: 29, for 28 characters), and an empty
	 * payload (the PAE ends "0 "). */
	want = unhex(&wn, "445353457631203238206170706c69636174696f6e2f766e64"
	    "2e696e2d746f746f2b6a736f6e203433207b225f74797065223a22687474707"
	    "33a2f2f696e2d746f746f2e696f2f53746174656d656e742f7631227d");
	p = ep_dsse_pae(&n, INTOTO, strlen(INTOTO), STMT, strlen(STMT));
	assert_int_equal(n, wn);
	assert_memory_equal(p, want, n);
	free(p);
	free(want);
	want = unhex(&wn, "445353457631203239206170706c69636174696f6e2f766e64"
	    "2e6578c3a46d706c652b6a736f6e203433207b225f74797065223a226874747"
	    "0733a2f2f696e2d746f746f2e696f2f53746174656d656e742f7631227d");
	p = ep_dsse_pae(&n, "application/vnd.ex\xc3\xa4mple+json", 29, STMT,
	    strlen(STMT));
	assert_int_equal(n, wn);
	assert_memory_equal(p, want, n);
	free(p);
	free(want);
	p = ep_dsse_pae(&n, INTOTO, strlen(INTOTO), "", 0);
	assert_int_equal(n, strlen("DSSEv1 28 " INTOTO " 0 "));
	assert_memory_equal(p, "DSSEv1 28 " INTOTO " 0 ", n);
	free(p);
}

static void
test_rfc8032(void **state)
{
	struct ep_sigkey *a = key(key_a_pem, 1), *pub = key(pub_a_pem, 0);
	struct ep_err err = { 0 };
	unsigned char sig[EP_ED25519_SIG], *spki;
	char hex[2 * EP_ED25519_SIG + 1], id[EP_SHA256_HEX];
	size_t n;

	(void)state;
	/* TEST 1: the empty message. */
	assert_int_equal(ep_sigkey_sign(sig, a, "", 0, &err), 0);
	hex_of(hex, sig, sizeof sig);
	assert_string_equal(hex, rfc8032_test1_sig);
	assert_true(ep_sigkey_verify(pub, sig, sizeof sig, "", 0));
	sig[0] ^= 1;
	assert_false(ep_sigkey_verify(pub, sig, sizeof sig, "", 0));
	assert_false(ep_sigkey_verify(pub, sig, 63, "", 0));
	/* The keyid: SHA-256 of the DER SubjectPublicKeyInfo, the same
	 * from the private key and from the public one. */
	spki = unhex(&n, pub_a_hex);
	ep_hash_buf(id, spki, n);
	free(spki);
	assert_string_equal(ep_sigkey_id(a), id);
	assert_string_equal(ep_sigkey_id(pub), id);
	/* A public key cannot sign. */
	assert_int_equal(ep_sigkey_sign(sig, pub, "", 0, &err), -1);
	ep_sigkey_free(a);
	ep_sigkey_free(pub);
}

/* The DSSE vectors' signatures, made here, and their envelopes opened. */
static void
test_dsse_vectors(void **state)
{
	struct ep_sigkey *a = key(key_a_pem, 1), *b = key(key_b_pem, 1);
	struct ep_sigkey *keys[2] = { a, b }, *onlyb[1] = { b };
	struct ep_err err = { 0 };
	unsigned char sig[EP_ED25519_SIG], *pae, *body;
	char *s, *env;
	size_t n, len, which;

	(void)state;
	pae = ep_dsse_pae(&n, INTOTO, strlen(INTOTO), STMT, strlen(STMT));
	assert_int_equal(ep_sigkey_sign(sig, a, pae, n, &err), 0);
	free(pae);
	s = ep_b64_encode(sig, sizeof sig);
	assert_string_equal(s, SIG_A_STMT);
	free(s);

	/* single-signature: accepted, by key A (index 0). */
	env = xstrdup("{\"payload\":\"" STMT_B64 "\",\"payloadType\":\""
	    INTOTO "\",\"signatures\":[{\"sig\":\"" SIG_A_STMT "\","
	    "\"keyid\":\"A\"}]}");
	assert_int_equal(ep_dsse_open(&body, &len, &which, env, strlen(env),
	    INTOTO, keys, 2, &err), 0);
	assert_int_equal(len, strlen(STMT));
	assert_memory_equal(body, STMT, len);
	assert_int_equal(which, 0);
	free(body);
	/* ... refused under key B alone: EP_E_DENIED. */
	assert_int_equal(ep_dsse_open(&body, &len, &which, env, strlen(env),
	    INTOTO, onlyb, 1, &err), -1);
	assert_int_equal(err.kind, EP_E_DENIED);
	free(env);

	/* payload-type-swapped: the signature covers another type. */
	env = xstrdup("{\"payload\":\"" STMT_B64 "\",\"payloadType\":"
	    "\"application/vnd.example.other+json\",\"signatures\":[{\"sig\":"
	    "\"" SIG_A_STMT "\",\"keyid\":\"A\"}]}");
	assert_int_equal(ep_dsse_open(&body, &len, &which, env, strlen(env),
	    "application/vnd.example.other+json", keys, 2, &err), -1);
	assert_int_equal(err.kind, EP_E_DENIED);
	free(env);

	/* url-safe-base64: accepted; its body is fb ff bf 3e 3f. */
	env = xstrdup("{\"payload\":\"-_-_Pj8=\",\"payloadType\":\"" INTOTO
	    "\",\"signatures\":[{\"sig\":\"P-_KHICeR7tI6S_YyejJTRtrXhcQyQ2LYPa"
	    "L8h90KjC9qN8HU_svOQ6TuDOT1HIrsGW886DbWNWcCmX5twLrAw==\",\"keyid\":"
	    "\"A\"}]}");
	assert_int_equal(ep_dsse_open(&body, &len, &which, env, strlen(env),
	    INTOTO, keys, 2, &err), 0);
	assert_int_equal(len, 5);
	assert_memory_equal(body, "\xfb\xff\xbf\x3e\x3f", 5);
	free(body);
	free(env);

	/* non-ascii-payload-type: accepted (LEN is 29 bytes). */
	env = xstrdup("{\"payload\":\"" STMT_B64 "\",\"payloadType\":\""
	    "application/vnd.ex\xc3\xa4mple+json\",\"signatures\":[{\"sig\":"
	    "\"xmSk/ug66ysT7ayhkCIjhAq42zgZXSsEWuzUaNL7w2eGAdF/NU6/fRXPtmfN+5D"
	    "NSAs5/i2lUnHjbbjPsu0tAw==\",\"keyid\":\"A\"}]}");
	assert_int_equal(ep_dsse_open(&body, &len, &which, env, strlen(env),
	    "application/vnd.ex\xc3\xa4mple+json", keys, 2, &err), 0);
	free(body);
	free(env);

	/* empty-payload: accepted, an empty body. */
	env = xstrdup("{\"payload\":\"\",\"payloadType\":\"" INTOTO "\","
	    "\"signatures\":[{\"sig\":\"gSggCAaTLTYyRH6FIDBem6meyIynsYy8RTHVzw"
	    "x9tnTb7Bg/1jMWnuVgI/gffqmbsC2VX5/jHfkkDqsj7CDbDg==\",\"keyid\":"
	    "\"A\"}]}");
	assert_int_equal(ep_dsse_open(&body, &len, &which, env, strlen(env),
	    INTOTO, keys, 2, &err), 0);
	assert_int_equal(len, 0);
	free(body);
	free(env);

	/* empty-payload-type: the signature holds, the type is refused
	 * (EP_E_INPUT: malformed, not a denial). */
	env = xstrdup("{\"payload\":\"" STMT_B64 "\",\"payloadType\":\"\","
	    "\"signatures\":[{\"sig\":\"iC3q/+3Rm0+lpAJRueDmDh15PnwCfxKmS0NAfK"
	    "sbv+zgulXQC/WM9trc+j1XEqlwDIg/vf/uNfebeD6sxInrDg==\",\"keyid\":"
	    "\"A\"}]}");
	assert_int_equal(ep_dsse_open(&body, &len, &which, env, strlen(env),
	    INTOTO, keys, 2, &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, "payloadType"));
	free(env);

	/* threshold-two-without-keyids: no keyid, key B's signature
	 * second: found by trying every key (which = 1 under B alone). */
	env = xstrdup("{\"payload\":\"" STMT_B64 "\",\"payloadType\":\""
	    INTOTO "\",\"signatures\":[{\"sig\":\"" SIG_A_STMT "\"},{\"sig\":"
	    "\"c1+67/aT0yqEpwx8PsVY3MLHsj9D0CZ014/Fv/QlG59P+9CobUZ7xECJ/V3USG0"
	    "Ob9CiE5LjReEZUzNF2l7eBw==\"}]}");
	assert_int_equal(ep_dsse_open(&body, &len, &which, env, strlen(env),
	    INTOTO, onlyb, 1, &err), 0);
	free(body);
	free(env);
	ep_sigkey_free(a);
	ep_sigkey_free(b);
}

/* Malformed envelopes: EP_E_INPUT, whichever key. */
static void
test_dsse_malformed(void **state)
{
	static const char *bad[][2] = {
		{ "", "expected near end of file" },
		{ "{\"payload\":\"" STMT_B64, "premature end" },
		{ "[]", "not a JSON object" },
		{ "{\"payloadType\":\"" INTOTO "\",\"signatures\":[{\"sig\":"
		    "\"AA==\"}]}", "\"payload\" is missing" },
		{ "{\"payload\":1,\"payloadType\":\"" INTOTO "\"}",
		    "\"payload\" is not a string" },
		{ "{\"payload\":\"\",\"payloadType\":\"" INTOTO "\"}",
		    "\"signatures\" is missing" },
		{ "{\"payload\":\"\",\"payloadType\":\"" INTOTO "\","
		    "\"signatures\":[]}", "no signatures" },
		{ "{\"payload\":\"%%%\",\"payloadType\":\"" INTOTO "\","
		    "\"signatures\":[{\"sig\":\"AA==\"}]}",
		    "payload: not base64" },
		{ "{\"payload\":\"\",\"payloadType\":\"" INTOTO "\","
		    "\"signatures\":[{\"sig\":\"A\"}]}",
		    "signatures[0].sig: not base64" },
		{ "{\"payload\":\"\",\"payloadType\":\"" INTOTO "\","
		    "\"signatures\":[{\"keyid\":7,\"sig\":\"AA==\"}]}",
		    "\"keyid\" is not a string" },
		{ "{\"payload\":\"\",\"payload\":\"\"}", "duplicate" },
	};
	struct ep_sigkey *a = key(pub_a_pem, 0);
	struct ep_err err = { 0 };
	unsigned char *body;
	size_t len, which;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(ep_dsse_open(&body, &len, &which, bad[i][0],
		    strlen(bad[i][0]), INTOTO, &a, 1, &err), -1);
		assert_null(body);
		assert_int_equal(err.kind, EP_E_INPUT);
		if (strstr(err.msg, bad[i][1]) == NULL)
			fail_msg("%s: %s (wanted %s)", bad[i][0], err.msg,
			    bad[i][1]);
	}
	ep_sigkey_free(a);
}

static void
test_key_types(void **state)
{
	struct ep_sigkey *k = NULL;
	struct ep_err err = { 0 };

	(void)state;
	assert_int_equal(ep_sigkey_from_pem(&k, ec_pub_pem, strlen(ec_pub_pem),
	    "ec.pem", 0, &err), -1);
	assert_string_equal(err.msg, "ec.pem: the key is EC, not Ed25519: "
	    "envparity signs and verifies with Ed25519 keys only (openssl "
	    "genpkey -algorithm ed25519)");
	assert_int_equal(ep_sigkey_from_pem(&k, ed448_pub_pem,
	    strlen(ed448_pub_pem), "448.pem", 0, &err), -1);
	assert_non_null(strstr(err.msg, "the key is ED448, not Ed25519"));
	/* A public key to sign with, a private one to verify with. */
	assert_int_equal(ep_sigkey_from_pem(&k, pub_a_pem, strlen(pub_a_pem),
	    "p.pem", 1, &err), -1);
	assert_non_null(strstr(err.msg, "a public key"));
	assert_int_equal(ep_sigkey_from_pem(&k, key_a_pem, strlen(key_a_pem),
	    "k.pem", 0, &err), -1);
	assert_non_null(strstr(err.msg, "a private key"));
	/* Not PEM; and never a word of the key in a message. */
	assert_int_equal(ep_sigkey_from_pem(&k, "hello", 5, "x.pem", 1, &err),
	    -1);
	assert_non_null(strstr(err.msg, "not a PEM private key"));
	assert_int_equal(ep_sigkey_from_pem(&k, key_a_pem, 40, "cut.pem", 1,
	    &err), -1);
	assert_null(strstr(err.msg, "MC4CAQAw"));
	assert_null(k);
}

static void
test_facts_digest(void **state)
{
	/* /tmp/f.json below; `jq -cjS .facts f.json | sha256sum` (jq 1.6):
	 * {"facts":{"b":"x\u007fy\u0001\u00e9\ud83d\ude00/\u2028",
	 * "a\n":"1","\uffff":"2","\ud83d\ude00":"3",
	 * "A":"\"\\\b\f\t\r"}} */
	static const char text[] =
	    "{\"schema\":\"envparity/manifest@1\",\"meta\":{\"host\":\"x\"},"
	    "\"facts\":{\"b\":\"x\\u007fy\\u0001\\u00e9\\ud83d\\ude00/"
	    "\\u2028\",\"a\\n\":\"1\",\"\\uffff\":\"2\",\"\\ud83d\\ude00\":"
	    "\"3\",\"A\":\"\\\"\\\\\\b\\f\\t\\r\"}}";
	struct ep_manifest *m, *e = ep_manifest_new();
	struct ep_err err = { 0 };
	char hex[EP_SHA256_HEX];

	(void)state;
	assert_int_equal(ep_manifest_parse(&m, text, strlen(text), "t", &err),
	    0);
	ep_manifest_facts_sha256(hex, m);
	assert_string_equal(hex, "8587fa669974b552d2ff296334906ab221017b5d14b"
	    "3f61a9a30830135be5398");
	/* Meta is not part of it. */
	ep_manifest_meta_set(m, "host", "y");
	ep_manifest_facts_sha256(hex, m);
	assert_string_equal(hex, "8587fa669974b552d2ff296334906ab221017b5d14b"
	    "3f61a9a30830135be5398");
	/* {} */
	ep_manifest_facts_sha256(hex, e);
	assert_string_equal(hex, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe"
	    "77e8310c060f61caaff8a");
	ep_manifest_free(m);
	ep_manifest_free(e);
}

static void
test_git_blob(void **state)
{
	char hex[41];

	(void)state;
	/* printf 'hello\n' | git hash-object --stdin; and the empty blob. */
	ep_attest_git_blob(hex, "hello\n", 6);
	assert_string_equal(hex, "ce013625030ba8dba906f756967f9e9ca394464a");
	ep_attest_git_blob(hex, "", 0);
	assert_string_equal(hex, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
}

static void
write_key(const char *path, const char *text, mode_t mode)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, mode), 0);
}

/* A key checked early without being read, read late from what is there
 * then; its file no output from the check on; a descriptor read to its
 * end, once, and never inherited. */
static void
test_key_source(void **state)
{
	struct ep_sigkey_src src;
	struct ep_sigkey *k = NULL;
	struct ep_err err = { 0 };
	char dir[256], *key, *hard, *other;
	unsigned char sig[EP_ED25519_SIG];
	int fds[2];

	(void)state;
	assert_int_equal(tu_scratch_make(dir, sizeof dir, "sigkey"), 0);
	key = xasprintf("%s/key.pem", dir);
	hard = xasprintf("%s/hard.pem", dir);
	other = xasprintf("%s/other.pem", dir);

	/* Open to others: refused early, the chmod named. */
	write_key(key, key_a_pem, 0640);
	assert_int_equal(ep_sigkey_src_path(&src, key, &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, "(mode 0640); make it private"));
	/* Not a key at all, but private: only its armour is read early,
	 * so that waits for the read. */
	write_key(key, "not a key\n", 0600);
	assert_int_equal(ep_sigkey_src_path(&src, key, &err), 0);
	/* By then the file holds a key: that one is read. */
	write_key(key, key_a_pem, 0600);
	assert_int_equal(link(key, hard), 0);
	assert_int_equal(ep_sigkey_src_read(&k, &src, &err), 0);
	assert_int_equal(ep_sigkey_sign(sig, k, "", 0, &err), 0);
	ep_sigkey_free(k);
	ep_sigkey_src_clear(&src);
	/* From the check on, no output replaces it, by any name. */
	assert_int_equal(ep_out_check(key, 0, &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, "that is the signing key"));
	assert_int_equal(ep_out_write(hard, "x", 1, 0, &err), -1);
	assert_int_equal(ep_out_check(other, 0, &err), 0);

	/* A pipe: read to its end, once; close-on-exec. */
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(ep_sigkey_src_fd(&src, fds[0], &err), 0);
	assert_true(fcntl(fds[0], F_GETFD) & FD_CLOEXEC);
	assert_int_equal(write(fds[1], key_a_pem, strlen(key_a_pem)),
	    (ssize_t)strlen(key_a_pem));
	close(fds[1]);
	assert_int_equal(ep_sigkey_src_read(&k, &src, &err), 0);
	ep_sigkey_free(k);
	assert_int_equal(ep_sigkey_src_read(&k, &src, &err), -1);
	assert_non_null(strstr(err.msg, "read already"));
	ep_sigkey_src_clear(&src);
	/* A descriptor not open, or open for writing only. */
	assert_int_equal(ep_sigkey_src_fd(&src, 1000, &err), -1);
	assert_string_equal(err.msg, "descriptor 1000: not open (give the key "
	    "on it: --sign-key-fd 3 3< key.pem)");
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(ep_sigkey_src_fd(&src, fds[1], &err), -1);
	assert_non_null(strstr(err.msg, "not open for reading"));
	close(fds[0]);
	close(fds[1]);

	free(key);
	free(hard);
	free(other);
	tu_scratch_remove(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pae),
		cmocka_unit_test(test_rfc8032),
		cmocka_unit_test(test_dsse_vectors),
		cmocka_unit_test(test_dsse_malformed),
		cmocka_unit_test(test_key_types),
		cmocka_unit_test(test_facts_digest),
		cmocka_unit_test(test_git_blob),
		cmocka_unit_test(test_key_source),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
