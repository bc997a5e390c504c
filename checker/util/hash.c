/*
 * hash.c: SHA-256 of files and buffers through OpenSSL's EVP interface,
 * the only module that includes OpenSSL.
 *
 * ep_hash_files() answers what it can from the cache in the calling
 * thread, hashes the misses on a few pthreads (largest file first, taken
 * from a shared atomic index, so the workers finish together), and then
 * stores the new hashes in the cache, again in the calling thread, because
 * the cache is not thread-safe.
 */
#include "hash.h"
#include "progress.h"
#include "errors.h"
#include "files.h"
#include "xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

/*
 * read() into a buffer that stays in the core's L2 cache.  Measured on the
 * build machine (2 cores, SHA-NI, 2.5 GB of CUDA libraries, page cache
 * warm): read() with 128 KiB to 1 MiB buffers ran at the two-core limit of
 * `openssl speed`, mmap() 10% slower; mmap() would also turn a file
 * truncated while we hash it into SIGBUS.
 */
#define HASH_BUFSIZE	(256 * 1024)
#define HASH_MAXTHREADS	64
#define CACHE_KIND	"sha256"

/* A job the cache could not answer. */
struct miss {
	struct ep_hash_job *job;
	struct ep_hash_job *same;	/* another path to the same file, whose
					   result this one copies; or NULL */
	struct stat pre;		/* stat before: identity and size */
	struct stat st;			/* fstat when opened */
	int stable;			/* unchanged while we read it */
	unsigned long long bytes;	/* bytes read */
};

struct pool {
	struct miss *miss;
	size_t n;
	atomic_size_t next;
	struct ep_progress prog;	/* files and bytes read */
};

/* One digest context and buffer per worker, reused for every file. */
struct worker {
	EVP_MD_CTX *ctx;
	unsigned char *buf;
	struct ep_progress *prog;	/* or NULL */
};

static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;
static EVP_MD *sha256_md;

/* Fetch the implementation once: EVP_sha256() would make every
 * EVP_DigestInit_ex() look it up again in OpenSSL 3.  OpenSSL 1.1.1 (the
 * relocatable build's, tools/reloc.sh) has no fetch: EVP_sha256() it is. */
static void
sha256_fetch(void)
{
#if OPENSSL_VERSION_NUMBER >= 0x30000000L
	sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
#endif
}

static const EVP_MD *
sha256(void)
{
	pthread_once(&sha256_once, sha256_fetch);
	return sha256_md != NULL ? sha256_md : EVP_sha256();
}

static void
tohex(char hex[EP_SHA256_HEX], const unsigned char *md)
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < 32; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 0xf];
	}
	hex[64] = '\0';
}

