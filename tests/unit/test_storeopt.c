/*
 * test_storeopt.c: the store options check, bless, diff and log share
 * (profile names, the environment defaults, the bless hint) and the fact
 * counts log prints (factdiff).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "factdiff.h"
#include "manifest.h"
#include "storeopt.h"

static void
test_storeopt(void **state)
{
	static const char *const good[] = { "default", "gpu-a100", "x.y_z",
	    "A1", "train/h100", "nodes/gpu07", "a/b/c/d/e/f/g/h",
	    "x.y/z_1-2" };
	static const char *const bad[] = { "", ".hidden", "a..b", "/abs",
	    "sp ace", "ünï", "a/../b", "../a", "a/..", "a/./b", "./a", "a/.",
	    "a//b", "a/", "/", "//a", "a/.hidden", "a/b..c", "a\\b",
	    "a/policy.json", "manifest.json", "a/b/c/d/e/f/g/h/i" };
	struct ep_storeopt o = { 0 };
	struct ep_store_opts so;
	struct ep_err err = { 0 };
	const char *profile;
	char *hint;

	(void)state;
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		assert_int_equal(ep_profile_check(good[i], &err), 0);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(ep_profile_check(bad[i], &err), -1);
		assert_int_equal(err.kind, EP_E_INPUT);
	}

	o.profile = "p1";	/* --profile p1 (optgroups.c) */
	setenv("ENVPARITY_STORE", "/srv/s", 1);
	setenv("ENVPARITY_PROFILE", "envp", 1);
	assert_int_equal(ep_storeopt_resolve(&so, &profile, &o, &err), 0);
	assert_string_equal(so.spec, "/srv/s");
	assert_string_equal(profile, "p1");	/* the flag wins */
	o.profile = NULL;
	assert_int_equal(ep_storeopt_resolve(&so, &profile, &o, &err), 0);
	assert_string_equal(profile, "envp");
	setenv("ENVPARITY_STORE", "", 1);
	unsetenv("ENVPARITY_PROFILE");
	assert_int_equal(ep_storeopt_resolve(&so, &profile, &o, &err), 0);
	assert_null(so.spec);
	assert_string_equal(profile, "default");
	unsetenv("ENVPARITY_STORE");
	o.profile = "a/b/";
	assert_int_equal(ep_storeopt_resolve(&so, &profile, &o, &err), -1);
	o.profile = "a/b";
	assert_int_equal(ep_storeopt_resolve(&so, &profile, &o, &err), 0);
	assert_string_equal(profile, "a/b");

	so.spec = "https://tok@h/x it's";
	so.ref = "main";
	hint = ep_storeopt_bless_hint(&so, "gpu");
	assert_string_equal(hint, "envparity bless --store 'https://h/x "
	    "it'\\''s' --ref main --profile gpu");
	free(hint);
	so.spec = NULL;
	so.ref = NULL;
	hint = ep_storeopt_bless_hint(&so, "default");
	assert_string_equal(hint, "envparity bless");
	free(hint);
}

static void
test_factdiff(void **state)
{
	struct ep_manifest *a = ep_manifest_new(), *b = ep_manifest_new();
	struct ep_factdiff d = { 0 };

	(void)state;
	ep_manifest_set(a, "k.same", "1");
	ep_manifest_set(a, "k.changed", "1");
	ep_manifest_set(a, "k.gone", "1");
	ep_manifest_set(b, "k.same", "1");
	ep_manifest_set(b, "k.changed", "2");
	ep_manifest_set(b, "k.new2", "1");
	ep_manifest_set(b, "k.new1", "1");
	ep_factdiff_compute(&d, a, b);
	assert_int_equal(d.added.n, 2);
	assert_string_equal(d.added.v[0], "k.new1");
	assert_int_equal(d.removed.n, 1);
	assert_string_equal(d.removed.v[0], "k.gone");
	assert_int_equal(d.changed.n, 1);
	assert_string_equal(d.changed.v[0], "k.changed");
	ep_factdiff_clear(&d);
	ep_factdiff_compute(&d, NULL, b);
	assert_int_equal(d.added.n, 4);
	ep_factdiff_clear(&d);
	ep_manifest_free(a);
	ep_manifest_free(b);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_storeopt),
		cmocka_unit_test(test_factdiff),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
