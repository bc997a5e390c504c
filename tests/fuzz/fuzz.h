/*
 * fuzz.h: what the fuzz harnesses (tests/fuzz/fuzz_<target>.c) share.
 * Each harness is one libFuzzer target: LLVMFuzzerTestOneInput() feeds
 * the bytes to a parser's real entry point, frees everything it got, and
 * aborts (a crash to libFuzzer) when a promise the parser's header makes
 * is broken.  The same sources are built twice: with clang and libFuzzer
 * (build-fuzz/, `make fuzz`), and with the project's compiler and
 * driver.c (build/fuzz/ and build-san/fuzz/, `make unit`), which replays
 * the corpora and the regression inputs in the normal test suite.
 *
 * Header-only: each harness is its own program.
 */
#ifndef EP_FUZZ_H
#define EP_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "xalloc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define FZ_UNUSED __attribute__((unused))

/* A broken promise: say which, and crash so that the input is kept. */
#define FZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: broken: %s\n", __FILE__,	\
		    __LINE__, #cond);					\
		abort();						\
	}								\
} while (0)

/* The n bytes at d as a new NUL-terminated string (a NUL inside ends it
 * early, as it would for a command-line argument or a file name). */
static FZ_UNUSED char *
fz_cstr(const uint8_t *d, size_t n)
{
	return xstrndup((const char *)d, n);
}

/* Split [*d, *d + *n) at the first occurrence of sep: the part before it
 * in *part, *partn; *d and *n moved past sep (or to the end). */
static FZ_UNUSED void
fz_split(const uint8_t **d, size_t *n, const char *sep,
    const uint8_t **part, size_t *partn)
{
	size_t sl = strlen(sep);
	const uint8_t *hit = memmem(*d, *n, sep, sl);

	*part = *d;
	if (hit == NULL) {
		*partn = *n;
		*d += *n;
		*n = 0;
		return;
	}
	*partn = (size_t)(hit - *d);
	*n -= *partn + sl;
	*d = hit + sl;
}

/* Every occurrence of shown (not empty) in text overwritten with '#', in
 * place: what a message may quote is taken out, so that a secret found in
 * what is left came from nowhere else. */
static FZ_UNUSED void
fz_blank(char *text, const char *shown)
{
	size_t n = strlen(shown);
	char *p = text;

	if (n == 0)
		return;
	/* On from after each one: shown may itself be made of '#'. */
	while ((p = strstr(p, shown)) != NULL) {
		memset(p, '#', n);
		p += n;
	}
}

/* The bytes as a file that parsers taking a path can open: an anonymous
 * memory file (nothing on disk), reached as /proc/self/fd/N.  The same
 * file is reused across inputs. */
static FZ_UNUSED const char *
fz_memfile(const uint8_t *d, size_t n)
{
	static char path[64];
	static int fd = -1;
	size_t off = 0;
	ssize_t w;

	if (fd < 0) {
		if ((fd = memfd_create("envparity-fuzz", MFD_CLOEXEC)) < 0) {
			perror("memfd_create");
			abort();
		}
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0)
		abort();
	while (off < n) {
		if ((w = pwrite(fd, d + off, n - off, (off_t)off)) <= 0)
			abort();
		off += (size_t)w;
	}
	return path;
}

#endif
