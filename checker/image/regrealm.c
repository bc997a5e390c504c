/*
 * regrealm.c: which token server a registry's credentials may go to
 * (the realm its challenge names is the registry's word, not ours), and
 * the host[:port] of URLs and options, read strictly.  Declared in
 * regauth.h; no network.
 */
#include "regauth.h"
#include "strv.h"
#include "xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Split authority a[0..n), a plain host[:port] (the host letters,
 * digits, '.' and '-', or "[...]" of hex digits, ':' and '.'): 0 with
 * *host, *hlen and *port (-1 when none is written), or -1 when a is
 * anything else. */
static int
authority_split(const char *a, size_t n, const char **host, size_t *hlen,
    long *port)
{
	size_t i = 0;

	if (n > 0 && a[0] == '[') {
		while (i < n && a[i] != ']') {
			if (i > 0 && !isxdigit((unsigned char)a[i]) &&
			    a[i] != ':' && a[i] != '.')
				return -1;
			i++;
		}
		if (i == n || i < 2)
			return -1;
		i++;
	} else
		while (i < n && (isalnum((unsigned char)a[i]) ||
		    a[i] == '.' || a[i] == '-'))
			i++;
	if (i == 0)
		return -1;
	*host = a;
	*hlen = i;
	*port = -1;
	if (i == n)
		return 0;
	if (a[i] != ':' || i + 1 == n || n - i - 1 > 5)
		return -1;
	*port = 0;
	for (i++; i < n; i++) {
		if (!isdigit((unsigned char)a[i]))
			return -1;
		*port = *port * 10 + (a[i] - '0');
	}
	return 0;
}

/* Host h[0..hn) equals host[:port] s's host, case aside. */
static int
host_is(const char *h, size_t hn, const char *s)
{
	const char *sh;
	size_t sn;
	long sp;

	if (authority_split(s, strlen(s), &sh, &sn, &sp) < 0)
		return 0;
	return sn == hn && strncasecmp(h, sh, hn) == 0;
}

int
ep_regauth_realm_trusted(const char *realm, const char *registry,
    const char *api_host, const struct ep_strv *trusted)
{
	static const struct {
		const char *registry, *realm;
	} known[] = {
		{ "docker.io", "auth.docker.io" },
		{ "index.docker.io", "auth.docker.io" },
		{ "registry-1.docker.io", "auth.docker.io" },
		{ "nvcr.io", "authn.nvidia.com" },
	};
	const char *a, *host;
	size_t n, hn;
	long port;
	int https;

	if (strncasecmp(realm, "https://", 8) == 0)
		https = 1;
	else if (strncasecmp(realm, "http://", 7) == 0)
		https = 0;
	else
		return 0;
	a = realm + (https ? 8 : 7);
	n = strcspn(a, "/?#");
	if (authority_split(a, n, &host, &hn, &port) < 0)
		return 0;
	if (port < 0)
		port = https ? 443 : 80;
	if (host_is(host, hn, registry) || host_is(host, hn, api_host))
		return 1;
	for (size_t i = 0; trusted != NULL && i < trusted->n; i++) {
		const char *th;
		size_t tn;
		long tp;

		if (authority_split(trusted->v[i], strlen(trusted->v[i]), &th,
		    &tn, &tp) == 0 && tn == hn &&
		    strncasecmp(th, host, hn) == 0 && (tp < 0 || tp == port))
			return 1;
	}
	for (size_t i = 0; https && port == 443 &&
	    i < sizeof known / sizeof known[0]; i++)
		if (strcasecmp(registry, known[i].registry) == 0 &&
		    strlen(known[i].realm) == hn &&
		    strncasecmp(host, known[i].realm, hn) == 0)
			return 1;
	return 0;
}

int
ep_regauth_hostport_valid(const char *s)
{
	const char *h;
	size_t hn;
	long port;

	return authority_split(s, strlen(s), &h, &hn, &port) == 0;
}

char *
ep_regauth_url_authority(const char *url)
{
	const char *p = strstr(url, "://"), *at, *end;

	p = p != NULL ? p + 3 : url;
	end = p + strcspn(p, "/?#");
	for (at = p; at < end; at++)
		if (*at == '@')
			p = at + 1;
	return xstrndup(p, (size_t)(end - p));
}
