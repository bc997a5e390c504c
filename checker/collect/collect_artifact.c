/*
 * collect_artifact.c: artifact.<path>.sha256 and artifact.<path>.files for
 * each file or directory named with --artifact: a SavedModel, a
 * TorchScript or ONNX file, TF Serving's models.config or its batching
 * parameters, a data set.
 *
 * A file's digest is its SHA-256.  A directory's is the SHA-256 of the
 * lines `sha256sum` writes for its files, named "./REL" and sorted by
 * their bytes, which anyone can recompute with coreutils:
 *
 *   (cd DIR && find -L . -type f -print0 | LC_ALL=C sort -z |
 *       xargs -0r sha256sum) | sha256sum
 *
 * (-L because a link inside that stays inside is followed, as find -L
 * does; -r so that an empty directory is the digest of no bytes).  Any
 * other entry is refused, so that what is hashed is always what that
 * line hashes: a FIFO, device or socket; a link that is absolute, leaves
 * the directory, dangles or makes a loop.  Every refusal, a missing path,
 * a directory that cannot be listed and a file that cannot be read stop
 * the capture (EP_E_INPUT, exit 2), naming the entry: a digest of part of
 * an artifact would be a wrong fact.  So does a name the kernel would
 * not open (more than 40 links on the way to it) and a tree deeper than
 * 1024 directories: artifact_walk.c walks a directory without growing
 * the C stack, whatever the artifact holds.
 *
 * The files are not hashed here: each is queued as a part
 * (ep_collect_hash_part), hashed with every other queued file in
 * parallel and through the cache, and the parts become one digest in
 * ep_collect_artifacts_finish.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "artifact_walk.h"
#include "collect.h"
#include "hash.h"
#include "errors.h"
#include "files.h"
#include "strv.h"
#include "xalloc.h"

/* Files in one artifact (and directories walked, which bounds a tree of
 * links to links): ENVPARITY_ARTIFACT_MAX_FILES, else this. */
#define ART_MAX_FILES		100000
#define ART_MAX_FILES_LIMIT	10000000

struct ep_artifact {
	char *arg;		/* the path as given, for messages */
	char *key;		/* ep_artifact_key(arg) */
	int dir;		/* a directory: the lines' digest */
	struct ep_strv names;	/* a directory's files, "./REL", sorted */
	size_t first;		/* its first part in the hash queue; the
				   others follow in the order of names */
	size_t n;		/* parts */
};

/* 1 for a byte a key holds as it is: printable ASCII but '%'.  Others
 * are %XX, so that a key never holds white space (the schema's rule for
 * keys), a control character or invalid UTF-8, and two paths never
 * share a key. */
static int
key_plain(unsigned char b)
{
	return b > 0x20 && b < 0x7f && b != '%';
}

char *
ep_artifact_key(const char *path)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t len = strlen(path), o = 0;
	char *norm = xmalloc(len + 2), *key;
	const char *p = path, *e;
	int abs = *path == '/';

	/* The path as given, spelled one way: no empty or "." component,
	 * no trailing slash.  ".." stays: beside a link it does not mean
	 * the parent of what the link names. */
	if (abs)
		norm[o++] = '/';
	while (*p != '\0') {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		e = strchr(p, '/');
		if (e == NULL)
			e = p + strlen(p);
		if (!(e - p == 1 && *p == '.')) {
			if (o > (size_t)abs)
				norm[o++] = '/';
			memcpy(norm + o, p, (size_t)(e - p));
			o += (size_t)(e - p);
		}
		p = e;
	}
	if (o == 0)
		norm[o++] = '.';
	norm[o] = '\0';

	key = xmalloc(3 * o + 1);
	o = 0;
	for (const unsigned char *q = (const unsigned char *)norm; *q; q++) {
		if (key_plain(*q))
			key[o++] = (char)*q;
		else {
			key[o++] = '%';
			key[o++] = hex[*q >> 4];
			key[o++] = hex[*q & 0xf];
		}
	}
	key[o] = '\0';
	free(norm);
	return key;
}

/* The line sha256sum writes for a file: "HEX  NAME\n", or, when the name
 * holds a backslash, newline or carriage return, "\HEX  NAME\n" with
 * those written \\, \n and \r (GNU coreutils 9).  Appended at buf + o;
 * buf has room for 68 + 2 * strlen(name) bytes more.  Returns the new
 * end. */
static size_t
sum_line(char *buf, size_t o, const char *hex, const char *name)
{
	int esc = strpbrk(name, "\\\n\r") != NULL;

	if (esc)
		buf[o++] = '\\';
	memcpy(buf + o, hex, 64);
	o += 64;
	buf[o++] = ' ';
	buf[o++] = ' ';
	for (const char *p = name; *p != '\0'; p++) {
		if (esc && (*p == '\\' || *p == '\n' || *p == '\r')) {
			buf[o++] = '\\';
			buf[o++] = *p == '\\' ? '\\' : *p == '\n' ? 'n' : 'r';
		} else
			buf[o++] = *p;
	}
	buf[o++] = '\n';
	return o;
}

void
ep_artifact_digest(char out[EP_SHA256_HEX], const char *const *names,
    const char *const *hexes, size_t n)
{
	size_t len = 0, o = 0;
	char *buf;

	for (size_t i = 0; i < n; i++)
		len += 68 + 2 * strlen(names[i]);
	buf = xmalloc(len + 1);
	for (size_t i = 0; i < n; i++)
		o = sum_line(buf, o, hexes[i], names[i]);
	ep_hash_buf(out, buf, o);
	free(buf);
}

/* ENVPARITY_ARTIFACT_MAX_FILES, or the default with a warning when it is
 * not a count. */
