/*
 * outfile.c: writing an output file under one rule (outfile.h).  The
 * directory is opened once and everything after that is relative to it
 * (fstatat, openat, renameat), so the checks and the rename see the same
 * directory; the leaf is never followed.  rename(2) replaces a link
 * itself, never its target, so a link planted between the check and the
 * rename cannot redirect the write either.
 */
#include "outfile.h"
#include "errors.h"
#include "files.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Longer names get a short temporary name, under NAME_MAX. */
#define TMP_BASE_MAX	200

/* The files no output may replace (ep_out_protect), and the folders
 * they lie in, from the top down to their own (ep_out_protect_path). */
struct dirid {
	dev_t dev;
	ino_t ino;
};
static struct protected {
	dev_t dev;
	ino_t ino;
	char *what;
	struct dirid *up;
	size_t nup;
} *protect_v;
static size_t protect_n;

void
ep_out_protect(const struct stat *st, const char *what)
{
	for (size_t i = 0; i < protect_n; i++)
		if (protect_v[i].dev == st->st_dev &&
		    protect_v[i].ino == st->st_ino)
			return;
	protect_v = xreallocarray(protect_v, protect_n + 1,
	    sizeof *protect_v);
	protect_v[protect_n].dev = st->st_dev;
	protect_v[protect_n].ino = st->st_ino;
	protect_v[protect_n].up = NULL;
	protect_v[protect_n].nup = 0;
	protect_v[protect_n++].what = xstrdup(what);
}

void
ep_out_protect_path(const struct stat *st, const char *path)
{
	struct protected *p = NULL;
	struct stat d;
	char *real, *slash;

	for (size_t i = 0; i < protect_n; i++)
		if (protect_v[i].dev == st->st_dev &&
		    protect_v[i].ino == st->st_ino)
			p = &protect_v[i];
	if (p == NULL || (real = realpath(path, NULL)) == NULL)
		return;
	/* Each folder above it: "/", "/a", "/a/b" of "/a/b/key.pem". */
	for (slash = real; slash != NULL; slash = strchr(slash + 1, '/')) {
		char c = slash[slash == real];

		slash[slash == real] = '\0';
		if (stat(real, &d) == 0 && S_ISDIR(d.st_mode)) {
			p->up = xreallocarray(p->up, p->nup + 1,
			    sizeof *p->up);
			p->up[p->nup].dev = d.st_dev;
			p->up[p->nup++].ino = d.st_ino;
		}
		slash[slash == real] = c;
	}
	free(real);
}

const char *
ep_out_protected_within(const struct stat *st)
{
	for (size_t i = 0; i < protect_n; i++) {
		const struct protected *p = &protect_v[i];

		if (p->dev == st->st_dev && p->ino == st->st_ino)
			return p->what;
		for (size_t k = 0; k < p->nup; k++)
			if (p->up[k].dev == st->st_dev &&
			    p->up[k].ino == st->st_ino)
				return p->what;
	}
	return NULL;
}

int
ep_out_protected(const struct stat *st, const char *path, struct ep_err *err)
{
	for (size_t i = 0; i < protect_n; i++)
		if (protect_v[i].dev == st->st_dev &&
		    protect_v[i].ino == st->st_ino)
			return ep_err_set(err, EP_E_INPUT, "%s: refused: that "
			    "is %s; no output ever replaces it", path,
			    protect_v[i].what);
	return 0;
}

int
ep_out_stream(const char *path, int flags)
{
	if (!(flags & EP_OUT_STDOUT))
		return 0;
	if (strcmp(path, "-") == 0 || strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (strcmp(path, "/dev/stderr") == 0)
		return 2;
	return 0;
}

/* The directory dir of a relative output path, opened one component at
 * a time from the current directory and never through a link: in CI the
 * current directory is the checkout, and a folder it holds as a link
 * ("reports -> ~/.ssh") must not take the output elsewhere.  -1 with
 * errno when a component cannot be opened, -2 with err when one is a
 * link. */
static int
open_relative_dir(const char *dir, const char *path, struct ep_err *err)
{
	char *copy = xstrdup(dir), *save = NULL;
	int fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC), next, e;

	for (char *c = strtok_r(copy, "/", &save); c != NULL && fd >= 0;
	    c = strtok_r(NULL, "/", &save)) {
		if (strcmp(c, ".") == 0)
			continue;
		next = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
		e = errno;
		if (next < 0 && (e == ELOOP || e == ENOTDIR)) {
			struct stat st;

			if (fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISLNK(st.st_mode)) {
				ep_err_set(err, EP_E_INPUT, "%s: refused: %s "
				    "is a symbolic link (a relative output "
				    "path is never written through one)",
				    path, c);
				close(fd);
				free(copy);
				return -2;
			}
		}
		close(fd);
		fd = next;
		errno = e;
	}
	free(copy);
	return fd;
}

