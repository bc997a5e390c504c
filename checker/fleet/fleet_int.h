/*
 * fleet_int.h: the fleet engine's own model, shared by its files and
 * its unit tests.  Facts are interned: every distinct key and value is
 * stored once, and a node is a sorted row of (key id, value id) pairs, so
 * 10,000 nodes of 1,000 facts fit in about 80 MB and a column (one key
 * over every node) is read without touching a string.
 */
#ifndef EP_FLEET_INT_H
#define EP_FLEET_INT_H

#include <stdint.h>

#include <jansson.h>

#include "fleet.h"

/* fleet_parse.c: a manifest's facts as (key, value) offsets into one
 * buffer; each string ends in a NUL (none holds one: the manifest's
 * parser refuses \u0000). */
struct fl_pair {
	size_t koff, klen, voff, vlen;
};
struct fl_pairs {
	struct fl_pair *v;
	size_t n, ncap;
	char *buf;
	size_t len, cap;
};
void ep_fl_pairs_reset(struct fl_pairs *o);
void ep_fl_pairs_free(struct fl_pairs *o);

/* Parse text (a node manifest, name for errors) into *meta (new) and o.
 * Accepts and refuses exactly what ep_manifest_parse does, with its
 * messages (EP_E_INPUT). */
int ep_fl_parse(json_t **meta, struct fl_pairs *o, const char *text,
    size_t len, const char *name, struct ep_err *err);

/* An interning table: string -> id (0, 1, ...). */
struct fl_tab {
	char **s;		/* by id; each NUL-terminated, owned */
	uint32_t *len;
	uint32_t n, cap;
	uint32_t *slot;		/* open addressing: id + 1, 0 empty */
	uint32_t nslot;		/* a power of two */
};
uint32_t ep_fl_intern(struct fl_tab *t, const char *s, size_t len);
/* The id of s in t, or FL_NONE when t does not hold it (nothing added). */
uint32_t ep_fl_lookup(const struct fl_tab *t, const char *s, size_t len);
void ep_fl_tab_free(struct fl_tab *t);

#define FL_KID(e)	((uint32_t)((e) >> 32))
#define FL_VID(e)	((uint32_t)(e))
#define FL_NONE		UINT32_MAX	/* no value: the key is absent */

struct fl_node {
	char *name;
	char *file;
	int state;		/* enum ep_node_state */
	char *error;
	int expected;
	uint64_t *row;		/* (kid << 32 | vid), sorted by kid */
	size_t nrow;
	uint64_t rowhash;
	size_t odd;
	char facts_sha256[65];	/* the canonical digest of its facts
				   (ep_manifest_facts_sha256); "" until
				   judged */
	struct ep_results ignored;	/* only its ign: the changes a
					   built-in rule does not judge */
};

struct fl_fleet {
	struct fl_tab keys, vals;
	struct fl_node *nodes;
	size_t n, cap;
	struct ep_results own;	/* what the nodes' manifests say of
				   themselves: capture warnings, probe
				   findings (node set) */
};

/* The value id of key kid on node n, or FL_NONE. */
uint32_t ep_fl_value(const struct fl_node *n, uint32_t kid);

/* fleet_cols.c: the facts of the nodes read, by key: for each key whose
 * values differ (and each determinism domain key) a column of the nodes
 * that have it (their index among the nodes read, ascending) and their
 * value ids, built in two passes over the rows.  A key is then judged at
 * the cost of the nodes that have it, never of the whole fleet: one
 * node's thousands of facts of its own cost their number, not their
 * number times the nodes; and a key every node has alike takes no room.
 */
struct fl_cols {
	size_t nok;		/* nodes read (state EP_NODE_OK) */
	size_t *ok;		/* their indexes into f->nodes, ascending */
	uint8_t *split;		/* by key id: 1 when its values differ
				   (absent on a node read counts) */
	size_t *start;		/* by key id: its column is [start[k],
				   start[k + 1]) of pos and vid; empty for a
				   key alike everywhere */
	uint32_t *pos;		/* index into ok */
	uint32_t *vid;
};
void ep_fl_cols_build(struct fl_cols *c, const struct fl_fleet *f);
void ep_fl_cols_free(struct fl_cols *c);

/* A node of a column, or of a set being judged: its position among the
 * nodes read and its value id (FL_NONE: absent). */
struct fl_member {
	uint32_t vid;
	uint32_t pos;
};

/* A set of nodes read, by position, ascending; pos NULL: all of them
 * (0 .. n-1).  Borrowed from the fl_domains or fl_cols it came from. */
struct fl_set {
	const uint32_t *pos;
	size_t n;
};

/* The nodes of each determinism domain, worked out once per domain key
 * and only for the keys asked about. */
struct fl_domains {
	struct fl_dom **by_kid;	/* by domain key id; NULL until asked */
	size_t n;
};

/* The nodes whose value of the domain key dkid is d (FL_NONE: those that
 * lack dkid); dkid FL_NONE: every node read. */
struct fl_set ep_fl_domain_set(struct fl_domains *d, const struct fl_cols *c,
    uint32_t dkid, uint32_t d_vid);
void ep_fl_domains_free(struct fl_domains *d);

/* The nodes of set less those of present (np of them, ascending by
 * position, each in set): new, *n of them, ascending. */
uint32_t *ep_fl_set_less(const struct fl_set *set,
    const struct fl_member *present, size_t np, size_t *n);

