/*
 * fuzz_wheel_record.c: a wheel's RECORD (and METADATA), as the CUDA
 * collector reads them to learn which NVIDIA wheel installed a library
 * (ep_libwheel_find).  The RECORD parser works on files in place, so the
 * harness keeps a small site-packages in a temporary directory ($TMPDIR,
 * else /dev/shm, else /tmp), removed at exit: a library, and a dist-info whose RECORD is the input.  The
 * first byte's low bit picks the layout (pip's, or a relocated install's
 * a/b/r/dist-info/ folder); the rest is the RECORD, and after a form feed, if
 * any, the METADATA.
 */
#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>

#include "fuzz.h"
#include "libwheel.h"
#include "python.h"

#define LIBSIZE	100

static char *root, *pip_lib, *pip_record, *pip_meta, *rel_lib, *rel_record,
    *rel_meta;

static void
put(const char *path, const void *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || (n > 0 && write(fd, data, n) != (ssize_t)n) ||
	    close(fd) < 0) {
		perror(path);
		abort();
	}
}

static void
dir(const char *path)
{
	if (mkdir(path, 0755) < 0) {
		perror(path);
		abort();
	}
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

static void
cleanup(void)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *tmp = getenv("TMPDIR");
	char lib[LIBSIZE], *t, *p;

	(void)argc, (void)argv;
	/* Every input rewrites two files: in memory (/dev/shm) that is forty
	 * times quicker than on a disk that flushes a truncated file. */
	if (tmp == NULL || *tmp == '\0')
		tmp = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	t = xasprintf("%s/envparity-fuzz.XXXXXX", tmp);
	if (mkdtemp(t) == NULL || (root = realpath(t, NULL)) == NULL) {
		perror(t);
		abort();
	}
	free(t);
	atexit(cleanup);
	memset(lib, 'x', sizeof lib);
	/* pip: site/nvidia/cu/lib/libfz.so.1 and site/nvidia_cu-1.0.dist-info */
	p = xasprintf("%s/site", root), dir(p), free(p);
	p = xasprintf("%s/site/nvidia", root), dir(p), free(p);
	p = xasprintf("%s/site/nvidia/cu", root), dir(p), free(p);
	p = xasprintf("%s/site/nvidia/cu/lib", root), dir(p), free(p);
	p = xasprintf("%s/site/nvidia_cu-1.0.dist-info", root), dir(p), free(p);
	pip_lib = xasprintf("%s/site/nvidia/cu/lib/libfz.so.1", root);
	pip_record = xasprintf("%s/site/nvidia_cu-1.0.dist-info/RECORD", root);
	pip_meta = xasprintf("%s/site/nvidia_cu-1.0.dist-info/METADATA", root);
	put(pip_lib, lib, sizeof lib);
	/* relocated: a/b/r/lib/libfz.so.1 and a/b/r/dist-info/nvidia_cu-1.0.
	 * dist-info, deep enough that the walk up stops at root. */
	p = xasprintf("%s/a", root), dir(p), free(p);
	p = xasprintf("%s/a/b", root), dir(p), free(p);
	p = xasprintf("%s/a/b/r", root), dir(p), free(p);
	p = xasprintf("%s/a/b/r/lib", root), dir(p), free(p);
	p = xasprintf("%s/a/b/r/dist-info", root), dir(p), free(p);
	p = xasprintf("%s/a/b/r/dist-info/nvidia_cu-1.0.dist-info", root),
	    dir(p), free(p);
	rel_lib = xasprintf("%s/a/b/r/lib/libfz.so.1", root);
	rel_record = xasprintf("%s/a/b/r/dist-info/nvidia_cu-1.0.dist-info/"
	    "RECORD", root);
	rel_meta = xasprintf("%s/a/b/r/dist-info/nvidia_cu-1.0.dist-info/"
	    "METADATA", root);
	put(rel_lib, lib, sizeof lib);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_libwheel w;
	const uint8_t *record;
	size_t recordn;
	int relocated, found;

	if (size == 0)
		return 0;
	relocated = data[0] & 1;
	data++, size--;
	fz_split(&data, &size, "\f", &record, &recordn);
	put(relocated ? rel_record : pip_record, record, recordn);
	put(relocated ? rel_meta : pip_meta, data, size);

	found = ep_libwheel_find(&w, relocated ? rel_lib : pip_lib, NULL);
	FZ_CHECK(found == 0 || found == 1);
	if (found) {
		char *norm = ep_pep503_normalize(w.name);

		FZ_CHECK(strcmp(norm, w.name) == 0);
		FZ_CHECK(w.version != NULL && w.version[0] != '\0');
		FZ_CHECK(w.sha256[0] == '\0' ||
		    (strlen(w.sha256) == 64 &&
		    strspn(w.sha256, "0123456789abcdef") == 64));
		free(norm);
	} else
		FZ_CHECK(w.name == NULL && w.version == NULL);
	ep_libwheel_clear(&w);
	return 0;
}
