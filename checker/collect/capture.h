/*
 * capture.h: run every collector, hash what they queued, and return the
 * manifest.  Shared by `capture` and `check`.
 */
#ifndef EP_CAPTURE_H
#define EP_CAPTURE_H

#include <getopt.h>

#include "collect.h"
#include "manifest.h"

/* Long options for the collector flags, for a subcommand's getopt table;
 * their values are the EP_OPT_* codes below. */
enum {
	EP_OPT_PYTHON = 0x100,
	EP_OPT_SITE_PACKAGES,
	EP_OPT_CONDA_PREFIX,
	EP_OPT_LOCKFILE,
	EP_OPT_NO_DISCOVER,
	EP_OPT_LIB_PATH,
	EP_OPT_NO_CACHE,
	EP_OPT_IMAGE,
	EP_OPT_CAPTURE_LAST,
};
#define EP_CAPTURE_LONGOPTS						\
	{ "python", required_argument, NULL, EP_OPT_PYTHON },		\
	{ "site-packages", required_argument, NULL, EP_OPT_SITE_PACKAGES }, \
	{ "conda-prefix", required_argument, NULL, EP_OPT_CONDA_PREFIX }, \
	{ "lockfile", required_argument, NULL, EP_OPT_LOCKFILE },	\
	{ "no-discover", no_argument, NULL, EP_OPT_NO_DISCOVER },	\
	{ "lib-path", required_argument, NULL, EP_OPT_LIB_PATH },	\
	{ "no-cache", no_argument, NULL, EP_OPT_NO_CACHE },		\
	{ "image", required_argument, NULL, EP_OPT_IMAGE }

/* The help text for those options. */
#define EP_CAPTURE_HELP							\
"Collector options:\n"							\
"  --python EXE         the interpreter whose packages to list\n"	\
"                       (default: $VIRTUAL_ENV, else python3 on PATH)\n" \
"  --site-packages DIR  list the distributions in DIR instead (repeatable)\n" \
"  --conda-prefix DIR   a conda environment (default: $CONDA_PREFIX)\n"	\
"  --lockfile PATH      hash and read the pins of PATH (repeatable)\n"	\
"  --no-discover        do not pick up lockfiles in the current directory\n" \
"  --lib-path DIR       look for CUDA libraries in DIR first (repeatable)\n" \
"  --no-cache           hash every file again, ignoring the cache\n"	\
"  --image REF          record the digests REF resolves to (repeatable):\n" \
"                       [HOST/]NAME[:TAG][@DIGEST], oci:DIR[:TAG],\n"	\
"                       docker-archive:FILE[:NAME:TAG]; see the registry\n" \
"                       options\n"

/* Apply one collector option (c is a getopt_long code).  Returns 1 if c
 * was a collector option, 0 if not. */
int ep_capture_opt(struct ep_capture_opts *o, int c, const char *arg);

/* meta.host, meta.captured_at and meta.tool, as every manifest this
 * machine writes carries them. */
void ep_capture_meta(struct ep_manifest *m);

/* Capture the machine.  *out belongs to the caller.  Fails (EP_E_INPUT)
 * only when an explicitly named input is bad. */
int ep_capture(struct ep_manifest **out, const struct ep_capture_opts *o,
    struct ep_err *err);

#endif
