/*
 * fleetview.h: what `envparity fleet` found besides its results (which
 * are ordinary results, results.h, each with its node): the nodes and
 * their verdicts, and every fact whose values split the nodes, with the
 * value groups and their nodes in hostlist syntax.  checker/fleet/ fills
 * it; the report writers render it (the Markdown matrix, the JSON
 * report's "nodes" and "splits", the per-node metrics).  Plain data: it
 * lives here so that reports need not know the fleet's engine.
 */
#ifndef EP_FLEETVIEW_H
#define EP_FLEETVIEW_H

#include <stddef.h>

#include "results.h"

#define EP_FLEET_SCHEMA	"envparity/fleet@1"

/* Bounds of what a run lists, whatever its nodes hold: at most
 * EP_FLEET_SPLITS_MAX splits (and as many fleet.odd.* results), of which
 * at most EP_FLEET_SPLITS_SAME set apart the same nodes (so that one
 * node's thousands of facts of its own cannot push every other node's
 * drift out of the list), and the EP_FLEET_GROUPS_MAX largest value
 * groups of each split.  What is left out is counted (nsplits_omitted,
 * groups_omitted) and said by the result fleet.splits_omitted.  Likewise
 * a node lists at most EP_FLEET_NODE_ODD_MAX results of its own odd
 * facts, and one node.odd_omitted result counts the rest, as bad as the
 * worst of them, so that no node's results crowd another's out of a
 * report. */
#define EP_FLEET_SPLITS_MAX	1000
#define EP_FLEET_SPLITS_SAME	100
#define EP_FLEET_GROUPS_MAX	100
#define EP_FLEET_NODE_ODD_MAX	100

/* What became of a node. */
enum ep_node_state {
	EP_NODE_OK,		/* its manifest was read and compared */
	EP_NODE_ERROR,		/* its manifest could not be read or parsed,
				   or its name is not usable */
	EP_NODE_MISSING,	/* expected, but no manifest names it */
};

/* A node's verdict, as the reports group nodes: missing, unreadable,
 * drifted (its own results, or an odd fact), else parity. */
enum ep_node_verdict {
	EP_VERDICT_PARITY,
	EP_VERDICT_DRIFT,
	EP_VERDICT_UNREADABLE,
	EP_VERDICT_MISSING,
	EP_NVERDICTS
};

struct ep_fleet_node;

/* n's verdict (enum ep_node_verdict). */
int ep_fleet_node_verdict(const struct ep_fleet_node *n);

/* "parity", "drift", "unreadable", "missing"; a static string. */
const char *ep_fleet_verdict_name(int verdict);

/* A node's state (enum ep_node_state) as the reports name it:
 * "reported", "unreadable", "missing"; a static string. */
const char *ep_fleet_state_name(int state);

struct ep_fleet_node {
	char *name;
	char *file;		/* NULL when missing */
	int state;		/* enum ep_node_state */
	char *error;		/* EP_NODE_ERROR, EP_NODE_MISSING: why */
	int expected;		/* named by --expect (or the Slurm job) */
	size_t nfacts;
	size_t odd;		/* facts where it is not with the majority */
	size_t counts[EP_NSTATUS];	/* its own results */
	int exit_status;	/* 0 parity, 1 drift (its results, its odd
				   facts, or missing), 2 unreadable */
	char facts_sha256[65];	/* EP_NODE_OK: the canonical digest of its
				   facts (ep_manifest_facts_sha256), for
				   attestations; "" otherwise */
	struct ep_results ignored;	/* only its ign, nign: the changes
					   against the golden that a built-in
					   rule does not judge (os.kernel),
					   in key order */
};

/* One value of a split fact and the nodes that have it. */
struct ep_fleet_group {
	char *value;		/* NULL: the fact is absent on these nodes */
	size_t count;
	char *nodes;		/* hostlist syntax: "n[001-047,049]" */
};

enum ep_split_kind {
	EP_SPLIT_ODD,		/* a majority value and nodes that differ */
	EP_SPLIT_TIE,		/* no value has more nodes than every other */
	EP_SPLIT_PROBE,		/* probe output hashes that differ within one
				   determinism domain */
	EP_SPLIT_DOMAIN,	/* nodes in different determinism domains:
				   said, never failed */
	EP_NSPLIT_KINDS
};

/* What each kind of split is called, named here once: the rule its
 * results carry (the fleet's fleet.odd.<key> result, and each odd node's
 * of an EP_SPLIT_ODD or _PROBE): "fleet:majority", "fleet:tie",
 * "fleet:probe", "fleet:domain"; its name in the JSON report ("odd",
 * "tie", "probe", "domain"); its word in the Markdown matrix ("odd", "tie",
 * "probe", "domains").  A kind out of range is named as EP_SPLIT_ODD.
 * Static strings. */
const char *ep_fleet_split_rule(int kind);
const char *ep_fleet_split_name(int kind);
const char *ep_fleet_split_label(int kind);

/* The kind of split whose rule a result carries (ep_fleet_split_rule), or
 * -1 for any other rule (NULL, "exact", "fleet:bound", "fleet:expect"): a
 * result the fleet's matrix shows already. */
int ep_fleet_split_kind(const char *rule);

/* A fact whose value is not the same on every node reported. */
struct ep_fleet_split {
	char *key;
	int kind;		/* enum ep_split_kind */
	int status;		/* the result it gave (enum ep_status) */
	char *domain;		/* EP_SPLIT_PROBE: the domain, else NULL */
	struct ep_fleet_group *groups;	/* largest first; groups[0] is the
					   majority unless EP_SPLIT_TIE */
	size_t ngroups;
	size_t groups_omitted;	/* smaller groups past EP_FLEET_GROUPS_MAX */
	/* Likely causes: "key=value" of the facts whose values set apart
	 * exactly the nodes of a minority group (EP_SPLIT_PROBE). */
	char **causes;
	size_t ncauses;
};

struct ep_fleet_view {
	struct ep_fleet_node *nodes;	/* sorted by name */
	size_t nnodes;
	struct ep_fleet_split *splits;	/* sorted by key */
	size_t nsplits;
	size_t nsplits_omitted;	/* splits past the bounds above */
	size_t nkeys;		/* distinct fact keys over the fleet */
	size_t nreported;	/* nodes whose manifest was read */
	size_t nmissing, nerror, nodd;	/* nodes missing, unreadable, and
					   with at least one odd fact */
	size_t nignored;	/* nodes with at least one ignored change */
	char *expect;		/* the expected hostlist as given, or NULL */
};

void ep_fleet_view_free(struct ep_fleet_view *v);	/* accepts NULL */

#endif
