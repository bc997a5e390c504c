/*
 * collect.h: the collectors.  Each one looks at one part of the machine and
 * adds facts to the manifest (DESIGN.md: everything is a fact).
 *
 * A collector returns 0 when it did what it could: what it could not look
 * at goes to meta.unavailable (ep_manifest_unavailable) and recoverable
 * trouble to meta.warnings (ep_manifest_warn).  It returns -1 with err set
 * (EP_E_INPUT) only when an input the user named explicitly is bad, which
 * stops the capture with exit 2, or (EP_E_IO) when an image the user
 * named cannot be resolved, which stops it with exit 3: no manifest holds
 * a wrong or partial digest.
 *
 * Files to hash are not hashed by collectors: they are queued with
 * ep_collect_hash_later() and hashed together, in parallel and through the
 * cache, once every collector has run.
 */
#ifndef EP_COLLECT_H
#define EP_COLLECT_H

#include "cache.h"
#include "hash.h"
#include "image.h"
#include "manifest.h"
#include "errors.h"
#include "extrafacts.h"
#include "strv.h"

struct ep_policy;		/* policy.h */

/* What the user asked for on the command line (capture and check). */
struct ep_capture_opts {
	const char *python;		/* --python EXE, or NULL */
	struct ep_strv site_dirs;	/* --site-packages DIR (repeatable) */
	const char *conda_prefix;	/* --conda-prefix DIR, or NULL */
	struct ep_strv lockfiles;	/* --lockfile PATH (repeatable) */
	int no_discover;		/* --no-discover: skip lockfiles in . */
	struct ep_strv lock_groups;	/* --lock-group NAME (repeatable) */
	struct ep_strv lib_paths;	/* --lib-path DIR (repeatable) */
	int no_cache;			/* --no-cache */
	struct ep_strv images;		/* --image REF (repeatable) */
	struct ep_strv artifacts;	/* --artifact PATH (repeatable) */
	struct ep_strv servings;	/* --serving PATH (repeatable) */
	const char *node;		/* --node NAME, or NULL: the node name
					   meta.node records (ep_capture_node) */
	struct ep_imgopt img;		/* the registry options; set up with
					   ep_imgopt_init (a zeroed one gets
					   the defaults) */
	const struct ep_manifest *golden;	/* check: the golden compared
					   with (borrowed), whose recorded
					   images (meta.images) are resolved
					   again; NULL elsewhere */
	const char *golden_name;	/* where it came from, for messages */
	const struct ep_policy *policy;	/* check: its policy (borrowed), or
					   NULL; a golden image whose every
					   fact it ignores is not resolved;
					   check and bless: its "capture"
					   adds to extra, when policy_capture */
	int policy_capture;		/* the store was named (--store,
					   ENVPARITY_STORE), not the implicit
					   one the checkout can write: its
					   policy's "capture" applies */
	struct ep_extra extra;		/* --env, --env-not-secret,
					   --file-sha256, --file-line */
};

/* Frees the vectors and img's; o itself is the caller's. */
void ep_capture_opts_clear(struct ep_capture_opts *o);

struct ep_artifact;		/* collect_artifact.c */

struct ep_collect {
	const struct ep_capture_opts *opts;
	struct ep_manifest *m;
	struct ep_cache *cache;		/* NULL with --no-cache */

	/* Site-packages directories the python collector found, in search
	 * order; the CUDA stack collector looks in their nvidia/<x>/lib. */
	struct ep_strv site_dirs;

	/* Queued by ep_collect_hash_later(): fact key and file path; by
	 * ep_collect_hash_part(): "" and the path. */
	struct ep_strv hash_keys;
	struct ep_strv hash_paths;

	/* The --artifact files and directories, each a run of parts in the
	 * queue that ep_collect_artifacts_finish makes one digest of. */
	struct ep_artifact **artifacts;
	size_t nartifacts;

	/* What the command line and the policy add (extrafacts.h). */
	struct ep_extra extra;
};

