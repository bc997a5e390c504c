/*
 * sigkey.c: Ed25519 keys through OpenSSL 3 (EVP_PKEY).  PureEdDSA is
 * one-shot: EVP_DigestSignInit with no digest, then EVP_DigestSign over
 * the whole message (man 7 EVP_SIGNATURE-ED25519), the same operation as
 * `openssl pkeyutl -sign -rawin`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "hash.h"
#include "sigkey.h"

struct ep_sigkey {
	EVP_PKEY *pkey;
	int private;
	char id[EP_SHA256_HEX];
	char *name;
};

/* Never ask for a passphrase: a CI job has no terminal to ask on, and a
 * prompt would hang it. */
static int
no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf, (void)size, (void)rwflag, (void)u;
	return -1;
}

static int
pem_has(const char *pem, size_t len, const char *what)
{
	return memmem(pem, len, what, strlen(what)) != NULL;
}

/* What kind of key a PEM text holds, by its armour, for messages. */
static const char *
pem_kind(const char *pem, size_t len)
{
	if (pem_has(pem, len, "ENCRYPTED"))
		return "encrypted";
	if (pem_has(pem, len, "PRIVATE KEY-----"))
		return "private";
	if (pem_has(pem, len, "PUBLIC KEY-----"))
		return "public";
	return NULL;
}

static int
load(struct ep_sigkey **out, const char *pem, size_t len, const char *name,
    int private, struct ep_err *err)
{
	const char *kind = pem_kind(pem, len);
	EVP_PKEY *pkey = NULL;
	struct ep_sigkey *k;
	unsigned char *der = NULL;
	const char *type;
	BIO *bio;
	int n;

	*out = NULL;
	if (len > EP_SIGKEY_MAX)
		return ep_err_set(err, EP_E_INPUT, "%s: not a key: larger "
		    "than %u bytes", name, EP_SIGKEY_MAX);
	if (kind != NULL && strcmp(kind, "encrypted") == 0)
		return ep_err_set(err, EP_E_INPUT, "%s: an encrypted private "
		    "key: envparity reads unencrypted PEM keys only (keep the "
		    "key in the CI's secret store instead)", name);
	if (private && kind != NULL && strcmp(kind, "public") == 0)
		return ep_err_set(err, EP_E_INPUT, "%s: a public key: signing "
		    "needs the private key", name);
	if (!private && kind != NULL && strcmp(kind, "private") == 0)
		return ep_err_set(err, EP_E_INPUT, "%s: a private key: give "
		    "the public key (openssl pkey -in KEY -pubout -out "
		    "PUB.pem); a verifier has no use for the signing key",
		    name);
	if ((bio = BIO_new_mem_buf(pem, (int)len)) == NULL)
		return ep_err_set(err, EP_E_IO, "%s: out of memory", name);
	pkey = private ? PEM_read_bio_PrivateKey(bio, NULL, no_passphrase,
	    NULL) : PEM_read_bio_PUBKEY(bio, NULL, no_passphrase, NULL);
	BIO_free(bio);
	/* OpenSSL's reasons name its own functions, never the key; they
	 * say nothing a user can act on either. */
	ERR_clear_error();
	if (pkey == NULL)
		return ep_err_set(err, EP_E_INPUT, "%s: not a PEM %s key "
		    "(make one with: openssl genpkey -algorithm ed25519)",
		    name, private ? "private" : "public");
	if (EVP_PKEY_get_base_id(pkey) != EVP_PKEY_ED25519) {
		type = EVP_PKEY_get0_type_name(pkey);
		ep_err_set(err, EP_E_INPUT, "%s: the key is %s, not Ed25519: "
		    "envparity signs and verifies with Ed25519 keys only "
		    "(openssl genpkey -algorithm ed25519)", name,
		    type != NULL ? type : "of an unknown type");
		EVP_PKEY_free(pkey);
		return -1;
	}
	if ((n = i2d_PUBKEY(pkey, &der)) <= 0) {
		ERR_clear_error();
		EVP_PKEY_free(pkey);
		return ep_err_set(err, EP_E_IO, "%s: cannot encode the "
		    "public key", name);
	}
	k = xcalloc(1, sizeof *k);
	k->pkey = pkey;
	k->private = private;
	k->name = xstrdup(name);
	ep_hash_buf(k->id, der, (size_t)n);
	OPENSSL_free(der);
	*out = k;
	return 0;
}

