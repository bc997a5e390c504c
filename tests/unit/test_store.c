/*
 * test_store.c: the golden store on real git repositories made with the
 * git command: specs and their redaction, unreachable stores, the
 * default store, file:// and insteadOf through the cache, and which
 * credentials go where.  Blessing,
 * reading back, races and history: test_store_bless.c; the store options
 * and the fact counts of log: test_storeopt.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "manifest.h"
#include "store.h"
#include "store_int.h"
#include "storefixture.h"
#include "errors.h"
#include "str.h"
#include "xalloc.h"


static void
test_redact(void **state)
{
	static const char *const cases[][2] = {
		{ "https://tok3n@example.org/x.git",
		    "https://example.org/x.git" },
		{ "https://user:s3cret@example.org:8443/x.git",
		    "https://example.org:8443/x.git" },
		{ "http://example.org/x", "http://example.org/x" },
		{ "ssh://git:pw@example.org/x", "ssh://git@example.org/x" },
		{ "ssh://git@example.org/x", "ssh://git@example.org/x" },
		{ "git@example.org:x.git", "git@example.org:x.git" },
		{ "/srv/store", "/srv/store" },
		{ "ftp://u:p@h/x", "ftp://h/x" },
		{ "https://a@b@host/x", "https://host/x" },
		/* A password may hold '#', '?', '/' and '@': the credentials
		 * end at the last '@' that a host and a path follow. */
		{ "https://u:p#w@host/x.git", "https://host/x.git" },
		{ "https://u:p?w@host:8443/x.git", "https://host:8443/x.git" },
		{ "https://u:p/w@host/x.git", "https://host/x.git" },
		{ "https://t/k#n@host/x.git", "https://host/x.git" },
		{ "ssh://git:p/w#x@host/x.git", "ssh://git@host/x.git" },
		{ "https://host/x.git", "https://host/x.git" },
		{ "https://tok@host", "https://host" },
	};
	char *r;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		r = ep_store_redact(cases[i][0]);
		assert_string_equal(r, cases[i][1]);
		free(r);
	}
}

/* Where a diff argument splits into STORE and REF:PROFILE, and what is
 * left of a message that quoted a spec whole. */
static void
test_spec_ref_scrub(void **state)
{
	struct ep_err err = { 0 };

	(void)state;
	assert_null(ep_store_spec_ref("golden.json"));
	assert_string_equal(ep_store_spec_ref("s.git#main:gpu"), "#main:gpu");
	assert_string_equal(ep_store_spec_ref("https://u:p#w@h/x#main:gpu"),
	    "#main:gpu");
	assert_null(ep_store_spec_ref("https://u:p#w@h/x"));
	assert_string_equal(ep_store_spec_ref("https://h/x#feat@x:gpu"),
	    "#feat@x:gpu");

	snprintf(err.msg, sizeof err.msg, "https://u:p#w/z@h/x: no such "
	    "file; p#w/z again");
	ep_store_spec_scrub("https://u:p#w/z@h/x", &err);
	assert_string_equal(err.msg, "https://h/x: no such file; *** again");
}

static void
test_bad_specs(void **state)
{
	static const char *const bad[] = { "", "ftp://u:s3cret@h/x",
	    "https://u:s3cret@/x.git", "git://host", "git://host/",
	    "file://remotehost/x", "host:", ":path", "https://h/a b",
	    "/tmp/a\nb" };
	struct ep_store_opts o = { 0 };
	struct ep_store *s = NULL;
	struct ep_err err;

	(void)state;
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		memset(&err, 0, sizeof err);
		o.spec = bad[i];
		assert_int_equal(ep_store_open(&s, &o, &err), -1);
		assert_null(s);
		if (err.kind != EP_E_INPUT)
			fail_msg("'%s': kind %d: %s", bad[i], err.kind,
			    err.msg);
		assert_null(strstr(err.msg, "s3cret"));
	}
	memset(&err, 0, sizeof err);
	o.spec = "git@example.org:x.git";
	o.ref = "bad..ref";
	assert_int_equal(ep_store_open(&s, &o, &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, "bad..ref"));
}

