/*
 * collect_lockfile.c: lockfile.<path>.sha256 and lockfile.<path>.pin.<name>
 * for the lockfiles named with --lockfile and those found in the current
 * directory (unless --no-discover).
 *
 * This file decides which files are read, what their keys are, and what
 * trouble means: a file the user named that is missing, unreadable,
 * malformed or in no format envparity reads stops the capture (exit 2),
 * while one we merely found gets a warning and, where it can be read,
 * still its hash.  A file found is chosen by its name; one the user named
 * is read by its name when that says its format, else by what it
 * contains (dev-requirements.txt, requirements/prod.txt, constraints.txt,
 * Rye's requirements.lock: requirements files under other names).  The
 * formats themselves are read by lockfile.c; the hashing is queued, so
 * that it runs in parallel and through the cache with every other file.
 * Each lockfile read is also judged against what is installed
 * (lockjudge.h), into meta.lock.<key>, for stack.lock.*.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "collect.h"
#include "lockfile.h"
#include "lockjudge.h"
#include "errors.h"
#include "files.h"
#include "strv.h"
#include "xalloc.h"
#include "str.h"

/* At most this many lockfiles are picked up from the current directory,
 * and those are hashed up to this size. */
#define EP_LOCK_DISCOVER_MAX	64
#define EP_LOCK_HASH_MAX	((uintmax_t)256 << 20)

/* Trouble with one file: an error for a named file (returns -1), a
 * warning for a found one (returns 0); either way the file is done. */
static int trouble(struct ep_collect *, int, struct ep_err *, const char *,
    ...) __attribute__((format(printf, 4, 5)));

static int
trouble(struct ep_collect *c, int named, struct ep_err *err, const char *fmt,
    ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (named)
		ep_err_set(err, EP_E_INPUT, "%s", msg);
	else
		ep_manifest_warn(c->m, "%s", msg);
	free(msg);
	return named ? -1 : 0;
}

/* The key for a file: its path relative to the current directory cwd
 * (already resolved) when its directory is under it, so that "./x",
 * "x" and "$PWD/x" are one key; else the path as given.  The file name
 * itself is not resolved: a symbolic link keeps its own name. */
static char *
lock_key(const char *path, const char *cwd)
{
	const char *slash = strrchr(path, '/'), *base, *rel;
	char *dir, *rdir, *key;
	size_t n;

	base = slash != NULL ? slash + 1 : path;
	dir = ep_path_dir(path);
	rdir = realpath(dir, NULL);
	free(dir);
	if (rdir != NULL && cwd != NULL && (n = strlen(cwd)) > 0 &&
	    strncmp(rdir, cwd, n) == 0 &&
	    (rdir[n] == '\0' || rdir[n] == '/' || cwd[n - 1] == '/')) {
		rel = rdir + n;
		if (*rel == '/')
			rel++;
		key = *rel != '\0' ? xasprintf("%s/%s", rel, base) :
		    xstrdup(base);
	} else {
		while (path[0] == '.' && path[1] == '/') {
			path += 2;
			while (*path == '/')
				path++;
		}
		key = xstrdup(path);
	}
	free(rdir);
	return key;
}

/* meta.lock.<key>: the installed packages against the pins that apply
 * (lockjudge.h), while they still say what they apply to.  Not judged
 * where no interpreter was looked at (a Python lockfile) or no conda
 * environment (a conda one): the check says why. */
static void
lock_judge(struct ep_collect *c, const char *key, enum ep_lock_format fmt,
    const struct ep_pins *pins)
{
	json_t *py = json_object_get(c->m->meta, "python"), *mk, *lock, *j;
	json_t *un = json_object_get(c->m->meta, "unavailable");
	struct ep_markerenv env = { 0 };
	struct ep_lockjudge lj = { 0 };
	const char *why;
	char *clean;
	int conda = fmt == EP_LOCK_CONDA || fmt == EP_LOCK_CONDA_LOCK ||
	    fmt == EP_LOCK_PIXI;

	if (fmt == EP_LOCK_OTHER)
		return;
	if ((lock = json_object_get(c->m->meta, "lock")) == NULL) {
		lock = json_object();
		json_object_set_new(c->m->meta, "lock", lock);
	}
	mk = json_object_get(py, "markers");
	for (size_t i = 0; i < EP_MV_N; i++)
		env.v[i] = json_string_value(json_object_get(mk,
		    ep_marker_vars[i]));
	lj.groups = &c->opts->lock_groups;
	lj.env = py != NULL ? &env : NULL;
	lj.conda_platform = ep_lock_conda_platform(
	    env.v[EP_MV_PLATFORM_SYSTEM], env.v[EP_MV_PLATFORM_MACHINE]);
	if (!conda && json_object_get(py, "requires") == NULL) {
		why = json_string_value(json_object_get(un, "python"));
		j = json_object();
		json_object_set_new(j, "format",
		    json_string(ep_lock_format_name(fmt)));
		json_object_set_new(j, "unavailable", json_string(why != NULL ?
		    why : "no Python distributions were looked at"));
	} else if (conda && json_object_get(c->m->meta, "conda") == NULL) {
		why = json_string_value(json_object_get(un, "conda"));
		j = json_object();
		json_object_set_new(j, "format",
		    json_string(ep_lock_format_name(fmt)));
		json_object_set_new(j, "unavailable", json_string(why != NULL ?
		    why : "no conda environment was looked at (no "
		    "CONDA_PREFIX, no --conda-prefix)"));
	} else
		j = ep_lock_judge(c->m, fmt, pins, &lj);
	/* Keyed as the lockfile.<key>.* facts are (bytes that are not
	 * UTF-8 made U+FFFD). */
	clean = ep_utf8_sanitize(key, strlen(key));
	json_object_set_new(lock, clean, j);
	free(clean);
}