/* A file named as a fact (--file-sha256, --file-line, a policy's
 * capture.files) larger than this is an error. */
#define EP_FILE_FACT_MAX	(16u << 20)

/* Queue path to be hashed; its SHA-256 becomes the fact key (or, if the
 * file cannot be read, a warning naming it). */
void ep_collect_hash_later(struct ep_collect *c, const char *key,
    const char *path);

/* Queue path to be hashed as part of a whole (an artifact): no fact of
 * its own, and no warning; whoever queued it reads jobs[index] once the
 * queue is hashed.  Returns that index. */
size_t ep_collect_hash_part(struct ep_collect *c, const char *path);

int ep_collect_os(struct ep_collect *c, struct ep_err *err);	/* os, libc, cpu */
int ep_collect_node(struct ep_collect *c, struct ep_err *err);	/* node */
int ep_collect_env(struct ep_collect *c, struct ep_err *err);	/* env.<VAR> */
int ep_collect_files(struct ep_collect *c, struct ep_err *err);	/* file */
int ep_collect_conda(struct ep_collect *c, struct ep_err *err);	/* conda */
int ep_collect_python(struct ep_collect *c, struct ep_err *err); /* python */
int ep_collect_lockfiles(struct ep_collect *c, struct ep_err *err); /* lockfile */
int ep_collect_cudastack(struct ep_collect *c, struct ep_err *err); /* gpu, lib */
int ep_collect_framework(struct ep_collect *c, struct ep_err *err); /* framework */
int ep_collect_image(struct ep_collect *c, struct ep_err *err); /* image */
int ep_collect_artifacts(struct ep_collect *c, struct ep_err *err); /* artifact */
int ep_collect_serving(struct ep_collect *c, struct ep_err *err); /* serving */
/* artifact.<key>.fingerprint.*: a SavedModel folder's fingerprint.pb */
int ep_collect_fingerprints(struct ep_collect *c, struct ep_err *err);

/* Once the queue is hashed (jobs[i] for its entry i):
 * artifact.<key>.sha256 and artifact.<key>.files for each artifact.  A
 * part that could not be hashed is EP_E_INPUT naming the artifact and the
 * file: no digest of part of an artifact is recorded. */
int ep_collect_artifacts_finish(struct ep_collect *c,
    const struct ep_hash_job *jobs, struct ep_err *err);
void ep_collect_artifacts_clear(struct ep_collect *c);

/* The environment variables env.<VAR> may record (sorted, NULL-ended). */
extern const char *const ep_env_allowlist[];

/* Parsers exposed for the unit tests. */

/* Value of key in os-release text (quotes and escapes removed), a new
 * string, or NULL. */
char *ep_os_release_value(const char *text, const char *key);

/* The numerics-relevant flags among a /proc/cpuinfo "flags" (or
 * "Features") value, sorted, space-separated; a new string. */
char *ep_cpu_isa_filter(const char *flags);

/* The CPU's name in /proc/cpuinfo text: "model name" (x86), "Model", or
 * else arm64's "CPU implementer" and "CPU part" named ("ARM
 * Neoverse-V2"; an unknown pair by its numbers).  A new string, or NULL
 * when the text names none. */
char *ep_cpu_model(const char *cpuinfo);

/* The <key> of artifact.<key>.*: path as given, with empty and "."
 * components and a trailing slash dropped ("." if nothing is left; ".."
 * kept), then every byte but printable ASCII, and '%', written %XX
 * (upper case).  A new string. */
char *ep_artifact_key(const char *path);

/* A directory artifact's digest: SHA-256 of the lines `sha256sum` writes
 * for the n files names[i] ("./REL", sorted by bytes) whose digests are
 * hexes[i], escaped as GNU coreutils 9 escapes a name with '\\', '\n'
 * or '\r'.  n 0 is the digest of no bytes. */
void ep_artifact_digest(char out[EP_SHA256_HEX], const char *const *names,
    const char *const *hexes, size_t n);

#endif
