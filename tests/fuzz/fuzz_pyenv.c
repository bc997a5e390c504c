/*
 * fuzz_pyenv.c: what the Python collector learns about an interpreter
 * without pip: a virtual environment's pyvenv.cfg (ep_pyvenv_parse) and
 * the answer the interpreter prints to the probe script, among whatever
 * else it prints (ep_pyprobe_parse), with the versions each gives made
 * python.version (ep_python_version_norm).  The first byte's low bit
 * picks which; the rest is the text.
 */
#include "fuzz.h"
#include "python.h"

static void
version(const char *v)
{
	char *norm;

	if (v == NULL)
		return;
	norm = ep_python_version_norm(v);
	FZ_CHECK(norm == NULL || (norm[0] >= '0' && norm[0] <= '9'));
	free(norm);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_pyvenv venv;
	struct ep_pyprobe probe;
	struct ep_err err = { 0 };

	if (size == 0)
		return 0;
	if (data[0] & 1) {
		ep_pyvenv_parse(&venv, (const char *)data + 1, size - 1);
		version(venv.version);
		ep_pyvenv_clear(&venv);
	} else if (ep_pyprobe_parse(&probe, (const char *)data + 1, size - 1,
	    &err) == 0) {
		FZ_CHECK(probe.version != NULL);
		version(probe.version);
		for (size_t i = 0; i < probe.sites.n; i++)
			FZ_CHECK(probe.sites.v[i] != NULL);
		ep_pyprobe_clear(&probe);
	} else
		FZ_CHECK(err.kind == EP_E_IO && probe.version == NULL &&
		    probe.sites.n == 0);
	return 0;
}
