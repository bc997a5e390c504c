/*
 * cache.c: the persistent map from a file's identity to a value computed
 * from it (see cache.h for the rules); the file's lines and checksum are
 * read and written by cache_line.c.
 *
 * In memory: the entries in insertion order, and an open-addressing table
 * (linear probing, at most half full) of indices into them, keyed by
 * (kind, device, inode).  Size, mtime and ctime are the validators: an
 * entry whose validators differ from the file's stat is a miss, and a new
 * value for the same key replaces it, so a file that keeps changing holds
 * one entry, not one per version.
 *
 * On disk, one text file written atomically:
 *
 *	envparity-cache 1
 *	KIND DEV INO SIZE MSEC.MNSEC CSEC.CNSEC VALUE
 *	...
 *	end COUNT CHECKSUM
 *
 * VALUE runs to the end of the line with "\\" and "\n" escaped.  The
 * trailer counts the entry lines and checksums the bytes between the
 * header and itself, so a truncated or damaged file is recognised; any
 * such file is read as an empty cache.
 *
 * Loading is on the path of every capture, so it allocates little: the
 * file is read into one buffer that the loaded kinds and values point into
 * (unescaped in place), and the arrays are sized once from the trailer's
 * count.  Large blocks come from mmap with MAP_POPULATE: on the virtual
 * machines CI runs on, faulting fresh pages in one at a time cost more
 * than parsing (10,000 entries: 11 ms with malloc, a few ms populated).
 */
#include "cache_int.h"
#include "outfile.h"
#include "errors.h"
#include "files.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define CACHE_HEADER	"envparity-cache 1\n"
/* A larger file is not ours to trust: start afresh. */
#define CACHE_MAXFILE	((size_t)64 << 20)
/* On save, the oldest entries beyond this many are dropped. */
#define CACHE_MAXENTRIES 100000
/* Longer values are not cached. */
#define CACHE_MAXVALUE	16384
/* git's racily-clean window, with margin for coarse file timestamps. */
#define CACHE_RACY_SEC	2
/* Blocks this large are mapped, populated, rather than malloc'd. */
#define CACHE_BIGBLOCK	((size_t)128 << 10)

/* A zeroed block of memory that remembers how it was allocated. */
struct block {
	void *p;
	size_t maplen;		/* 0: from xcalloc */
};

struct ep_cache {
	char *path;		/* NULL: in memory only */
	struct block file;	/* the file as loaded */
	struct block eb;	/* e */
	struct block sb;	/* slot */
	struct ep_cache_entry *e;	/* insertion order, oldest first */
	size_t n, cap;
	size_t live;
	uint32_t *slot;		/* index into e plus one; 0 is empty */
	size_t nslot;		/* a power of two; 0 before the first */
	int dirty;
};

static void *
block_alloc(struct block *b, size_t n, size_t size)
{
	void *p;

	if (size != 0 && n > SIZE_MAX / size)
		return xcalloc(SIZE_MAX, 1);	/* aborts, as xmalloc does */
	b->maplen = 0;
	if (n * size >= CACHE_BIGBLOCK) {
		p = mmap(NULL, n * size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p != MAP_FAILED) {
			b->maplen = n * size;
			return b->p = p;
		}
	}
	return b->p = xcalloc(n, size);
}

static void
block_free(struct block *b)
{
	if (b->maplen != 0)
		munmap(b->p, b->maplen);
	else
		free(b->p);
	b->p = NULL;
	b->maplen = 0;
}

/* The slot holding (kind, dev, ino), or the empty slot where it would go. */
static size_t
find_slot(const struct ep_cache *c, const char *kind, uint32_t khash,
    uint64_t dev, uint64_t ino)
{
	size_t mask = c->nslot - 1;
	size_t i = ep_cache_mix64(ep_cache_mix64(dev ^ ((uint64_t)khash << 32)) ^ ino) & mask;

	for (;; i = (i + 1) & mask) {
		const struct ep_cache_entry *e;

		if (c->slot[i] == 0)
			return i;
		e = &c->e[c->slot[i] - 1];
		if (e->ino == ino && e->dev == dev && e->khash == khash &&
		    strcmp(e->kind, kind) == 0)
			return i;
	}
}

/* Room for at least want live keys, the table at most half full. */
static void
reserve(struct ep_cache *c, size_t want)
{
	size_t n = c->nslot ? c->nslot : 64;

	if (want * 2 <= c->nslot)
		return;
	while (want * 2 > n)
		n *= 2;
	block_free(&c->sb);
	c->slot = block_alloc(&c->sb, n, sizeof *c->slot);
	c->nslot = n;
	for (size_t k = 0; k < c->n; k++) {
		struct ep_cache_entry *e = &c->e[k];

		if (e->live)
			c->slot[find_slot(c, e->kind, e->khash, e->dev,
			    e->ino)] = (uint32_t)(k + 1);
	}
}

