/*
 * test_store_policy.c: policy files in the store: nested profiles
 * written and read, every policy file that applies to a profile read
 * from one commit and merged, edits committed through bless's
 * compare-and-swap (a rival on the same file refused, on another file
 * built upon), log telling which files each commit changed, and the
 * list of a store's profiles.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hash.h"
#include "policy.h"
#include "storefixture.h"

#define POL(k) "{\"schema\": \"envparity/policy@1\", \"rules\": " \
	"[{\"key\": \"" k "\", \"rule\": \"ignore\"}]}\n"

/* An edit that writes arg (NULL: removes the file). */
static int
put(char **out, const char *cur, void *arg, struct ep_err *err)
{
	(void)cur;
	(void)err;
	*out = arg != NULL ? xstrdup(arg) : NULL;
	return 0;
}

static void
commit_ok(char commit[41], struct ep_store *s, const char *path,
    const char *text)
{
	struct ep_err err = { 0 };
	int changed;

	if (ep_store_commit_file(commit, &changed, s, path, put,
	    (void *)text, "edit", &ada, &err) < 0)
		fail_msg("commit %s: %s", path, err.msg);
}

static void
test_nested_layers(void **state)
{
	struct ep_store_policies pol = { 0 };
	struct ep_store_info info = { 0 };
	struct ep_policy *p = NULL;
	struct ep_store *s;
	struct ep_err err = { 0 };
	char c[41], *m = NULL;

	(void)state;
	assert_int_equal(sh("git init -q --bare -b main n.git"), 0);
	s = open_store("n.git", NULL);
	bless_ok(c, s, "train/h100", "{\"a\": 1}\n");
	commit_ok(c, s, "policy.json", POL("shared.*"));
	commit_ok(c, s, "train/policy.json", POL("train.*"));
	commit_ok(c, s, "train/h100/policy.json", POL("own.*"));
	commit_ok(c, s, "other/policy.json", POL("other.*"));
	assert_string_equal(sh_out("git --git-dir=n.git ls-tree -r "
	    "--name-only main | tr '\\n' ' '"), "other/policy.json "
	    "policy.json train/h100/manifest.json train/h100/policy.json "
	    "train/policy.json ");

	assert_int_equal(ep_store_read(&m, &pol, &info, s, "train/h100",
	    &err), 0);
	assert_string_equal(m, "{\"a\": 1}\n");
	assert_int_equal(pol.n, 3);
	assert_string_equal(pol.v[0].path, "train/h100/policy.json");
	assert_int_equal(pol.v[0].scope, EP_SCOPE_PROFILE);
	assert_string_equal(pol.v[1].path, "train/policy.json");
	assert_int_equal(pol.v[1].scope, EP_SCOPE_INHERITED);
	assert_string_equal(pol.v[2].path, "policy.json");
	assert_int_equal(pol.v[2].scope, EP_SCOPE_SHARED);
	assert_int_equal(ep_store_policy(&p, &pol, "n.git#main", &err), 0);
	assert_string_equal(ep_policy_match(p, "own.x")->origin,
	    "train/h100/policy.json");
	assert_string_equal(ep_policy_match(p, "train.x")->origin,
	    "train/policy.json");
	assert_string_equal(ep_policy_match(p, "shared.x")->origin,
	    "policy.json");
	assert_true(ep_policy_match(p, "other.x")->builtin);
	ep_policy_free(p);
	ep_store_policies_clear(&pol);
	ep_store_info_clear(&info);
	free(m);

	/* A malformed shared policy is named by its file. */
	commit_ok(c, s, "policy.json", "{\"schema\": 1}\n");
	assert_int_equal(ep_store_policy_valid(s, "train/h100", &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, "n.git#main:policy.json: "));

	/* Removing the last file of a folder leaves no folder. */
	commit_ok(c, s, "other/policy.json", NULL);
	assert_string_equal(sh_out("git --git-dir=n.git ls-tree --name-only "
	    "main | tr '\\n' ' '"), "policy.json train ");
	ep_store_free(s);
}

