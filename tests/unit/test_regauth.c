/*
 * test_regauth.c: registry authentication without the network:
 * WWW-Authenticate challenges (quoted commas, escapes, several
 * challenges), token URLs, which token servers may have the credentials,
 * URLs redacted for messages, credentials files
 * (docker's and podman's shapes, docker.io's aliases, namespaced keys,
 * the order of the files, malformed files) and Retry-After.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regauth.h"
#include "regxfer.h"
#include "testutil.h"
#include "errors.h"
#include "files.h"
#include "str.h"
#include "strv.h"
#include "xalloc.h"

static void
test_challenge(void **state)
{
	struct ep_regchal c;
	struct ep_err err = { 0 };

	(void)state;
	assert_int_equal(ep_regchal_parse(&c, "Bearer realm=\"https://auth"
	    ".docker.io/token\",service=\"registry.docker.io\",scope=\""
	    "repository:library/ubuntu:pull,push\"", &err), 0);
	assert_int_equal(c.scheme, EP_CHAL_BEARER);
	assert_string_equal(c.realm, "https://auth.docker.io/token");
	assert_string_equal(c.service, "registry.docker.io");
	/* The comma inside the quotes is the value's. */
	assert_string_equal(c.scope, "repository:library/ubuntu:pull,push");
	ep_regchal_clear(&c);

	/* Case, spaces, a token value, an escaped quote. */
	assert_int_equal(ep_regchal_parse(&c, "bearer  realm = \"https://h/"
	    "t?a=\\\"b\\\"\" , service=reg.example", &err), 0);
	assert_int_equal(c.scheme, EP_CHAL_BEARER);
	assert_string_equal(c.realm, "https://h/t?a=\"b\"");
	assert_string_equal(c.service, "reg.example");
	assert_null(c.scope);
	ep_regchal_clear(&c);

	assert_int_equal(ep_regchal_parse(&c, "Basic realm=\"envparity, "
	    "test\"", &err), 0);
	assert_int_equal(c.scheme, EP_CHAL_BASIC);
	assert_null(c.service);
	ep_regchal_clear(&c);

	/* Several challenges: Bearer wins; unknown schemes skipped. */
	assert_int_equal(ep_regchal_parse(&c, "Negotiate abc==, Basic "
	    "realm=\"a,b\", Bearer realm=\"https://t/\",service=\"s\"",
	    &err), 0);
	assert_int_equal(c.scheme, EP_CHAL_BEARER);
	assert_string_equal(c.realm, "https://t/");
	ep_regchal_clear(&c);
	assert_int_equal(ep_regchal_parse(&c, "Negotiate", &err), 0);
	assert_int_equal(c.scheme, EP_CHAL_NONE);
	ep_regchal_clear(&c);

	/* Malformed. */
	assert_int_equal(ep_regchal_parse(&c, "Bearer service=\"s\"", &err),
	    -1);
	assert_string_equal(err.msg, "malformed WWW-Authenticate: Bearer "
	    "challenge without realm");
	/* Unterminated: the offset is the opening quote's. */
	assert_int_equal(ep_regchal_parse(&c, "Bearer realm=\"https://x",
	    &err), -1);
	assert_string_equal(err.msg, "malformed WWW-Authenticate at offset "
	    "13");
	assert_int_equal(ep_regchal_parse(&c, "Basic realm=\"a\", Bearer "
	    "realm=\"https://t/\", service=\"s\\\"", &err), -1);
	assert_string_equal(err.msg, "malformed WWW-Authenticate at offset "
	    "52");
	assert_int_equal(ep_regchal_parse(&c, "Bearer realm=", &err), -1);
	assert_int_equal(ep_regchal_parse(&c, "Bearer realm=\"x\" junk",
	    &err), -1);
	assert_int_equal(err.kind, EP_E_IO);
}

