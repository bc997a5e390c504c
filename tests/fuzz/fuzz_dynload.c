/*
 * fuzz_dynload.c: what a dlopen child writes back (name, tab, field,
 * tab, value, newline), as the CUDA and driver collectors read it
 * (ep_dynload_parse), and the version codes in it written out as
 * versions (ep_version_cuda, ep_version_code, ep_version_packed).
 */
#include <errno.h>

#include "dynload.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_dlrecs r = { 0 };
	char buf[64];
	size_t lines = 0;
	long code;

	ep_dynload_parse(&r, (const char *)data, size);
	for (size_t i = 0; i < size; i++)
		lines += data[i] == '\n';
	/* Every line is a record or counted bad; a last one cut off is
	 * bad too. */
	FZ_CHECK(r.n + r.bad == lines + (size > 0 && data[size - 1] != '\n'));
	for (size_t i = 0; i < r.n; i++) {
		FZ_CHECK(r.v[i].name[0] != '\0' && r.v[i].field[0] != '\0' &&
		    strchr(r.v[i].name, '\t') == NULL &&
		    strchr(r.v[i].field, '\t') == NULL);
		errno = 0;
		code = strtol(r.v[i].value, NULL, 10);
		ep_version_cuda(buf, sizeof buf, code);
		ep_version_code(buf, sizeof buf, code);
		ep_version_packed(buf, sizeof buf, (unsigned long)code);
		FZ_CHECK(strlen(buf) < sizeof buf);
	}
	ep_dlrecs_clear(&r);
	return 0;
}
