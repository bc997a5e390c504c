/*
 * test_store.c: the golden store on real git repositories made with the
 * git command: specs and their redaction, local bare and non-bare
 * stores, the default store, bless and read back, the compare-and-swap
 * against a rival bless (made deterministic by the store's test seam),
 * history and file:// through the cache.  The store options and the
 * fact counts of log: test_storeopt.c.
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

static char dir[128];
static char cwd[4096];
static const struct ep_author ada = { "Ada Lovelace", "ada@example.org" };

/* Run a shell command in the scratch directory; its exit status. */
static int
sh(const char *fmt, ...)
{
	va_list ap;
	char *cmd, *full;
	int rc;

	va_start(ap, fmt);
	cmd = xvasprintf(fmt, ap);
	va_end(ap);
	full = xasprintf("cd '%s' && { %s; } >/dev/null 2>&1", dir, cmd);
	rc = system(full);
	free(cmd);
	free(full);
	return rc == 0 ? 0 : 1;
}

/* The first line a shell command prints, or "" (a static buffer). */
static const char *
sh_out(const char *fmt, ...)
{
	static char line[4096];
	va_list ap;
	char *cmd, *full;
	FILE *p;

	va_start(ap, fmt);
	cmd = xvasprintf(fmt, ap);
	va_end(ap);
	full = xasprintf("cd '%s' && %s 2>/dev/null", dir, cmd);
	line[0] = '\0';
	if ((p = popen(full, "r")) != NULL) {
		if (fgets(line, sizeof line, p) == NULL)
			line[0] = '\0';
		pclose(p);
	}
	line[strcspn(line, "\n")] = '\0';
	free(cmd);
	free(full);
	return line;
}

static int
setup(void **state)
{
	char *cache;

	(void)state;
	if (getcwd(cwd, sizeof cwd) == NULL ||
	    tu_scratch_make(dir, sizeof dir, "store") < 0)
		return -1;
	cache = xasprintf("%s/cache", dir);
	setenv("XDG_CACHE_HOME", cache, 1);
	free(cache);
	/* git config of our own: no user.name unless a test sets one. */
	setenv("HOME", dir, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	unsetenv("ENVPARITY_STORE");
	unsetenv("ENVPARITY_PROFILE");
	return chdir(dir);
}

static int
teardown(void **state)
{
	(void)state;
	ep_store_before_update = NULL;
	if (chdir(cwd) < 0)
		return -1;
	return tu_scratch_remove(dir);
}

static struct ep_store *
open_store(const char *spec, const char *ref)
{
	struct ep_store_opts o = { spec, ref, 0 };
	struct ep_store *s = NULL;
	struct ep_err err = { 0 };

	if (ep_store_open(&s, &o, &err) < 0)
		fail_msg("open %s: %s", spec ? spec : "(default)", err.msg);
	return s;
}

static void
bless_ok(char commit[41], struct ep_store *s, const char *profile,
    const char *text)
{
	struct ep_err err = { 0 };

	if (ep_store_bless(commit, s, profile, text, "test bless", &ada,
	    &err) < 0)
		fail_msg("bless %s: %s", profile, err.msg);
	assert_int_equal(strlen(commit), 40);
}

/* The manifest of profile at the head, or NULL. */
static char *
read_manifest(struct ep_store *s, const char *profile, char commit[41])
{
	struct ep_store_info info = { 0 };
	struct ep_err err = { 0 };
	char *m = NULL, *p = NULL;

	if (ep_store_read(&m, &p, &info, s, profile, &err) < 0)
		fail_msg("read %s: %s", profile, err.msg);
	if (commit != NULL)
		strcpy(commit, info.commit);
	free(p);
	ep_store_info_clear(&info);
	return m;
}

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
	};
	char *r;

	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		r = ep_store_redact(cases[i][0]);
		assert_string_equal(r, cases[i][1]);
		free(r);
	}
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
test_bare_bless_read(void **state)
{
	struct ep_store *s;
	struct ep_store_info info = { 0 };
	struct ep_err err = { 0 };
	char c1[41], c2[41], head[41], *m, *p, *want;

	(void)state;
	assert_int_equal(sh("git init -q --bare -b trunk bare.git"), 0);
	s = open_store("bare.git", NULL);
	ep_store_describe(&info, s);
	assert_string_equal(info.ref, "trunk");	/* HEAD's branch */
	ep_store_info_clear(&info);

	bless_ok(c1, s, "gpu", "{\"a\": 1}\n");
	bless_ok(c2, s, "cpu", "{\"b\": 2}\n");
	assert_string_not_equal(c1, c2);
	m = read_manifest(s, "gpu", head);
	assert_string_equal(m, "{\"a\": 1}\n");
	assert_string_equal(head, c2);
	free(m);
	assert_string_equal(sh_out("git --git-dir=bare.git show "
	    "trunk:cpu/manifest.json"), "{\"b\": 2}");
	want = xasprintf("Ada Lovelace <ada@example.org>|Ada Lovelace|test "
	    "bless|%s", c1);
	assert_string_equal(sh_out("git --git-dir=bare.git log -1 "
	    "--format='%%an <%%ae>|%%cn|%%s|%%P' trunk"), want);
	free(want);

	/* The same bytes again: no new commit. */
	bless_ok(c1, s, "gpu", "{\"a\": 1}\n");
	assert_string_equal(c1, c2);
	assert_string_equal(sh_out("git --git-dir=bare.git rev-list --count "
	    "trunk"), "2");

	/* A missing profile and a missing policy are not errors. */
	assert_int_equal(ep_store_read(&m, &p, &info, s, "nope", &err), 0);
	assert_null(m);
	assert_null(p);
	assert_string_equal(info.commit, c2);
	ep_store_info_clear(&info);

	/* Another branch. */
	ep_store_free(s);
	s = open_store("bare.git", "refs/heads/side");
	assert_null(read_manifest(s, "gpu", head));
	assert_string_equal(head, "");
	ep_store_free(s);
}

