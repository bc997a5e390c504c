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
 * an artifact would be a wrong fact.
 *
 * The files are not hashed here: each is queued as a part
 * (ep_collect_hash_part), hashed with every other queued file in
 * parallel and through the cache, and the parts become one digest in
 * ep_collect_artifacts_finish.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "hash.h"

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

/* The walk of one directory artifact. */
struct walk {
	const char *arg;	/* as given */
	char *real;		/* its real path */
	size_t max;		/* files, and directories, at most */
	size_t ndirs;
	struct ep_strv names;	/* "./REL" of each file */
	struct ep_strv paths;	/* what to hash: DIR/REL, or for a link
				   the real path it was checked to reach */
	struct ident {
		dev_t dev;
		ino_t ino;
	} *up;			/* the directories being walked, outermost
				   first: a link to one of them is a loop */
	size_t nup, capup;
	struct ep_err *err;
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

static void
walk_clear(struct walk *w)
{
	free(w->real);
	ep_strv_clear(&w->names);
	ep_strv_clear(&w->paths);
	free(w->up);
}

static int
walk_add(struct walk *w, const char *name, const char *path)
{
	if (w->names.n >= w->max)
		return ep_err_set(w->err, EP_E_INPUT, "--artifact %s: more than "
		    "%zu files (ENVPARITY_ARTIFACT_MAX_FILES raises the limit)",
		    w->arg, w->max);
	ep_strv_push(&w->names, name);
	ep_strv_push(&w->paths, path);
	return 0;
}

static int walk_dir(struct walk *, const char *, const char *,
    const struct stat *);

/* 1 if st is a directory being walked: going into it again would loop. */
static int
walk_holds(const struct walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->nup; i++)
		if (w->up[i].dev == st->st_dev && w->up[i].ino == st->st_ino)
			return 1;
	return 0;
}

/*
 * A symbolic link at path (named name inside the artifact): followed when
 * it is relative and, read as written and as the kernel resolves it,
 * stays inside; then a file is hashed at its real path (so the hasher
 * follows no link) and a directory walked under the link's name.
 */
static int
walk_link(struct walk *w, const char *path, const char *name)
{
	char target[PATH_MAX], *real = NULL;
	const char *p, *e;
	struct stat st;
	ssize_t len;
	long depth = 0;
	size_t rl = strlen(w->real);
	int rc = -1;

	if ((len = readlink(path, target, sizeof target - 1)) < 0)
		return ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s: cannot "
		    "read the link: %s", w->arg, path, strerror(errno));
	target[len] = '\0';
	if (target[0] == '/')
		return ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s -> %s: "
		    "an absolute symbolic link (refused: only a relative link "
		    "that stays inside the artifact is followed)", w->arg,
		    path, target);
	/* As written, from the link's folder: never above the top. */
	for (p = name + 2; (e = strchr(p, '/')) != NULL; p = e + 1)
		depth++;
	for (p = target; *p != '\0'; p = *e ? e + 1 : e) {
		if ((e = strchr(p, '/')) == NULL)
			e = p + strlen(p);
		if (e - p == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0)
				break;
		} else if (e > p && !(e - p == 1 && *p == '.'))
			depth++;
	}
	if (depth >= 0 && (real = realpath(path, NULL)) == NULL) {
		if (errno == ENOENT)
			return ep_err_set(w->err, EP_E_INPUT, "--artifact %s: "
			    "%s -> %s: a symbolic link to nothing", w->arg, path,
			    target);
		return ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s -> %s: "
		    "%s", w->arg, path, target, strerror(errno));
	}
	/* As the kernel resolves it, through any other link. */
	if (depth < 0 || !(strcmp(w->real, "/") == 0 ||
	    (strncmp(real, w->real, rl) == 0 &&
	    (real[rl] == '/' || real[rl] == '\0')))) {
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s -> %s: a "
		    "symbolic link that leaves the artifact (refused: only a "
		    "relative link that stays inside it is followed)", w->arg,
		    path, target);
		goto done;
	}
	if (stat(real, &st) < 0) {
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s -> %s: %s",
		    w->arg, path, target, strerror(errno));
		goto done;
	}
	if (S_ISREG(st.st_mode))
		rc = walk_add(w, name, real);
	else if (S_ISDIR(st.st_mode) && walk_holds(w, &st))
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s -> %s: a "
		    "symbolic link to a directory that holds it (a loop; "
		    "refused)", w->arg, path, target);
	else if (S_ISDIR(st.st_mode))
		rc = walk_dir(w, real, name, &st);
	else
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s -> %s: a link "
		    "to %s (refused: only regular files are hashed)", w->arg,
		    path, target, ep_mode_kind(st.st_mode));
done:
	free(real);
	return rc;
}

