/*
 * fleet_load.c: from the inputs to interned node rows.  A directory
 * gives its *.json files (regular files only, in name order); each is
 * read under the manifest's size bound and parsed (fleet_parse.c).  A
 * node is named by its manifest's meta.node (capture --node), else by
 * its file name without ".json", the name the Slurm audit gives it.
 * What a node's manifest says of itself (capture warnings, the probe's
 * findings) becomes that node's results.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clean.h"
#include "fleet_int.h"
#include "hostlist.h"
#include "progress.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

static uint64_t
hash_bytes(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;

	while (n >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
		s += 8;
		n -= 8;
	}
	while (n-- > 0)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	h ^= h >> 29;
	return h * 0xc4ceb9fe1a85ec53ULL;
}

static void
tab_grow(struct fl_tab *t)
{
	uint32_t nslot = t->nslot ? t->nslot * 2 : 1024, i, j;
	uint32_t *slot = xcalloc(nslot, sizeof *slot);

	for (i = 0; i < t->n; i++) {
		j = (uint32_t)hash_bytes(t->s[i], t->len[i]) & (nslot - 1);
		while (slot[j] != 0)
			j = (j + 1) & (nslot - 1);
		slot[j] = i + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->nslot = nslot;
}

uint32_t
ep_fl_intern(struct fl_tab *t, const char *s, size_t len)
{
	uint32_t j, id;

	if ((uint64_t)(t->n + 1) * 2 > t->nslot)
		tab_grow(t);
	j = (uint32_t)hash_bytes(s, len) & (t->nslot - 1);
	while ((id = t->slot[j]) != 0) {
		id--;
		if (t->len[id] == len && memcmp(t->s[id], s, len) == 0)
			return id;
		j = (j + 1) & (t->nslot - 1);
	}
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 1024;
		t->s = xreallocarray(t->s, t->cap, sizeof *t->s);
		t->len = xreallocarray(t->len, t->cap, sizeof *t->len);
	}
	t->s[t->n] = xmalloc(len + 1);
	memcpy(t->s[t->n], s, len);
	t->s[t->n][len] = '\0';
	t->len[t->n] = (uint32_t)len;
	t->slot[j] = t->n + 1;
	return t->n++;
}

uint32_t
ep_fl_lookup(const struct fl_tab *t, const char *s, size_t len)
{
	uint32_t j, id;

	if (t->nslot == 0)
		return FL_NONE;
	j = (uint32_t)hash_bytes(s, len) & (t->nslot - 1);
	while ((id = t->slot[j]) != 0) {
		id--;
		if (t->len[id] == len && memcmp(t->s[id], s, len) == 0)
			return id;
		j = (j + 1) & (t->nslot - 1);
	}
	return FL_NONE;
}

void
ep_fl_tab_free(struct fl_tab *t)
{
	for (uint32_t i = 0; i < t->n; i++)
		free(t->s[i]);
	free(t->s);
	free(t->len);
	free(t->slot);
	memset(t, 0, sizeof *t);
}

uint32_t
ep_fl_value(const struct fl_node *n, uint32_t kid)
{
	size_t lo = 0, hi = n->nrow, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (FL_KID(n->row[mid]) < kid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < n->nrow && FL_KID(n->row[lo]) == kid)
		return FL_VID(n->row[lo]);
	return FL_NONE;
}

static int
u64_order(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

static struct fl_node *
node_add(struct fl_fleet *f, const char *file)
{
	struct fl_node *n;

	if (f->n == f->cap) {
		f->cap = f->cap ? f->cap * 2 : 64;
		f->nodes = xreallocarray(f->nodes, f->cap, sizeof *f->nodes);
	}
	n = &f->nodes[f->n++];
	memset(n, 0, sizeof *n);
	n->file = file != NULL ? xstrdup(file) : NULL;
	return n;
}

static void
node_error(struct fl_node *n, const char *msg)
{
	n->state = EP_NODE_ERROR;
	free(n->error);
	n->error = ep_text_clean(msg, 0);
	free(n->row);
	n->row = NULL;
	n->nrow = 0;
}

/* Results a node's manifest carries about itself. */
static void
own_results(struct fl_fleet *f, const struct fl_node *n, json_t *meta)
{
	json_t *w = json_object_get(meta, "warnings"), *v, *fs;
	const char *st, *key, *msg;
	char k[48];
	size_t i;

	json_array_foreach(w, i, v) {
		struct ep_result r = { 0 };

		if (!json_is_string(v))
			continue;
		snprintf(k, sizeof k, "capture.warning[%zu]", i);
		r.key = k;
		r.status = EP_WARN;
		r.rule = "capture";
		r.node = n->name;
		r.message = xasprintf("%s: %s", k, json_string_value(v));
		ep_results_add(&f->own, &r);
		free(r.message);
	}
	fs = json_object_get(json_object_get(meta, "probe"), "findings");
	json_array_foreach(fs, i, v) {
		struct ep_result r = { 0 };

		key = json_string_value(json_object_get(v, "key"));
		st = json_string_value(json_object_get(v, "status"));
		msg = json_string_value(json_object_get(v, "message"));
		if (key == NULL || st == NULL ||
		    (!ep_startswith(key, "probe.") &&
		    !ep_startswith(key, "workload.")))
			continue;
		for (r.status = 0; r.status < EP_NSTATUS; r.status++)
			if (strcmp(ep_status_name(r.status), st) == 0)
				break;
		if (r.status == EP_NSTATUS || r.status == EP_PASS ||
		    r.status == EP_WAIVED)
			continue;
		r.key = (char *)key;
		r.rule = "probe:capture";
		r.node = n->name;
		r.message = xasprintf("%s (in its capture)", msg != NULL ?
		    msg : key);
		ep_results_add(&f->own, &r);
		free(r.message);
	}
}

