/*
 * fuzz_store_spec.c: what names a store on the command line: the spec
 * (--store, $ENVPARITY_STORE: a path, file://, git://, http(s)://,
 * ssh://, user@host:path), the branch (--ref) and the profile, as
 * ep_store_open and the commands read them, then the spec as messages and
 * hints show it.  The input is spec, ref and profile separated by
 * newlines.
 *
 * Credentials in a spec must never be shown: the spec as displayed, the
 * bless hint and a scrubbed message must hold none of the secrets
 * ep_store_parse_spec set aside.  (Only secrets with a '|', which no
 * template holds, are looked for.)
 */
#include "fuzz.h"
#include "storeopt.h"
#include "store_int.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	git_libgit2_init();
	return 0;
}

/* A secret looked for: with a '|', and no part of what may be shown
 * (the display, and the ref and profile, which are not secret); without
 * a '*' (what scrubbing writes) or a '\'' (what shell quoting adds). */
static int
watched(const char *secret, const char *display, const char *ref,
    const char *profile)
{
	return strchr(secret, '|') != NULL && strpbrk(secret, "*'") == NULL &&
	    strstr(display, secret) == NULL && strstr(ref, secret) == NULL &&
	    strstr(profile, secret) == NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_store s;
	struct ep_store_opts so = { 0 };
	struct ep_err err = { 0 }, scrubbed, shown;
	const uint8_t *part;
	size_t partn;
	char *spec, *ref, *profile, *hint;
	int rc;

	fz_split(&data, &size, "\n", &part, &partn);
	spec = fz_cstr(part, partn);
	fz_split(&data, &size, "\n", &part, &partn);
	ref = fz_cstr(part, partn);
	profile = fz_cstr(data, size);

	memset(&s, 0, sizeof s);
	s.lockfd = -1;
	rc = ep_store_parse_spec(&s, spec, &err);
	FZ_CHECK(s.display != NULL);
	if (rc < 0)
		FZ_CHECK(err.kind == EP_E_INPUT);
	else
		FZ_CHECK(s.kind == EP_STORE_LOCAL ? s.path != NULL :
		    s.url != NULL);
	for (size_t i = 0; i < s.secrets.n; i++) {
		const char *sec = s.secrets.v[i];

		if (!watched(sec, s.display, ref, profile))
			continue;
		/* The display is quoted in messages, next to a template's
		 * bytes ("store DISPLAY: ..."): taken out first. */
		if (rc < 0) {
			shown = err;
			fz_blank(shown.msg, s.display);
			FZ_CHECK(strstr(shown.msg, sec) == NULL);
		}
		/* A message from below (libgit2's) that quotes the URL. */
		ep_err_set(&scrubbed, EP_E_IO, "store %s: fetch: %s: %s",
		    s.display, spec, sec);
		ep_store_scrub(&s, &scrubbed);
		fz_blank(scrubbed.msg, s.display);
		FZ_CHECK(strstr(scrubbed.msg, sec) == NULL);
	}
	if (ep_store_set_branch(&s, ref, &err) == 0)
		FZ_CHECK(s.branch != NULL && s.refname != NULL &&
		    strncmp(s.refname, "refs/heads/", 11) == 0);
	if (ep_profile_check(profile, &err) == 0) {
		so.spec = spec;
		so.ref = ref;
		hint = ep_storeopt_bless_hint(&so, profile);
		for (size_t i = 0; i < s.secrets.n; i++)
			if (watched(s.secrets.v[i], s.display, ref,
			    profile))
				FZ_CHECK(strstr(hint, s.secrets.v[i]) == NULL);
		free(hint);
	}
	free(s.display);
	free(s.url);
	free(s.path);
	free(s.direct);
	free(s.branch);
	free(s.refname);
	ep_strv_clear(&s.secrets);
	free(spec);
	free(ref);
	free(profile);
	return 0;
}
