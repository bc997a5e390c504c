/*
 * libsearch.c: find CUDA libraries on disk the way the dynamic loader and
 * NVIDIA's wheels lay them out, and parse the loader's cache
 * (/etc/ld.so.cache) ourselves rather than run `ldconfig -p`: a fork and
 * an exec per capture would cost more than the whole warm capture may.
 */
#include "libsearch.h"
#include "errors.h"
#include "files.h"
#include "strv.h"
#include "xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* glibc's sysdeps/generic/dl-cache.h. */
#define OLD_MAGIC	"ld.so-1.7.0"		/* 11 bytes, no NUL */
#define OLD_HEADER	16			/* magic, pad, nlibs */
#define OLD_ENTRY	12			/* flags, key, value */
#define NEW_MAGIC	"glibc-ld.so.cache"	/* 17 bytes */
#define NEW_VERSION	"1.1"			/* 3 bytes */
#define NEW_HEADER	48
#define NEW_ENTRY	24			/* flags, key, value, os, hwcap */
#define NEW_ALIGN	8			/* alignof(struct cache_file_new) */

#define FLAG_TYPE_MASK	0x00ff
#define FLAG_ELF_LIBC6	0x0003

/* The flags ldconfig gives the libraries of this process's ABI. */
#if defined(__x86_64__) && defined(__LP64__)
#define LDCACHE_ABI	0x0303		/* libc6,x86-64 */
#elif defined(__aarch64__)
#define LDCACHE_ABI	0x0a03		/* libc6,AArch64 */
#elif defined(__powerpc64__) && defined(__LITTLE_ENDIAN__)
#define LDCACHE_ABI	0x0503		/* libc6,64bit */
#else
#define LDCACHE_ABI	(-1)		/* unknown here: any libc6 entry */
#endif

static uint32_t
rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof v);
	return v;
}

static uint64_t
rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof v);
	return v;
}

void
ep_ldcache_clear(struct ep_ldcache *c)
{
	free(c->v);
	free(c->data);
	c->v = NULL;
	c->data = NULL;
	c->n = 0;
}

/* A NUL-terminated string at off inside [base, base + size), or NULL. */
static const char *
string_at(const unsigned char *base, size_t size, uint32_t off)
{
	if (off >= size || memchr(base + off, '\0', size - off) == NULL)
		return NULL;
	return (const char *)base + off;
}

int
ep_ldcache_parse(struct ep_ldcache *out, const void *buf, size_t len,
    const char *name, struct ep_err *err)
{
	const unsigned char *p, *nc;
	size_t off = 0, size;
	uint64_t nlibs;
	int rc = -1;

	memset(out, 0, sizeof *out);
	out->data = xmalloc(len + 1);
	memcpy(out->data, buf, len);
	out->data[len] = '\0';
	p = (const unsigned char *)out->data;

	/* glibc before 2.32 wrote the old table first, the new one after. */
	if (len >= OLD_HEADER && memcmp(p, OLD_MAGIC, 11) == 0) {
		nlibs = rd32(p + 12);
		off = OLD_HEADER + (size_t)nlibs * OLD_ENTRY;
		off = (off + NEW_ALIGN - 1) & ~(size_t)(NEW_ALIGN - 1);
		if (nlibs > len || off > len || len - off < NEW_HEADER ||
		    memcmp(p + off, NEW_MAGIC, 17) != 0) {
			ep_err_set(err, EP_E_INPUT, "%s: loader cache in the old "
			    "format only, not read", name);
			goto done;
		}
	}
	if (len - off < NEW_HEADER || memcmp(p + off, NEW_MAGIC, 17) != 0) {
		ep_err_set(err, EP_E_INPUT, "%s: not a glibc loader cache "
		    "(no \"" NEW_MAGIC "\" header)", name);
		goto done;
	}
	nc = p + off;
	size = len - off;
	if (memcmp(nc + 17, NEW_VERSION, 3) != 0) {
		ep_err_set(err, EP_E_INPUT, "%s: loader cache version %.3s, "
		    "not " NEW_VERSION, name, (const char *)nc + 17);
		goto done;
	}
	nlibs = rd32(nc + 20);
	if (nlibs > (size - NEW_HEADER) / NEW_ENTRY) {
		ep_err_set(err, EP_E_INPUT, "%s: truncated loader cache "
		    "(%llu entries do not fit in %zu bytes)", name,
		    (unsigned long long)nlibs, len);
		goto done;
	}
	out->v = xcalloc(nlibs == 0 ? 1 : (size_t)nlibs, sizeof *out->v);
	for (size_t i = 0; i < nlibs; i++) {
		const unsigned char *e = nc + NEW_HEADER + i * NEW_ENTRY;
		struct ep_ldcache_entry *ce = &out->v[i];

		ce->flags = (int32_t)rd32(e);
		ce->key = string_at(nc, size, rd32(e + 4));
		ce->value = string_at(nc, size, rd32(e + 8));
		ce->hwcap = rd64(e + 16);
		if (ce->key == NULL || ce->value == NULL) {
			ep_err_set(err, EP_E_INPUT, "%s: loader cache entry %zu "
			    "points outside the file", name, i);
			goto done;
		}
	}
	out->n = (size_t)nlibs;
	rc = 0;
done:
	if (rc < 0)
		ep_ldcache_clear(out);
	return rc;
}