/* Read a manifest the directory holds: opened without following a
 * link (a node, or whoever can write the shared directory, must not make
 * the aggregation read another file, whose text a parse error would
 * quote), and only a regular file. */
static int
read_entry(char **text, size_t *len, int dfd, const char *name,
    const char *path, struct ep_err *err)
{
	struct stat st;
	int fd, rc;

	fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC |
	    O_NOCTTY);
	if (fd < 0)
		return ep_err_set(err, EP_E_INPUT, errno == ELOOP ? "%s: a "
		    "symbolic link (a directory of node manifests holds files, "
		    "not links)" : "%s: cannot read: %s", path,
		    strerror(errno));
	if (fstat(fd, &st) < 0) {
		ep_err_set(err, EP_E_INPUT, "%s: cannot read: %s", path,
		    strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		ep_err_set(err, EP_E_INPUT, "%s: %s, not a regular file", path,
		    ep_mode_kind(st.st_mode));
		close(fd);
		return -1;
	}
	rc = ep_read_fd(text, len, fd, path, EP_FLEET_MANIFEST_MAX, err);
	close(fd);
	return rc;
}

/* What reading the inputs needs besides the fleet. */
struct loader {
	struct fl_fleet *f;
	const struct ep_fleet_opts *o;
	time_t now;
	struct fl_pairs pairs;
};

/* One node from path; dfd and name, when dfd is not -1, say where a
 * directory's entry is. */
static void
load_file(struct loader *l, const char *path, int dfd,
    const char *name_in_dir)
{
	struct fl_fleet *f = l->f;
	struct fl_pairs *pairs = &l->pairs;
	struct fl_node *n = node_add(f, path);
	struct ep_err err = { 0 };
	json_t *meta = NULL;
	char *text = NULL, *msg;
	size_t len, i;
	uint32_t kid;

	if ((dfd >= 0 ? read_entry(&text, &len, dfd, name_in_dir, path,
	    &err) : ep_read_regular(&text, &len, path, EP_FLEET_MANIFEST_MAX,
	    &err)) < 0 || ep_fl_open(&text, &len, l->o, path, &err) < 0) {
		n->name = ep_fl_file_stem(path);
		node_error(n, err.msg);
		goto done;
	}
	if (ep_fl_parse(&meta, pairs, text, len, path, &err) < 0) {
		if (l->o->open_signed == NULL)
			ep_fl_envelope_said(path, text, len, &err);
		n->name = ep_fl_file_stem(path);
		node_error(n, err.msg);
		goto done;
	}
	if (ep_fl_name(&n->name, l->o, path, meta, l->now, &err) < 0) {
		if (!ep_hostlist_name_ok(n->name)) {
			free(n->name);
			n->name = ep_fl_file_stem(path);
		}
		node_error(n, err.msg);
		goto done;
	}
	/* Refused before a fact is interned: a node's own facts must not
	 * cost the fleet anything once refused. */
	if (pairs->n > EP_FLEET_FACTS_MAX) {
		msg = xasprintf("%s: %zu facts, more than a node manifest may "
		    "hold (%d)", path, pairs->n, EP_FLEET_FACTS_MAX);
		node_error(n, msg);
		free(msg);
		goto done;
	}
	n->row = xreallocarray(NULL, pairs->n ? pairs->n : 1, sizeof *n->row);
	for (i = 0; i < pairs->n; i++) {
		const struct fl_pair *p = &pairs->v[i];

		kid = ep_fl_intern(&f->keys, pairs->buf + p->koff, p->klen);
		n->row[i] = (uint64_t)kid << 32 | ep_fl_intern(&f->vals,
		    pairs->buf + p->voff, p->vlen);
	}
	n->nrow = pairs->n;
	for (i = 1; i < n->nrow && n->row[i - 1] < n->row[i]; i++)
		;
	if (i < n->nrow)
		qsort(n->row, n->nrow, sizeof *n->row, u64_order);
	for (i = 1; i < n->nrow; i++)
		if (FL_KID(n->row[i - 1]) == FL_KID(n->row[i]))
			break;
	if (i < n->nrow && n->nrow > 1) {
		/* Only a duplicate key gets here; the manifest's own
		 * parser says so in its words. */
		struct ep_manifest *m = NULL;

		if (ep_manifest_parse(&m, text, len, path, &err) == 0)
			ep_err_set(&err, EP_E_INPUT, "%s: a fact key appears "
			    "twice", path);
		ep_manifest_free(m);
		node_error(n, err.msg);
		goto done;
	}
	n->rowhash = 0x84222325cbf29ce4ULL;
	for (i = 0; i < n->nrow; i++)
		n->rowhash = (n->rowhash ^ n->row[i]) * 0x100000001b3ULL;
	own_results(f, n, meta);
done:
	json_decref(meta);
	free(text);
}

