/*
 * collect_python.c: python.version, python.pkg.<name> for every
 * distribution in the interpreter's site-packages (or in the directories
 * given with --site-packages).
 *
 * Distributions are found as importlib.metadata finds them, without
 * running pip: *.dist-info/METADATA and *.egg-info/PKG-INFO (or an
 * egg-info file), the first of a name in search order winning.  Two of a
 * name in one directory have no such order (the directory's own decides
 * for Python): the first by name is recorded, and both are kept in
 * meta.python.duplicates for check to fail on.  Only the
 * header block at the top of each file is read, with one bounded read, so
 * a thousand distributions take milliseconds and a 2 GB METADATA costs no
 * more than a small one.
 *
 * Each distribution's requirements are judged as pip check judges them
 * once all are read (core/requires.h); only the findings are kept, in
 * meta.python.requires, with the PEP 508 marker environment they were
 * judged under in meta.python.markers.  Beside them meta.python says what
 * was inspected: the interpreter, its virtual environment and the
 * directories read, in search order (meta is never compared).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "collect.h"
#include "python.h"
#include "requires.h"
#include "errors.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

/* The header block is almost always within the first read. */
#define HEAD_FIRST	(16 * 1024)

/* Not-a-file outcomes of read_head(), besides errno values. */
#define HEAD_NOTREG	(-1)
#define HEAD_ISDIR	(-2)

struct scan {
	struct ep_collect *c;
	json_t *seen;		/* normalized name -> index into where */
	json_t *requires;	/* normalized name -> its requirements */
	struct ep_markerenv env;	/* the marker environment */
	struct ep_strv where;	/* metadata path each name came from */
	struct ep_strv where_dir;	/* and the directory it was in */
	json_t *twice;		/* normalized name -> the distributions of
				   that name in one directory */
	dev_t *dev;		/* directories scanned, by identity */
	ino_t *ino;
	size_t ndirs;
	char *buf;		/* EP_PYMETA_MAX bytes */
};

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
static int
read_small(int dfd, const char *rel, char *buf, size_t max, size_t *len)
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
keep_requires(struct scan *s, const char *norm, struct ep_strv *reqs)
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
static json_t *
path_json(const char *path)
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
	return path_json(v != NULL ? v : "");
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
twice(struct scan *s, const char *norm, const char *used_path,
    const char *used_version, const char *path, const char *version)
{
	json_t *arr = json_object_get(s->twice, norm), *e;

	if (arr == NULL) {
		arr = json_array();
		json_object_set_new(s->twice, norm, arr);
		e = json_object();
		json_object_set_new(e, "metadata", path_json(used_path));
		json_object_set_new(e, "version", value_json(used_version));
		json_array_append_new(arr, e);
	}
	e = json_object();
	json_object_set_new(e, "metadata", path_json(path));
	json_object_set_new(e, "version", value_json(version));
	json_array_append_new(arr, e);
}

/* One *.dist-info or *.egg-info entry of the directory at dfd. */
static void
scan_entry(struct scan *s, int dfd, const char *dir, const char *ent,
    int egg, unsigned char dtype)
{
	struct ep_manifest *m = s->c->m;
	struct ep_pymeta meta = { 0 };
	char *rel, *path = NULL, *name = NULL, *norm = NULL, *key;
	size_t len;
	json_t *prev;
	int e, complete;

	/* distutils writes the egg-info as a plain file. */
	if (egg && dtype == DT_REG)
		rel = xstrdup(ent);
	else
		rel = xasprintf("%s/%s", ent, egg ? "PKG-INFO" : "METADATA");
	e = read_head(dfd, rel, s->buf, &len, &complete);
	if (e == ENOTDIR && egg) {
		free(rel);
		rel = xstrdup(ent);
		e = read_head(dfd, rel, s->buf, &len, &complete);
	}
	path = xasprintf("%s/%s", dir, rel);
	if (e != 0) {
		ep_manifest_warn(m, "%s: %s (distribution skipped)", path,
		    head_error(e));
		goto done;
	}
	if (len == 0) {
		ep_manifest_warn(m, "%s: empty (distribution skipped)", path);
		goto done;
	}
	ep_pymeta_parse(&meta, s->buf, len, complete);
	if (meta.binary) {
		ep_manifest_warn(m, "%s: binary data, not package metadata "
		    "(distribution skipped)", path);
		goto done;
	}
	if (meta.version == NULL) {
		ep_manifest_warn(m, "%s: no Version field (distribution "
		    "skipped)", path);
		goto done;
	}
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
	if ((prev = json_object_get(s->seen, norm)) != NULL) {
		size_t i = (size_t)json_integer_value(prev);

		key = xasprintf("python.pkg.%s", norm);
		ep_manifest_warn(m, "python package %s is installed twice: "
		    "%s (%s) is used, %s (%s) is shadowed", norm, s->where.v[i],
		    ep_manifest_get(m, key), path, meta.version);
		if (strcmp(s->where_dir.v[i], dir) == 0)
			twice(s, norm, s->where.v[i], ep_manifest_get(m, key),
			    path, meta.version);
		free(key);
		goto done;
	}
	json_object_set_new(s->seen, norm,
	    json_integer((json_int_t)s->where.n));
	ep_strv_push(&s->where, path);
	ep_strv_push(&s->where_dir, dir);
	key = xasprintf("python.pkg.%s", norm);
	ep_manifest_set(m, key, meta.version);
	free(key);
	/* pip reads an egg-info's requires.txt when PKG-INFO has no
	 * Requires-Dist. */
	if (meta.requires.n == 0 && egg && strcmp(rel, ent) != 0) {
		free(rel);
		rel = xasprintf("%s/requires.txt", ent);
		e = read_small(dfd, rel, s->buf, EP_PYMETA_MAX, &len);
		if (e == 0)
			ep_requires_txt_parse(&meta.requires, s->buf, len);
		else if (e != ENOENT)
			ep_manifest_warn(m, "%s/%s: %s (its requirements are "
			    "not checked)", dir, rel, e == EFBIG ?
			    "larger than 64 KiB" : strerror(e));
	}
	keep_requires(s, norm, &meta.requires);
done:
	ep_pymeta_clear(&meta);
	free(rel);
	free(path);
	free(name);
	free(norm);
}