int
ep_ldcache_load(struct ep_ldcache *out, const char *path, struct ep_err *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	memset(out, 0, sizeof *out);
	if (ep_read_regular(&buf, &len, path, 64 << 20, err) < 0)
		return -1;
	rc = ep_ldcache_parse(out, buf, len, path, err);
	free(buf);
	return rc;
}

int
ep_ldcache_entry_usable(const struct ep_ldcache_entry *e)
{
	if (LDCACHE_ABI != -1)
		return e->flags == LDCACHE_ABI;
	return (e->flags & FLAG_TYPE_MASK) == FLAG_ELF_LIBC6;
}

int
ep_libsearch_in_stubs(const char *path)
{
	const char *p = path;

	while ((p = strstr(p, "stubs")) != NULL) {
		if ((p == path || p[-1] == '/') && (p[5] == '/' || p[5] == '\0'))
			return 1;
		p += 5;
	}
	return 0;
}

int
ep_libsearch_match(const char *name, const char *stem, unsigned *nums,
    size_t max, size_t *count)
{
	size_t slen = strlen(stem), k = 0;
	const char *p;

	if (strncmp(name, "lib", 3) != 0 || strncmp(name + 3, stem, slen) != 0 ||
	    strncmp(name + 3 + slen, ".so.", 4) != 0)
		return 0;
	p = name + 3 + slen + 4;
	for (;;) {
		unsigned long v = 0;

		if (*p < '0' || *p > '9')
			return 0;
		while (*p >= '0' && *p <= '9') {
			v = v * 10 + (unsigned long)(*p++ - '0');
			if (v > UINT_MAX)
				return 0;
		}
		if (nums != NULL && k < max)
			nums[k] = (unsigned)v;
		k++;
		if (*p == '\0')
			break;
		if (*p++ != '.')
			return 0;
	}
	if (count != NULL)
		*count = k < max ? k : max;
	return 1;
}

void
ep_libfound_clear(struct ep_libfound *f)
{
	free(f->path);
	free(f->real);
	memset(f, 0, sizeof *f);
}

static struct ep_libsrc *
add_src(struct ep_libsearch *s, int kind)
{
	struct ep_libsrc *src;

	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->src = xreallocarray(s->src, s->cap, sizeof *s->src);
	}
	src = &s->src[s->n++];
	memset(src, 0, sizeof *src);
	src->kind = kind;
	return src;
}

void
ep_libsearch_add_dir(struct ep_libsearch *s, const char *dir,
    const char *origin)
{
	struct ep_libsrc *src;

	if (dir == NULL || *dir == '\0')
		return;
	for (size_t i = 0; i < s->n; i++)
		if (s->src[i].dir != NULL && strcmp(s->src[i].dir, dir) == 0)
			return;
	src = add_src(s, EP_LIBSRC_DIR);
	src->dir = xstrdup(dir);
	src->origin = origin;
}

