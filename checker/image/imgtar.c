/*
 * imgtar.c: index a tar file's regular members in one pass over the
 * headers, sorted by name (duplicates found and look-ups made in
 * n log n), and read a member by name with pread.  Enough of ustar, GNU
 * ('L' long names, base-256 sizes) and pax ('x' path and size) for what
 * docker and skopeo write; no libarchive.
 */
#include "imgtar.h"
#include "errors.h"
#include "xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK		512
#define MAX_MEMBERS	100000
#define MAX_META	(1 << 20)	/* a pax or GNU long-name record */

static int
read_full(int fd, void *buf, size_t n, off_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got,
		    off + (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* An octal field, or GNU base-256 when the high bit is set; -1 if bad. */
static long long
num_field(const unsigned char *p, size_t n)
{
	long long v = 0;
	size_t i = 0;

	if (p[0] & 0x80) {
		if (p[0] != 0x80)
			return -1;	/* negative or too large */
		for (i = 1; i < n; i++) {
			if (v > (LLONG_MAX >> 8))
				return -1;
			v = (v << 8) | p[i];
		}
		return v;
	}
	while (i < n && p[i] == ' ')
		i++;
	if (i == n || p[i] < '0' || p[i] > '7')
		return -1;
	for (; i < n && p[i] >= '0' && p[i] <= '7'; i++) {
		if (v > (LLONG_MAX >> 3))
			return -1;
		v = v * 8 + (p[i] - '0');
	}
	for (; i < n; i++)
		if (p[i] != ' ' && p[i] != '\0')
			return -1;
	return v;
}

static int
checksum_ok(const unsigned char *h)
{
	long long want = num_field(h + 148, 8);
	long long sum = 0;

	for (size_t i = 0; i < BLOCK; i++)
		sum += (i >= 148 && i < 156) ? ' ' : h[i];
	return want == sum;
}

/* The member name as stored: "./" prefixes removed.  NULL if unsafe. */
static char *
clean_name(const char *s)
{
	const char *c;

	while (s[0] == '.' && s[1] == '/')
		s += 2;
	/* "./" or ".": the archive's root directory. */
	if (s[0] == '\0' || strcmp(s, ".") == 0)
		return xstrdup(".");
	if (s[0] == '/')
		return NULL;
	for (c = s; *c != '\0'; ) {
		size_t n = strcspn(c, "/");

		if (n == 2 && c[0] == '.' && c[1] == '.')
			return NULL;
		c += n;
		if (*c == '/')
			c++;
	}
	return xstrdup(s);
}

/* The "path" and "size" of a pax extended header ("LEN key=value\n"). */
static int
pax_parse(const char *buf, size_t len, char **path, long long *size)
{
	size_t i = 0;

	while (i < len) {
		char *end;
		const char *rec = buf + i, *kv, *eq;
		unsigned long long rl = strtoull(rec, &end, 10);

		/* strtoull skips leading space: the length must start the
		 * record, and the key must start inside it. */
		if (!isdigit((unsigned char)rec[0]) || end == rec ||
		    *end != ' ' || rl == 0 || rl > len - i ||
		    rec[rl - 1] != '\n' || end + 1 > rec + rl - 1)
			return -1;
		kv = end + 1;
		if ((eq = memchr(kv, '=', (size_t)(rec + rl - 1 - kv))) ==
		    NULL)
			return -1;
		if ((size_t)(eq - kv) == 4 && memcmp(kv, "path", 4) == 0) {
			free(*path);
			*path = xstrndup(eq + 1, (size_t)(rec + rl - 1 - eq - 1));
		} else if ((size_t)(eq - kv) == 4 &&
		    memcmp(kv, "size", 4) == 0) {
			char *se;

			errno = 0;
			*size = strtoll(eq + 1, &se, 10);
			if (errno != 0 || se != rec + rl - 1 || *size < 0)
				return -1;
		}
		i += rl;
	}
	return 0;
}

static int
member_cmp(const void *a, const void *b)
{
	const struct ep_tar_member *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	/* The same name: archive order, so the message is stable. */
	if (c == 0)
		c = x->off < y->off ? -1 : x->off > y->off;
	return c;
}

/* One pass of ep_tar_open over an archive's headers. */
struct scan {
	struct ep_tar *t;
	const char *path;
	off_t off;		/* the next header's */
	off_t end;		/* the file's size */
	size_t cap;		/* of t->v */
	char *longname;		/* of the next member: GNU 'L' */
	char *paxpath;		/* and pax 'x' */
	long long paxsize;	/* pax 'x' size; -1: none */
};

/* Open path (a regular file, never a FIFO's wait) into t->fd, its size
 * in *size; -1 with err (EP_E_INPUT). */
static int
open_archive(struct ep_tar *t, off_t *size, const char *path,
    struct ep_err *err)
{
	struct stat st;

	/* O_NONBLOCK: a FIFO named as the archive must not hang us; it
	 * is refused below as not a regular file. */
	if ((t->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return ep_err_set(err, EP_E_INPUT, "%s: %s", path,
		    strerror(errno));
	if (fstat(t->fd, &st) < 0 || !S_ISREG(st.st_mode))
		return ep_err_set(err, EP_E_INPUT, "%s: not a regular file",
		    path);
	*size = st.st_size;
	return 0;
}

/* Read the header at sc->off into h, and past it: 1 at the end-of-archive
 * block, 0 with the member's *size (a pax size applied) and *type, -1
 * with err when it is missing, corrupt or its member runs past the end. */
static int
read_header(unsigned char h[BLOCK], long long *size, int *type,
    struct scan *sc, struct ep_err *err)
{
	if (sc->off + BLOCK > sc->end || read_full(sc->t->fd, h, BLOCK,
	    sc->off) < 0)
		return ep_err_set(err, EP_E_INPUT, "%s: truncated tar file "
		    "(no end-of-archive block)", sc->path);
	sc->off += BLOCK;
	if (h[0] == '\0') {
		int zero = 1;

		for (size_t i = 0; i < BLOCK && zero; i++)
			zero = h[i] == '\0';
		if (zero)
			return 1;
	}
	if (!checksum_ok(h))
		return ep_err_set(err, EP_E_INPUT, "%s: not a tar file or "
		    "a corrupt header at byte %lld", sc->path,
		    (long long)(sc->off - BLOCK));
	if ((*size = num_field(h + 124, 12)) < 0)
		return ep_err_set(err, EP_E_INPUT, "%s: bad member size at "
		    "byte %lld", sc->path, (long long)(sc->off - BLOCK));
	*type = h[156];
	if (sc->paxsize >= 0 && *type != 'x' && *type != 'L')
		*size = sc->paxsize;
	if (*size > sc->end - sc->off)
		return ep_err_set(err, EP_E_INPUT, "%s: truncated tar file "
		    "(a member runs past the end)", sc->path);
	return 0;
}

/* Read a GNU long name ('L') or a pax header ('x') of size bytes at
 * sc->off for the next member, and move past it; -1 with err. */
static int
read_meta(struct scan *sc, int type, long long size, struct ep_err *err)
{
	char *meta;

	if (size > MAX_META)
		return ep_err_set(err, EP_E_INPUT, "%s: extended header too "
		    "large", sc->path);
	meta = xmalloc((size_t)size + 1);
	if (read_full(sc->t->fd, meta, (size_t)size, sc->off) < 0) {
		free(meta);
		return ep_err_set(err, EP_E_INPUT, "%s: read error",
		    sc->path);
	}
	meta[size] = '\0';
	if (type == 'L') {
		free(sc->longname);
		sc->longname = xstrndup(meta, strlen(meta));
	} else if (pax_parse(meta, (size_t)size, &sc->paxpath,
	    &sc->paxsize) < 0) {
		free(meta);
		return ep_err_set(err, EP_E_INPUT, "%s: bad pax header at "
		    "byte %lld", sc->path, (long long)(sc->off - BLOCK));
	}
	free(meta);
	sc->off += (size + BLOCK - 1) / BLOCK * BLOCK;
	return 0;
}

/* The member of header h (of type and size bytes at sc->off): its name
 * (pax, GNU, ustar prefix, or the header's own) checked, and when it is
 * a regular file, indexed; then past it, the names of 'L' and 'x'
 * spent.  -1 with err for an unsafe name or too many members. */
static int
add_member(struct scan *sc, const unsigned char h[BLOCK], int type,
    long long size, struct ep_err *err)
{
	struct ep_tar *t = sc->t;
	char fullname[BLOCK], *name;

	if (sc->paxpath != NULL)
		snprintf(fullname, sizeof fullname, "%s", sc->paxpath);
	else if (sc->longname != NULL)
		snprintf(fullname, sizeof fullname, "%s", sc->longname);
	else if (memcmp(h + 257, "ustar", 6) == 0 && h[345] != '\0')
		snprintf(fullname, sizeof fullname, "%.155s/%.100s",
		    (const char *)h + 345, (const char *)h);
	else
		snprintf(fullname, sizeof fullname, "%.100s",
		    (const char *)h);
	if ((name = clean_name(fullname)) == NULL)
		return ep_err_set(err, EP_E_INPUT, "%s: member '%s': "
		    "absolute name or '..' in it", sc->path, fullname);
	if (type == '0' || type == '\0' || type == '7') {
		if (t->n == MAX_MEMBERS) {
			free(name);
			return ep_err_set(err, EP_E_INPUT, "%s: more than "
			    "%d members", sc->path, MAX_MEMBERS);
		}
		if (t->n == sc->cap) {
			sc->cap = sc->cap ? sc->cap * 2 : 32;
			t->v = xreallocarray(t->v, sc->cap, sizeof *t->v);
		}
		t->v[t->n].name = name;
		t->v[t->n].off = sc->off;
		t->v[t->n].size = (off_t)size;
		t->n++;
		name = NULL;
	}
	free(name);
	free(sc->longname);
	sc->longname = NULL;
	free(sc->paxpath);
	sc->paxpath = NULL;
	sc->paxsize = -1;
	sc->off += (size + BLOCK - 1) / BLOCK * BLOCK;
	return 0;
}

/* Sort t's members by name: a member twice is two neighbours, and a
 * look-up is a binary search.  n log n in all, whatever the names: a
 * check against every member before (or a hash table a crafted archive
 * can fill with collisions) is quadratic.  -1 with err for a member
 * twice. */
static int
sort_members(struct ep_tar *t, struct ep_err *err)
{
	if (t->n > 1)
		qsort(t->v, t->n, sizeof *t->v, member_cmp);
	for (size_t i = 1; i < t->n; i++)
		if (strcmp(t->v[i - 1].name, t->v[i].name) == 0)
			return ep_err_set(err, EP_E_INPUT, "%s: member '%s' "
			    "appears twice", t->path, t->v[i].name);
	return 0;
}

int
ep_tar_open(struct ep_tar *t, const char *path, struct ep_err *err)
{
	struct scan sc = { .t = t, .path = path, .paxsize = -1 };
	unsigned char h[BLOCK];
	long long size = 0;
	int type = 0, r, rc = -1;

	memset(t, 0, sizeof *t);
	t->fd = -1;
	t->path = xstrdup(path);
	if (open_archive(t, &sc.end, path, err) < 0)
		goto done;
	while ((r = read_header(h, &size, &type, &sc, err)) == 0) {
		if (type == 'x' || type == 'L') {
			if (read_meta(&sc, type, size, err) < 0)
				goto done;
		} else if (add_member(&sc, h, type, size, err) < 0)
			goto done;
	}
	if (r < 0 || sort_members(t, err) < 0)
		goto done;
	rc = 0;
done:
	free(sc.longname);
	free(sc.paxpath);
	if (rc < 0)
		ep_tar_close(t);
	return rc;
}

void
ep_tar_close(struct ep_tar *t)
{
	if (t->fd >= 0)
		close(t->fd);
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	free(t->path);
	memset(t, 0, sizeof *t);
	t->fd = -1;
}

const struct ep_tar_member *
ep_tar_find(const struct ep_tar *t, const char *name)
{
	size_t lo = 0, hi = t->n;

	while (name[0] == '.' && name[1] == '/')
		name += 2;
	/* t->v is sorted by name (ep_tar_open). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(t->v[mid].name, name);

		if (c == 0)
			return &t->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

int
ep_tar_read(const struct ep_tar *t, const char *name, size_t max,
    char **out, size_t *len, struct ep_err *err)
{
	const struct ep_tar_member *m = ep_tar_find(t, name);
	char *buf;

	*out = NULL;
	*len = 0;
	if (m == NULL)
		return ep_err_set(err, EP_E_INPUT, "%s: no member '%s'",
		    t->path, name);
	if ((unsigned long long)m->size > max)
		return ep_err_set(err, EP_E_INPUT, "%s: member '%s' is larger "
		    "than %zu bytes", t->path, name, max);
	buf = xmalloc((size_t)m->size + 1);
	if (read_full(t->fd, buf, (size_t)m->size, m->off) < 0) {
		free(buf);
		return ep_err_set(err, EP_E_INPUT, "%s: cannot read member "
		    "'%s'", t->path, name);
	}
	buf[m->size] = '\0';
	*out = buf;
	*len = (size_t)m->size;
	return 0;
}