/* Which token servers a registry's credentials may go to. */
static void
test_realm_trusted(void **state)
{
	struct ep_strv none = { 0 }, named = { 0 };

	(void)state;
	/* The registry's own host, any port, either of its names. */
	assert_true(ep_regauth_realm_trusted("https://ghcr.io/token",
	    "ghcr.io", "ghcr.io", &none));
	assert_true(ep_regauth_realm_trusted("https://Quay.IO/v2/auth",
	    "quay.io", "quay.io", &none));
	assert_true(ep_regauth_realm_trusted("http://127.0.0.1:5001/token",
	    "127.0.0.1:5000", "127.0.0.1:5000", &none));
	assert_true(ep_regauth_realm_trusted("https://[::1]:1/t", "[::1]:5000",
	    "[::1]:5000", &none));
	assert_true(ep_regauth_realm_trusted("https://nvcr.io/proxy_auth?a=b",
	    "nvcr.io", "nvcr.io", &none));
	/* The known pairs, over https on its port only. */
	assert_true(ep_regauth_realm_trusted("https://auth.docker.io/token",
	    "docker.io", "registry-1.docker.io", &none));
	assert_true(ep_regauth_realm_trusted("https://auth.docker.io/token",
	    "registry-1.docker.io", "registry-1.docker.io", &none));
	assert_true(ep_regauth_realm_trusted("https://authn.nvidia.com/token",
	    "nvcr.io", "nvcr.io", &none));
	assert_false(ep_regauth_realm_trusted("http://auth.docker.io/token",
	    "docker.io", "registry-1.docker.io", &none));
	assert_false(ep_regauth_realm_trusted("https://auth.docker.io:8443/"
	    "token", "docker.io", "registry-1.docker.io", &none));
	assert_false(ep_regauth_realm_trusted("https://authn.nvidia.com/token",
	    "ghcr.io", "ghcr.io", &none));
	assert_false(ep_regauth_realm_trusted("https://auth.docker.io/token",
	    "reg.example", "reg.example", &none));
	/* Another host: not without --registry-auth-realm. */
	assert_false(ep_regauth_realm_trusted("https://gitlab.com/jwt/auth",
	    "registry.gitlab.com", "registry.gitlab.com", &none));
	assert_false(ep_regauth_realm_trusted("https://evil.example/token",
	    "127.0.0.1:5000", "127.0.0.1:5000", &none));
	assert_false(ep_regauth_realm_trusted("https://127.0.0.1.evil/t",
	    "127.0.0.1:5000", "127.0.0.1:5000", &none));
	assert_false(ep_regauth_realm_trusted("https://ghcr.io.evil/token",
	    "ghcr.io", "ghcr.io", &none));
	ep_strv_push(&named, "gitlab.com");
	ep_strv_push(&named, "Auth.Example:8443");
	assert_true(ep_regauth_realm_trusted("https://gitlab.com/jwt/auth",
	    "registry.gitlab.com", "registry.gitlab.com", &named));
	assert_true(ep_regauth_realm_trusted("https://gitlab.com:444/jwt/auth",
	    "registry.gitlab.com", "registry.gitlab.com", &named));
	assert_true(ep_regauth_realm_trusted("https://auth.example:8443/t",
	    "reg.example", "reg.example", &named));
	assert_false(ep_regauth_realm_trusted("https://auth.example/t",
	    "reg.example", "reg.example", &named));
	assert_false(ep_regauth_realm_trusted("https://sub.gitlab.com/jwt",
	    "registry.gitlab.com", "registry.gitlab.com", &named));
	/* An authority URL parsers may read two ways: never trusted. */
	assert_false(ep_regauth_realm_trusted("https://evil.example@ghcr.io/"
	    "token", "ghcr.io", "ghcr.io", &none));
	assert_false(ep_regauth_realm_trusted("https://ghcr.io@evil.example/"
	    "token", "ghcr.io", "ghcr.io", &none));
	assert_false(ep_regauth_realm_trusted("https://evil.example\\@ghcr.io/"
	    "token", "ghcr.io", "ghcr.io", &none));
	assert_false(ep_regauth_realm_trusted("https://ghcr.io:443:1/token",
	    "ghcr.io", "ghcr.io", &none));
	assert_false(ep_regauth_realm_trusted("https:///token", "ghcr.io",
	    "ghcr.io", &none));
	assert_false(ep_regauth_realm_trusted("ftp://ghcr.io/token",
	    "ghcr.io", "ghcr.io", &none));
	assert_false(ep_regauth_realm_trusted("ghcr.io/token", "ghcr.io",
	    "ghcr.io", &none));
	ep_strv_clear(&named);
}

static void
test_token_url(void **state)
{
	struct ep_regchal c = { 0 };
	char *u;

	(void)state;
	c.scheme = EP_CHAL_BEARER;
	c.realm = "https://auth.docker.io/token";
	c.service = "registry.docker.io";
	u = ep_regauth_token_url(&c, "library/ubuntu");
	assert_string_equal(u, "https://auth.docker.io/token?service="
	    "registry.docker.io&scope=repository%3Alibrary%2Fubuntu%3Apull");
	free(u);
	c.realm = "https://h/t?x=1";
	c.service = "a b&c";
	u = ep_regauth_token_url(&c, "a");
	assert_string_equal(u, "https://h/t?x=1&service=a%20b%26c&scope="
	    "repository%3Aa%3Apull");
	free(u);
	c.service = NULL;
	u = ep_regauth_token_url(&c, "a");
	assert_string_equal(u, "https://h/t?x=1&scope=repository%3Aa%3Apull");
	free(u);
}