/* The directory at path, named name ("." or "./REL") inside the
 * artifact; st is its stat. */
static int
walk_dir(struct walk *w, const char *path, const char *name,
    const struct stat *st)
{
	struct ep_strv ents = { 0 };
	struct dirent *de;
	struct stat lst;
	char *sub = NULL, *subname = NULL;
	DIR *d;
	int rc = -1;

	/* Links are checked before they get here; a bind mount is not. */
	if (walk_holds(w, st))
		return ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s: a "
		    "directory that holds itself (a loop; refused)", w->arg,
		    path);
	if (++w->ndirs > w->max)
		return ep_err_set(w->err, EP_E_INPUT, "--artifact %s: more than "
		    "%zu directories (ENVPARITY_ARTIFACT_MAX_FILES raises the "
		    "limit)", w->arg, w->max);
	if ((d = opendir(path)) == NULL)
		return ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s: cannot "
		    "list the directory: %s", w->arg, path, strerror(errno));
	/* Names first, the directory closed before going down: a deep tree
	 * must not hold a descriptor per level. */
	for (errno = 0; (de = readdir(d)) != NULL; errno = 0)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			ep_strv_push(&ents, de->d_name);
	if (errno != 0) {
		ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s: cannot list the "
		    "directory: %s", w->arg, path, strerror(errno));
		closedir(d);
		goto done;
	}
	closedir(d);
	/* The first entry refused is the same on every file system. */
	ep_strv_sort(&ents);

	if (w->nup == w->capup) {
		w->capup = w->capup ? 2 * w->capup : 16;
		w->up = xreallocarray(w->up, w->capup, sizeof *w->up);
	}
	w->up[w->nup].dev = st->st_dev;
	w->up[w->nup].ino = st->st_ino;
	w->nup++;
	for (size_t i = 0; i < ents.n; i++) {
		free(sub);
		free(subname);
		sub = strcmp(path, "/") == 0 ? xasprintf("/%s", ents.v[i]) :
		    xasprintf("%s/%s", path, ents.v[i]);
		subname = xasprintf("%s/%s", name, ents.v[i]);
		if (lstat(sub, &lst) < 0) {
			ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s: %s",
			    w->arg, sub, strerror(errno));
			goto pop;
		}
		if (S_ISREG(lst.st_mode)) {
			if (walk_add(w, subname, sub) < 0)
				goto pop;
		} else if (S_ISDIR(lst.st_mode)) {
			if (walk_dir(w, sub, subname, &lst) < 0)
				goto pop;
		} else if (S_ISLNK(lst.st_mode)) {
			if (walk_link(w, sub, subname) < 0)
				goto pop;
		} else {
			ep_err_set(w->err, EP_E_INPUT, "--artifact %s: %s: %s "
			    "(refused: only regular files, directories and links "
			    "inside the artifact are hashed)", w->arg, sub,
			    ep_mode_kind(lst.st_mode));
			goto pop;
		}
	}
	rc = 0;
pop:
	w->nup--;
done:
	free(sub);
	free(subname);
	ep_strv_clear(&ents);
	return rc;
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
	struct walk w = { 0 };
	struct ep_artifact *a;
	struct stat st;
	size_t *order = NULL, len;
	char *base = NULL;
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

	w.arg = arg;
	w.max = max;
	w.err = err;
	if ((w.real = realpath(arg, NULL)) == NULL) {
		ep_err_set(err, EP_E_INPUT, "--artifact %s: %s", arg,
		    strerror(errno));
		goto done;
	}
	/* Its entries named DIR/NAME, not DIR//NAME. */
	base = xstrdup(arg);
	for (len = strlen(base); len > 1 && base[len - 1] == '/'; len--)
		base[len - 1] = '\0';
	if (walk_dir(&w, base, ".", &st) < 0)
		goto done;
	/* In the byte order of the names, as LC_ALL=C sort -z puts them. */
	order = xcalloc(w.names.n + 1, sizeof *order);
	for (size_t i = 0; i < w.names.n; i++)
		order[i] = i;
	qsort_r(order, w.names.n, sizeof *order, cmp_name, w.names.v);
	a->dir = 1;
	a->n = w.names.n;
	a->first = c->hash_paths.n;
	for (size_t i = 0; i < w.names.n; i++) {
		ep_strv_push_owned(&a->names, w.names.v[order[i]]);
		w.names.v[order[i]] = NULL;
		(void)ep_collect_hash_part(c, w.paths.v[order[i]]);
	}
	w.names.n = 0;
add:
	c->artifacts = xreallocarray(c->artifacts, c->nartifacts + 1,
	    sizeof *c->artifacts);
	c->artifacts[c->nartifacts++] = a;
	a = NULL;
	rc = 0;
done:
	artifact_free(a);
	free(base);
	free(order);
	walk_clear(&w);
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
