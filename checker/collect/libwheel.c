/*
 * libwheel.c: find the wheel that installed a library file by reading the
 * RECORD of the nvidia* dist-infos near it (see libwheel.h for the two
 * layouts), and turn the answer into lib.<name>.wheel,
 * lib.<name>.record_sha256 and a fuller lib.<name>.version.
 *
 * Every capture asks this for each CUDA library, so the answer is cached
 * on the library file's identity (kind "wheel1") together with the
 * identities of the directories listed and the RECORD read: a warm call
 * costs a few stat()s, and installing or removing a wheel beside the
 * library (which changes a directory listed) asks again.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libwheel.h"
#include "python.h"
#include "b64.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

/* Bump when what a cached entry means changes. */
#define CACHE_KIND	"wheel1"
/* RECORDs list every file of a wheel: cuDNN's is ~100 KB. */
#define RECORD_MAX	(64 * 1024 * 1024)
#define VERSION_MAX	128

/* A match found in one RECORD. */
enum { M_NONE, M_RELOCATED, M_DIRECT };

struct walk {
	const char *real;	/* the library */
	const char *base;	/* its file name */
	off_t size;
	struct ep_strv deps;	/* "PATH\tIDENTITY" the answer rests on */
	struct ep_libwheel best;
	int best_kind;		/* M_* of best */
};

void
ep_libwheel_clear(struct ep_libwheel *w)
{
	free(w->name);
	free(w->version);
	memset(w, 0, sizeof *w);
}

int
ep_libwheel_digest_hex(char *hex, size_t size, const char *b64, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char *bytes;
	size_t n;

	if (ep_b64_decode_as(&bytes, &n, b64, len, EP_B64_RECORD, "hash",
	    NULL) < 0)
		return -1;
	if (size == 0 || 2 * n + 1 > size || n > INT_MAX) {
		free(bytes);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		hex[2 * i] = digits[bytes[i] >> 4];
		hex[2 * i + 1] = digits[bytes[i] & 0xf];
	}
	hex[2 * n] = '\0';
	free(bytes);
	return (int)n;
}

int
ep_libwheel_refine(char *out, size_t size, const char *api,
    const char *wheel)
{
	size_t alen = strlen(api), n;
	const char *p, *dot;

	dot = strchr(api, '.');
	if (alen == 0 || dot == NULL || dot == api || dot[1] == '\0' ||
	    strspn(api, "0123456789.") != alen || strchr(dot + 1, '.') != NULL)
		return 0;
	if (strncmp(wheel, api, alen) != 0 || wheel[alen] != '.')
		return 0;
	p = wheel + alen + 1;
	if ((n = strspn(p, "0123456789")) == 0)
		return 0;
	if (p[n] != '\0' && !(p[n] == '.' && p[n + 1] >= '0' &&
	    p[n + 1] <= '9'))
		return 0;
	if ((size_t)snprintf(out, size, "%s.%.*s", api, (int)n, p) >= size)
		return 0;
	return 1;
}

static void
add_dep(struct walk *w, const char *path)
{
	char *id = ep_file_identity(path);

	ep_strv_push_owned(&w->deps, xasprintf("%s\t%s", path, id));
	free(id);
}

static int
version_ok(const char *v)
{
	size_t n = strlen(v);

	return n > 0 && n < VERSION_MAX && strspn(v, "0123456789abcdefghijklmn"
	    "opqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.+!_-") == n;
}

/*
 * Name and version of the dist-info at dir/ent: METADATA's, else what the
 * entry's own name says (nvidia_cuda_runtime-13.0.96.dist-info).
 * Returns 0 when neither gives a valid pair.
 */