static void
test_nonbare_untouched(void **state)
{
	struct ep_store *s;
	struct ep_store_info info = { 0 };
	struct ep_err err = { 0 };
	char commit[41], *m, *p, idx[EP_SHA256_HEX], idx2[EP_SHA256_HEX];

	(void)state;
	assert_int_equal(sh("git init -q -b main wt && cd wt && "
	    "git config user.name T && git config user.email t@x && "
	    "mkdir gpu && echo '{\"rules\": []}' > gpu/policy.json && "
	    "echo readme > README && git add . && git commit -qm init && "
	    "echo dirty >> README && echo staged > new && git add new"), 0);
	assert_int_equal(ep_hash_file(idx, "wt/.git/index", &err), 0);

	s = open_store("wt", NULL);
	bless_ok(commit, s, "gpu", "{\"x\": \"y\"}\n");
	assert_int_equal(ep_store_read(&m, &p, &info, s, "gpu", &err), 0);
	assert_string_equal(m, "{\"x\": \"y\"}\n");
	assert_string_equal(p, "{\"rules\": []}\n");	/* kept */
	assert_string_equal(info.commit, commit);
	free(m);
	free(p);
	ep_store_info_clear(&info);
	ep_store_free(s);

	assert_string_equal(sh_out("git -C wt rev-parse main"), commit);
	assert_int_equal(ep_hash_file(idx2, "wt/.git/index", &err), 0);
	assert_string_equal(idx, idx2);
	assert_int_equal(sh("test ! -e wt/gpu/manifest.json"), 0);
	assert_string_equal(sh_out("cat wt/README | tr '\\n' ,"),
	    "readme,dirty,");
	assert_string_equal(sh_out("git -C wt show main:README"), "readme");
	/* git now sees the committed manifest as deleted in the work tree:
	 * the work tree itself was left alone. */
	assert_non_null(strstr(sh_out("cd wt && git status --porcelain | "
	    "tr '\\n' ,"), "gpu/manifest.json"));
}

