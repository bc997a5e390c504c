/*
 * fuzz_lock_yaml.c: pins from conda-lock.yml and pixi.lock, YAML read
 * through libyaml (lock.h).  The first byte's low bit picks the format
 * (0 conda-lock.yml, 1 pixi.lock); the rest is the file.  Beyond lock.h's
 * promises: no kept name or version holds a control character.
 */
#include "lock.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum ep_lock_format f;
	struct ep_pins pins = { 0 };
	struct ep_err err = { 0 };

	if (size == 0)
		return 0;
	f = (data[0] & 1) ? EP_LOCK_PIXI : EP_LOCK_CONDA_LOCK;
	if (ep_lock_parse(&pins, f, (const char *)data + 1, size - 1, "fuzz",
	    &err) == 0)
		for (size_t i = 0; i < pins.n; i++)
			for (const char *c = pins.v[i].version; *c != '\0'; c++)
				FZ_CHECK((unsigned char)*c >= 0x20 && *c != 0x7f);
	ep_pins_clear(&pins);
	return fz_lock(data + 1, size - 1, f);
}