static int
read_meta(struct ep_libwheel *out, const char *dir, const char *ent)
{
	struct ep_pymeta meta = { 0 };
	char *path, *buf, *name = NULL, *ver = NULL, *stem;
	const char *dash;
	size_t n = 0;
	ssize_t r;
	int fd;

	path = xasprintf("%s/%s/METADATA", dir, ent);
	buf = xmalloc(EP_PYMETA_MAX);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
	    O_NOCTTY)) >= 0) {
		while (n < EP_PYMETA_MAX && ((r = read(fd, buf + n,
		    EP_PYMETA_MAX - n)) > 0 || (r < 0 && errno == EINTR)))
			if (r > 0)
				n += (size_t)r;
		close(fd);
		ep_pymeta_parse(&meta, buf, n, n < EP_PYMETA_MAX);
	}
	if (!meta.binary && meta.name != NULL &&
	    ep_pep508_name_valid(meta.name))
		name = xstrdup(meta.name);
	else if ((name = ep_pydist_entry_name(ent)) != NULL &&
	    !ep_pep508_name_valid(name)) {
		free(name);
		name = NULL;
	}
	if (!meta.binary && meta.version != NULL)
		ver = xstrdup(meta.version);
	else {
		stem = xstrndup(ent, strlen(ent) - strlen(".dist-info"));
		if ((dash = strchr(stem, '-')) != NULL)
			ver = xstrdup(dash + 1);
		free(stem);
	}
	if (name != NULL && ver != NULL && version_ok(ver)) {
		out->name = ep_pep503_normalize(name);
		out->version = ver;
		ver = NULL;
	}
	ep_pymeta_clear(&meta);
	free(name);
	free(ver);
	free(buf);
	free(path);
	return out->name != NULL;
}

/*
 * The first field of a RECORD line (a CSV path, quoted when it holds a
 * comma or a quote) as a new string; *rest points past its comma.  NULL
 * for a malformed line.
 */
static char *
record_path(const char *line, const char *end, const char **rest)
{
	const char *p, *comma;
	char *out, *o;

	if (line < end && *line != '"') {
		if ((comma = memchr(line, ',', (size_t)(end - line))) == NULL)
			return NULL;
		*rest = comma + 1;
		return xstrndup(line, (size_t)(comma - line));
	}
	o = out = xmalloc((size_t)(end - line) + 1);
	for (p = line + 1; p < end; p++) {
		if (*p != '"')
			*o++ = *p;
		else if (p + 1 < end && p[1] == '"')
			*o++ = *p++;
		else
			break;
	}
	if (p + 1 >= end || p[1] != ',') {
		free(out);
		return NULL;
	}
	*o = '\0';
	*rest = p + 2;
	return out;
}

/*
 * Look for the library in one RECORD (buf, len) whose paths are relative
 * to root.  Fills hex with the entry's digest and returns M_DIRECT when
 * an entry resolves to the library, M_RELOCATED (only when relocated is
 * set) when an entry has its file name and size, M_NONE otherwise.
 */
static int
record_match(struct walk *w, const char *buf, size_t len, const char *root,
    int relocated, char hex[EP_SHA256_HEX])
{
	const char *line = buf, *end = buf + len, *eol, *rest, *hashend,
	    *slash;
	char *path, *full, *rp, *sizeend, sizebuf[32];
	size_t blen = strlen(w->base), slen;
	long long size;
	int found = M_NONE, this;

	if (memmem(buf, len, w->base, blen) == NULL)
		return M_NONE;
	for (; line < end && found != M_DIRECT; line = eol + 1) {
		if ((eol = memchr(line, '\n', (size_t)(end - line))) == NULL)
			eol = end;
		if ((path = record_path(line, eol, &rest)) == NULL)
			continue;
		slash = strrchr(path, '/');
		if (strcmp(slash != NULL ? slash + 1 : path, w->base) != 0) {
			free(path);
			continue;
		}
		if ((hashend = memchr(rest, ',', (size_t)(eol - rest))) == NULL)
			hashend = eol;
		full = *path == '/' ? xstrdup(path) :
		    xasprintf("%s/%s", root, path);
		rp = realpath(full, NULL);
		this = M_NONE;
		if (rp != NULL && strcmp(rp, w->real) == 0)
			this = M_DIRECT;
		else if (relocated && hashend < eol &&
		    (slen = (size_t)(eol - hashend - 1)) < sizeof sizebuf) {
			memcpy(sizebuf, hashend + 1, slen);
			sizebuf[slen] = '\0';
			ep_trim(sizebuf);
			errno = 0;
			size = strtoll(sizebuf, &sizeend, 10);
			if (errno == 0 && *sizebuf != '\0' &&
			    *sizeend == '\0' && size == (long long)w->size)
				this = M_RELOCATED;
		}
		if (this > found) {
			found = this;
			if (hashend - rest <= 7 ||
			    strncmp(rest, "sha256=", 7) != 0 ||
			    ep_libwheel_digest_hex(hex, EP_SHA256_HEX, rest + 7,
			    (size_t)(hashend - rest - 7)) != 32)
				*hex = '\0';
		}
		free(rp);
		free(full);
		free(path);
	}
	return found;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The nvidia*.dist-info entries of dir, sorted (so that the answer does
 * not depend on the order readdir() happens to give).  *sub is set when
 * dir holds a "dist-info" entry.
 */
static void
list_dir(struct ep_strv *out, const char *dir, int *sub)
{
	struct dirent *de;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (sub != NULL && strcmp(de->d_name, "dist-info") == 0)
			*sub = 1;
		else if (ep_startswith(de->d_name, "nvidia") &&
		    ep_endswith(de->d_name, ".dist-info"))
			ep_strv_push(out, de->d_name);
	}
	closedir(d);
	if (out->n > 1)
		qsort(out->v, out->n, sizeof *out->v, by_name);
}

