/* hash.c: placeholder, sequential, until the real module lands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <openssl/crypto.h>

#include "hash.h"

static void tohex(char hex[EP_SHA256_HEX], const unsigned char *md) { for (int i = 0; i < 32; i++) sprintf(hex + 2 * i, "%02x", md[i]); }

void ep_hash_buf(char hex[EP_SHA256_HEX], const void *data, size_t len) { unsigned char md[32]; unsigned int n; EVP_Digest(data, len, md, &n, EVP_sha256(), NULL); tohex(hex, md); }

int ep_hash_file(char hex[EP_SHA256_HEX], const char *path, struct ep_err *err)
{
	FILE *f = fopen(path, "rb"); unsigned char buf[1 << 16], md[32]; unsigned int n; size_t r;
	if (f == NULL) return ep_err_set(err, EP_E_INPUT, "%s: cannot read", path);
	EVP_MD_CTX *ctx = EVP_MD_CTX_new(); EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	while ((r = fread(buf, 1, sizeof buf, f)) > 0) EVP_DigestUpdate(ctx, buf, r);
	EVP_DigestFinal_ex(ctx, md, &n); EVP_MD_CTX_free(ctx); fclose(f); tohex(hex, md); return 0;
}

int ep_hash_files(struct ep_hash_job *jobs, size_t n, struct ep_cache *cache, unsigned nthreads, struct ep_hash_stats *stats, struct ep_err *err)
{
	(void)cache; (void)nthreads; (void)err; struct ep_err e;
	for (size_t i = 0; i < n; i++) if (ep_hash_file(jobs[i].hex, jobs[i].path, &e) < 0) jobs[i].error = xstrdup(e.msg);
	if (stats) stats->files = n;
	return 0;
}
void ep_hash_jobs_clear(struct ep_hash_job *jobs, size_t n) { for (size_t i = 0; i < n; i++) { free(jobs[i].error); jobs[i].error = NULL; } }
const char *ep_hash_library_version(void) { return OpenSSL_version(OPENSSL_VERSION); }
