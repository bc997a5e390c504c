/*
 * fuzz_lock_toml.c: pins from poetry.lock and uv.lock (lock.h).  The
 * first byte's low bit picks uv's rules; the rest is the file.
 */
#include "lock.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	return fz_lock(data + 1, size - 1,
	    (data[0] & 1) ? EP_LOCK_UV : EP_LOCK_POETRY);
}