/* The rival bless the test seam runs once, mid-bless. */
struct rival {
	const char *profile;
	const char *text;
	char commit[41];
};

static void
rival_bless(void *arg)
{
	struct rival *r = arg;
	struct ep_store *s;

	ep_store_before_update = NULL;	/* once */
	s = open_store("race.git", NULL);
	bless_ok(r->commit, s, r->profile, r->text);
	ep_store_free(s);
}

static void
race(struct rival *r, int prefill, int *rc, struct ep_err *err,
    char commit[41])
{
	struct ep_store *s;
	char c[41];

	assert_int_equal(sh("rm -rf race.git && git init -q --bare -b main "
	    "race.git"), 0);
	s = open_store("race.git", NULL);
	if (prefill)
		bless_ok(c, s, "a", "{\"v\": 0}\n");
	ep_store_before_update = rival_bless;
	ep_store_before_update_arg = r;
	*rc = ep_store_bless(commit, s, "a", "{\"v\": 1}\n", "mine", &ada,
	    err);
	ep_store_before_update = NULL;
	ep_store_free(s);
}

static void
test_race_other_profile(void **state)
{
	struct rival r = { "b", "{\"w\": 1}\n", "" };
	struct ep_err err = { 0 };
	char commit[41];
	int rc;

	(void)state;
	for (int prefill = 0; prefill <= 1; prefill++) {
		memset(&err, 0, sizeof err);
		race(&r, prefill, &rc, &err, commit);
		if (rc != 0)
			fail_msg("prefill %d: %s", prefill, err.msg);
		/* Rebuilt on top of the rival: both profiles, in order. */
		assert_string_equal(sh_out("git --git-dir=race.git rev-parse "
		    "main"), commit);
		assert_string_equal(sh_out("git --git-dir=race.git rev-parse "
		    "main^"), r.commit);
		assert_string_equal(sh_out("git --git-dir=race.git show "
		    "main:a/manifest.json"), "{\"v\": 1}");
		assert_string_equal(sh_out("git --git-dir=race.git show "
		    "main:b/manifest.json"), "{\"w\": 1}");
		assert_string_equal(sh_out("git --git-dir=race.git rev-list "
		    "--count main"), prefill ? "3" : "2");
	}
}

static void
test_race_same_profile(void **state)
{
	struct rival r = { "a", "{\"v\": 2}\n", "" };
	struct ep_err err = { 0 };
	char commit[41], *want;
	int rc;

	(void)state;
	for (int prefill = 0; prefill <= 1; prefill++) {
		memset(&err, 0, sizeof err);
		race(&r, prefill, &rc, &err, commit);
		assert_int_equal(rc, -1);
		assert_int_equal(err.kind, EP_E_IO);
		want = xasprintf("profile a was blessed by someone else "
		    "(commit %.12s) while this bless ran; check again and "
		    "re-bless", r.commit);
		assert_string_equal(err.msg, want);
		free(want);
		/* The rival's manifest, whole; nothing of ours. */
		assert_string_equal(sh_out("git --git-dir=race.git rev-parse "
		    "main"), r.commit);
		assert_string_equal(sh_out("git --git-dir=race.git show "
		    "main:a/manifest.json"), "{\"v\": 2}");
	}
}

