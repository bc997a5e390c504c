/*
 * fuzz_regchal.c: WWW-Authenticate challenges (ep_regchal_parse), as the
 * registry client reads them from a 401, then what it does with a Bearer
 * challenge: the token URL to ask (ep_regauth_token_url) and the realm as
 * messages show it (ep_regauth_redact_url).
 */
#include "fuzz.h"
#include "regauth.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ep_regchal c;
	struct ep_err err = { 0 };
	char *header = fz_cstr(data, size), *url, *shown;
	const char *host, *end;

	if (ep_regchal_parse(&c, header, &err) < 0) {
		FZ_CHECK(err.kind == EP_E_IO && c.realm == NULL &&
		    strncmp(err.msg, "malformed WWW-Authenticate", 26) == 0);
		free(header);
		return 0;
	}
	FZ_CHECK(c.scheme == EP_CHAL_NONE || c.scheme == EP_CHAL_BASIC ||
	    c.scheme == EP_CHAL_BEARER);
	if (c.scheme == EP_CHAL_BEARER) {
		FZ_CHECK(c.realm != NULL);
		url = ep_regauth_token_url(&c, "library/ubuntu");
		FZ_CHECK(strncmp(url, c.realm, strlen(c.realm)) == 0);
		FZ_CHECK(strstr(url, "scope=repository%3Alibrary%2Fubuntu"
		    "%3Apull") != NULL);
		free(url);
		/* No userinfo and no query left to show. */
		shown = ep_regauth_redact_url(c.realm);
		host = strstr(shown, "://");
		host = host != NULL ? host + 3 : shown;
		end = host + strcspn(host, "/?#");
		FZ_CHECK(memchr(host, '@', (size_t)(end - host)) == NULL);
		FZ_CHECK(strpbrk(shown, "?#") == NULL);
		free(shown);
	}
	ep_regchal_clear(&c);
	free(header);
	return 0;
}