/* Split path into its directory (opened: *dfd) and its last component
 * (*base, pointing into path).  A path ending in '/' or naming "." or
 * ".." is a directory. */
static int
open_parent(int *dfd, const char **base, const char *path, struct ep_err *err)
{
	const char *slash = strrchr(path, '/');
	char *dir;

	*dfd = -1;
	if (*path == '\0')
		return ep_err_set(err, EP_E_INPUT, "an output path is empty");
	*base = slash != NULL ? slash + 1 : path;
	if (**base == '\0' || strcmp(*base, ".") == 0 ||
	    strcmp(*base, "..") == 0)
		return ep_err_set(err, EP_E_INPUT, "%s: cannot write an output "
		    "there: a directory", path);
	dir = ep_path_dir(path);
	*dfd = path[0] == '/' ?
	    open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) :
	    open_relative_dir(dir, path, err);
	free(dir);
	if (*dfd == -2)
		return -1;
	if (*dfd < 0)
		return ep_err_set(err, EP_E_IO, "%s: cannot write: %s", path,
		    strerror(errno));
	return 0;
}

/* Whether st is the null device (character device 1:3, whatever its
 * name): the one device an output is written through to, as "-" is to
 * standard output.  Any other device is refused, not opened: opening
 * some (a watchdog) acts, writing others (memory, a disk) destroys. */
static int
is_null_device(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && major(st->st_rdev) == 1 &&
	    minor(st->st_rdev) == 3;
}

/* The path's current state: -1 with err when it cannot take an output,
 * else 0 with *exists and *st; *exists is 2 for the null device (written
 * through, never replaced). */
static int
check_leaf(int dfd, const char *base, const char *path, int *exists,
    struct stat *st, struct ep_err *err)
{
	*exists = 0;
	if (fstatat(dfd, base, st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		return ep_err_set(err, EP_E_IO, "%s: cannot write: %s", path,
		    strerror(errno));
	}
	if (S_ISLNK(st->st_mode))
		return ep_err_set(err, EP_E_INPUT, "%s: refused: a symbolic "
		    "link (envparity never writes through one: name the file "
		    "itself, or remove the link)", path);
	if (is_null_device(st)) {
		*exists = 2;
		return 0;
	}
	if (!S_ISREG(st->st_mode))
		return ep_err_set(err, EP_E_INPUT, "%s: refused: %s, not a "
		    "regular file (an output is written beside its path and "
		    "renamed over it; of the devices only the null device is "
		    "written through)", path, ep_mode_kind(st->st_mode));
	if (ep_out_protected(st, path, err) < 0)
		return -1;
	*exists = 1;
	return 0;
}

int
ep_out_check(const char *path, int flags, struct ep_err *err)
{
	const char *base;
	struct stat st;
	int dfd, exists, rc;

	if (ep_out_stream(path, flags))
		return 0;
	if (open_parent(&dfd, &base, path, err) < 0)
		return -1;
	rc = check_leaf(dfd, base, path, &exists, &st, err);
	close(dfd);
	return rc;
}

static int
write_all(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

/* A new file beside base: ".BASE.tmp.XXXXXX", created exclusively and
 * never through a link.  *tmp is the caller's. */
static int
create_tmp(int *fd, char **tmp, int dfd, const char *base, mode_t mode)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[6];

	for (int tries = 0; tries < 100; tries++) {
		char suffix[7];

		if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r)
			return -1;
		for (size_t i = 0; i < sizeof r; i++)
			suffix[i] = digits[r[i] % (sizeof digits - 1)];
		suffix[6] = '\0';
		*tmp = strlen(base) > TMP_BASE_MAX ?
		    xasprintf(".envparity.tmp.%s", suffix) :
		    xasprintf(".%s.tmp.%s", base, suffix);
		*fd = openat(dfd, *tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, mode);
		if (*fd >= 0)
			return 0;
		free(*tmp);
		*tmp = NULL;
		if (errno != EEXIST)
			return -1;
	}
	errno = EEXIST;
	return -1;
}

/* Write through to the null device at base in dfd, opened without
 * following a link and checked again once open (the path may have
 * changed since check_leaf): nothing is created, renamed or synced. */