static void
lock_pins(struct ep_collect *c, const char *key, struct ep_pins *pins)
{
	char *fact;

	ep_pins_merge(pins);
	for (size_t i = 0; i < pins->n; i++) {
		fact = xasprintf("lockfile.%s.pin.%s", key, pins->v[i].name);
		ep_manifest_set(c->m, fact, pins->v[i].version);
		free(fact);
	}
}

/* The format of a file named with --lockfile whose name does not say it,
 * from the len bytes at buf, or -1 with err set: a requirements file is
 * the format without a mark of its own, so a text that is none of the
 * others is one if it reads as one (and names a package, unless its name
 * ends in .txt, .in or .lock: an empty constraints.txt is one, an empty
 * notes.md is not). */
static int
lock_by_content(enum ep_lock_format *fmt, const char *buf, size_t len,
    const char *path, struct ep_err *err)
{
	struct ep_pins pins = { 0 };
	struct ep_err perr = { 0 };
	int rc;

	if ((*fmt = ep_lock_format_sniff(buf, len)) != EP_LOCK_OTHER)
		return 0;
	rc = ep_lock_parse_requirements(&pins, buf, len, path, &perr);
	if (rc == 0 && pins.n == 0 && !ep_endswith(path, ".txt") &&
	    !ep_endswith(path, ".in") && !ep_endswith(path, ".lock")) {
		rc = -1;
		ep_err_set(&perr, EP_E_INPUT, "%s:1: it names no package",
		    path);
	}
	ep_pins_clear(&pins);
	if (rc == 0) {
		*fmt = EP_LOCK_REQUIREMENTS;
		return 0;
	}
	/* perr.msg is "PATH:LINE: problem": the path is said once. */
	return ep_err_set(err, EP_E_INPUT, "%s: not a lockfile format "
	    "envparity reads (" EP_LOCK_FORMATS_KNOWN "); as a requirements "
	    "file, line %s", path, ep_startswith(perr.msg, path) ?
	    perr.msg + strlen(path) + 1 : perr.msg);
}

/* One lockfile: checks, the hash queued, the pins read. */
static int
lock_one(struct ep_collect *c, const char *path, int named, const char *cwd,
    struct ep_err *err)
{
	enum ep_lock_format fmt = ep_lock_format_of(path);
	struct ep_pins pins = { 0 };
	struct ep_err perr = { 0 };
	struct stat st;
	char *key = NULL, *fact = NULL, *buf = NULL;
	size_t len;
	int fd, rc = 0;

	/* Opened once, never blocking: a FIFO or /proc/kmsg that happens
	 * to be called uv.lock (or a link to one) must not hang the
	 * capture; the pins are read from this very descriptor. */
	if ((fd = ep_open_regular(path, &st, &perr)) < 0)
		return trouble(c, named, err, "%s", perr.msg);

