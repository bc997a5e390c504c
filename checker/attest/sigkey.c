/*
 * sigkey.c: Ed25519 keys through OpenSSL 3 (EVP_PKEY).  PureEdDSA is
 * one-shot: EVP_DigestSignInit with no digest, then EVP_DigestSign over
 * the whole message (man 7 EVP_SIGNATURE-ED25519), the same operation as
 * `openssl pkeyutl -sign -rawin`.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

/* OpenSSL 1.1.1 (the relocatable build's, tools/reloc.sh) names these
 * otherwise, and a key type by its object's short name. */
#if OPENSSL_VERSION_NUMBER < 0x30000000L
#define EVP_PKEY_get_base_id(k)		EVP_PKEY_base_id(k)
#define EVP_PKEY_get0_type_name(k)	OBJ_nid2sn(EVP_PKEY_base_id(k))
#endif

#include "hash.h"
#include "outfile.h"
#include "reap.h"
#include "sigkey.h"
#include "errors.h"
#include "files.h"
#include "xalloc.h"

/* How long a process left behind gets to die before the key is read. */
#define REAP_GRACE_MS	5000

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

/* A key of the wrong kind, told by its PEM armour alone. */
static int
armour_refused(const char *kind, const char *name, int private,
    struct ep_err *err)
{
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
	return 0;
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
	if (armour_refused(kind, name, private, err) < 0)
		return -1;
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

/* The first line of the file on fd from offset off (at most 80 bytes,
 * read one byte at a time so that nothing after it is read): the PEM
 * armour, which holds no key byte. */
static void
armour_line(char line[81], int fd, off_t off)
{
	size_t n = 0;
	char c;

	while (n < 80 && pread(fd, &c, 1, off + (off_t)n) == 1 && c != '\n')
		line[n++] = c;
	line[n] = '\0';
}

/* What can be told of a private key's file without reading the key: the
 * kind its armour says (a public key is told as that whatever its mode),
 * then its mode, as ssh refuses a key others may read (no longer
 * private) or write (no longer ours). */
static int
check_private_file(int fd, const struct stat *st, off_t off,
    const struct ep_sigkey_src *src, struct ep_err *err)
{
	const char *kind;
	char line[81];

	armour_line(line, fd, off);
	kind = pem_kind(line, strlen(line));
	if (kind != NULL && strcmp(kind, "public") == 0)
		return armour_refused(kind, src->name, 1, err);
	if ((st->st_mode & 077) != 0)
		return ep_err_set(err, EP_E_INPUT, "%s: the private key is "
		    "open to group or others (mode %04o); make it private: "
		    "chmod 600 %s", src->name,
		    (unsigned)(st->st_mode & 07777),
		    src->path != NULL ? src->path : "its file");
	return armour_refused(kind, src->name, 1, err);
}

/* The key's file is no output, from now on, and no folder that holds
 * it is one a helper may read (outfile.h). */
static void
protect(const struct stat *st, const struct ep_sigkey_src *src, int fd)
{
	char *what = xasprintf("the signing key (%s)", src->name);
	char *via = src->path != NULL ? xstrdup(src->path) :
	    xasprintf("/proc/self/fd/%d", fd);

	ep_out_protect(st, what);
	ep_out_protect_path(st, via);
	free(via);
	free(what);
}

int
ep_sigkey_src_path(struct ep_sigkey_src *src, const char *path,
    struct ep_err *err)
{
	struct stat st;
	int fd, rc;

