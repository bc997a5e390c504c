/*
 * fuzz_lock_conda.c: pins from conda explicit files, as conda-lock's
 * explicit render and `conda list --explicit` write them (lock.h).
 */
#include "lock.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_lock(data, size, EP_LOCK_CONDA);
}