static void
test_redact(void **state)
{
	static const char *const cases[][2] = {
		{ "https://u:p@h:5000/token?x=secret", "https://h:5000/token" },
		{ "https://h/token", "https://h/token" },
		{ "http://a@b@h/x#frag", "http://h/x" },
		{ "https://h/p@th", "https://h/p@th" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *r = ep_regauth_redact_url(cases[i][0]);

		assert_string_equal(r, cases[i][1]);
		free(r);
	}
}

static int
parse(struct ep_regcreds *c, const char *path, const char *text,
    struct ep_err *err)
{
	return ep_regcreds_parse(c, path, text, strlen(text), err);
}

static void
test_creds_lookup(void **state)
{
	struct ep_regcreds c = { 0 };
	struct ep_err err = { 0 };
	const struct ep_regcred *e;

	(void)state;
	/* "alice:pw:with:colons", "bob:b", "carol:c", "dave:d". */
	assert_int_equal(parse(&c, "/a.json", "{\"auths\": {"
	    "\"https://index.docker.io/v1/\": {\"auth\": "
	    "\"YWxpY2U6cHc6d2l0aDpjb2xvbnM=\"},"
	    "\"127.0.0.1:5000\": {\"auth\": \"Ym9iOmI=\"},"
	    "\"127.0.0.1:5000/team\": {\"auth\": \"Y2Fyb2w6Yw\"},"
	    "\"quay.io\": {\"username\": \"dave\", \"password\": \"d\"},"
	    "\"ghcr.io\": {\"identitytoken\": \"it\"},"
	    "\"empty.io\": {\"auth\": \"\"}"
	    "}, \"credsStore\": \"desktop\"}", &err), 0);
	assert_int_equal(c.helpers, 1);
	assert_int_equal(parse(&c, "/b.json", "{\"auths\": {"
	    "\"docker.io\": {\"auth\": \"ZXZlOmU=\"},"
	    "\"other.io\": {\"auth\": \"ZXZlOmU=\"}}}", &err), 0);

	/* docker's v1 URL key is docker.io; the first file wins. */
	e = ep_regcreds_find(&c, "docker.io", "library/ubuntu");
	assert_non_null(e);
	assert_string_equal(e->user, "alice");
	assert_string_equal(e->pass, "pw:with:colons");
	assert_string_equal(e->file, "/a.json");
	assert_ptr_equal(ep_regcreds_find(&c, "index.docker.io", "x"), e);
	assert_ptr_equal(ep_regcreds_find(&c, "registry-1.docker.io", "x"), e);

	/* Namespaced keys: the longest match at a '/' boundary. */
	e = ep_regcreds_find(&c, "127.0.0.1:5000", "team/app");
	assert_string_equal(e->user, "carol");
	e = ep_regcreds_find(&c, "127.0.0.1:5000", "team");
	assert_string_equal(e->user, "carol");
	e = ep_regcreds_find(&c, "127.0.0.1:5000", "teamwork/app");
	assert_string_equal(e->user, "bob");
	/* A port is part of the host. */
	assert_null(ep_regcreds_find(&c, "127.0.0.1", "app"));
	assert_null(ep_regcreds_find(&c, "127.0.0.1:50000", "app"));

	e = ep_regcreds_find(&c, "quay.io", "x");
	assert_string_equal(e->user, "dave");
	assert_string_equal(e->pass, "d");
	e = ep_regcreds_find(&c, "ghcr.io", "x");
	assert_null(e->user);
	assert_string_equal(e->identity_token, "it");
	e = ep_regcreds_find(&c, "empty.io", "x");
	assert_null(e->user);
	/* Only in the second file. */
	e = ep_regcreds_find(&c, "other.io", "x");
	assert_string_equal(e->file, "/b.json");
	assert_null(ep_regcreds_find(&c, "nowhere.io", "x"));
	ep_regcreds_clear(&c);
}

static void
test_creds_malformed(void **state)
{
	static const char *const cases[][2] = {
		{ "{", "/f.json: not JSON (line 1, column " },
		{ "[]", "/f.json: not a JSON object" },
		{ "{\"auths\": []}", "/f.json: \"auths\" is not an object" },
		{ "{\"auths\": {\"h\": 1}}", "/f.json: auths.\"h\": not an "
		    "object" },
		{ "{\"auths\": {\"h\": {\"auth\": 5}}}", "/f.json: auths.\"h\""
		    ".auth: not a string" },
		{ "{\"auths\": {\"h\": {\"auth\": \"c2VjcmV0\"}}}",
		    "/f.json: auths.\"h\".auth: not base64 of USER:PASSWORD" },
		{ "{\"auths\": {\"h\": {\"auth\": \"**\"}}}",
		    "/f.json: auths.\"h\".auth: not base64" },
	};

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct ep_regcreds c = { 0 };
		struct ep_err err = { 0 };

		assert_int_equal(parse(&c, "/f.json", cases[i][0], &err), -1);
		assert_int_equal(err.kind, EP_E_INPUT);
		assert_true(ep_startswith(err.msg, cases[i][1]));
		/* Never the secret itself ("secret" base64-encoded). */
		assert_null(strstr(err.msg, "secret"));
		ep_regcreds_clear(&c);
	}
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
test_creds_files(void **state)
{
	char dir[256], *p, *q, *files;
	struct ep_regcreds c;
	struct ep_err err = { 0 };
	const struct ep_regcred *e;

	(void)state;
	assert_int_equal(tu_scratch_make(dir, sizeof dir, "regauth"), 0);
	p = xasprintf("%s/home/.docker", dir);
	assert_int_equal(ep_mkdirs(p, &err), 0);
	free(p);
	p = xasprintf("%s/run/containers", dir);
	assert_int_equal(ep_mkdirs(p, &err), 0);
	free(p);
	p = xasprintf("%s/home", dir);
	setenv("HOME", p, 1);
	free(p);
	unsetenv("DOCKER_CONFIG");
	unsetenv("REGISTRY_AUTH_FILE");
	unsetenv("XDG_RUNTIME_DIR");

	/* Nothing there: no error, the default file named. */
	assert_int_equal(ep_regcreds_load(&c, NULL, &err), 0);
	assert_int_equal(c.n, 0);
	files = ep_regcreds_files(&c);
	p = xasprintf("%s/home/.docker/config.json", dir);
	assert_string_equal(files, p);
	free(files);
	ep_regcreds_clear(&c);

	/* auth.json before config.json. */
	write_file(p, "{\"auths\": {\"r.io\": {\"auth\": \"ZG9jazp4\"}}}");
	q = xasprintf("%s/run/containers/auth.json", dir);
	write_file(q, "{\"auths\": {\"r.io\": {\"auth\": \"cG9kOnk=\"}}}");
	free(q);
	q = xasprintf("%s/run", dir);
	setenv("XDG_RUNTIME_DIR", q, 1);
	free(q);
	assert_int_equal(ep_regcreds_load(&c, NULL, &err), 0);
	e = ep_regcreds_find(&c, "r.io", "a");
	assert_string_equal(e->user, "pod");
	assert_int_equal(c.files.n, 2);
	ep_regcreds_clear(&c);

	/* $REGISTRY_AUTH_FILE replaces auth.json; missing, it is an
	 * error naming it. */
	q = xasprintf("%s/none.json", dir);
	setenv("REGISTRY_AUTH_FILE", q, 1);
	assert_int_equal(ep_regcreds_load(&c, NULL, &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_true(ep_startswith(err.msg, q));
	assert_int_equal(c.n, 0);
	/* --registry-auth-file alone. */
	assert_int_equal(ep_regcreds_load(&c, p, &err), 0);
	assert_int_equal(c.files.n, 1);
	assert_string_equal(ep_regcreds_find(&c, "r.io", "a")->user, "dock");
	ep_regcreds_clear(&c);
	free(q);

	/* A malformed default file is an error too. */
	unsetenv("REGISTRY_AUTH_FILE");
	unsetenv("XDG_RUNTIME_DIR");
	write_file(p, "{\"auths\": ");
	assert_int_equal(ep_regcreds_load(&c, NULL, &err), -1);
	assert_true(ep_startswith(err.msg, p));
	free(p);
	assert_int_equal(tu_scratch_remove(dir), 0);
}

static void
test_retry_after(void **state)
{
	(void)state;
	assert_int_equal(reg_retry_after_ms("2"), 2000);
	assert_int_equal(reg_retry_after_ms("0"), 0);
	assert_int_equal(reg_retry_after_ms("999999"), 3600000);
	assert_int_equal(reg_retry_after_ms(NULL), -1);
	assert_int_equal(reg_retry_after_ms("soon"), -1);
	/* A date in the past: now. */
	assert_int_equal(reg_retry_after_ms("Wed, 21 Oct 2015 07:28:00 GMT"),
	    0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_challenge),
		cmocka_unit_test(test_realm_trusted),
		cmocka_unit_test(test_token_url),
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_creds_lookup),
		cmocka_unit_test(test_creds_malformed),
		cmocka_unit_test(test_creds_files),
		cmocka_unit_test(test_retry_after),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
