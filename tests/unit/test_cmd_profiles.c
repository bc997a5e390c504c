/*
 * test_cmd_profiles.c: `envparity profiles` run as main() runs it (its
 * exec, standard output caught in a file): the names one per line, the
 * JSON document, an empty store said on standard error and exit 0, a
 * --ref the store lacks exit 2, an unreadable store exit 3; and
 * `log --json` of the same store.  So that the command's lines run under
 * the sanitizers with the unit tests.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "storefixture.h"

/* Run cmd with argv (NULL-terminated) and return its exit code; *out
 * gets what it wrote on standard output (new). */
static int
run_cmd(char **out, const struct ep_cmd *cmd, const char **argv)
{
	char path[256];
	int argc = 0, fd, saved, rc;
	FILE *f;
	long n;

	while (argv[argc] != NULL)
		argc++;
	snprintf(path, sizeof path, "%s/stdout", dir);
	fflush(stdout);
	saved = dup(1);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 1);
	close(fd);
	rc = cmd->exec(cmd, argc, (char **)argv);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	f = fopen(path, "r");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	*out = xcalloc((size_t)n + 1, 1);
	assert_int_equal(fread(*out, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return rc;
}

static void
test_profiles_cmd(void **state)
{
	const char *text[] = { "profiles", "--store", "st.git", NULL };
	const char *json[] = { "profiles", "--store", "st.git", "--json", NULL };
	const char *typo[] = { "profiles", "--store", "st.git", "--ref",
	    "mian", NULL };
	const char *gone[] = { "profiles", "--store", "nowhere.git", NULL };
	const char *log[] = { "log", "--store", "st.git", "--profile",
	    "train/h100", "--json", "-v", NULL };
	struct ep_store *s;
	json_error_t jerr;
	json_t *j;
	char commit[41], *out;

	(void)state;
	assert_int_equal(sh("git init -q --bare -b main st.git"), 0);
	/* Empty: nothing listed, exit 0 (standard error says so). */
	assert_int_equal(run_cmd(&out, &ep_cmd_profiles, text), EP_EXIT_OK);
	assert_string_equal(out, "");
	free(out);
	s = open_store("st.git", NULL);
	bless_ok(commit, s, "train/h100", "{\"schema\": \"envparity/"
	    "manifest@1\", \"meta\": {}, \"facts\": {\"a\": \"1\"}}\n");
	bless_ok(commit, s, "gpu", "{\"schema\": \"envparity/manifest@1\", "
	    "\"meta\": {}, \"facts\": {}}\n");
	ep_store_free(s);
	assert_int_equal(run_cmd(&out, &ep_cmd_profiles, text), EP_EXIT_OK);
	assert_string_equal(out, "gpu\ntrain/h100\n");
	free(out);
	assert_int_equal(run_cmd(&out, &ep_cmd_profiles, json), EP_EXIT_OK);
	j = json_loads(out, 0, &jerr);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_object_get(j, "schema")),
	    "envparity/profiles@1");
	assert_string_equal(json_string_value(json_object_get(j, "commit")),
	    commit);
	assert_int_equal(json_array_size(json_object_get(j, "profiles")), 2);
	json_decref(j);
	free(out);
	assert_int_equal(run_cmd(&out, &ep_cmd_profiles, typo), EP_EXIT_USAGE);
	free(out);
	assert_int_equal(run_cmd(&out, &ep_cmd_profiles, gone), EP_EXIT_NORUN);
	free(out);

	/* log --json -v of one profile: one commit, one fact added. */
	assert_int_equal(run_cmd(&out, &ep_cmd_log, log), EP_EXIT_OK);
	j = json_loads(out, 0, &jerr);
	assert_non_null(j);
	assert_int_equal(json_array_size(json_object_get(j, "commits")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
	    json_array_get(json_object_get(j, "commits"), 0), "manifest"),
	    "added")), 1);
	json_decref(j);
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_profiles_cmd, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
