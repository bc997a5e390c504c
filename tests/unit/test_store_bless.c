/*
 * test_store_bless.c: blessing a golden store made with the git command
 * and reading it back: bare and non-bare stores, the compare-and-swap
 * against a rival bless (made deterministic by the store's test seam), a
 * profile that clashes with a file, the author's fallbacks, and history.
 * Specs, reachability and the cache: test_store.c.
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
#include "storefixture.h"


static void
test_bare_bless_read(void **state)
{
	struct ep_store *s;
	struct ep_store_info info = { 0 };
	struct ep_err err = { 0 };
	char c1[41], c2[41], head[41], *m, *want;
	struct ep_store_policies p = { 0 };

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
	assert_int_equal(p.n, 0);
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
	char commit[41], head[41], *m;
	struct ep_store_policies p = { 0 };
	char idx[EP_SHA256_HEX], idx2[EP_SHA256_HEX];

	(void)state;
	assert_int_equal(sh("git init -q -b main wt && cd wt && "
	    "git config user.name T && git config user.email t@x && "
	    "mkdir gpu && echo '{\"rules\": []}' > gpu/policy.json && "
	    "echo readme > README && git add . && git commit -qm init && "
	    "git branch golden && "
	    "echo dirty >> README && echo staged > new && git add new"), 0);
	assert_int_equal(ep_hash_file(idx, "wt/.git/index", &err), 0);
	strcpy(head, sh_out("git -C wt rev-parse main"));

	/* The checked-out branch is refused, as git refuses a push to it:
	 * the next "git commit -a" there would undo the bless. */
	s = open_store("wt", NULL);
	assert_int_equal(ep_store_bless(commit, s, "gpu", "{}\n", "m", &ada,
	    &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, "branch main is checked out in the "
	    "work tree"));
	assert_non_null(strstr(err.msg, "bare"));
	ep_store_free(s);
	assert_string_equal(sh_out("git -C wt rev-parse main"), head);
	memset(&err, 0, sizeof err);

	/* Another branch moves; the work tree and index stay as they are. */
	s = open_store("wt", "golden");
	bless_ok(commit, s, "gpu", "{\"x\": \"y\"}\n");
	assert_int_equal(ep_store_read(&m, &p, &info, s, "gpu", &err), 0);
	assert_string_equal(m, "{\"x\": \"y\"}\n");
	assert_int_equal(p.n, 1);
	assert_string_equal(p.v[0].path, "gpu/policy.json");
	assert_string_equal(ep_store_policies_own(&p),
	    "{\"rules\": []}\n");	/* kept */
	assert_string_equal(info.commit, commit);
	free(m);
	ep_store_policies_clear(&p);
	ep_store_info_clear(&info);
	ep_store_free(s);

	assert_string_equal(sh_out("git -C wt rev-parse golden"), commit);
	assert_string_equal(sh_out("git -C wt rev-parse main"), head);
	assert_int_equal(ep_hash_file(idx2, "wt/.git/index", &err), 0);
	assert_string_equal(idx, idx2);
	assert_int_equal(sh("test ! -e wt/gpu/manifest.json"), 0);
	assert_string_equal(sh_out("cat wt/README | tr '\\n' ,"),
	    "readme,dirty,");
	assert_string_equal(sh_out("git -C wt show golden:README"), "readme");

	/* A branch checked out in a linked work tree is refused too. */
	assert_int_equal(sh("git -C wt worktree add -q ../linked golden"), 0);
	s = open_store("wt", "golden");
	assert_int_equal(ep_store_bless(commit, s, "gpu", "{}\n", "m", &ada,
	    &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, "linked"));
	ep_store_free(s);
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
	    "echo hi > README.md && git add . && git commit -qm init && "
	    "git checkout -q --detach"), 0);
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bare_bless_read),
		cmocka_unit_test(test_nonbare_untouched),
		cmocka_unit_test(test_race_other_profile),
		cmocka_unit_test(test_race_same_profile),
		cmocka_unit_test(test_profile_file_clash),
		cmocka_unit_test(test_author_fallbacks),
		cmocka_unit_test(test_log),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
