/*
 * fuzz_lock_requirements.c: pins from requirements*.txt, as pip-compile,
 * uv, poetry export and people write them (lock.h).
 */
#include "lock.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fz_lock(data, size, EP_LOCK_REQUIREMENTS);
}