static void
test_profile_file_clash(void **state)
{
	struct ep_store *s;
	struct ep_err err = { 0 };
	char commit[41];

	(void)state;
	assert_int_equal(sh("git init -q -b main clash && cd clash && "
	    "git config user.name T && git config user.email t@x && "
	    "echo hi > README.md && git add . && git commit -qm init"), 0);
	s = open_store("clash", NULL);
	assert_int_equal(ep_store_bless(commit, s, "README.md", "{}\n", "m",
	    &ada, &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, "'README.md' is a file"));
	memset(&err, 0, sizeof err);
	assert_int_equal(ep_store_bless(commit, s, "../x", "{}\n", "m",
	    &ada, &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	ep_store_free(s);
}

static void
test_author_fallbacks(void **state)
{
	struct ep_store *s;
	struct ep_err err = { 0 };
	char commit[41], host[256] = "", *want;

	(void)state;
	assert_int_equal(sh("git init -q --bare -b main a.git"), 0);
	s = open_store("a.git", NULL);
	/* No git config (HOME is the scratch directory): envparity@HOST. */
	assert_int_equal(ep_store_bless(commit, s, "p", "{}\n", "m", NULL,
	    &err), 0);
	gethostname(host, sizeof host - 1);
	want = xasprintf("envparity <envparity@%s>", host);
	assert_string_equal(sh_out("git --git-dir=a.git log -1 "
	    "--format='%%an <%%ae>'"), want);
	free(want);
	ep_store_free(s);

	/* git config's identity next. */
	assert_int_equal(sh("git config --global user.name 'Grace Hopper' "
	    "&& git config --global user.email grace@example.org"), 0);
	s = open_store("a.git", NULL);
	assert_int_equal(ep_store_bless(commit, s, "p", "{\"n\": 1}\n", "m",
	    NULL, &err), 0);
	assert_string_equal(sh_out("git --git-dir=a.git log -1 "
	    "--format='%%an <%%ae>'"), "Grace Hopper <grace@example.org>");
	ep_store_free(s);
	assert_int_equal(sh("rm -f .gitconfig"), 0);
}

static void
test_log(void **state)
{
	struct ep_store *s;
	struct ep_store_commit *v = NULL;
	struct ep_err err = { 0 };
	char c1[41], c2[41], c3[41], c4[41];
	size_t n;

	(void)state;
	assert_int_equal(sh("git init -q --bare -b main log.git"), 0);
	s = open_store("log.git", NULL);
	bless_ok(c1, s, "p", "one\n");
	bless_ok(c2, s, "q", "other\n");	/* not p's history */
	bless_ok(c3, s, "p", "two\n");
	bless_ok(c4, s, "p", "three\n");
	assert_int_equal(ep_store_log(&v, &n, s, "p", 0, &err), 0);
	assert_int_equal(n, 3);
	assert_string_equal(v[0].id, c4);
	assert_string_equal(v[0].manifest, "three\n");
	assert_string_equal(v[0].parent_manifest, "two\n");
	assert_string_equal(v[1].id, c3);
	assert_string_equal(v[1].parent_manifest, "one\n");
	assert_string_equal(v[2].id, c1);
	assert_null(v[2].parent_manifest);
	assert_string_equal(v[2].author, "Ada Lovelace <ada@example.org>");
	assert_string_equal(v[2].message, "test bless");
	assert_true(v[2].when > 1600000000);
	ep_store_log_free(v, n);

	assert_int_equal(ep_store_log(&v, &n, s, "p", 2, &err), 0);
	assert_int_equal(n, 2);
	ep_store_log_free(v, n);
	assert_int_equal(ep_store_log(&v, &n, s, "none", 0, &err), 0);
	assert_int_equal(n, 0);
	ep_store_log_free(v, n);
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
		cmocka_unit_test(test_bad_specs),
		cmocka_unit_test(test_unreachable),
		cmocka_unit_test(test_scrub),
		cmocka_unit_test(test_default_store),
		cmocka_unit_test(test_bare_bless_read),
		cmocka_unit_test(test_nonbare_untouched),
		cmocka_unit_test(test_race_other_profile),
		cmocka_unit_test(test_race_same_profile),
		cmocka_unit_test(test_profile_file_clash),
		cmocka_unit_test(test_author_fallbacks),
		cmocka_unit_test(test_log),
		cmocka_unit_test(test_file_url),
		cmocka_unit_test(test_insteadof),
		cmocka_unit_test(test_version),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