	/* A file found unasked is hashed up to a size no lockfile reaches:
	 * a link to a terabyte file must not make the capture hash it. */
	if (!named && (uintmax_t)st.st_size > EP_LOCK_HASH_MAX) {
		ep_manifest_warn(c->m, "%s: too large to hash (%jd bytes, limit "
		    "%ju MiB for a lockfile found in the current directory; "
		    "name it with --lockfile to hash it)", path,
		    (intmax_t)st.st_size, (uintmax_t)(EP_LOCK_HASH_MAX >> 20));
		goto done;
	}
	key = lock_key(path, cwd);
	fact = xasprintf("lockfile.%s.sha256", key);
	if ((uintmax_t)st.st_size > EP_LOCK_PARSE_MAX) {
		ep_collect_hash_later(c, fact, path);
		/* Not an error even when named: the hash is still taken. */
		ep_manifest_warn(c->m, "%s: too large to read pins (%jd bytes, "
		    "limit %zu MiB); only its hash is recorded", path,
		    (intmax_t)st.st_size, EP_LOCK_PARSE_MAX >> 20);
		goto done;
	}
	if (ep_read_fd(&buf, &len, fd, path, EP_LOCK_PARSE_MAX, &perr) < 0) {
		rc = trouble(c, named, err, "%s", perr.msg);
		goto done;
	}
	/* Named, of a name that says nothing: its content says, or it is
	 * an error (never a file merely hashed, whose drift would name no
	 * package). */
	if (fmt == EP_LOCK_OTHER && lock_by_content(&fmt, buf, len, path,
	    err) < 0) {
		rc = -1;
		goto done;
	}
	ep_collect_hash_later(c, fact, path);
	if (ep_lock_parse(&pins, fmt, buf, len, path, &perr) < 0) {
		if (named)
			rc = trouble(c, named, err, "%s", perr.msg);
		else
			ep_manifest_warn(c->m, "%s (%s lockfile; its pins are "
			    "not recorded)", perr.msg, ep_lock_format_name(fmt));
		goto done;
	}
	for (size_t i = 0; i < pins.warnings.n; i++)
		ep_manifest_warn(c->m, "%s", pins.warnings.v[i]);
	if (pins.dropped > 0)
		ep_manifest_warn(c->m, "%s: %zu more pins not recorded (at most "
		    "%d a lockfile)", path, pins.dropped, EP_LOCK_PINS_MAX);
	lock_judge(c, key, fmt, &pins);
	lock_pins(c, key, &pins);
done:
	ep_pins_clear(&pins);
	free(buf);
	free(fact);
	free(key);
	close(fd);
	return rc;
}

/* 1 if path names a file already done (by its real path), else remember
 * it and return 0. */
static int
lock_seen(struct ep_strv *seen, const char *path)
{
	char *id = realpath(path, NULL);

	if (id == NULL)
		id = xstrdup(path);
	if (ep_strv_contains(seen, id)) {
		free(id);
		return 1;
	}
	ep_strv_push_owned(seen, id);
	return 0;
}

/* The lockfiles in the current directory, sorted for a stable order of
 * warnings. */
static void
lock_discover(struct ep_collect *c, struct ep_strv *found)
{
	struct dirent *de;
	DIR *d;

	if ((d = opendir(".")) == NULL) {
		ep_manifest_warn(c->m, "current directory: cannot look for "
		    "lockfiles: %s", strerror(errno));
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (ep_lock_format_of(de->d_name) != EP_LOCK_OTHER)
			ep_strv_push(found, de->d_name);
	closedir(d);
	ep_strv_sort(found);
	/* A checkout with ten thousand requirements files is a flood, not
	 * a project: the first ones, by name, and a warning. */
	if (found->n > EP_LOCK_DISCOVER_MAX) {
		ep_manifest_warn(c->m, "current directory: %zu more lockfiles "
		    "not read (at most %d are found; name others with "
		    "--lockfile)", found->n - EP_LOCK_DISCOVER_MAX,
		    EP_LOCK_DISCOVER_MAX);
		while (found->n > EP_LOCK_DISCOVER_MAX)
			free(found->v[--found->n]);
		found->v[found->n] = NULL;
	}
}

int
ep_collect_lockfiles(struct ep_collect *c, struct ep_err *err)
{
	const struct ep_capture_opts *o = c->opts;
	struct ep_strv seen = { 0 }, found = { 0 };
	char *cwd = NULL, *rcwd;
	int rc = -1;

	if ((cwd = getcwd(NULL, 0)) != NULL) {
		rcwd = realpath(cwd, NULL);
		free(cwd);
		cwd = rcwd;
	}
	for (size_t i = 0; i < o->lockfiles.n; i++) {
		if (lock_seen(&seen, o->lockfiles.v[i]))
			continue;
		if (lock_one(c, o->lockfiles.v[i], 1, cwd, err) < 0)
			goto done;
	}
	if (!o->no_discover) {
		lock_discover(c, &found);
		for (size_t i = 0; i < found.n; i++)
			if (!lock_seen(&seen, found.v[i]))
				lock_one(c, found.v[i], 0, cwd, err);
	}
	rc = 0;
done:
	ep_strv_clear(&seen);
	ep_strv_clear(&found);
	free(cwd);
	return rc;
}