int
ep_sigkey_from_pem(struct ep_sigkey **out, const char *pem, size_t len,
    const char *name, int private, struct ep_err *err)
{
	return load(out, pem, len, name, private, err);
}

static int
load_file(struct ep_sigkey **out, const char *path, int private,
    struct ep_err *err)
{
	struct stat st;
	const char *kind;
	char *text = NULL;
	size_t len = 0;
	int fd, rc;

	*out = NULL;
	if ((fd = ep_open_regular(path, &st, err)) < 0)
		return -1;
	rc = ep_read_fd(&text, &len, fd, path, EP_SIGKEY_MAX, err);
	close(fd);
	if (rc < 0)
		return -1;
	/* As ssh: a private key others may read is no longer private, and
	 * one they may write is no longer ours.  (A public key given for
	 * it is told as that, whatever its mode.) */
	kind = pem_kind(text, len);
	if (private && (st.st_mode & 077) != 0 &&
	    (kind == NULL || strcmp(kind, "public") != 0))
		rc = ep_err_set(err, EP_E_INPUT, "%s: the private key is "
		    "open to group or others (mode %04o); make it private: "
		    "chmod 600 %s", path, (unsigned)(st.st_mode & 07777),
		    path);
	else
		rc = load(out, text, len, path, private, err);
	OPENSSL_cleanse(text, len);
	free(text);
	return rc;
}

int
ep_sigkey_load_private(struct ep_sigkey **out, const char *path,
    struct ep_err *err)
{
	return load_file(out, path, 1, err);
}

int
ep_sigkey_load_public(struct ep_sigkey **out, const char *path,
    struct ep_err *err)
{
	return load_file(out, path, 0, err);
}

void
ep_sigkey_free(struct ep_sigkey *k)
{
	if (k == NULL)
		return;
	EVP_PKEY_free(k->pkey);	/* wipes a private key */
	free(k->name);
	free(k);
}

const char *
ep_sigkey_id(const struct ep_sigkey *k)
{
	return k->id;
}

const char *
ep_sigkey_name(const struct ep_sigkey *k)
{
	return k->name;
}

int
ep_sigkey_sign(unsigned char sig[EP_ED25519_SIG], const struct ep_sigkey *k,
    const void *msg, size_t n, struct ep_err *err)
{
	EVP_MD_CTX *ctx;
	size_t siglen = EP_ED25519_SIG;
	int ok;

	if (!k->private)
		return ep_err_set(err, EP_E_INPUT, "%s: a public key cannot "
		    "sign", k->name);
	if ((ctx = EVP_MD_CTX_new()) == NULL)
		return ep_err_set(err, EP_E_IO, "out of memory");
	ok = EVP_DigestSignInit(ctx, NULL, NULL, NULL, k->pkey) == 1 &&
	    EVP_DigestSign(ctx, sig, &siglen, msg, n) == 1 &&
	    siglen == EP_ED25519_SIG;
	EVP_MD_CTX_free(ctx);
	ERR_clear_error();
	if (!ok)
		return ep_err_set(err, EP_E_IO, "%s: OpenSSL could not sign",
		    k->name);
	return 0;
}

int
ep_sigkey_verify(const struct ep_sigkey *k, const unsigned char *sig,
    size_t siglen, const void *msg, size_t n)
{
	EVP_MD_CTX *ctx;
	int ok;

	if (siglen != EP_ED25519_SIG || (ctx = EVP_MD_CTX_new()) == NULL)
		return 0;
	ok = EVP_DigestVerifyInit(ctx, NULL, NULL, NULL, k->pkey) == 1 &&
	    EVP_DigestVerify(ctx, sig, siglen, msg, n) == 1;
	EVP_MD_CTX_free(ctx);
	ERR_clear_error();
	return ok;
}