struct entry {
	char *name;
	unsigned char type;	/* d_type: spares a stat per egg-info */
};

static int
entry_cmp(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->name,
	    ((const struct entry *)b)->name);
}

/* Scan one site-packages directory, one level deep.  A directory the
 * interpreter lists but that does not exist is normal (Debian lists
 * several); explicit ones were checked by the caller. */
static void
scan_site(struct scan *s, const char *dir)
{
	struct entry *ents = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	struct stat st;
	DIR *d;

	if ((d = opendir(dir)) == NULL) {
		if (errno != ENOENT)
			ep_manifest_warn(s->c->m, "site-packages %s: %s", dir,
			    strerror(errno));
		return;
	}
	if (fstat(dirfd(d), &st) == 0) {
		for (size_t i = 0; i < s->ndirs; i++) {
			if (s->dev[i] == st.st_dev && s->ino[i] == st.st_ino) {
				closedir(d);
				return;	/* listed twice */
			}
		}
		s->dev = xreallocarray(s->dev, s->ndirs + 1, sizeof *s->dev);
		s->ino = xreallocarray(s->ino, s->ndirs + 1, sizeof *s->ino);
		s->dev[s->ndirs] = st.st_dev;
		s->ino[s->ndirs++] = st.st_ino;
	}
	ep_strv_push(&s->c->site_dirs, dir);
	while ((de = readdir(d)) != NULL) {
		if (!ep_endswith(de->d_name, ".dist-info") &&
		    !ep_endswith(de->d_name, ".egg-info"))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			ents = xreallocarray(ents, cap, sizeof *ents);
		}
		ents[n].name = xstrdup(de->d_name);
		ents[n++].type = de->d_type;
	}
	/* Directory order is arbitrary; the output must not be. */
	if (n > 0)
		qsort(ents, n, sizeof *ents, entry_cmp);
	for (size_t i = 0; i < n; i++) {
		scan_entry(s, dirfd(d), dir, ents[i].name,
		    ep_endswith(ents[i].name, ".egg-info"), ents[i].type);
		free(ents[i].name);
	}
	free(ents);
	closedir(d);
}

/* meta.python: "markers" (the marker environment, where known),
 * "markers_from" (EP_MARKERS_*), "requires" (what pip check would find:
 * requires.h), "duplicates" (twice, where a directory holds a name
 * twice); and what was inspected: "interpreter" (exe, when there was
 * one), "venv" (its virtual environment, if any), "site_packages" (the
 * directories read, in search order).  Meta: never compared. */
static void
python_meta(struct ep_collect *c, const struct ep_pyenv *env,
    const char *exe, json_t *requires, json_t *twice)
{
	struct ep_manifest *m = c->m;
	json_t *py = json_object(), *mk = json_object(), *sp = json_array();

	for (size_t i = 0; i < EP_MV_N; i++)
		if (env->markers[i] != NULL) {
			char *v = ep_utf8_sanitize(env->markers[i],
			    strlen(env->markers[i]));

			json_object_set_new(mk, ep_marker_vars[i],
			    json_string(v));
			free(v);
		}
	json_object_set_new(py, "markers", mk);
	json_object_set_new(py, "markers_from",
	    json_string(env->markers_from));
	json_object_set_new(py, "requires", requires);
	if (exe != NULL)
		json_object_set_new(py, "interpreter", path_json(exe));
	if (env->venv != NULL)
		json_object_set_new(py, "venv", path_json(env->venv));
	for (size_t i = 0; i < c->site_dirs.n; i++)
		json_array_append_new(sp, path_json(c->site_dirs.v[i]));
	json_object_set_new(py, "site_packages", sp);
	if (json_object_size(twice) > 0)
		json_object_set(py, "duplicates", twice);
	json_object_set_new(m->meta, "python", py);
}