void
ep_libsearch_add_pathlist(struct ep_libsearch *s, const char *list,
    const char *origin)
{
	char *copy, *save = NULL;

	if (list == NULL)
		return;
	copy = xstrdup(list);
	/* Absolute folders only: a relative entry ("." or "lib", and an
	 * empty one, which the loader takes as ".") names the current
	 * directory, which in CI is the checkout under test. */
	for (char *d = strtok_r(copy, ":", &save); d != NULL;
	    d = strtok_r(NULL, ":", &save))
		if (d[0] == '/')
			ep_libsearch_add_dir(s, d, origin);
	free(copy);
}

void
ep_libsearch_add_ldcache(struct ep_libsearch *s, const char *path)
{
	if (s->cache_path != NULL)
		return;
	s->cache_path = xstrdup(path);
	add_src(s, EP_LIBSRC_LDCACHE)->origin = "ld.so.cache";
}

static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
ep_libsearch_add_site(struct ep_libsearch *s, const char *site)
{
	struct ep_strv subs = { 0 };
	struct dirent *de;
	struct stat st;
	char *top = xasprintf("%s/nvidia", site), *lib, *real;
	char *base = realpath(site, NULL);
	size_t blen = base != NULL ? strlen(base) : 0;
	DIR *d;

	if (base == NULL || (d = opendir(top)) == NULL) {
		free(base);
		free(top);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			ep_strv_push(&subs, de->d_name);
	closedir(d);
	if (subs.n > 1)
		qsort(subs.v, subs.n, sizeof *subs.v, cmpstr);
	for (size_t i = 0; i < subs.n; i++) {
		lib = xasprintf("%s/%s/lib", top, subs.v[i]);
		/* Only a folder inside site-packages (a wheel holds no link):
		 * the helpers that load these libraries may read it, and a
		 * link ("-> /") would open whatever it names to them. */
		real = realpath(lib, NULL);
		if (real != NULL && strncmp(real, base, blen) == 0 &&
		    real[blen] == '/' && stat(real, &st) == 0 &&
		    S_ISDIR(st.st_mode))
			ep_libsearch_add_dir(s, lib, "site-packages");
		free(real);
		free(lib);
	}
	ep_strv_clear(&subs);
	free(base);
	free(top);
}

void
ep_libsearch_clear(struct ep_libsearch *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->src[i].dir);
		ep_strv_clear(&s->src[i].names);
	}
	free(s->src);
	ep_ldcache_clear(&s->cache);
	free(s->cache_path);
	free(s->cache_error);
	memset(s, 0, sizeof *s);
}

static void
read_cache(struct ep_libsearch *s)
{
	struct ep_err err = { 0 };

	if (s->cache_state != 0)
		return;
	if (ep_ldcache_load(&s->cache, s->cache_path, &err) == 0)
		s->cache_state = 1;
	else {
		s->cache_state = -1;
		s->cache_error = xstrdup(err.msg);
	}
}