/* fleet_cause.c: the likely causes of a probe split: the facts whose
 * values set apart exactly one group of nodes, remembered for each such
 * group, since a node's own facts set it apart again for every hash it
 * differs in. */
struct fl_causes {
	struct fl_cause_memo *memo;
	size_t nmemo;
	size_t *slot;		/* open addressing over memo: index + 1 */
	size_t nslot;
};
void ep_fl_causes_free(struct fl_causes *k);

/* Add to s->causes the facts whose value sets apart exactly the nodes
 * all[i] with in[i] among the n nodes all[] (the split's own key kid is
 * never one, nor any probe hash). */
void ep_fl_causes(struct ep_fleet_split *s, struct fl_causes *k,
    const struct fl_fleet *f, const struct fl_cols *c, uint32_t kid,
    const uint32_t *all, const uint8_t *in, size_t n);

/* fleet_bind.c: who a manifest speaks for (fleet.h's ep_fleet_opts).
 * ep_fl_open: under --node-keys, *text (the file's, *len bytes) is
 * replaced by the manifest its node's signature holds over; else
 * nothing is done.  ep_fl_name: *name (new, also when it fails) is the
 * node the manifest is, by meta.node or under a binding by its file's
 * name, which meta.node must then agree with; and its capture is not
 * older than o->max_age.  Both fail with one line naming path. */
int ep_fl_open(char **text, size_t *len, const struct ep_fleet_opts *o,
    const char *path, struct ep_err *err);
int ep_fl_name(char **name, const struct ep_fleet_opts *o, const char *path,
    json_t *meta, time_t now, struct ep_err *err);
/* The file name without its directory and ".json" (new). */
char *ep_fl_file_stem(const char *path);
/* When text (a manifest that did not parse) is a signed one, err says so
 * instead: the reader was not given the nodes' keys. */
void ep_fl_envelope_said(const char *path, const char *text, size_t len,
    struct ep_err *err);

/* fleet_load.c: read every input of o (a manifest, or a directory of
 * *.json), each node's manifest into f, under o's binding of manifests
 * to nodes and its age limit (against now).  Fails (EP_E_INPUT) only
 * for an input that does not exist or a directory without manifests; a
 * node whose manifest cannot be read, opened or parsed, whose name is
 * not usable, is another node's too or not the one its file binds, or
 * that was captured too long ago, is kept with state EP_NODE_ERROR. */
int ep_fl_load(struct fl_fleet *f, const struct ep_fleet_opts *o,
    time_t now, struct ep_err *err);
void ep_fl_fleet_free(struct fl_fleet *f);

/* qsort order of struct fl_node: by name, then by file (none first). */
int ep_fl_node_order(const void *a, const void *b);

/* fleet_split.c: one key judged over one set of nodes (all of them, or
 * one determinism domain), and the bounds of what a run lists. */
#define FL_PATTERN_SLOTS	4096	/* above twice EP_FLEET_SPLITS_MAX */

struct fl_odd {
	struct ep_results *rs;
	struct ep_fleet_view *v;
	struct fl_fleet *f;
	const struct fl_cols *cols;
	const struct ep_policy *policy;
	time_t now;
	struct fl_causes causes;
	struct fl_domains doms;
	/* The bounds: splits listed, and how many of them set apart each
	 * set of nodes (by an order-free hash of the set). */
	size_t nlisted;
	uint64_t pat_hash[FL_PATTERN_SLOTS];
	size_t pat_count[FL_PATTERN_SLOTS];
	size_t omitted[EP_NSTATUS];
	size_t nomitted;
	/* Each node's odd results listed, and those past the bound by
	 * status (by position among the nodes read). */
	size_t *node_listed;
	size_t (*node_over)[EP_NSTATUS];
	struct ep_results over;
};

/* One key over one set of nodes: those that have it (present, in node
 * order) and, when the rule's missing fails, those of the set that lack
 * it.  The caller fills kid, kind (EP_SPLIT_ODD, _PROBE or _DOMAIN),
 * domain, present and set; the rest is ep_fl_judge's. */
struct fl_judged {
	uint32_t kid;
	int kind;
	const char *domain;
	const struct fl_member *present;
	size_t npresent;
	struct fl_set set;
	const struct ep_rule *rule;
	struct fl_member *m;	/* present, by value then node */
	uint32_t *absent;	/* the set less present, once listed */
	size_t nabsent, n;
	struct fl_grp *g;
	size_t ng;
};

/* qsort order of struct fl_member: by value id, then position. */
int ep_fl_member_order(const void *a, const void *b);

/* Judge j: a split when its nodes do not all agree: the odd nodes'
 * results, and the split listed in the view with its fleet.odd.<key>
 * result, or counted when past the bounds.  Frees what it added to j. */
void ep_fl_judge(struct fl_odd *c, struct fl_judged *j);

/* After every key: what the bounds left out, said by the results
 * fleet.splits_omitted and, per node, node.odd_omitted. */
void ep_fl_bounds_said(struct fl_odd *c);

/* fleet_odd.c: odd-node-out over every key the policy compares, probe
 * hashes within their determinism domains, and the facts that split the
 * nodes as a probe hash does.  Results to rs (fleet-wide ones with node
 * NULL, per-node ones with the node), splits to v. */
void ep_fl_odd(struct ep_results *rs, struct ep_fleet_view *v,
    struct fl_fleet *f, const struct ep_policy *policy, time_t now);

#endif