/* The interpreter to ask when none was named: the active virtual
 * environment, else python3 on PATH.  NULL when there is none. */
static char *
default_python(struct ep_collect *c)
{
	const char *venv = getenv("VIRTUAL_ENV");
	char *cfg, *exe = NULL;
	struct stat st;

	if (venv != NULL && *venv != '\0') {
		cfg = xasprintf("%s/pyvenv.cfg", venv);
		if (stat(cfg, &st) == 0 && S_ISREG(st.st_mode))
			exe = xasprintf("%s/bin/python", venv);
		else
			ep_manifest_warn(c->m, "VIRTUAL_ENV=%s has no "
			    "pyvenv.cfg; using python3 on PATH", venv);
		free(cfg);
		if (exe != NULL)
			return exe;
	}
	if (ep_pyinterp_which(&exe, "python3", NULL) < 0)
		ep_manifest_unavailable(c->m, "python",
		    "python3 not found on PATH");
	return exe;
}

int
ep_collect_python(struct ep_collect *c, struct ep_err *err)
{
	const struct ep_capture_opts *o = c->opts;
	const struct ep_strv *dirs = &o->site_dirs;
	struct ep_pyenv env = { 0 };
	struct ep_err perr = { 0 };
	struct scan s = { 0 };
	struct stat st;
	char *exe = NULL;
	int rc = -1, resolved = 0;

	/* Inputs the user named are checked before any work is done. */
	for (size_t i = 0; i < o->site_dirs.n; i++) {
		const char *dir = o->site_dirs.v[i];

		if (stat(dir, &st) < 0) {
			ep_err_set(err, EP_E_INPUT, "site-packages %s: %s", dir,
			    strerror(errno));
			goto done;
		}
		if (!S_ISDIR(st.st_mode)) {
			ep_err_set(err, EP_E_INPUT, "site-packages %s: not a "
			    "directory", dir);
			goto done;
		}
		if (access(dir, R_OK | X_OK) < 0) {
			ep_err_set(err, EP_E_INPUT, "site-packages %s: %s", dir,
			    strerror(errno));
			goto done;
		}
	}
	if (o->python != NULL) {
		if (ep_pyinterp_which(&exe, o->python, err) < 0)
			goto done;
	} else if (o->site_dirs.n == 0)
		exe = default_python(c);

	/* With --site-packages and no --python, python.version is not known
	 * and is not guessed. */
	if (exe != NULL) {
		if (ep_pyinterp_resolve(&env, exe, c->cache,
		    EP_PYTHON_TIMEOUT_MS, &perr) < 0)
			ep_manifest_unavailable(c->m, "python", "%s", perr.msg);
		else {
			resolved = 1;
			if (env.warning != NULL)
				ep_manifest_warn(c->m, "%s", env.warning);
			/* A venv's python that is no interpreter: no
			 * python.version, which a golden's then fails on. */
			if (env.unavailable != NULL)
				ep_manifest_unavailable(c->m, "python", "%s",
				    env.unavailable);
			if (env.version != NULL)
				ep_manifest_set(c->m, "python.version",
				    env.version);
		}
	}
	if (o->site_dirs.n == 0)
		dirs = &env.sites;
	/* Without an interpreter, the marker environment is what uname
	 * says; python_version and the like stay unknown. */
	if (env.markers_from == NULL) {
		ep_pymarkers_uname(env.markers);
		env.markers_from = EP_MARKERS_UNAME;
	}
	s.c = c;
	s.seen = json_object();
	s.twice = json_object();
	s.requires = json_object();
	for (size_t i = 0; i < EP_MV_N; i++)
		s.env.v[i] = env.markers[i];
	s.buf = xmalloc(EP_PYMETA_MAX);
	for (size_t i = 0; i < dirs->n; i++)
		scan_site(&s, dirs->v[i]);
	/* What stack.requires reports, judged here where every
	 * distribution is known, in meta (comparing it is not drift);
	 * nothing when no distribution could be looked for. */
	if (o->site_dirs.n > 0 || resolved)
		python_meta(c, &env, resolved ? exe : NULL,
		    ep_requires_judge(c->m, s.requires, &s.env), s.twice);
	rc = 0;
done:
	json_decref(s.seen);
	json_decref(s.twice);
	ep_strv_clear(&s.where_dir);
	json_decref(s.requires);
	ep_strv_clear(&s.where);
	free(s.dev);
	free(s.ino);
	free(s.buf);
	ep_pyenv_clear(&env);
	free(exe);
	return rc;
}
