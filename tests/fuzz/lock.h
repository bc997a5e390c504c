/*
 * lock.h: the body the lockfile harnesses share (fuzz_lock_*.c): parse
 * the input as one format through ep_lock_parse, as `capture --lockfile`
 * does, then merge the pins as the collector does.  What lockfile.h
 * promises is checked: a failure adds no pins and names the input and a
 * line; Python names come out PEP 503 normalized; direct references keep
 * no credentials, query or fragment; pdm.lock's and pylock.toml's hashes
 * are "ALG:HEX".  And the pins are judged as the capture judges them
 * (lockjudge.h), by default and with a group named, against installed
 * versions of some of them: every finding is missing, version or extra,
 * the first two with the pin.
 */
#ifndef EP_FUZZ_LOCK_H
#define EP_FUZZ_LOCK_H

#include "fuzz.h"
#include "lockfile.h"
#include "lockjudge.h"
#include "manifest.h"

/* "ALG:HEX": a short name, then hex digits only. */
static void
fz_lock_check_hash(const char *h)
{
	const char *colon = strchr(h, ':');

	FZ_CHECK(colon != NULL && colon > h && colon - h <= 16);
	FZ_CHECK(colon[1] != '\0' &&
	    strspn(colon + 1, "0123456789abcdefABCDEF") == strlen(colon + 1));
}

/* The pins judged against a manifest that has every other one installed
 * (at its version, or another): the judgement's promises. */
static void
fz_lock_judge(const struct ep_pins *pins, enum ep_lock_format f, int group)
{
	static const struct ep_markerenv env = { {
		[EP_MV_OS_NAME] = "posix", [EP_MV_PLATFORM_MACHINE] = "x86_64",
		[EP_MV_PLATFORM_SYSTEM] = "Linux",
		[EP_MV_PYTHON_VERSION] = "3.11",
		[EP_MV_SYS_PLATFORM] = "linux" } };
	struct ep_manifest *m = ep_manifest_new();
	struct ep_strv groups = { 0 };
	struct ep_lockjudge lj = { .groups = &groups, .env = &env,
	    .conda_platform = "linux-64" };
	json_t *j, *fs, *fd;
	const char *name, *kind;
	char *key;

	if (group)
		ep_strv_push(&groups, "dev");
	for (size_t i = 0; i < pins->n; i += 2) {
		key = xasprintf("%s.pkg.%s", f == EP_LOCK_CONDA ||
		    f == EP_LOCK_CONDA_LOCK || f == EP_LOCK_PIXI ? "conda" :
		    "python", pins->v[i].name);
		ep_manifest_set(m, key, i % 4 == 0 ? pins->v[i].version : "0");
		free(key);
	}
	j = ep_lock_judge(m, f, pins, &lj);
	fs = json_object_get(j, "findings");
	FZ_CHECK(json_is_object(fs));
	FZ_CHECK(json_integer_value(json_object_get(j, "pins")) +
	    json_integer_value(json_object_get(j, "unjudged")) <=
	    (json_int_t)pins->n);
	json_object_foreach(fs, name, fd) {
		kind = json_string_value(json_object_get(fd, "kind"));
		FZ_CHECK(kind != NULL);
		if (strcmp(kind, "extra") == 0)
			FZ_CHECK(json_object_get(fd, "installed") != NULL);
		else
			FZ_CHECK((strcmp(kind, "missing") == 0 ||
			    strcmp(kind, "version") == 0) &&
			    json_object_get(fd, "pin") != NULL);
	}
	json_decref(j);
	ep_strv_clear(&groups);
	ep_manifest_free(m);
}

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
		if ((f == EP_LOCK_PDM || f == EP_LOCK_PYLOCK) &&
		    p->hash != NULL)
			fz_lock_check_hash(p->hash);
	}
	fz_lock_judge(&pins, f, size & 1);
	ep_pins_merge(&pins);
	for (size_t i = 1; i < pins.n; i++)
		FZ_CHECK(strcmp(pins.v[i - 1].name, pins.v[i].name) < 0);
	ep_pins_clear(&pins);
	return 0;
}

#endif