static size_t
max_files(struct ep_manifest *m)
{
	const char *v = getenv("ENVPARITY_ARTIFACT_MAX_FILES");
	char *end;
	long long n;

	if (v == NULL || *v == '\0')
		return ART_MAX_FILES;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno != 0 || *end != '\0' || n < 1 || n > ART_MAX_FILES_LIMIT) {
		ep_manifest_warn(m, "ENVPARITY_ARTIFACT_MAX_FILES=%s is not a "
		    "number of files from 1 to %d; using %d", v,
		    ART_MAX_FILES_LIMIT, ART_MAX_FILES);
		return ART_MAX_FILES;
	}
	return (size_t)n;
}

static int
cmp_name(const void *a, const void *b, void *names)
{
	char **v = names;

	return strcmp(v[*(const size_t *)a], v[*(const size_t *)b]);
}

static void
artifact_free(struct ep_artifact *a)
{
	if (a == NULL)
		return;
	free(a->arg);
	free(a->key);
	ep_strv_clear(&a->names);
	free(a);
}

/* One --artifact: its files found and queued, or err. */
static int
artifact_one(struct ep_collect *c, const char *arg, size_t max,
    struct ep_err *err)
{
	struct ep_strv names = { 0 }, paths = { 0 };
	struct ep_artifact *a;
	struct stat st;
	size_t *order = NULL;
	int rc = -1;

	if (stat(arg, &st) < 0)
		return ep_err_set(err, EP_E_INPUT, "--artifact %s: %s", arg,
		    strerror(errno));
	if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode))
		return ep_err_set(err, EP_E_INPUT, "--artifact %s: %s, not a file "
		    "or directory", arg, ep_mode_kind(st.st_mode));
	a = xcalloc(1, sizeof *a);
	a->arg = xstrdup(arg);
	a->key = ep_artifact_key(arg);
	if (S_ISREG(st.st_mode)) {
		a->first = ep_collect_hash_part(c, arg);
		a->n = 1;
		goto add;
	}

	if (ep_artifact_walk(&names, &paths, arg, &st, max, err) < 0)
		goto done;
	/* In the byte order of the names, as LC_ALL=C sort -z puts them. */
	order = xcalloc(names.n + 1, sizeof *order);
	for (size_t i = 0; i < names.n; i++)
		order[i] = i;
	qsort_r(order, names.n, sizeof *order, cmp_name, names.v);
	a->dir = 1;
	a->n = names.n;
	a->first = c->hash_paths.n;
	for (size_t i = 0; i < names.n; i++) {
		ep_strv_push_owned(&a->names, names.v[order[i]]);
		names.v[order[i]] = NULL;
		(void)ep_collect_hash_part(c, paths.v[order[i]]);
	}
	names.n = 0;
add:
	c->artifacts = xreallocarray(c->artifacts, c->nartifacts + 1,
	    sizeof *c->artifacts);
	c->artifacts[c->nartifacts++] = a;
	a = NULL;
	rc = 0;
done:
	artifact_free(a);
	free(order);
	ep_strv_clear(&names);
	ep_strv_clear(&paths);
	return rc;
}

int
ep_collect_artifacts(struct ep_collect *c, struct ep_err *err)
{
	const struct ep_capture_opts *o = c->opts;
	struct ep_strv keys = { 0 };
	size_t max;
	char *key;
	int rc = -1;

	if (o->artifacts.n == 0)
		return 0;
	max = max_files(c->m);
	for (size_t i = 0; i < o->artifacts.n; i++) {
		/* One path spelled twice ("m", "./m/") is one artifact. */
		key = ep_artifact_key(o->artifacts.v[i]);
		if (ep_strv_contains(&keys, key)) {
			free(key);
			continue;
		}
		ep_strv_push_owned(&keys, key);
		if (artifact_one(c, o->artifacts.v[i], max, err) < 0)
			goto done;
	}
	rc = 0;
done:
	ep_strv_clear(&keys);
	return rc;
}

int
ep_collect_artifacts_finish(struct ep_collect *c,
    const struct ep_hash_job *jobs, struct ep_err *err)
{
	const char **hexes = NULL;
	char hex[EP_SHA256_HEX], *fact;
	size_t nhex = 0;
	int rc = -1;

	for (size_t i = 0; i < c->nartifacts; i++) {
		const struct ep_artifact *a = c->artifacts[i];
		const struct ep_hash_job *j = jobs + a->first;

		for (size_t k = 0; k < a->n; k++)
			if (j[k].error != NULL) {
				ep_err_set(err, EP_E_INPUT, "--artifact %s: %s",
				    a->arg, j[k].error);
				goto done;
			}
		if (a->dir) {
			if (a->n > nhex) {
				nhex = a->n;
				hexes = xreallocarray(hexes, nhex,
				    sizeof *hexes);
			}
			for (size_t k = 0; k < a->n; k++)
				hexes[k] = j[k].hex;
			ep_artifact_digest(hex, (const char *const *)a->names.v,
			    hexes, a->n);
		} else
			memcpy(hex, j[0].hex, EP_SHA256_HEX);
		fact = xasprintf("artifact.%s.sha256", a->key);
		ep_manifest_set(c->m, fact, hex);
		free(fact);
		fact = xasprintf("artifact.%s.files", a->key);
		ep_manifest_setf(c->m, fact, "%zu", a->n);
		free(fact);
	}
	rc = 0;
done:
	free(hexes);
	return rc;
}

void
ep_collect_artifacts_clear(struct ep_collect *c)
{
	for (size_t i = 0; i < c->nartifacts; i++)
		artifact_free(c->artifacts[i]);
	free(c->artifacts);
	c->artifacts = NULL;
	c->nartifacts = 0;
}