static int
write_null(int dfd, const char *base, const char *path, const void *data,
    size_t len, struct ep_err *err)
{
	struct stat st;
	int fd, rc = 0;

	if ((fd = openat(dfd, base, O_WRONLY | O_NOFOLLOW | O_NOCTTY |
	    O_CLOEXEC)) < 0)
		return ep_err_set(err, EP_E_IO, "%s: cannot write: %s", path,
		    strerror(errno));
	if (fstat(fd, &st) < 0 || !is_null_device(&st))
		rc = ep_err_set(err, EP_E_INPUT, "%s: refused: no longer the "
		    "null device", path);
	else if (write_all(fd, data, len) < 0)
		rc = ep_err_set(err, EP_E_IO, "%s: write failed: %s", path,
		    strerror(errno));
	close(fd);
	return rc;
}

int
ep_out_write(const char *path, const void *data, size_t len, int flags,
    struct ep_err *err)
{
	mode_t most = (flags & EP_OUT_PRIVATE) ? 0600 : 0644;
	const char *base;
	char *tmp = NULL;
	struct stat st;
	int dfd, fd = -1, exists, stream, rc = -1;

	if ((stream = ep_out_stream(path, flags)) != 0) {
		fflush(stream == 1 ? stdout : stderr);
		if (write_all(stream, data, len) < 0)
			return ep_err_set(err, EP_E_IO, "%s: write failed: %s",
			    stream == 1 ? "standard output" : "standard error",
			    strerror(errno));
		return 0;
	}
	if (open_parent(&dfd, &base, path, err) < 0)
		return -1;
	if (check_leaf(dfd, base, path, &exists, &st, err) < 0)
		goto done;
	if (exists == 2) {
		rc = write_null(dfd, base, path, data, len, err);
		goto done;
	}
	if (create_tmp(&fd, &tmp, dfd, base, most) < 0) {
		ep_err_set(err, EP_E_IO, "%s: cannot write: %s", path,
		    strerror(errno));
		goto done;
	}
	/* A replaced file keeps its mode, never wider than most. */
	if (exists && fchmod(fd, st.st_mode & most) < 0)
		goto fail;
	if (write_all(fd, data, len) < 0)
		goto fail;
	if (!(flags & EP_OUT_NOSYNC) && fsync(fd) < 0)
		goto fail;
	if (close(fd) < 0) {
		fd = -1;
		goto fail;
	}
	fd = -1;
	if (renameat(dfd, tmp, dfd, base) < 0)
		goto fail;
	free(tmp);
	tmp = NULL;
	/* The rename itself is durable once the directory is. */
	if (!(flags & EP_OUT_NOSYNC))
		(void)fsync(dfd);
	rc = 0;
	goto done;
fail:
	ep_err_set(err, EP_E_IO, "%s: cannot write: %s", path,
	    strerror(errno));
done:
	if (fd >= 0)
		close(fd);
	if (tmp != NULL) {
		unlinkat(dfd, tmp, 0);
		free(tmp);
	}
	close(dfd);
	return rc;
}

int
ep_out_same(const char *a, const char *b, int flags)
{
	int sa = ep_out_stream(a, flags), sb = ep_out_stream(b, flags);
	const char *ba, *bb;
	struct stat x, y;
	int da, db, same;

	if (sa || sb)
		return sa == sb;
	if (open_parent(&da, &ba, a, NULL) < 0)
		return strcmp(a, b) == 0;
	if (open_parent(&db, &bb, b, NULL) < 0) {
		close(da);
		return strcmp(a, b) == 0;
	}
	same = strcmp(a, b) == 0 || (strcmp(ba, bb) == 0 &&
	    fstat(da, &x) == 0 && fstat(db, &y) == 0 &&
	    x.st_dev == y.st_dev && x.st_ino == y.st_ino);
	/* The null device takes any number of outputs: nothing is kept. */
	if (same && fstatat(da, ba, &x, AT_SYMLINK_NOFOLLOW) == 0 &&
	    is_null_device(&x))
		same = 0;
	close(da);
	close(db);
	return same;
}

int
ep_write_atomic(const char *path, const void *data, size_t len,
    struct ep_err *err)
{
	return ep_out_write(path, data, len, 0, err);
}

int
ep_write_cache(const char *path, const void *data, size_t len,
    struct ep_err *err)
{
	return ep_out_write(path, data, len, EP_OUT_PRIVATE | EP_OUT_NOSYNC,
	    err);
}