static int
load_dir(struct loader *l, const char *dir, struct ep_err *err)
{
	struct ep_strv names = { 0 };
	struct ep_progress prog;
	struct dirent *de;
	DIR *d;
	size_t n;
	int rc = -1;

	if ((d = opendir(dir)) == NULL)
		return ep_err_set(err, EP_E_INPUT, "%s: cannot read the "
		    "directory: %s", dir, strerror(errno));
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (de->d_name[0] == '.' || n <= 5 ||
		    strcmp(de->d_name + n - 5, ".json") != 0)
			continue;
		if (names.n >= EP_FLEET_NODES_MAX) {
			ep_err_set(err, EP_E_INPUT, "%s: more than %d node "
			    "manifests", dir, EP_FLEET_NODES_MAX);
			goto done;
		}
		ep_strv_push_owned(&names, xasprintf("%s/%s", dir,
		    de->d_name));
	}
	if (names.n == 0) {
		ep_err_set(err, EP_E_INPUT, "%s: no node manifests (*.json) "
		    "in it", dir);
		goto done;
	}
	ep_strv_sort(&names);
	ep_progress_start(&prog, "fleet", "node manifests read", names.n, 0);
	for (size_t i = 0; i < names.n; i++) {
		load_file(l, names.v[i], dirfd(d),
		    names.v[i] + strlen(dir) + 1);
		ep_progress_add(&prog, 1, 0);
	}
	ep_progress_end(&prog);
	rc = 0;
done:
	closedir(d);
	ep_strv_clear(&names);
	return rc;
}

int
ep_fl_node_order(const void *a, const void *b)
{
	const struct fl_node *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c != 0)
		return c;
	return strcmp(x->file != NULL ? x->file : "",
	    y->file != NULL ? y->file : "");
}

/* Two manifests naming one node: neither is taken for it. */
static void
refuse_duplicates(struct fl_fleet *f)
{
	char *msg;
	size_t i, j;

	qsort(f->nodes, f->n, sizeof *f->nodes, ep_fl_node_order);
	for (i = 0; i < f->n; i = j) {
		for (j = i + 1; j < f->n &&
		    strcmp(f->nodes[i].name, f->nodes[j].name) == 0; j++)
			;
		if (j - i < 2)
			continue;
		for (size_t k = i; k < j; k++) {
			msg = xasprintf("%s: node %s is also named by %s "
			    "(duplicate node names are refused)",
			    f->nodes[k].file, f->nodes[k].name,
			    f->nodes[k == i ? i + 1 : i].file);
			node_error(&f->nodes[k], msg);
			free(msg);
		}
	}
}

int
ep_fl_load(struct fl_fleet *f, const struct ep_fleet_opts *o, time_t now,
    struct ep_err *err)
{
	struct loader l = { f, o, now, { 0 } };
	const char *const *inputs = o->inputs;
	struct stat st;
	int rc = -1;

	for (size_t i = 0; i < o->ninputs; i++) {
		if (stat(inputs[i], &st) < 0) {
			ep_err_set(err, EP_E_INPUT, "%s: %s", inputs[i],
			    strerror(errno));
			goto done;
		}
		if (S_ISDIR(st.st_mode)) {
			if (load_dir(&l, inputs[i], err) < 0)
				goto done;
		} else
			load_file(&l, inputs[i], -1, NULL);
		if (f->n > EP_FLEET_NODES_MAX) {
			ep_err_set(err, EP_E_INPUT, "more than %d node "
			    "manifests", EP_FLEET_NODES_MAX);
			goto done;
		}
	}
	refuse_duplicates(f);
	rc = 0;
done:
	ep_fl_pairs_free(&l.pairs);
	return rc;
}

void
ep_fl_fleet_free(struct fl_fleet *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->nodes[i].name);
		free(f->nodes[i].file);
		free(f->nodes[i].error);
		free(f->nodes[i].row);
		ep_results_clear(&f->nodes[i].ignored);
	}
	free(f->nodes);
	ep_fl_tab_free(&f->keys);
	ep_fl_tab_free(&f->vals);
	ep_results_clear(&f->own);
	memset(f, 0, sizeof *f);
}