/*
 * Read the RECORDs of the nvidia dist-infos in dir (paths relative to
 * root) and keep the best match in w->best.  Returns 1 once a direct
 * match is found: nothing better can come.
 */
static int
scan(struct walk *w, const char *dir, const char *root, int relocated,
    int *sub)
{
	struct ep_strv ents = { 0 };
	struct ep_libwheel cand;
	struct ep_err err = { 0 };
	char *path, *buf, hex[EP_SHA256_HEX];
	size_t len;
	int kind;

	add_dep(w, dir);
	list_dir(&ents, dir, sub);
	for (size_t i = 0; i < ents.n && w->best_kind != M_DIRECT; i++) {
		path = xasprintf("%s/%s/RECORD", dir, ents.v[i]);
		if (ep_read_regular(&buf, &len, path, RECORD_MAX, &err) < 0) {
			free(path);
			continue;
		}
		*hex = '\0';
		kind = record_match(w, buf, len, root, relocated, hex);
		memset(&cand, 0, sizeof cand);
		if (kind > w->best_kind && read_meta(&cand, dir, ents.v[i])) {
			ep_libwheel_clear(&w->best);
			w->best = cand;
			w->best.relocated = kind == M_RELOCATED;
			memcpy(w->best.sha256, hex, sizeof hex);
			w->best_kind = kind;
			add_dep(w, path);
		} else
			ep_libwheel_clear(&cand);
		free(buf);
		free(path);
	}
	ep_strv_clear(&ents);
	return w->best_kind == M_DIRECT;
}

static void
walk_up(struct walk *w)
{
	char *dir, *slash, *sub;
	int has_sub;

	dir = xstrdup(w->real);
	for (int level = 0; level <= EP_LIBWHEEL_LEVELS; level++) {
		if ((slash = strrchr(dir, '/')) == NULL)
			break;
		if (slash == dir)
			slash[1] = '\0';	/* "/" itself */
		else
			*slash = '\0';
		has_sub = 0;
		if (scan(w, dir, dir, 0, &has_sub))
			break;
		if (has_sub) {
			sub = xasprintf("%s/dist-info", strcmp(dir, "/") == 0 ?
			    "" : dir);
			scan(w, sub, dir, 1, NULL);
			free(sub);
		}
		if (w->best_kind != M_NONE || strcmp(dir, "/") == 0)
			break;
	}
	free(dir);
}

/* A cached answer, if every file and directory it rests on is as it was.
 * Returns -1 when stale or malformed, else 1 found or 0 not found. */
