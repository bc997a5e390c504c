/*
 * fuzz_lock_toml.c: pins from poetry.lock, uv.lock, pylock.toml and
 * pdm.lock (lock.h).  The first byte's two low bits pick the format
 * (0 poetry, 1 uv, 2 pylock.toml, 3 pdm); the rest is the file.
 */
#include "lock.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	static const enum ep_lock_format f[] = { EP_LOCK_POETRY, EP_LOCK_UV,
	    EP_LOCK_PYLOCK, EP_LOCK_PDM };

	return fz_lock(data + 1, size - 1, f[data[0] & 3]);
}
