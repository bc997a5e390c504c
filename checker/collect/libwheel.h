/*
 * libwheel.h: which Python wheel installed a library file.  NVIDIA ships
 * its CUDA libraries as wheels (nvidia-cuda-runtime, nvidia-cudnn-cu13,
 * ...) whose version carries the full release (13.0.96) where the library
 * itself reports only 13.0, and whose RECORD holds the SHA-256 the file
 * had when it was installed.
 *
 * Two layouts are understood:
 *  - pip's: site/nvidia/cuda_runtime/lib/libcudart.so.13 with
 *    site/nvidia_cuda_runtime-13.0.96.dist-info/RECORD listing
 *    "nvidia/cuda_runtime/lib/libcudart.so.13" relative to site;
 *  - a relocated install, where a wheel's libraries were copied into
 *    ROOT/lib and its dist-info kept in ROOT/dist-info/ (as the CUDA
 *    images of the build machines are made): the RECORD's path then names
 *    the file inside the wheel, not on disk, so a file is taken to be the
 *    one listed when its name and size agree with the RECORD's entry.
 *
 * Only dist-infos whose name starts with "nvidia" are read, so that a
 * site-packages of a thousand distributions costs one directory listing.
 */
#ifndef EP_LIBWHEEL_H
#define EP_LIBWHEEL_H

#include <stddef.h>

#include "cache.h"
#include "hash.h"
#include "manifest.h"

/* Directories above the library's own that are looked at: enough for
 * site/nvidia/<x>/lib (3) with one to spare. */
#define EP_LIBWHEEL_LEVELS	4

struct ep_libwheel {
	char *name;		/* PEP 503 form: "nvidia-cuda-runtime" */
	char *version;		/* "13.0.96", as METADATA says */
	char sha256[EP_SHA256_HEX];	/* the RECORD's digest of the file,
					   lowercase hex; "" if none */
	int relocated;		/* matched by name and size, not path */
};

void ep_libwheel_clear(struct ep_libwheel *w);

/* Find the wheel whose RECORD lists the library at real (a path after
 * realpath()): look in real's directory and up to EP_LIBWHEEL_LEVELS
 * above it, nearest first, at NAME*.dist-info entries and at those inside
 * a "dist-info" directory.  The answer, found or not, is cached (cache
 * may be NULL) on the stat of real with the identities of the
 * directories and the RECORD it came from, so that a warm call lists no
 * directory.  Unreadable or malformed dist-infos are passed over.
 * Returns 1 and fills *out (strings owned by the caller, freed by
 * ep_libwheel_clear) when found, 0 when not; never fails. */
int ep_libwheel_find(struct ep_libwheel *out, const char *real,
    struct ep_cache *cache);

/* Set lib.<name>.wheel = "<dist>==<version>" and lib.<name>.record_sha256
 * from w, and, where lib.<name>.version is "X.Y" (cudart, nvrtc) and the
 * wheel's version "X.Y.Z...", make it "X.Y.Z". */
void ep_libwheel_apply(struct ep_manifest *m, const char *name,
    const struct ep_libwheel *w);

/* ep_libwheel_find then ep_libwheel_apply: the collector's one call. */
void ep_libwheel_collect(struct ep_manifest *m, struct ep_cache *cache,
    const char *name, const char *real);

/* Parts exposed for the unit tests. */

/* A RECORD hash's digest, len bytes at b64 in URL-safe base64 without
 * padding (PEP 376, PEP 427; util/b64.c reads it), as lowercase hex in
 * hex (size bytes, NUL included).  Returns the number of bytes decoded,
 * or -1 for text that is not such base64 (the standard alphabet, '='
 * padding, a length no base64 text has, bits left over) or a hex buffer
 * too small. */
int ep_libwheel_digest_hex(char *hex, size_t size, const char *b64,
    size_t len);

/* The "X.Y.Z" of wheel when api is "X.Y" and wheel is "X.Y.Z" or
 * "X.Y.Z.W..." (digits only: 13.0.96rc1 comes before 13.0.96 and is not
 * it).  Writes it to out and returns 1, else returns 0. */
int ep_libwheel_refine(char *out, size_t size, const char *api,
    const char *wheel);

#endif