static int
from_cache(struct ep_libwheel *out, const char *value)
{
	char *copy = xstrdup(value), *save = NULL, *l, *f[5], *id;
	size_t n;
	int rc = 0;

	for (l = strtok_r(copy, "\n", &save); l != NULL && rc >= 0;
	    l = strtok_r(NULL, "\n", &save)) {
		for (n = 0, f[0] = l; n < 4 && (f[n + 1] = strchr(f[n], '\t'))
		    != NULL; n++)
			*f[n + 1]++ = '\0';
		if (strcmp(f[0], "dep") == 0 && n == 2) {
			id = ep_file_identity(f[1]);
			if (strcmp(id, f[2]) != 0)
				rc = -1;
			free(id);
		} else if (strcmp(f[0], "wheel") == 0 && n == 4 &&
		    out->name == NULL) {
			if (!ep_pep508_name_valid(f[1]) || !version_ok(f[2])) {
				rc = -1;
				break;
			}
			out->name = xstrdup(f[1]);
			out->version = xstrdup(f[2]);
			if (strlen(f[3]) == EP_SHA256_HEX - 1)
				memcpy(out->sha256, f[3], EP_SHA256_HEX);
			out->relocated = strcmp(f[4], "1") == 0;
			rc = 1;
		} else if (strcmp(f[0], "none") != 0)
			rc = -1;
	}
	if (rc < 0)
		ep_libwheel_clear(out);
	free(copy);
	return rc;
}

static char *
to_cache(const struct walk *w)
{
	char *out, *t;

	if (w->best_kind != M_NONE)
		out = xasprintf("wheel\t%s\t%s\t%s\t%d\n", w->best.name,
		    w->best.version, *w->best.sha256 != '\0' ?
		    w->best.sha256 : "-", w->best.relocated);
	else
		out = xstrdup("none\n");
	for (size_t i = 0; i < w->deps.n; i++) {
		/* A path with a tab or newline cannot be stored; the
		 * answer is then looked for every time. */
		if (strchr(w->deps.v[i], '\n') != NULL ||
		    strchr(strchr(w->deps.v[i], '\t') + 1, '\t') != NULL) {
			free(out);
			return NULL;
		}
		t = xasprintf("%sdep\t%s\n", out, w->deps.v[i]);
		free(out);
		out = t;
	}
	return out;
}

int
ep_libwheel_find(struct ep_libwheel *out, const char *real,
    struct ep_cache *cache)
{
	struct walk w;
	struct stat st;
	const char *v, *slash;
	char *value;
	int rc;

	memset(out, 0, sizeof *out);
	if (stat(real, &st) < 0 || !S_ISREG(st.st_mode))
		return 0;
	if (cache != NULL && (v = ep_cache_get(cache, CACHE_KIND, &st)) != NULL
	    && (rc = from_cache(out, v)) >= 0)
		return rc;

	memset(&w, 0, sizeof w);
	w.real = real;
	slash = strrchr(real, '/');
	w.base = slash != NULL ? slash + 1 : real;
	w.size = st.st_size;
	walk_up(&w);
	if (cache != NULL && (value = to_cache(&w)) != NULL) {
		ep_cache_put(cache, CACHE_KIND, &st, value);
		free(value);
	}
	ep_strv_clear(&w.deps);
	if (w.best_kind == M_NONE)
		return 0;
	*out = w.best;
	return 1;
}

void
ep_libwheel_apply(struct ep_manifest *m, const char *name,
    const struct ep_libwheel *w)
{
	char *key, full[64];
	const char *api;

	key = xasprintf("lib.%s.wheel", name);
	ep_manifest_setf(m, key, "%s==%s", w->name, w->version);
	free(key);
	/*
	 * What the file held when pip installed it.  It is not compared
	 * with lib.<name>.sha256 here, since the files are hashed later,
	 * all together: the compare stage tells a tampered or partly
	 * overwritten install by the two differing.
	 */
	if (*w->sha256 != '\0') {
		key = xasprintf("lib.%s.record_sha256", name);
		ep_manifest_set(m, key, w->sha256);
		free(key);
	}
	key = xasprintf("lib.%s.version", name);
	if ((api = ep_manifest_get(m, key)) != NULL &&
	    ep_libwheel_refine(full, sizeof full, api, w->version))
		ep_manifest_set(m, key, full);
	free(key);
}

void
ep_libwheel_collect(struct ep_manifest *m, struct ep_cache *cache,
    const char *name, const char *real)
{
	struct ep_libwheel w;

	if (ep_libwheel_find(&w, real, cache))
		ep_libwheel_apply(m, name, &w);
	ep_libwheel_clear(&w);
}
