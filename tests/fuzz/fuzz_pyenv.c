/*
 * fuzz_pyenv.c: what the Python collector learns about an interpreter
 * without pip: a virtual environment's pyvenv.cfg (ep_pyvenv_parse) and
 * the answer the interpreter prints to the query script, among whatever
 * else it prints (ep_pyquery_parse), with the versions each gives made
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
	struct ep_pyquery answer;
	struct ep_err err = { 0 };

	if (size == 0)
		return 0;
	if (data[0] & 1) {
		ep_pyvenv_parse(&venv, (const char *)data + 1, size - 1);
		version(venv.version);
		ep_pyvenv_clear(&venv);
	} else if (ep_pyquery_parse(&answer, (const char *)data + 1, size - 1,
	    &err) == 0) {
		FZ_CHECK(answer.version != NULL);
		version(answer.version);
		for (size_t i = 0; i < answer.sites.n; i++)
			FZ_CHECK(answer.sites.v[i] != NULL);
		ep_pyquery_clear(&answer);
	} else
		FZ_CHECK(err.kind == EP_E_IO && answer.version == NULL &&
		    answer.sites.n == 0);
	return 0;
}
