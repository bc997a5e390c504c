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
	EP_OPT_NODE,
	EP_OPT_ARTIFACT,
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
	{ "image", required_argument, NULL, EP_OPT_IMAGE },		\
	{ "node", required_argument, NULL, EP_OPT_NODE },		\
	{ "artifact", required_argument, NULL, EP_OPT_ARTIFACT }

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
"                       options.  check also resolves every image its\n" \
"                       golden recorded, named here or not; bless\n"	\
"                       without --image keeps the golden's images\n"	\
"  --node NAME          the node name meta.node records, by which `fleet`\n" \
"                       tells nodes apart (default: $SLURMD_NODENAME, else\n" \
"                       the host name; host names can repeat in a cluster)\n" \
"  --artifact PATH      record the SHA-256 of a model file or directory\n" \
"                       (SavedModel, TorchScript, ONNX, models.config,\n" \
"                       batching parameters) as artifact.PATH.sha256 and\n" \
"                       its file count as artifact.PATH.files (repeatable)\n"

/* Apply one collector option (c is a getopt_long code).  Returns 1 if c
 * was a collector option, 0 if not. */
int ep_capture_opt(struct ep_capture_opts *o, int c, const char *arg);

/* The node name a capture records: node when given, else
 * $SLURMD_NODENAME when it is a valid node name (hostlist.h), else the
 * host name.  EP_E_INPUT naming --node when node is given and is not a
 * valid node name ([A-Za-z0-9._-], not "." or "..": fleet names files
 * after it).  *out is a new string. */
int ep_capture_node(char **out, const char *node, struct ep_err *err);

/* meta.host, meta.node (ep_capture_node's; node as for it, already
 * checked), meta.captured_at and meta.tool, as every manifest this
 * machine writes carries them. */
void ep_capture_meta(struct ep_manifest *m, const char *node);

/* Capture the machine.  *out belongs to the caller.  Fails (EP_E_INPUT)
 * only when an explicitly named input is bad. */
int ep_capture(struct ep_manifest **out, const struct ep_capture_opts *o,
    struct ep_err *err);

#endif