/* Room for cap entries. */
static void
grow_entries(struct ep_cache *c, size_t cap)
{
	struct block old = c->eb;

	c->e = block_alloc(&c->eb, cap, sizeof *c->e);
	if (c->n > 0)
		memcpy(c->e, old.p, c->n * sizeof *c->e);
	block_free(&old);
	c->cap = cap;
}

/* Add e, replacing any entry of the same key. */
static void
insert(struct ep_cache *c, const struct ep_cache_entry *e)
{
	size_t i;

	reserve(c, c->live + 1);
	if (c->n == c->cap)
		grow_entries(c, c->cap ? c->cap * 2 : 64);
	i = find_slot(c, e->kind, e->khash, e->dev, e->ino);
	if (c->slot[i] != 0)
		c->e[c->slot[i] - 1].live = 0;
	else
		c->live++;
	c->e[c->n] = *e;
	c->e[c->n].live = 1;
	c->slot[i] = (uint32_t)(++c->n);
}

static void
clear_entries(struct ep_cache *c)
{
	for (size_t k = 0; k < c->n; k++) {
		if (c->e[k].owned) {
			free(c->e[k].kind);
			free(c->e[k].value);
		}
	}
	block_free(&c->eb);
	block_free(&c->sb);
	block_free(&c->file);
	c->e = NULL;
	c->slot = NULL;
	c->n = c->cap = c->live = c->nslot = 0;
}

/* Parse the whole file (len bytes, NUL after them) into c; -1 (c partly
 * filled) if it is not a cache file of ours, complete and intact. */
static int
parse(struct ep_cache *c, char *buf, size_t len)
{
	size_t hlen = sizeof CACHE_HEADER - 1, count = 0;
	char *body = buf + hlen, *trailer, *p, *nl;
	unsigned long long want, sum;
	struct ep_cache_entry e;
	char tail;

	if (len < hlen + 1 || memcmp(buf, CACHE_HEADER, hlen) != 0 ||
	    buf[len - 1] != '\n' || memchr(buf, '\0', len) != NULL)
		return -1;
	buf[len - 1] = '\0';
	trailer = strrchr(body - 1, '\n') + 1;
	if (sscanf(trailer, "end %llu %16llx%c", &want, &sum, &tail) != 2 ||
	    sum != ep_cache_checksum(body, (size_t)(trailer - body)) ||
	    want > (unsigned long long)(trailer - body) / 16)
		return -1;

	/* Sized once, with room for this run's new entries. */
	grow_entries(c, want + want / 8 + 64);
	reserve(c, want + want / 8 + 64);
	for (p = body; p < trailer; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(trailer - p));
		*nl = '\0';
		if (count == want || ep_cache_line_parse(&e, p) < 0)
			return -1;
		insert(c, &e);
		count++;
	}
	return count == want ? 0 : -1;
}

/* Read the regular file at path into c->file (NUL-terminated); -1 if it
 * is missing, unreadable, not a regular file, or too large. */