static void
test_unreachable(void **state)
{
	struct ep_store_opts o = { 0 };
	struct ep_store *s = NULL;
	struct ep_err err = { 0 };

	(void)state;
	o.spec = "/nonexistent/envparity-store";
	assert_int_equal(ep_store_open(&s, &o, &err), -1);
	assert_int_equal(err.kind, EP_E_IO);
	assert_string_equal(err.msg, "store /nonexistent/envparity-store: "
	    "no such repository");

	/* A directory that is not a repository, inside one that is: the
	 * enclosing repository must not be picked up. */
	assert_int_equal(sh("git init -q outer && mkdir outer/sub"), 0);
	memset(&err, 0, sizeof err);
	o.spec = "outer/sub";
	assert_int_equal(ep_store_open(&s, &o, &err), -1);
	assert_int_equal(err.kind, EP_E_IO);
	assert_non_null(strstr(err.msg, "store outer/sub: not a git "
	    "repository"));
}

/* Whatever the password, it never survives into a message: even one
 * letter long (every such letter goes), even "*" (no endless loop). */
static void
test_scrub(void **state)
{
	static const char *const pw[] = { "r", "*", "o*o", "%s%n" };
	struct ep_store_opts o = { 0 };
	struct ep_store *s = NULL;
	struct ep_err err;
	char *url;

	(void)state;
	for (size_t i = 0; i < sizeof pw / sizeof pw[0]; i++) {
		memset(&err, 0, sizeof err);
		url = xasprintf("http://u:%s@127.0.0.1:1/x.git", pw[i]);
		o.spec = url;
		assert_int_equal(ep_store_open(&s, &o, &err), -1);
		assert_int_equal(err.kind, EP_E_IO);
		if (strchr(pw[i], '*') == NULL)
			assert_null(strstr(err.msg, pw[i]));
		assert_true(strlen(err.msg) < sizeof err.msg);
		free(url);
	}
}

static void
test_default_store(void **state)
{
	struct ep_store_opts o = { 0 };
	struct ep_store_commit *log = NULL;
	struct ep_store_info info;
	struct ep_store *s;
	struct ep_err err = { 0 };
	struct stat st;
	char commit[41], *m;
	size_t n = 1;

	(void)state;
	/* Absent and not asked to create: an empty store, nothing made. */
	s = open_store(NULL, NULL);
	assert_null(read_manifest(s, "default", commit));
	assert_string_equal(commit, "");
	assert_int_equal(ep_store_log(&log, &n, s, "default", 0, &err), 0);
	assert_int_equal(n, 0);
	ep_store_describe(&info, s);
	assert_string_equal(info.store, ".envparity/store");
	assert_string_equal(info.ref, "main");
	ep_store_info_clear(&info);
	assert_int_equal(stat(".envparity", &st), -1);

	/* bless creates it: bare, HEAD on main. */
	bless_ok(commit, s, "default", "{}\n");
	ep_store_free(s);
	assert_string_equal(sh_out("git --git-dir=.envparity/store "
	    "rev-parse --is-bare-repository"), "true");
	assert_string_equal(sh_out("git --git-dir=.envparity/store "
	    "rev-parse main"), commit);

	o.create = 1;
	assert_int_equal(ep_store_open(&s, &o, &err), 0);
	m = read_manifest(s, "default", NULL);
	assert_string_equal(m, "{}\n");
	free(m);
	ep_store_free(s);
}

