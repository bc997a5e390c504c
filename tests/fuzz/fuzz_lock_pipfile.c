/*
 * fuzz_lock_pipfile.c: pins from Pipfile.lock (lock.h).
 */
#include "lock.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_lock(data, size, EP_LOCK_PIPFILE);
}
