/*
 * pydist.c: one distribution of a site-packages directory, as
 * importlib.metadata finds it: its *.dist-info/METADATA or
 * *.egg-info/PKG-INFO (or an egg-info file) read as text, its version (a
 * METADATA without one takes its dist-info's name's, as current pip
 * does), its requirements kept for core/requires.c, a second of its name
 * (meta.python.duplicates, unless of one version: Debian's dist-info
 * beside an egg-info), an editable install (meta.python.editable).  Only
 * the header block at the top of each file is read, with one bounded
 * read, so a thousand distributions take milliseconds and a 2 GB
 * METADATA costs no more than a small one.  pysite.c calls it for each
 * entry of a directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "collect.h"
#include "pysite.h"
#include "python.h"
#include "vercmp.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

/* The header block is almost always within the first read. */
#define HEAD_FIRST	(16 * 1024)

/* Not-a-file outcomes of read_head(), besides errno values. */
#define HEAD_NOTREG	(-1)
#define HEAD_ISDIR	(-2)

/*
 * Read the head of rel (relative to dfd) into buf: up to HEAD_FIRST
 * bytes, and up to EP_PYMETA_MAX only when the header block has not ended
 * by then.  Returns 0, an errno value, HEAD_NOTREG or HEAD_ISDIR.
 * *complete is 0 when the header block was cut off.
 *
 * Three system calls for a normal file (openat, read, close): with a
 * thousand distributions, each extra call is milliseconds.  So there is
 * no fstat up front; O_NONBLOCK keeps a FIFO from hanging us, a directory
 * fails the read with EISDIR, and only a read that finds nothing pays for
 * an fstat to say what the thing is.
 */
static int
read_head(int dfd, const char *rel, char *buf, size_t *len, int *complete)
{
	struct stat st;
	size_t n = 0, want = HEAD_FIRST;
	ssize_t r;
	int fd, rc = 0;

	*len = 0;
	*complete = 1;
	if ((fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
	    O_NOCTTY)) < 0)
		return errno;
	for (;;) {
		r = read(fd, buf + n, want - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = errno == EISDIR ? HEAD_ISDIR : errno == EAGAIN ?
			    HEAD_NOTREG : errno;
			goto done;
		}
		n += (size_t)r;
		if (r == 0 || n < want)
			break;	/* end of file: a short read of a file */
		if (memmem(buf, n, "\n\n", 2) != NULL ||
		    memmem(buf, n, "\n\r\n", 3) != NULL)
			break;
		if (want == EP_PYMETA_MAX) {
			*complete = 0;
			break;
		}
		want = EP_PYMETA_MAX;
	}
	if (n == 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode))
		rc = S_ISDIR(st.st_mode) ? HEAD_ISDIR : HEAD_NOTREG;
	*len = n;
done:
	close(fd);
	return rc;
}

/* The whole of a small file (requires.txt) into buf, at most max bytes:
 * 0, an errno value, or EFBIG when it is larger. */
int
ep_pydist_read_small(int dfd, const char *rel, char *buf, size_t max, size_t *len)
{
	size_t n = 0;
	ssize_t r;
	int fd, rc = 0;

	*len = 0;
	if ((fd = openat(dfd, rel, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
	    O_NOCTTY)) < 0)
		return errno;
	for (;;) {
		r = read(fd, buf + n, max - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			rc = errno == EAGAIN ? EINVAL : errno;
			break;
		}
		if (r == 0)
			break;
		if ((n += (size_t)r) == max) {
			rc = EFBIG;
			break;
		}
	}
	close(fd);
	*len = n;
	return rc;
}

/* The requirements of one distribution, as its metadata gives them (or,
 * for an egg-info without them, as pip reads its requires.txt), for
 * ep_requires_judge once every distribution is known. */
static void
keep_requires(struct ep_pyscan *s, const char *norm, struct ep_strv *reqs)
{
	json_t *arr;

	if (reqs->n == 0)
		return;
	arr = json_array();
	for (size_t i = 0; i < reqs->n; i++)
		json_array_append_new(arr, json_string(reqs->v[i]));
	json_object_set_new(s->requires, norm, arr);
}

static const char *
head_error(int e)
{
	if (e == HEAD_ISDIR)
		return "is a directory";
	if (e == HEAD_NOTREG)
		return "not a regular file";
	return strerror(e);
}

/* A path as it is, as a JSON string (bytes that are not UTF-8 become
 * U+FFFD, as in fact values). */
json_t *
ep_pydist_path_json(const char *path)
{
	char *v = ep_utf8_sanitize(path, strlen(path));
	json_t *j = json_string(v);

	free(v);
	return j;
}

