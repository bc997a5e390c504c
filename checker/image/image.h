/*
 * image.h: container images for the commands and the collectors: the
 * registry options, the list of references a run resolves, and
 * ep_image_resolve, the dispatch on top of the two resolvers (registry.h
 * for registries, imglocal.h for local images).  The types they share are
 * in imgtypes.h.
 *
 * No wrong digest is ever recorded: every document read is hashed and
 * must equal the digest that named it, or the reference fails.
 */
#ifndef EP_IMAGE_H
#define EP_IMAGE_H

#include <stddef.h>

#include "imgtypes.h"

void ep_imgopt_init(struct ep_imgopt *o);
void ep_imgopt_clear(struct ep_imgopt *o);	/* frees insecure and
						   auth_realms */

/* 1 when s is a platform a --platform may name: OS/ARCH or
 * OS/ARCH/VARIANT, each part [a-z0-9_.-]+; else 0. */
int ep_image_platform_valid(const char *s);

/* Parse s and append it to refs[0..*n) (room for one more is the
 * caller's), unless a reference with the same canonical name is there
 * already: the same image named twice is resolved once.  -1 with err
 * (EP_E_INPUT, naming s and the part) when s is malformed. */
int ep_imgrefs_add(struct ep_imgref *refs, size_t *n, const char *s,
    struct ep_err *err);

/* Clear refs[i] and, when res is not NULL, res[i] for i < n; free both
 * arrays. */
void ep_images_free(struct ep_imgref *refs, struct ep_imgres *res,
    size_t n);

/* Resolve n references (image.c): registry ones together, concurrently
 * (ep_registry_resolve), local ones in turn (ep_imglocal_resolve).
 * out[i] belongs to refs[i]; failures are per reference, in out[i].err
 * (EP_E_INPUT for a bad local image, EP_E_IO for anything a registry or
 * the network did).  Returns the number of references that failed.
 *
 * The platform: an index is walked to o->platform's manifest, or the
 * reference fails.  A reference that names a single manifest (or a
 * legacy docker-archive's config) has the platform its config gives;
 * with an explicit --platform (o->platform_explicit) that differs (os
 * and architecture, and the variant when both give one; arm64 alone is
 * arm64/v8) the reference fails: "the image is linux/amd64, not
 * linux/arm64 (it names a single manifest, not an index)".  That
 * failure, and an index without the platform, are EP_E_INPUT wherever
 * the image lives: the image was read in full and verified, and it is
 * the request (reference and --platform together) that names something
 * that does not exist; asking again will not help, unlike what EP_E_IO
 * (exit 3, could not run) tells CI. */
size_t ep_image_resolve(const struct ep_imgref *refs, size_t n,
    const struct ep_imgopt *o, struct ep_imgres *out);

#endif