static int
load(struct ep_cache *c, const char *path, size_t *len)
{
	struct stat st;
	ssize_t r;
	size_t n = 0, size;
	char *buf;
	int fd, rc = -1;

	/* O_NONBLOCK: a fifo in the cache's place must not hang us. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		return -1;
	/* Only a file of ours that nobody else can write: its trailer's
	 * checksum has no secret, so anyone who could write it could forge
	 * a hash. */
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    (uintmax_t)st.st_size > CACHE_MAXFILE ||
	    st.st_uid != geteuid() || (st.st_mode & 022) != 0)
		goto done;
	size = (size_t)st.st_size;
	buf = block_alloc(&c->file, size + 1, 1);
	while (n < size) {
		if ((r = read(fd, buf + n, size - n)) < 0) {
			if (errno == EINTR)
				continue;
			goto done;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	buf[n] = '\0';
	*len = n;
	rc = 0;
done:
	close(fd);
	return rc;
}

struct ep_cache *
ep_cache_open(const char *path)
{
	struct ep_cache *c = xcalloc(1, sizeof *c);
	size_t len = 0;

	if (path == NULL)
		return c;
	c->path = xstrdup(path);
	if (load(c, path, &len) < 0 || parse(c, c->file.p, len) < 0)
		clear_entries(c);	/* start empty */
	return c;
}

static int
same_stat(const struct ep_cache_entry *e, const struct stat *st)
{
	return e->size == (int64_t)st->st_size &&
	    e->msec == (int64_t)st->st_mtim.tv_sec &&
	    e->mnsec == st->st_mtim.tv_nsec &&
	    e->csec == (int64_t)st->st_ctim.tv_sec &&
	    e->cnsec == st->st_ctim.tv_nsec;
}

const char *
ep_cache_get(struct ep_cache *c, const char *kind, const struct stat *st)
{
	const struct ep_cache_entry *e;
	size_t i;

	if (c == NULL || c->nslot == 0 || kind == NULL)
		return NULL;
	i = find_slot(c, kind, ep_cache_kind_hash(kind), (uint64_t)st->st_dev,
	    (uint64_t)st->st_ino);
	if (c->slot[i] == 0)
		return NULL;
	e = &c->e[c->slot[i] - 1];
	return same_stat(e, st) ? e->value : NULL;
}

/* 1 if ts is within CACHE_RACY_SEC of now or later: a change made within
 * the same timestamp tick would leave the stat as it is. */
static int
racy(const struct timespec *ts, const struct timespec *now)
{
	int64_t sec = (int64_t)now->tv_sec - CACHE_RACY_SEC;

	return (int64_t)ts->tv_sec > sec ||
	    ((int64_t)ts->tv_sec == sec && ts->tv_nsec >= now->tv_nsec);
}

void
ep_cache_put(struct ep_cache *c, const char *kind, const struct stat *st,
    const char *value)
{
	struct timespec now;
	struct ep_cache_entry e;
	const char *old;

	if (c == NULL || kind == NULL || !ep_cache_kind_valid(kind) || value == NULL ||
	    strlen(value) > CACHE_MAXVALUE)
		return;
	if (clock_gettime(CLOCK_REALTIME, &now) < 0 ||
	    racy(&st->st_mtim, &now) || racy(&st->st_ctim, &now))
		return;
	if ((old = ep_cache_get(c, kind, st)) != NULL &&
	    strcmp(old, value) == 0)
		return;		/* nothing new: keep the file as it is */

	memset(&e, 0, sizeof e);
	e.kind = xstrdup(kind);
	e.khash = ep_cache_kind_hash(kind);
	e.value = xstrdup(value);
	e.owned = 1;
	e.dev = (uint64_t)st->st_dev;
	e.ino = (uint64_t)st->st_ino;
	e.size = (int64_t)st->st_size;
	e.msec = (int64_t)st->st_mtim.tv_sec;
	e.mnsec = (int32_t)st->st_mtim.tv_nsec;
	e.csec = (int64_t)st->st_ctim.tv_sec;
	e.cnsec = (int32_t)st->st_ctim.tv_nsec;
	insert(c, &e);
	c->dirty = 1;
}

int
ep_cache_save(struct ep_cache *c, struct ep_err *err)
{
	struct ep_cache_buf b = { 0 };
	size_t skip, count = 0, body;
	char trailer[64], *dir, *slash;
	struct ep_err derr = { 0 };
	int len, rc;

	if (c == NULL || c->path == NULL || !c->dirty)
		return 0;
	skip = c->live > CACHE_MAXENTRIES ? c->live - CACHE_MAXENTRIES : 0;
	ep_cache_buf_add(&b, CACHE_HEADER, strlen(CACHE_HEADER));
	body = b.n;
	for (size_t k = 0; k < c->n; k++) {
		if (!c->e[k].live)
			continue;
		if (skip > 0) {
			skip--;
			continue;
		}
		ep_cache_line_write(&b, &c->e[k]);
		count++;
	}
	len = snprintf(trailer, sizeof trailer, "end %zu %016" PRIx64 "\n",
	    count, ep_cache_checksum(b.p + body, b.n - body));
	ep_cache_buf_add(&b, trailer, (size_t)len);
	/* The directory is made only now, when there is something to keep. */
	dir = xstrdup(c->path);
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir)
		*slash = '\0';
	rc = slash == NULL || slash == dir ? 0 :
	    ep_mkdirs_mode(dir, 0700, &derr);
	if (rc < 0)
		ep_err_set(err, EP_E_IO, "%s: %s", c->path, derr.msg);
	else
		rc = ep_out_write(c->path, b.p, b.n, EP_OUT_PRIVATE, err);
	if (rc == 0)
		c->dirty = 0;
	free(dir);
	free(b.p);
	return rc;
}

void
ep_cache_free(struct ep_cache *c)
{
	if (c == NULL)
		return;
	clear_entries(c);
	free(c->path);
	free(c);
}
