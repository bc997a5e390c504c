/*
 * fuzz_cache.c: the hash cache file (ep_cache_open), read at the start of
 * every capture.  A damaged file must read as an empty cache, never as a
 * crash.  The first byte's low bit asks the harness to complete the rest
 * into a file that passes the integrity check (header, then the rest as
 * entry lines, then a trailer with their count and checksum, computed by
 * cache_line.c), so that the entry parser is reached; otherwise the rest
 * is the file as is.  Each line's stat fields are then looked up, and a
 * value stored and read back.
 */
#include <inttypes.h>
#include <sys/stat.h>

#include "cache_int.h"
#include "fuzz.h"

#define HEADER	"envparity-cache 1\n"

/* A stat from a line's fields, as far as they go. */
static void
stat_of(struct stat *st, char kind[64], const char *line)
{
	unsigned long long dev = 0, ino = 0;
	long long size = 0, ms = 0, mn = 0, cs = 0, cn = 0;

	memset(st, 0, sizeof *st);
	kind[0] = '\0';
	sscanf(line, "%63s %llu %llu %lld %lld.%lld %lld.%lld", kind, &dev,
	    &ino, &size, &ms, &mn, &cs, &cn);
	st->st_dev = (dev_t)dev;
	st->st_ino = (ino_t)ino;
	st->st_size = (off_t)size;
	st->st_mtim.tv_sec = (time_t)ms;
	/* As a real stat has them. */
	st->st_mtim.tv_nsec = (long)((unsigned long long)mn % 1000000000);
	st->st_ctim.tv_sec = (time_t)cs;
	st->st_ctim.tv_nsec = (long)((unsigned long long)cn % 1000000000);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_cache *c;
	struct stat st;
	char *file, *body, *line, *save = NULL, kind[64];
	const char *v;
	size_t len, lines = 0;

	if (size == 0 || size > (1 << 20))
		return 0;
	body = fz_cstr(data + 1, size - 1);
	if (data[0] & 1) {
		size_t bl = strlen(body), hl = strlen(HEADER);

		for (size_t i = 0; i < bl; i++)
			lines += body[i] == '\n';
		if (bl > 0 && body[bl - 1] != '\n')
			lines++;
		file = xmalloc(hl + bl + 64);
		memcpy(file, HEADER, hl);
		memcpy(file + hl, body, bl);
		len = hl + bl;
		if (bl > 0 && body[bl - 1] != '\n')
			file[len++] = '\n';
		len += (size_t)sprintf(file + len, "end %zu %016" PRIx64 "\n",
		    lines, ep_cache_checksum(file + hl, len - hl));
	} else {
		len = size - 1;
		file = xmalloc(len + 1);
		memcpy(file, data + 1, len);
	}
	c = ep_cache_open(fz_memfile((const uint8_t *)file, len));
	FZ_CHECK(c != NULL);

	for (line = strtok_r(body, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		stat_of(&st, kind, line);
		ep_cache_get(c, kind, &st);
		/* A stored value is found again (its timestamps are old
		 * enough to be trusted). */
		st.st_mtim.tv_sec = st.st_ctim.tv_sec = 1000000000;
		if (ep_cache_kind_valid(kind)) {
			ep_cache_put(c, kind, &st, "fuzz\\value\n");
			v = ep_cache_get(c, kind, &st);
			FZ_CHECK(v != NULL && strcmp(v, "fuzz\\value\n") == 0);
		}
	}
	ep_cache_free(c);
	free(file);
	free(body);
	return 0;
}