static void
list_dir(struct ep_libsrc *src)
{
	struct dirent *de;
	DIR *d;

	if (src->listed)
		return;
	src->listed = 1;
	if (ep_libsearch_in_stubs(src->dir) || (d = opendir(src->dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, "lib", 3) == 0)
			ep_strv_push(&src->names, de->d_name);
	closedir(d);
}

/* Take path if it resolves to a regular file outside any stubs folder:
 * the stub libraries NVIDIA ships for linking must never pass for the
 * real ones. */
/* Whether real (path's real file) is in path's own folder: a wheel's
 * library is, since a wheel holds no link.  One that is a link elsewhere
 * would make that folder, a key's say, one its helpers may read. */
static int
beside(const char *path, const char *real)
{
	char *dir = ep_path_dir(path), *rdir = realpath(dir, NULL);
	char *have = ep_path_dir(real);
	int ok = rdir != NULL && strcmp(rdir, have) == 0;

	free(dir);
	free(rdir);
	free(have);
	return ok;
}

static int
take_file(struct ep_libfound *out, const char *path, const char *origin)
{
	struct stat st;
	char *real;

	if (ep_libsearch_in_stubs(path) || (real = realpath(path, NULL)) == NULL)
		return 0;
	if (ep_libsearch_in_stubs(real) || stat(real, &st) < 0 ||
	    !S_ISREG(st.st_mode) || (strcmp(origin, "site-packages") == 0 &&
	    !beside(path, real))) {
		free(real);
		return 0;
	}
	out->path = xstrdup(path);
	out->real = real;
	out->origin = origin;
	return 1;
}

#define MAXNUMS 8

struct cand {
	unsigned nums[MAXNUMS];
	size_t count, namelen;
	struct ep_libfound f;
};

/* Whether a (version numbers, name length) ranks above b. */
static int
better(const struct cand *a, const struct cand *b)
{
	size_t n = a->count < b->count ? a->count : b->count;

	for (size_t i = 0; i < n; i++)
		if (a->nums[i] != b->nums[i])
			return a->nums[i] > b->nums[i];
	return a->namelen < b->namelen;
}

/* Offer name (found at path) as a candidate for best. */
static void
offer(struct cand *best, const char *name, const char *stem,
    const char *path, const char *origin)
{
	struct cand c = { 0 };

	if (!ep_libsearch_match(name, stem, c.nums, MAXNUMS, &c.count))
		return;
	c.namelen = strlen(name);
	if (best->f.real != NULL && !better(&c, best))
		return;
	if (!take_file(&c.f, path, origin))
		return;
	ep_libfound_clear(&best->f);
	*best = c;
}

static const char *
base_name(const char *path)
{
	const char *b = strrchr(path, '/');

	return b != NULL ? b + 1 : path;
}

/* The best versioned lib<stem>.so.N in one source. */
static int
find_versioned(struct ep_libfound *out, struct ep_libsearch *s,
    struct ep_libsrc *src, const char *stem)
{
	struct cand best = { 0 };

	if (src->kind == EP_LIBSRC_LDCACHE) {
		read_cache(s);
		for (size_t i = 0; i < s->cache.n; i++) {
			const struct ep_ldcache_entry *e = &s->cache.v[i];

			if (ep_ldcache_entry_usable(e))
				offer(&best, base_name(e->key), stem, e->value,
				    src->origin);
		}
	} else {
		list_dir(src);
		for (size_t i = 0; i < src->names.n; i++) {
			char *path;

			if (!ep_libsearch_match(src->names.v[i], stem, NULL, 0,
			    NULL))
				continue;
			path = xasprintf("%s/%s", src->dir, src->names.v[i]);
			offer(&best, src->names.v[i], stem, path, src->origin);
			free(path);
		}
	}
	if (best.f.real == NULL)
		return 0;
	*out = best.f;
	return 1;
}

static int
find_name(struct ep_libfound *out, struct ep_libsearch *s,
    struct ep_libsrc *src, const char *name)
{
	char *path;
	int found;

	if (src->kind == EP_LIBSRC_LDCACHE) {
		read_cache(s);
		for (size_t i = 0; i < s->cache.n; i++) {
			const struct ep_ldcache_entry *e = &s->cache.v[i];

			if (ep_ldcache_entry_usable(e) &&
			    strcmp(e->key, name) == 0 &&
			    take_file(out, e->value, src->origin))
				return 1;
		}
		return 0;
	}
	if (ep_libsearch_in_stubs(src->dir))
		return 0;
	path = xasprintf("%s/%s", src->dir, name);
	found = take_file(out, path, src->origin);
	free(path);
	return found;
}

int
ep_libsearch_find(struct ep_libfound *out, struct ep_libsearch *s,
    const char *stem)
{
	char *plain;
	int found = 0;

	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < s->n; i++)
		if (find_versioned(out, s, &s->src[i], stem))
			return 1;
	/* The unversioned name is what the linker wants, not what a
	 * program loads; take it only when there is nothing else. */
	plain = xasprintf("lib%s.so", stem);
	for (size_t i = 0; i < s->n && !found; i++)
		found = find_name(out, s, &s->src[i], plain);
	free(plain);
	return found;
}

int
ep_libsearch_find_exact(struct ep_libfound *out, struct ep_libsearch *s,
    const char *name)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < s->n; i++)
		if (find_name(out, s, &s->src[i], name))
			return 1;
	return 0;
}