	memset(src, 0, sizeof *src);
	src->fd = -1;
	src->name = xstrdup(path);
	src->path = xstrdup(path);
	if ((fd = ep_open_regular(path, &st, err)) < 0)
		rc = -1;
	else {
		rc = check_private_file(fd, &st, 0, src, err);
		close(fd);
	}
	if (rc == 0)
		protect(&st, src, -1);
	else
		ep_sigkey_src_clear(src);
	return rc;
}

/* The checks of ep_sigkey_src_fd, on fd itself. */
static int
check_fd(const struct ep_sigkey_src *src, int fd, struct ep_err *err)
{
	struct stat st;
	const char *fs;
	int fl;

	if ((fl = fcntl(fd, F_GETFL)) < 0)
		return ep_err_set(err, EP_E_INPUT, "%s: not open (give the "
		    "key on it: --sign-key-fd 3 3< key.pem)", src->name);
	if ((fl & O_ACCMODE) == O_WRONLY || (fl & O_PATH))
		return ep_err_set(err, EP_E_INPUT, "%s: not open for "
		    "reading", src->name);
	if (fstat(fd, &st) < 0)
		return ep_err_set(err, EP_E_INPUT, "%s: %s", src->name,
		    strerror(errno));
	if (isatty(fd))
		return ep_err_set(err, EP_E_INPUT, "%s: a terminal: give the "
		    "key on a pipe or from a file", src->name);
	if (S_ISDIR(st.st_mode) || S_ISBLK(st.st_mode) ||
	    S_ISCHR(st.st_mode))
		return ep_err_set(err, EP_E_INPUT, "%s: %s, not a key",
		    src->name, ep_mode_kind(st.st_mode));
	if (!S_ISREG(st.st_mode))
		return 0;	/* a pipe or a socket: read to its end */
	if ((fs = ep_fd_pseudo_fs(fd)) != NULL)
		return ep_err_set(err, EP_E_INPUT, "%s: a file of %s, not a "
		    "key", src->name, fs);
	if (check_private_file(fd, &st, lseek(fd, 0, SEEK_CUR), src,
	    err) < 0)
		return -1;
	protect(&st, src, fd);
	return 0;
}

int
ep_sigkey_src_fd(struct ep_sigkey_src *src, int fd, struct ep_err *err)
{
	int nfd = fd, null;

	memset(src, 0, sizeof *src);
	src->fd = -1;
	src->name = fd == 0 ? xstrdup("standard input") :
	    xasprintf("descriptor %d", fd);
	if (check_fd(src, fd, err) < 0)
		goto fail;
	/* No child inherits the key's descriptor: close-on-exec, and
	 * standard input (which children may be given) emptied. */
	if (fd <= 2) {
		if ((nfd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0 ||
		    (null = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
			ep_err_set(err, EP_E_IO, "%s: %s", src->name,
			    strerror(errno));
			if (nfd >= 0)
				close(nfd);
			goto fail;
		}
		dup2(null, fd);
		close(null);
	} else if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		ep_err_set(err, EP_E_IO, "%s: %s", src->name, strerror(errno));
		goto fail;
	}
	src->fd = nfd;
	return 0;
fail:
	ep_sigkey_src_clear(src);
	return -1;
}

int
ep_sigkey_src_read(struct ep_sigkey **out, struct ep_sigkey_src *src,
    struct ep_err *err)
{
	struct stat st;
	char *text = NULL;
	size_t len = 0;
	int fd, rc;

	*out = NULL;
	if (src->path != NULL) {
		/* Named by its path: what is there now, under the same
		 * rules, and protected too if it is another file. */
		if ((fd = ep_open_regular(src->path, &st, err)) < 0)
			return -1;
		if ((rc = check_private_file(fd, &st, 0, src, err)) == 0) {
			protect(&st, src, fd);
			rc = ep_read_fd(&text, &len, fd, src->name,
			    EP_SIGKEY_MAX, err);
		}
		close(fd);
	} else if (src->fd < 0)
		return ep_err_set(err, EP_E_INPUT, "%s: the key was read "
		    "already", src->name);
	else {
		rc = ep_read_fd(&text, &len, src->fd, src->name,
		    EP_SIGKEY_MAX, err);
		close(src->fd);
		src->fd = -1;
	}
	if (rc == 0)
		rc = load(out, text, len, src->name, 1, err);
	if (text != NULL) {
		OPENSSL_cleanse(text, len);
		free(text);
	}
	return rc;
}

int
ep_sigkey_src_read_late(struct ep_sigkey **out, struct ep_sigkey_src *src,
    struct ep_err *err)
{
	struct ep_err why = { 0 };

	*out = NULL;
	if (ep_reap_all(REAP_GRACE_MS, &why) < 0)
		return ep_err_set(err, EP_E_IO, "the signing key was not read: "
		    "%s", why.msg);
	return ep_sigkey_src_read(out, src, err);
}

void
ep_sigkey_src_clear(struct ep_sigkey_src *src)
{
	if (src->fd >= 0)
		close(src->fd);
	free(src->name);
	free(src->path);
	memset(src, 0, sizeof *src);
	src->fd = -1;
}

int
ep_sigkey_load_private(struct ep_sigkey **out, const char *path,
    struct ep_err *err)
{
	struct ep_sigkey_src src;
	int rc;

	*out = NULL;
	if (ep_sigkey_src_path(&src, path, err) < 0)
		return -1;
	rc = ep_sigkey_src_read(out, &src, err);
	ep_sigkey_src_clear(&src);
	return rc;
}

int
ep_sigkey_load_public(struct ep_sigkey **out, const char *path,
    struct ep_err *err)
{
	struct stat st;
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
	rc = load(out, text, len, path, 0, err);
	free(text);
	return rc;
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
