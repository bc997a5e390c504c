/*
 * lock.h: the body the lockfile harnesses share (fuzz_lock_*.c): parse
 * the input as one format through ep_lock_parse, as `capture --lockfile`
 * does, then merge the pins as the collector does.  What lockfile.h
 * promises is checked: a failure adds no pins and names the input and a
 * line; Python names come out PEP 503 normalized; direct references keep
 * no credentials, query or fragment.
 */
#ifndef EP_FUZZ_LOCK_H
#define EP_FUZZ_LOCK_H

#include "fuzz.h"
#include "lockfile.h"

/* "@ URL" pins: the URL without userinfo, query or fragment. */
static void
fz_lock_check_url(const char *v)
{
	const char *auth, *end;

	FZ_CHECK(strpbrk(v, "?#") == NULL);
	if ((auth = strstr(v, "://")) == NULL)
		return;
	auth += 3;
	end = auth + strcspn(auth, "/");
	FZ_CHECK(memchr(auth, '@', (size_t)(end - auth)) == NULL);
}

static int
fz_lock(const uint8_t *data, size_t size, enum ep_lock_format f)
{
	struct ep_pins pins = { 0 };
	struct ep_err err = { 0 };
	char *norm;

	/* A pin already there must survive a failed parse. */
	ep_pins_add(&pins, "zz-already-there", "1");
	if (ep_lock_parse(&pins, f, (const char *)data, size, "fuzz",
	    &err) < 0) {
		FZ_CHECK(pins.n == 1 && err.kind == EP_E_INPUT &&
		    strncmp(err.msg, "fuzz:", 5) == 0);
		ep_pins_clear(&pins);
		return 0;
	}
	for (size_t i = 1; i < pins.n; i++) {
		const struct ep_pin *p = &pins.v[i];

		FZ_CHECK(p->name[0] != '\0' && p->version != NULL);
		/* conda names are kept as written. */
		if (f != EP_LOCK_CONDA && f != EP_LOCK_CONDA_LOCK &&
		    f != EP_LOCK_PIXI) {
			norm = ep_lock_pep503(p->name, strlen(p->name));
			FZ_CHECK(strcmp(norm, p->name) == 0);
			free(norm);
		}
		/* requirements*.txt is the format with direct references;
		 * the others record versions as the file writes them. */
		if (f == EP_LOCK_REQUIREMENTS &&
		    strncmp(p->version, "@ ", 2) == 0)
			fz_lock_check_url(p->version + 2);
	}
	ep_pins_merge(&pins);
	for (size_t i = 1; i < pins.n; i++)
		FZ_CHECK(strcmp(pins.v[i - 1].name, pins.v[i].name) < 0);
	ep_pins_clear(&pins);
	return 0;
}

#endif