/* A version as the fact holds it ("" when there is none). */
static json_t *
value_json(const char *v)
{
	return ep_pydist_path_json(v != NULL ? v : "");
}

/*
 * A second distribution of a name in the directory that gave the first:
 * which of them Python's importlib.metadata (and pip) finds depends on
 * the order the directory lists them in, and the one python.pkg.<name>
 * took (the first by name) is no more the real one than the other (a
 * wheel can install a dist-info of another's name as a data file, named
 * to sort first).  Recorded in meta.python.duplicates, which check
 * fails (stack.duplicate.<name>), the one taken first.
 */
static void
twice(struct ep_pyscan *s, const char *norm, const char *used_path,
    const char *used_version, const char *path, const char *version)
{
	json_t *arr = json_object_get(s->twice, norm), *e;

	if (arr == NULL) {
		arr = json_array();
		json_object_set_new(s->twice, norm, arr);
		e = json_object();
		json_object_set_new(e, "metadata", ep_pydist_path_json(used_path));
		json_object_set_new(e, "version", value_json(used_version));
		json_array_append_new(arr, e);
	}
	e = json_object();
	json_object_set_new(e, "metadata", ep_pydist_path_json(path));
	json_object_set_new(e, "version", value_json(version));
	json_array_append_new(arr, e);
}

/* Two versions that PEP 440 says are the same ("1.0" and "1.0.0" are
 * not: their metadata say different things). */
static int
same_version(const char *a, const char *b)
{
	char *na, *nb;
	int same;

	if (a == NULL || b == NULL)
		return 0;
	na = ep_version_pep440_norm(a);
	nb = ep_version_pep440_norm(b);
	same = na != NULL && nb != NULL ? strcmp(na, nb) == 0 :
	    strcmp(a, b) == 0;
	free(na);
	free(nb);
	return same;
}

/*
 * A dist-info that PEP 660 installed editable says so in its PEP 610
 * direct_url.json ({"dir_info": {"editable": true}, "url": "file://..."}),
 * as pip list -e reads it: its project's location goes to
 * meta.python.editable.  One failed openat for the others.
 */
static void
mark_pep660(struct ep_pyscan *s, int dfd, const char *ent, const char *norm)
{
	char *rel = xasprintf("%s/direct_url.json", ent);
	json_t *j = NULL;
	const char *url;
	size_t len;

	if (ep_pydist_read_small(dfd, rel, s->buf, EP_PYMETA_MAX, &len) != 0 ||
	    (j = json_loadb(s->buf, len, 0, NULL)) == NULL)
		goto done;
	if (!json_is_true(json_object_get(json_object_get(j, "dir_info"),
	    "editable")))
		goto done;
	url = json_string_value(json_object_get(j, "url"));
	if (url == NULL)
		url = "";
	if (strncmp(url, "file://", 7) == 0)
		url += 7;
	json_object_set_new(s->editable, norm, ep_pydist_path_json(url));
done:
	json_decref(j);
	free(rel);
}

/*
 * The metadata file of entry ent (relative to dfd), read and parsed into
 * *meta: 0, or -1 with a warning saying why the distribution is skipped.
 * *rel is the file's name relative to dfd, *path with dir before it (new
 * strings, set in either case).
 */
static int
read_meta(struct ep_pyscan *s, struct ep_pymeta *meta, char **rel,
    char **path, int dfd, const char *dir, const char *ent, int egg,
    unsigned char dtype)
{
	struct ep_manifest *m = s->c->m;
	size_t len;
	int e, complete;

	/* distutils writes the egg-info as a plain file. */
	if (egg && dtype == DT_REG)
		*rel = xstrdup(ent);
	else
		*rel = xasprintf("%s/%s", ent, egg ? "PKG-INFO" : "METADATA");
	e = read_head(dfd, *rel, s->buf, &len, &complete);
	if (e == ENOTDIR && egg) {
		free(*rel);
		*rel = xstrdup(ent);
		e = read_head(dfd, *rel, s->buf, &len, &complete);
	}
	*path = xasprintf("%s/%s", dir, *rel);
	if (e != 0) {
		ep_manifest_warn(m, "%s: %s (distribution skipped)", *path,
		    head_error(e));
		return -1;
	}
	if (len == 0) {
		ep_manifest_warn(m, "%s: empty (distribution skipped)", *path);
		return -1;
	}
	ep_pymeta_parse(meta, s->buf, len, complete);
	if (meta->binary) {
		ep_manifest_warn(m, "%s: binary data, not package metadata "
		    "(distribution skipped)", *path);
		return -1;
	}
	/* A dist-info's name carries the version too, and current pip
	 * takes it from there: a METADATA that lost its Version line is
	 * still the distribution its requirers need. */
	if (meta->version == NULL && !egg &&
	    (meta->version = ep_pydist_entry_version(ent)) != NULL)
		ep_manifest_warn(m, "%s: no Version field; using \"%s\" from "
		    "the directory name", *path, meta->version);
	if (meta->version == NULL) {
		ep_manifest_warn(m, "%s: no Version field (distribution "
		    "skipped)", *path);
		return -1;
	}
	return 0;
}

