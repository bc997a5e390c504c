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

int
ep_tar_open(struct ep_tar *t, const char *path, struct ep_err *err)
{
	unsigned char h[BLOCK];
	char *longname = NULL, *paxpath = NULL, *name = NULL;
	long long paxsize = -1;
	struct stat st;
	off_t off = 0;
	size_t cap = 0;
	int rc = -1;

	memset(t, 0, sizeof *t);
	t->fd = -1;
	t->path = xstrdup(path);
	/* O_NONBLOCK: a FIFO named as the archive must not hang us; it
	 * is refused below as not a regular file. */
	if ((t->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0) {
		ep_err_set(err, EP_E_INPUT, "%s: %s", path, strerror(errno));
		goto done;
	}
	if (fstat(t->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		ep_err_set(err, EP_E_INPUT, "%s: not a regular file", path);
		goto done;
	}
	for (;;) {
		long long size;
		char fullname[BLOCK];
		int type;

		if (off + BLOCK > st.st_size || read_full(t->fd, h, BLOCK,
		    off) < 0) {
			ep_err_set(err, EP_E_INPUT, "%s: truncated tar file "
			    "(no end-of-archive block)", path);
			goto done;
		}
		off += BLOCK;
		if (h[0] == '\0') {
			int zero = 1;

			for (size_t i = 0; i < BLOCK && zero; i++)
				zero = h[i] == '\0';
			if (zero)
				break;
		}
		if (!checksum_ok(h)) {
			ep_err_set(err, EP_E_INPUT, "%s: not a tar file or "
			    "a corrupt header at byte %lld", path,
			    (long long)(off - BLOCK));
			goto done;
		}
		if ((size = num_field(h + 124, 12)) < 0) {
			ep_err_set(err, EP_E_INPUT, "%s: bad member size at "
			    "byte %lld", path, (long long)(off - BLOCK));
			goto done;
		}
		type = h[156];
		if (paxsize >= 0 && type != 'x' && type != 'L')
			size = paxsize;
		if (size > st.st_size - off) {
			ep_err_set(err, EP_E_INPUT, "%s: truncated tar file "
			    "(a member runs past the end)", path);
			goto done;
		}
		if (type == 'x' || type == 'L') {
			char *meta;

			if (size > MAX_META) {
				ep_err_set(err, EP_E_INPUT, "%s: extended "
				    "header too large", path);
				goto done;
			}
			meta = xmalloc((size_t)size + 1);
			if (read_full(t->fd, meta, (size_t)size, off) < 0) {
				free(meta);
				ep_err_set(err, EP_E_INPUT, "%s: read error",
				    path);
				goto done;
			}
			meta[size] = '\0';
			if (type == 'L') {
				free(longname);
				longname = xstrndup(meta, strlen(meta));
			} else if (pax_parse(meta, (size_t)size, &paxpath,
			    &paxsize) < 0) {
				free(meta);
				ep_err_set(err, EP_E_INPUT, "%s: bad pax "
				    "header at byte %lld", path,
				    (long long)(off - BLOCK));
				goto done;
			}
			free(meta);
			off += (size + BLOCK - 1) / BLOCK * BLOCK;
			continue;
		}
		if (paxpath != NULL)
			snprintf(fullname, sizeof fullname, "%s", paxpath);
		else if (longname != NULL)
			snprintf(fullname, sizeof fullname, "%s", longname);
		else if (memcmp(h + 257, "ustar", 6) == 0 && h[345] != '\0')
			snprintf(fullname, sizeof fullname, "%.155s/%.100s",
			    (const char *)h + 345, (const char *)h);
		else
			snprintf(fullname, sizeof fullname, "%.100s",
			    (const char *)h);
		if ((name = clean_name(fullname)) == NULL) {
			ep_err_set(err, EP_E_INPUT, "%s: member '%s': "
			    "absolute name or '..' in it", path, fullname);
			goto done;
		}
		if (type == '0' || type == '\0' || type == '7') {
			if (t->n == MAX_MEMBERS) {
				ep_err_set(err, EP_E_INPUT, "%s: more than "
				    "%d members", path, MAX_MEMBERS);
				goto done;
			}
			if (t->n == cap) {
				cap = cap ? cap * 2 : 32;
				t->v = xreallocarray(t->v, cap, sizeof *t->v);
			}
			t->v[t->n].name = name;
			t->v[t->n].off = off;
			t->v[t->n].size = (off_t)size;
			t->n++;
			name = NULL;
		}
		free(name);
		name = NULL;
		free(longname);
		longname = NULL;
		free(paxpath);
		paxpath = NULL;
		paxsize = -1;
		off += (size + BLOCK - 1) / BLOCK * BLOCK;
	}
	/* Sorted by name: a member twice is two neighbours, and a look-up
	 * is a binary search.  n log n in all, whatever the names: a
	 * check against every member before (or a hash table a crafted
	 * archive can fill with collisions) is quadratic. */
	if (t->n > 1)
		qsort(t->v, t->n, sizeof *t->v, member_cmp);
	for (size_t i = 1; i < t->n; i++)
		if (strcmp(t->v[i - 1].name, t->v[i].name) == 0) {
			ep_err_set(err, EP_E_INPUT, "%s: member '%s' appears "
			    "twice", path, t->v[i].name);
			goto done;
		}
	rc = 0;
done:
	free(name);
	free(longname);
	free(paxpath);
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
