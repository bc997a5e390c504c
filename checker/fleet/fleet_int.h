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

/* fleet_load.c: read every input (a manifest, or a directory of
 * *.json), each node's manifest into f.  Fails (EP_E_INPUT) only for an
 * input that does not exist or a directory without manifests; a node
 * whose manifest cannot be read or parsed, whose name is not usable or
 * is another node's too, is kept with state EP_NODE_ERROR. */
int ep_fl_load(struct fl_fleet *f, const char *const *inputs, size_t n,
    struct ep_err *err);
void ep_fl_fleet_free(struct fl_fleet *f);

/* qsort order of struct fl_node: by name, then by file (none first). */
int ep_fl_node_order(const void *a, const void *b);

/* fleet_odd.c: odd-node-out over every key the policy compares, probe
 * hashes within their determinism domains, and the facts that split the
 * nodes as a probe hash does.  Results to rs (fleet-wide ones with node
 * NULL, per-node ones with the node), splits to v. */
void ep_fl_odd(struct ep_results *rs, struct ep_fleet_view *v,
    struct fl_fleet *f, const struct ep_policy *policy, time_t now);

#endif