/* Whether a distribution of the name norm was recorded before (from
 * where[i]): then this one at path, of version, is shadowed (a warning)
 * or, in the same directory, a second of the name (twice), unless it is
 * of the same version. */
static int
seen_before(struct ep_pyscan *s, const char *norm, const char *dir,
    const char *path, const char *version)
{
	struct ep_manifest *m = s->c->m;
	json_t *prev = json_object_get(s->seen, norm);
	const char *used;
	char *key;
	size_t i;

	if (prev == NULL)
		return 0;
	i = (size_t)json_integer_value(prev);
	key = xasprintf("python.pkg.%s", norm);
	used = ep_manifest_get(m, key);
	free(key);
	/* Debian installs python3-cryptography with a dist-info and an
	 * egg-info of one version side by side: whichever the directory
	 * lists first, Python finds the same distribution, so it is one. */
	if (strcmp(s->where_dir.v[i], dir) == 0 && same_version(used, version))
		return 1;
	ep_manifest_warn(m, "python package %s is installed twice: %s (%s) is "
	    "used, %s (%s) is shadowed", norm, s->where.v[i], used, path,
	    version);
	if (strcmp(s->where_dir.v[i], dir) == 0)
		twice(s, norm, s->where.v[i], used, path, version);
	return 1;
}

/* pip reads an egg-info's requires.txt when PKG-INFO has no
 * Requires-Dist. */
static void
egg_requires(struct ep_pyscan *s, struct ep_strv *out, int dfd,
    const char *dir, const char *ent)
{
	char *rel = xasprintf("%s/requires.txt", ent);
	size_t len;
	int e;

	e = ep_pydist_read_small(dfd, rel, s->buf, EP_PYMETA_MAX, &len);
	if (e == 0)
		ep_requires_txt_parse(out, s->buf, len);
	else if (e != ENOENT)
		ep_manifest_warn(s->c->m, "%s/%s: %s (its requirements are not "
		    "checked)", dir, rel, e == EFBIG ? "larger than 64 KiB" :
		    strerror(e));
	free(rel);
}

void
ep_pydist_read(struct ep_pyscan *s, int dfd, const char *dir, const char *ent,
    int egg, unsigned char dtype, const char *linked)
{
	struct ep_manifest *m = s->c->m;
	struct ep_pymeta meta = { 0 };
	char *rel = NULL, *path = NULL, *name = NULL, *norm = NULL, *key;

	if (read_meta(s, &meta, &rel, &path, dfd, dir, ent, egg, dtype) < 0)
		goto done;
	if (meta.name != NULL)
		name = xstrdup(meta.name);
	else if ((name = ep_pydist_entry_name(ent)) != NULL)
		ep_manifest_warn(m, "%s: no Name field; using \"%s\" from the "
		    "directory name", path, name);
	else {
		ep_manifest_warn(m, "%s: no Name field (distribution skipped)",
		    path);
		goto done;
	}
	if (!ep_pep508_name_valid(name)) {
		ep_manifest_warn(m, "%s: invalid Name \"%.80s\" (distribution "
		    "skipped)", path, name);
		goto done;
	}
	norm = ep_pep503_normalize(name);
	if (seen_before(s, norm, dir, path, meta.version))
		goto done;
	json_object_set_new(s->seen, norm,
	    json_integer((json_int_t)s->where.n));
	ep_strv_push(&s->where, path);
	ep_strv_push(&s->where_dir, dir);
	key = xasprintf("python.pkg.%s", norm);
	ep_manifest_set(m, key, meta.version);
	free(key);
	if (meta.requires.n == 0 && egg && strcmp(rel, ent) != 0)
		egg_requires(s, &meta.requires, dfd, dir, ent);
	if (linked != NULL)
		json_object_set_new(s->editable, norm,
		    ep_pydist_path_json(linked));
	else if (!egg)
		mark_pep660(s, dfd, ent, norm);
	keep_requires(s, norm, &meta.requires);
done:
	ep_pymeta_clear(&meta);
	free(rel);
	free(path);
	free(name);
	free(norm);
}