static void
test_nested_clash(void **state)
{
	struct ep_store *s;
	struct ep_err err = { 0 };
	char c[41];
	int changed;

	(void)state;
	assert_int_equal(sh("git init -q --bare -b main k.git"), 0);
	s = open_store("k.git", NULL);
	commit_ok(c, s, "train/notes", "hello\n");
	assert_int_equal(ep_store_bless(c, s, "train/notes/x", "{}\n", "m",
	    &ada, &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	assert_non_null(strstr(err.msg, "'train/notes' is a file there"));
	memset(&err, 0, sizeof err);
	assert_int_equal(ep_store_commit_file(c, &changed, s, "train", put,
	    "x", "m", &ada, &err), -1);
	assert_non_null(strstr(err.msg, "train at "));
	assert_non_null(strstr(err.msg, "is not a regular file"));
	assert_string_equal(sh_out("git --git-dir=k.git rev-list --count "
	    "main"), "1");
	ep_store_free(s);
}

/* The rival the test seam runs once, mid-commit. */
struct rival {
	const char *path;	/* a file, or NULL: bless profile p */
	char commit[41];
};

static void
rival_commit(void *arg)
{
	struct rival *r = arg;
	struct ep_store *s;

	ep_store_before_update = NULL;	/* once */
	s = open_store("race.git", NULL);
	if (r->path != NULL)
		commit_ok(r->commit, s, r->path, POL("rival.*"));
	else
		bless_ok(r->commit, s, "p", "{\"rival\": 1}\n");
	ep_store_free(s);
}

static void
test_race(void **state)
{
	struct rival same = { "p/policy.json", "" }, bless = { NULL, "" };
	struct ep_store *s;
	struct ep_err err = { 0 };
	char c[41], base[41], *want;
	int changed, rc;

	(void)state;
	assert_int_equal(sh("git init -q --bare -b main race.git"), 0);
	s = open_store("race.git", NULL);
	bless_ok(base, s, "p", "{\"v\": 0}\n");

	/* A rival that changed the same policy file: refused, the
	 * rival's file whole. */
	ep_store_before_update = rival_commit;
	ep_store_before_update_arg = &same;
	rc = ep_store_commit_file(c, &changed, s, "p/policy.json", put,
	    POL("mine.*"), "mine", &ada, &err);
	ep_store_before_update = NULL;
	assert_int_equal(rc, -1);
	assert_int_equal(err.kind, EP_E_IO);
	want = xasprintf("p/policy.json was changed by someone else (commit "
	    "%.12s) while this ran; nothing was committed: look at it again "
	    "and retry", same.commit);
	assert_string_equal(err.msg, want);
	free(want);
	assert_string_equal(sh_out("git --git-dir=race.git rev-parse main"),
	    same.commit);
	assert_non_null(strstr(sh_out("git --git-dir=race.git show "
	    "main:p/policy.json | tr -d '\\n'"), "rival.*"));

	/* A rival bless of the profile's manifest: another file, so the
	 * waiver is committed on top of it and nothing is lost. */
	memset(&err, 0, sizeof err);
	ep_store_before_update = rival_commit;
	ep_store_before_update_arg = &bless;
	rc = ep_store_commit_file(c, &changed, s, "p/policy.json", put,
	    POL("mine.*"), "mine", &ada, &err);
	ep_store_before_update = NULL;
	if (rc < 0)
		fail_msg("%s", err.msg);
	assert_int_equal(changed, 1);
	assert_string_equal(sh_out("git --git-dir=race.git rev-parse main^"),
	    bless.commit);
	assert_string_equal(sh_out("git --git-dir=race.git show "
	    "main:p/manifest.json"), "{\"rival\": 1}");
	assert_non_null(strstr(sh_out("git --git-dir=race.git show "
	    "main:p/policy.json | tr -d '\\n'"), "mine.*"));

	/* The same text again: no commit. */
	assert_int_equal(ep_store_commit_file(base, &changed, s,
	    "p/policy.json", put, POL("mine.*"), "again", &ada, &err), 0);
	assert_int_equal(changed, 0);
	assert_string_equal(base, c);
	ep_store_free(s);
}

static void
test_log_policies(void **state)
{
	struct ep_store_commit *v = NULL;
	struct ep_store *s;
	struct ep_err err = { 0 };
	char c[41];
	size_t n;

	(void)state;
	assert_int_equal(sh("git init -q --bare -b main l.git"), 0);
	s = open_store("l.git", NULL);
	bless_ok(c, s, "train/h100", "{\"a\": 1}\n");
	commit_ok(c, s, "train/h100/policy.json", POL("a"));
	commit_ok(c, s, "policy.json", POL("b"));
	commit_ok(c, s, "train/policy.json", POL("c"));
	bless_ok(c, s, "train/a100", "{\"a\": 1}\n");	/* not ours */
	commit_ok(c, s, "train/a100/policy.json", POL("d"));	/* nor this */
	assert_int_equal(ep_store_log(&v, &n, s, "train/h100", 0, &err), 0);
	assert_int_equal(n, 4);
	assert_int_equal(v[0].manifest_changed, 0);
	assert_int_equal(v[0].policies.n, 1);
	assert_string_equal(v[0].policies.v[0], "train/policy.json");
	assert_int_equal(v[0].policy_scopes[0], EP_SCOPE_INHERITED);
	assert_string_equal(v[1].policies.v[0], "policy.json");
	assert_int_equal(v[1].policy_scopes[0], EP_SCOPE_SHARED);
	assert_string_equal(v[2].policies.v[0], "train/h100/policy.json");
	assert_int_equal(v[2].policy_scopes[0], EP_SCOPE_PROFILE);
	assert_null(v[2].manifest);
	assert_int_equal(v[3].manifest_changed, 1);
	assert_int_equal(v[3].policies.n, 0);
	assert_string_equal(v[3].manifest, "{\"a\": 1}\n");
	ep_store_log_free(v, n);
	ep_store_free(s);
}

/* Every folder with a manifest.json, sorted; the rest said, not lost. */
static void
test_profiles(void **state)
{
	struct ep_store *s;
	struct ep_strv names = { 0 }, skipped = { 0 };
	struct ep_err err = { 0 };
	char commit[41];

	(void)state;
	assert_int_equal(sh("git init -q --bare -b main st.git"), 0);
	s = open_store("st.git", NULL);
	/* A branch with no commit yet: none, no error. */
	assert_int_equal(ep_store_profiles(&names, &skipped, s, &err), 0);
	assert_int_equal(names.n + skipped.n, 0);
	bless_ok(commit, s, "train/h100", "{}\n");
	bless_ok(commit, s, "gpu", "{}\n");
	commit_ok(commit, s, "train/policy.json", POL("a"));
	commit_ok(commit, s, "manifest.json", "{}\n");
	commit_ok(commit, s, "a/b/c/d/e/f/g/h/manifest.json", "{}\n");
	commit_ok(commit, s, "a/b/c/d/e/f/g/h/i/manifest.json", "{}\n");
	commit_ok(commit, s, "x/.y/manifest.json", "{}\n");
	assert_int_equal(ep_store_profiles(&names, &skipped, s, &err), 0);
	assert_int_equal(names.n, 3);
	assert_string_equal(names.v[0], "a/b/c/d/e/f/g/h");
	assert_string_equal(names.v[1], "gpu");
	assert_string_equal(names.v[2], "train/h100");
	assert_int_equal(skipped.n, 3);
	assert_string_equal(skipped.v[0], "a/b/c/d/e/f/g/h/i/: deeper than "
	    "8 folders");
	assert_string_equal(skipped.v[1], "manifest.json: at the store's "
	    "root, no profile's");
	assert_string_equal(skipped.v[2], "x/.y/manifest.json: profile "
	    "'x/.y': a folder name must not start with '.' or contain '..'");
	ep_strv_clear(&names);
	ep_strv_clear(&skipped);
	ep_store_free(s);
	/* A tag the store lacks is the caller's input error. */
	s = open_store("st.git", "refs/tags/nope");
	assert_int_equal(ep_store_profiles(&names, &skipped, s, &err), -1);
	assert_int_equal(err.kind, EP_E_INPUT);
	ep_store_free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_nested_layers, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_nested_clash, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_race, setup, teardown),
		cmocka_unit_test_setup_teardown(test_log_policies, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_profiles, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