static void
test_file_url(void **state)
{
	struct ep_store *s;
	struct ep_store_info info;
	char commit[41], head[41], *m, *url, *cache, *path;
	char hex[EP_SHA256_HEX];
	struct stat st;

	(void)state;
	assert_int_equal(sh("git init -q --bare -b main remote.git"), 0);
	url = xasprintf("file://%s/remote.git", dir);
	s = open_store(url, NULL);
	bless_ok(commit, s, "p", "{\"r\": 1}\n");
	ep_store_describe(&info, s);
	assert_string_equal(info.store, url);
	assert_string_equal(info.commit, commit);	/* cache in step */
	ep_store_info_clear(&info);
	ep_store_free(s);
	assert_string_equal(sh_out("git --git-dir=remote.git rev-parse "
	    "main"), commit);

	/* The cache is named by the URL's SHA-256. */
	ep_hash_buf(hex, url, strlen(url));
	path = xasprintf("%s/cache/envparity/stores/%s", dir, hex);
	assert_int_equal(stat(path, &st), 0);

	/* Another machine: another cache, same answer. */
	cache = xasprintf("%s/cache2", dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	s = open_store(url, NULL);
	m = read_manifest(s, "p", head);
	assert_string_equal(m, "{\"r\": 1}\n");
	assert_string_equal(head, commit);
	free(m);
	ep_store_free(s);
	free(cache);
	cache = xasprintf("%s/cache", dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	free(cache);
	free(path);
	free(url);
}

/* git config's url.<base>.insteadOf applies to store URLs, as in git. */
static void
test_insteadof(void **state)
{
	struct ep_store *s;
	char commit[41], head[41], *m;

	(void)state;
	assert_int_equal(sh("git init -q --bare -b main aliased.git && "
	    "git config --global url.file://%s/aliased.git.insteadOf "
	    "golden:store", dir), 0);
	s = open_store("golden:store", NULL);
	bless_ok(commit, s, "p", "{\"i\": 1}\n");
	ep_store_free(s);
	assert_string_equal(sh_out("git --git-dir=aliased.git rev-parse "
	    "main"), commit);
	s = open_store("golden:store", NULL);
	m = read_manifest(s, "p", head);
	assert_string_equal(m, "{\"i\": 1}\n");
	assert_string_equal(head, commit);
	free(m);
	ep_store_free(s);
	assert_int_equal(sh("rm -f .gitconfig"), 0);
}

/* Ask the credentials callback as libgit2 would, for a store opened with
 * store_url, by a server at asker: 0 when something is offered (and
 * what: 't' the token, 'k' a key, 'u' a user name), else GIT_EAUTH with
 * libgit2's error in why. */
static int
ask(char *what, char why[512], const char *store_url, const char *asker,
    unsigned allowed)
{
	struct ep_store s = { 0 };
	struct ep_store_cbctx c = { &s, (char *)store_url, NULL };
	git_credential *cred = NULL;
	const git_error *e;
	int rc;

	rc = ep_store_cred_cb(&cred, asker, NULL, allowed, &c);
	*what = '-';
	why[0] = '\0';
	if (rc == 0) {
		*what = cred->credtype == GIT_CREDENTIAL_USERPASS_PLAINTEXT ?
		    't' : cred->credtype == GIT_CREDENTIAL_SSH_KEY ? 'k' : 'u';
		git_credential_free(cred);
	} else if ((e = git_error_last()) != NULL)
		snprintf(why, 512, "%s", e->message);
	return rc;
}

/* The token only over https and the key only over ssh, each only to the
 * store's own scheme, host and port; a token set beside a key does not
 * keep the key from an ssh store. */
static void
test_cred_origin(void **state)
{
	const unsigned up = GIT_CREDENTIAL_USERPASS_PLAINTEXT;
	const unsigned key = GIT_CREDENTIAL_SSH_KEY;
	char what, why[512];

	(void)state;
	git_libgit2_init();
	setenv("ENVPARITY_GIT_TOKEN", "tok3n", 1);
	setenv("ENVPARITY_SSH_KEY", "/nonexistent/id_ed25519", 1);
	unsetenv("SSH_AUTH_SOCK");

	assert_int_equal(ask(&what, why, "https://h.example/x.git",
	    "https://H.example:443/x.git", up), 0);
	assert_int_equal(what, 't');
	assert_int_equal(ask(&what, why, "https://h.example:8443/x.git",
	    "https://h.example:9443/x.git", up), GIT_EAUTH);
	assert_string_equal(why, "authentication required; "
	    "ENVPARITY_GIT_TOKEN was not sent: the request was redirected to "
	    "https://h.example:9443, not the store's own "
	    "https://h.example:8443");
	assert_int_equal(ask(&what, why, "https://h.example/x.git",
	    "https://evil.example/x.git", up), GIT_EAUTH);
	assert_non_null(strstr(why, "redirected to https://evil.example:443"));
	assert_int_equal(ask(&what, why, "https://h.example/x.git",
	    "http://h.example/x.git", up), GIT_EAUTH);
	assert_int_equal(ask(&what, why, "http://h.example/x.git",
	    "http://h.example/x.git", up), GIT_EAUTH);
	assert_non_null(strstr(why, "the store is http://, and the token "
	    "goes only over https"));

	/* ssh: the key, never the token; scp-like is ssh too. */
	assert_int_equal(ask(&what, why, "ssh://git@h.example/x.git",
	    "ssh://git@h.example/x.git", up | key), 0);
	assert_int_equal(what, 'k');
	assert_int_equal(ask(&what, why, "git@h.example:x.git",
	    "git@h.example:x.git", up | key), 0);
	assert_int_equal(what, 'k');
	assert_int_equal(ask(&what, why, "ssh://git@h.example/x.git",
	    "ssh://git@h.example/x.git", up), GIT_EAUTH);
	assert_non_null(strstr(why, "the token goes only over https"));
	assert_int_equal(ask(&what, why, "ssh://h.example:2222/x.git",
	    "ssh://h.example:22/x.git", key), GIT_EAUTH);
	assert_non_null(strstr(why, "no ssh key was offered: the request was "
	    "redirected"));
	assert_null(strstr(why, "tok3n"));

	unsetenv("ENVPARITY_GIT_TOKEN");
	unsetenv("ENVPARITY_SSH_KEY");
	git_libgit2_shutdown();
}

/* Once taken out of the environment (as main() does first), the token
 * is the store's alone: no longer in environ, still offered; and once
 * forgotten, offered no more.  Run last: taking happens once a process. */
static void
test_cred_taken(void **state)
{
	const unsigned up = GIT_CREDENTIAL_USERPASS_PLAINTEXT;
	char what, why[512];

	(void)state;
	git_libgit2_init();
	setenv("ENVPARITY_GIT_TOKEN", "tok3n", 1);
	setenv("ENVPARITY_STORE", "https://h.example/x.git", 1);
	ep_store_cred_take();
	assert_null(getenv("ENVPARITY_GIT_TOKEN"));
	assert_null(getenv("ENVPARITY_STORE"));
	assert_string_equal(ep_store_env_spec(), "https://h.example/x.git");
	assert_int_equal(ask(&what, why, "https://h.example/x.git",
	    "https://h.example/x.git", up), 0);
	assert_int_equal(what, 't');
	/* Set again after the take: the environment is not read again. */
	setenv("ENVPARITY_GIT_TOKEN", "other", 1);
	ep_store_cred_forget();
	assert_int_equal(ask(&what, why, "https://h.example/x.git",
	    "https://h.example/x.git", up), GIT_EAUTH);
	assert_null(strstr(why, "other"));
	assert_string_equal(ep_store_env_spec(), "https://h.example/x.git");
	unsetenv("ENVPARITY_GIT_TOKEN");
	git_libgit2_shutdown();
}

static void
test_version(void **state)
{
	(void)state;
	assert_true(ep_startswith(ep_store_library_version(), "libgit2 1."));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_redact),
		cmocka_unit_test(test_spec_ref_scrub),
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_unreachable),
		cmocka_unit_test(test_scrub),
		cmocka_unit_test(test_default_store),
		cmocka_unit_test(test_file_url),
		cmocka_unit_test(test_insteadof),
		cmocka_unit_test(test_cred_origin),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_cred_taken),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
