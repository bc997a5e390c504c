/*
 * fleet.h: `envparity fleet`'s engine: many node manifests (a directory
 * a Slurm job or a Kubernetes Job filled), each against the golden when
 * there is one, every fact against the fleet's majority, probe hashes
 * node against node within a determinism domain, and the nodes expected
 * that did not report.  Its results are ordinary results (results.h),
 * each carrying its node; what else the reports show is a fleetview.h.
 */
#ifndef EP_FLEET_H
#define EP_FLEET_H

#include <time.h>

#include "results.h"
#include "fleetview.h"
#include "manifest.h"
#include "policy.h"

/* A node manifest larger than this is an error for that node. */
#define EP_FLEET_MANIFEST_MAX	(64u << 20)

/* A node manifest with more facts than this is an error for that node,
 * refused before any of its facts is kept.  A real capture has a few
 * hundred (an H100 host with CUDA, cuDNN and PyTorch: 286) to a few
 * thousand (large Python environments, lockfile pins). */
#define EP_FLEET_FACTS_MAX	100000

/* At most this many node manifests in one run. */
#define EP_FLEET_NODES_MAX	100000

/* Opens the signed manifest of node `node`: the bytes of path (n of
 * them); *body is the manifest's text (new, *len bytes), once a
 * signature by that node's own key holds over it.  Fails (EP_E_INPUT,
 * EP_E_DENIED) with one line saying why.  The fleet does not know how
 * manifests are signed: the command says (--node-keys). */
typedef int ep_fleet_open_fn(char **body, size_t *len, void *arg,
    const char *node, const char *path, const char *text, size_t n,
    struct ep_err *err);

struct ep_fleet_opts {
	const char *const *inputs;	/* files and directories */
	size_t ninputs;
	/* Who says which node a manifest is.  By default the manifest
	 * itself (meta.node, else its file's name).  bind_names: its
	 * file's name, NODE.json, given by whoever wrote the file (the
	 * scheduler's channel); a meta.node that names another node is
	 * that node's error.  open_signed (implies bind_names): the file is
	 * NODE's manifest signed by NODE's key; anything else is NODE's
	 * error. */
	int bind_names;
	ep_fleet_open_fn *open_signed;
	void *open_arg;
	long long max_age;		/* seconds: a manifest captured longer
					   ago (meta.captured_at) is its node's
					   error; 0: any age */
	const char *max_age_text;	/* as given, for messages */
	const char *const *expect;	/* expected node names, or NULL */
	size_t nexpect;
	const char *expect_text;	/* as given, for messages */
	const struct ep_manifest *golden;	/* NULL: no store */
	const struct ep_policy *policy;	/* never NULL (the defaults) */
	time_t now;
	int expiry_days;		/* for ep_waivers_review */
};

/* Read the nodes and judge them.  Results are added to rs; *view (new,
 * ep_fleet_view_free) says what was found.  Fails only for an input
 * that does not exist, a directory without manifests (EP_E_INPUT) or
 * more than EP_FLEET_NODES_MAX of them; a bad node manifest (a
 * signature that does not hold, a node name its file does not bind, a
 * capture too old included) is that node's error result, and the node
 * counts as not reported, never the end of the run. */
int ep_fleet_run(struct ep_results *rs, struct ep_fleet_view **view,
    const struct ep_fleet_opts *o, struct ep_err *err);

#endif
