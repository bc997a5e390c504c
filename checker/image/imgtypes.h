/*
 * imgtypes.h: what the image code shares beneath the dispatch (image.c):
 * a parsed reference (imgref.c) and what it resolved to, the options
 * that say how to reach registries, and the documents both resolvers walk
 * (imgdoc.c): an index names one manifest per platform, a manifest names
 * its config.
 *
 * A reference is parsed once into its parts and a canonical name, the one
 * fact keys use: image.<name>.digest, .platform_digest, .config_digest.
 */
#ifndef EP_IMGTYPES_H
#define EP_IMGTYPES_H

#include <stddef.h>

#include "errors.h"
#include "strv.h"

enum ep_imgkind {
	EP_IMG_REGISTRY = 1,	/* [host[:port]/]name[:tag][@sha256:hex] */
	EP_IMG_OCI,		/* oci:DIR[:TAG] */
	EP_IMG_ARCHIVE,		/* docker-archive:FILE[:REF] */
};

/* A parsed reference; every string is owned (ep_imgref_clear). */
struct ep_imgref {
	int kind;		/* enum ep_imgkind */
	char *input;		/* as the user wrote it */
	char *name;		/* canonical, for fact keys and messages:
				   "docker.io/library/ubuntu:latest",
				   "127.0.0.1:5000/a/b@sha256:<hex>",
				   "oci:DIR[:TAG]", "docker-archive:FILE[:REF]"
				   (DIR and FILE as written, split at the
				   first ':' as skopeo does); a registry
				   host "oci:PORT" or "docker-archive:PORT"
				   keeps "docker://", so only local names
				   start with "oci:" or "docker-archive:" */
	char *registry;		/* "docker.io", "127.0.0.1:5000"; NULL if
				   local */
	char *api_host;		/* where to connect: "registry-1.docker.io"
				   for docker.io, else registry; NULL if
				   local */
	char *repository;	/* "library/ubuntu"; NULL if local */
	char *tag;		/* "latest" (the default), the TAG of oci:
				   or the NAME:TAG of docker-archive:,
				   or NULL when pinned by digest alone */
	char *digest;		/* "sha256:<64 hex>" when pinned, else NULL */
	char *path;		/* oci: the directory; docker-archive: the
				   file; NULL for a registry */
};

/* Parse s (the usual normalization: "ubuntu" is
 * docker.io/library/ubuntu:latest; a first element with '.' or ':' or
 * "localhost" is a host).  On error r is left cleared and err is
 * EP_E_INPUT, naming s and the part that is wrong ("bad tag", "bad
 * digest", "uppercase in repository name", ...). */
int ep_imgref_parse(struct ep_imgref *r, const char *s, struct ep_err *err);
void ep_imgref_clear(struct ep_imgref *r);

/* How to reach registries; ep_imgopt_init fills the defaults. */
struct ep_imgopt {
	const char *platform;		/* "linux/amd64" (default),
					   "linux/arm64/v8", ... */
	int platform_explicit;		/* --platform was given: a single
					   manifest of another platform
					   then fails (ep_image_resolve) */
	const char *ca_file;		/* --registry-ca FILE, or NULL */
	struct ep_strv insecure;	/* --insecure-registry HOST[:PORT]:
					   plain http, only for these */
	struct ep_strv auth_realms;	/* --registry-auth-realm HOST[:PORT]:
					   token servers the credentials of
					   any registry may go to */
	const char *auth_file;		/* --registry-auth-file, or NULL: then
					   $REGISTRY_AUTH_FILE,
					   $XDG_RUNTIME_DIR/containers/auth.json,
					   ~/.docker/config.json */
	long connect_timeout_ms;	/* default 5000 */
	long timeout_ms;		/* each request, default 30000 */
	size_t max_body;		/* default 4 MiB per document */
	int retries;			/* on 429 and 5xx, default 3 */
	int no_cache;			/* do not use the document cache */
};

/* What one reference resolved to; every string owned (ep_imgres_clear). */
struct ep_imgres {
	char *digest;		/* what the reference points to: an index or
				   a manifest; for a legacy docker-archive
				   (manifest.json only: no registry manifest
				   survives `docker save`, the layers are
				   stored uncompressed), the image config,
				   i.e. the image ID */
	char *media_type;	/* of that document (legacy docker-archive:
				   application/vnd.docker.container.image.
				   v1+json) */
	char *platform_digest;	/* the manifest for the platform: equal to
				   digest when the reference names a
				   manifest; NULL for a legacy
				   docker-archive */
	char *platform;		/* os/arch[/variant] of that manifest: the
				   index entry's, else its image config's;
				   NULL when the config names none */
	char *config_digest;	/* the image config that manifest names */
	struct ep_err err;	/* kind 0 when resolved; otherwise the
				   message names the reference and, for a
				   registry, the registry; the digests are
				   then all NULL */
};

void ep_imgres_clear(struct ep_imgres *r);

/*
 * imgdoc.c: the documents both kinds walk.
 */

#define EP_MT_OCI_INDEX "application/vnd.oci.image.index.v1+json"
#define EP_MT_OCI_MANIFEST "application/vnd.oci.image.manifest.v1+json"
#define EP_MT_DOCKER_LIST \
	"application/vnd.docker.distribution.manifest.list.v2+json"
#define EP_MT_DOCKER_MANIFEST \
	"application/vnd.docker.distribution.manifest.v2+json"
/* All four, for an Accept header. */
#define EP_MT_ACCEPT EP_MT_OCI_INDEX ", " EP_MT_OCI_MANIFEST ", " \
	EP_MT_DOCKER_LIST ", " EP_MT_DOCKER_MANIFEST

/* A manifest or an index, parsed from its exact bytes. */
struct ep_imgdoc {
	int is_index;
	char *media_type;	/* the body's mediaType, else the
				   Content-Type it came with */
	char *config_digest;	/* a manifest's config.digest */
	/* An index's manifests, in order. */
	size_t n;
	struct ep_imgdoc_entry {
		char *digest;
		char *media_type;
		char *platform;		/* "os/arch[/variant]", or NULL */
	} *v;
};

/* Parse body (len bytes; content_type may be NULL).  EP_E_INPUT with a
 * message saying what is wrong ("not JSON", "no config digest", "bad
 * digest in manifests[2]", ...), for the caller to prefix with the
 * reference. */
int ep_imgdoc_parse(struct ep_imgdoc *d, const char *body, size_t len,
    const char *content_type, struct ep_err *err);
void ep_imgdoc_clear(struct ep_imgdoc *d);

/* The entry of index d for platform ("os/arch[/variant]"; an absent
 * variant matches any, as containerd's default matcher does for arm64
 * v8), or NULL; *why then lists the platforms the index has. */
const struct ep_imgdoc_entry *ep_imgdoc_pick(const struct ep_imgdoc *d,
    const char *platform, char **why);

/* "os/arch[/variant]" from the image config in buf (len bytes), new;
 * NULL when it names no os and architecture.  NULL with err (EP_E_INPUT,
 * "image config is not a JSON object") when it is not JSON.  The local and
 * registry walks both read a single manifest's platform with it. */
char *ep_imgconfig_platform(const char *buf, size_t len, struct ep_err *err);

/* 1 if s is "sha256:" and 64 lowercase hex digits. */
int ep_digest_valid(const char *s);

/* 1 if the SHA-256 of data equals digest ("sha256:<hex>"). */
int ep_digest_matches(const char *digest, const void *data, size_t len);

#endif