/* 1 if s is 64 lowercase hex digits: a cached value we can believe. */
static int
is_digest(const char *s)
{
	size_t i;

	for (i = 0; i < EP_SHA256_HEX - 1; i++)
		if (!((s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[i] == '\0';
}

static int
same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	    a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

static void
worker_init(struct worker *w)
{
	/* Only allocation can fail here: abort, as xmalloc() does. */
	if ((w->ctx = EVP_MD_CTX_new()) == NULL)
		abort();
	w->buf = xmalloc(HASH_BUFSIZE);
	w->prog = NULL;
}

static void
worker_free(struct worker *w)
{
	EVP_MD_CTX_free(w->ctx);
	free(w->buf);
}

/*
 * Hash the file at path into hex.  *st is the fstat taken when it was
 * opened, *stable says whether the file looked the same after reading it,
 * *bytes counts what was read.  On failure *errmsg is an owned message
 * naming the path.
 */
static int
hash_path(struct worker *w, char hex[EP_SHA256_HEX], const char *path,
    struct stat *st, int *stable, unsigned long long *bytes, char **errmsg)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen;
	struct stat after;
	struct ep_err oerr = { 0 };
	ssize_t r;
	int fd, rc = -1;

	*stable = 0;
	*bytes = 0;
	hex[0] = '\0';
	/* A regular file on a real file system only, read without ever
	 * blocking: a FIFO put in place of the file, or /proc/kmsg (a
	 * "regular" file whose read blocks), cannot hang us. */
	if ((fd = ep_open_regular(path, st, &oerr)) < 0) {
		*errmsg = xstrdup(oerr.msg);
		return -1;
	}
	(void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);

	if (EVP_DigestInit_ex(w->ctx, sha256(), NULL) != 1) {
		*errmsg = xasprintf("%s: SHA-256 unavailable in OpenSSL", path);
		goto done;
	}
	for (;;) {
		r = read(fd, w->buf, HASH_BUFSIZE);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			*errmsg = xasprintf("%s: %s", path, strerror(errno));
			goto done;
		}
		if (r == 0)
			break;
		EVP_DigestUpdate(w->ctx, w->buf, (size_t)r);
		*bytes += (unsigned long long)r;
		if (w->prog != NULL)
			ep_progress_add(w->prog, 0, (unsigned long long)r);
	}
	if (EVP_DigestFinal_ex(w->ctx, md, &mdlen) != 1 || mdlen != 32) {
		*errmsg = xasprintf("%s: SHA-256 failed in OpenSSL", path);
		goto done;
	}
	tohex(hex, md);
	/* A file written while we read it gets the hash of what we read,
	 * but it is not cached: the next capture looks again. */
	*stable = fstat(fd, &after) == 0 && same_file(st, &after) &&
	    *bytes == (unsigned long long)st->st_size;
	rc = 0;
done:
	close(fd);
	return rc;
}

static void *
worker_main(void *arg)
{
	struct pool *p = arg;
	struct worker w;
	size_t k;

	worker_init(&w);
	w.prog = &p->prog;
	while ((k = atomic_fetch_add(&p->next, 1)) < p->n) {
		(void)hash_path(&w, p->miss[k].job->hex, p->miss[k].job->path,
		    &p->miss[k].st, &p->miss[k].stable, &p->miss[k].bytes,
		    &p->miss[k].job->error);
		ep_progress_add(&p->prog, 1, 0);
	}
	worker_free(&w);
	return NULL;
}

/* By file identity, so that paths to one file end up side by side. */
static int
cmp_ident(const void *a, const void *b)
{
	const struct miss *x = a, *y = b;

	if (x->pre.st_dev != y->pre.st_dev)
		return x->pre.st_dev < y->pre.st_dev ? -1 : 1;
	if (x->pre.st_ino != y->pre.st_ino)
		return x->pre.st_ino < y->pre.st_ino ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

/* Files to read first, largest first; copies last. */
static int
cmp_work(const void *a, const void *b)
{
	const struct miss *x = a, *y = b;

	if ((x->same == NULL) != (y->same == NULL))
		return x->same == NULL ? -1 : 1;
	if (x->pre.st_size != y->pre.st_size)
		return x->pre.st_size > y->pre.st_size ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

/*
 * Order the misses for the pool: each file once (a library reached by two
 * symbolic links, two keys naming one file), largest first, with the other
 * paths to an already listed file at the end.  Returns how many to read.
 */
static size_t
plan(struct miss *miss, size_t n)
{
	size_t nread = 0;

	qsort(miss, n, sizeof *miss, cmp_ident);
	for (size_t i = 0, first = 0; i < n; i++) {
		if (i > 0 && miss[i].pre.st_dev == miss[first].pre.st_dev &&
		    miss[i].pre.st_ino == miss[first].pre.st_ino)
			miss[i].same = miss[first].job;
		else {
			first = i;
			nread++;
		}
	}
	qsort(miss, n, sizeof *miss, cmp_work);
	return nread;
}

static unsigned
pick_threads(unsigned nthreads, size_t nmiss)
{
	long ncpu;

	if (nthreads == 0) {
		ncpu = sysconf(_SC_NPROCESSORS_ONLN);
		nthreads = ncpu > 0 ? (unsigned)ncpu : 1;
	}
	if (nthreads > HASH_MAXTHREADS)
		nthreads = HASH_MAXTHREADS;
	if (nthreads > nmiss)
		nthreads = (unsigned)nmiss;
	return nthreads;
}

/*
 * Run the pool on nthreads workers, the calling thread being one of them.
 * A thread that cannot be created only makes the others take more files.
 */
static void
run_pool(struct pool *p, unsigned nthreads)
{
	pthread_t tids[HASH_MAXTHREADS];
	unsigned started = 0;

	while (started + 1 < nthreads &&
	    pthread_create(&tids[started], NULL, worker_main, p) == 0)
		started++;
	worker_main(p);
	for (unsigned i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
}

int
ep_hash_files(struct ep_hash_job *jobs, size_t n, struct ep_cache *cache,
    unsigned nthreads, struct ep_hash_stats *stats, struct ep_err *err)
{
	struct ep_hash_stats s = { 0 };
	struct pool p = { 0 };
	struct worker w;
	struct stat st;
	size_t nmiss = 0;
	const char *v;

	(void)err;	/* each job fails alone; the call does not */
	s.files = n;
	p.miss = xcalloc(n, sizeof *p.miss);
	for (size_t i = 0; i < n; i++) {
		struct ep_hash_job *j = &jobs[i];

		j->hex[0] = '\0';
		j->error = NULL;
		j->cached = 0;
		if (stat(j->path, &st) < 0) {
			j->error = xasprintf("%s: %s", j->path,
			    strerror(errno));
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			j->error = xasprintf("%s: not a regular file",
			    j->path);
			continue;
		}
		if (cache != NULL &&
		    (v = ep_cache_get(cache, CACHE_KIND, &st)) != NULL &&
		    is_digest(v)) {
			memcpy(j->hex, v, EP_SHA256_HEX);
			j->cached = 1;
			s.cached++;
			continue;
		}
		p.miss[nmiss].job = j;
		p.miss[nmiss].pre = st;
		nmiss++;
	}

	p.n = plan(p.miss, nmiss);
	atomic_init(&p.next, 0);
	if (p.n > 0) {
		unsigned long long total = 0;

		for (size_t i = 0; i < p.n; i++)
			total += (unsigned long long)p.miss[i].pre.st_size;
		ep_progress_start(&p.prog, "hashing", "files", p.n, total);
		run_pool(&p, pick_threads(nthreads, p.n));
		ep_progress_end(&p.prog);
	}

	for (size_t i = 0; i < nmiss; i++) {
		struct miss *m = &p.miss[i];

		if (m->same != NULL && m->same->error == NULL) {
			memcpy(m->job->hex, m->same->hex, EP_SHA256_HEX);
			continue;
		}
		if (m->same != NULL) {
			/* Read it again, so that its error names its path:
			 * rare enough to do here, alone. */
			worker_init(&w);
			(void)hash_path(&w, m->job->hex, m->job->path, &m->st,
			    &m->stable, &m->bytes, &m->job->error);
			worker_free(&w);
		}
		s.bytes += m->bytes;
		if (m->job->error == NULL && m->stable && cache != NULL)
			ep_cache_put(cache, CACHE_KIND, &m->st, m->job->hex);
	}
	if (stats != NULL)
		*stats = s;
	free(p.miss);
	return 0;
}

void
ep_hash_jobs_clear(struct ep_hash_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(jobs[i].error);
		jobs[i].error = NULL;
	}
}

int
ep_hash_file(char hex[EP_SHA256_HEX], const char *path, struct ep_err *err)
{
	struct worker w;
	struct stat st;
	unsigned long long bytes;
	char *msg = NULL;
	int stable, rc;

	worker_init(&w);
	rc = hash_path(&w, hex, path, &st, &stable, &bytes, &msg);
	if (rc < 0)
		ep_err_set(err, EP_E_INPUT, "%s", msg);
	free(msg);
	worker_free(&w);
	return rc;
}

void
ep_hash_buf(char hex[EP_SHA256_HEX], const void *data, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;

	if (EVP_Digest(data, len, md, &mdlen, sha256(), NULL) != 1 ||
	    mdlen != 32) {
		/* Only an OpenSSL without SHA-256 gets here. */
		abort();
	}
	tohex(hex, md);
}

const char *
ep_hash_library_version(void)
{
	return OpenSSL_version(OPENSSL_VERSION);
}
