/*
 * fuzz_imgtar.c: the tar reader (ep_tar_open, ep_tar_read), as
 * `docker-archive:` references use it on the archives `docker save` and
 * skopeo write.  The input is the archive, handed over as a memory file;
 * every member it indexes is read back.
 */
#include "fuzz.h"
#include "imgtar.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_tar t;
	struct ep_err err = { 0 };
	const char *path = fz_memfile(data, size);
	char *buf;
	size_t len;

	if (ep_tar_open(&t, path, &err) < 0) {
		FZ_CHECK(err.kind == EP_E_INPUT && t.n == 0 && t.fd == -1);
		return 0;
	}
	for (size_t i = 0; i < t.n; i++) {
		const struct ep_tar_member *m = &t.v[i];

		FZ_CHECK(m->name[0] != '/' && m->off >= 512 && m->size >= 0 &&
		    (size_t)(m->off + m->size) <= size);
		FZ_CHECK(ep_tar_find(&t, m->name) == m);
		if (ep_tar_read(&t, m->name, 1 << 20, &buf, &len, &err) == 0) {
			FZ_CHECK(len == (size_t)m->size && buf[len] == '\0');
			FZ_CHECK(memcmp(buf, data + m->off, len) == 0);
			free(buf);
		} else
			FZ_CHECK(buf == NULL && (size_t)m->size > (1 << 20));
	}
	FZ_CHECK(ep_tar_read(&t, "no/such/member", 16, &buf, &len, &err) < 0);
	ep_tar_close(&t);
	return 0;
}
