/*
 * test_owners_req.c: pip's own requirements files (tests/fixtures/owners/
 * pip, from test_req_file.py) through the requirements reader.  Where pip
 * refuses a file, envparity must refuse it; where pip reads requirements,
 * envparity must give the pins they make:
 *   name                 name = *
 *   name==V (V PEP 440)  name = V
 *   name SPEC            name = SPEC without blanks
 *   name @ URL           name = @ URL (without credentials and fragment)
 *   URL, -e URL          no pin: no name and version to pin
 * The deliberate differences below are docs/manifest.md's list; each must still
 * differ.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "lockfile.h"
#include "owners.h"
#include "vercmp.h"
#include "errors.h"
#include "str.h"
#include "xalloc.h"

static const char *const deliberate[] = {
	/* Each file is read on its own: -r and -c name files envparity does
	 * not open (a file is named with --lockfile, and gets its own
	 * keys). */
	"TestProcessLine.test_nested_constraints_file",
	"TestProcessLine.test_relative_http_nested_req_files",
	"TestProcessLine.test_relative_local_nested_req_files",
	"TestProcessLine.test_absolute_local_nested_req_files",
	"TestProcessLine.test_absolute_http_nested_req_file_in_local",
	/* A URL line names no version, #egg=NAME or not: no pin. */
	"TestParseRequirements.test_req_file_parse_egginfo_end_of_line_with_url",
	/* Features change no pin, and each pip release knows others. */
	"TestProcessLine.test_use_feature_with_error",
	NULL,
};

static int
listed(const char *test)
{
	for (size_t i = 0; deliberate[i] != NULL; i++)
		if (strcmp(deliberate[i], test) == 0)
			return 1;
	return 0;
}

/* The bytes of a case: its text, or its hex. */
static char *
content(json_t *c, size_t *len)
{
	const char *text = json_string_value(json_object_get(c, "text"));
	const char *hex = json_string_value(json_object_get(c, "hex"));
	char *out;

	if (text != NULL) {
		*len = strlen(text);
		return xstrdup(text);
	}
	assert_non_null(hex);
	*len = strlen(hex) / 2;
	out = xmalloc(*len + 1);
	for (size_t i = 0; i < *len; i++) {
		unsigned v;

		assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
		out[i] = (char)v;
	}
	out[*len] = '\0';
	return out;
}

/* The pins pip's requirements make, as the header says. */
static void
expected(struct ep_pins *want, json_t *reqs)
{
	json_t *r;
	size_t i;

	json_array_foreach(reqs, i, r) {
		const char *name = json_string_value(json_object_get(r, "name"));
		const char *spec = json_string_value(json_object_get(r, "spec"));
		const char *url = json_string_value(json_object_get(r, "url"));
		char *norm, *v, *o;

		if (name == NULL)
			continue;	/* a URL or an editable */
		norm = ep_lock_pep503(name, strlen(name));
		if (url != NULL) {
			char *s = ep_lock_url_scrub(url, strlen(url));

			v = xasprintf("@ %s", s);
			free(s);
		} else if (spec[0] == '\0')
			v = xstrdup("*");
		else if (ep_startswith(spec, "==") && spec[2] != '=' &&
		    ep_version_pep440(spec + 2))
			v = xstrdup(spec + 2);
		else {
			for (v = o = xstrdup(spec); *spec != '\0'; spec++)
				if (*spec != ' ')
					*o++ = *spec;
			*o = '\0';
		}
		ep_pins_add(want, norm, v);
		free(norm);
		free(v);
	}
	ep_pins_merge(want);
}

static int
same(const struct ep_pins *a, const struct ep_pins *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].name, b->v[i].name) != 0 ||
		    strcmp(a->v[i].version, b->v[i].version) != 0)
			return 0;
	return 1;
}

static void
requirements(void **state)
{
	struct ow_tally t = { .owner = "pip", .table = "requirements files" };
	json_t *fx = ow_load("pip/requirements.json"), *c;
	size_t i;

	(void)state;
	json_array_foreach(ow_array(fx, "cases"), i, c) {
		const char *test = json_string_value(json_object_get(c, "test"));
		json_t *pip = json_object_get(c, "pip");
		struct ep_pins got = { 0 }, want = { 0 };
		struct ep_err err = { 0 };
		size_t len;
		char *buf = content(c, &len);
		int ok = ep_lock_parse_requirements(&got, buf, len,
		    "requirements.txt", &err) == 0, agree;

		ep_pins_merge(&got);
		if (json_is_string(pip))	/* "error" */
			agree = !ok;
		else {
			expected(&want, json_object_get(pip, "reqs"));
			agree = ok && same(&got, &want);
		}
		ow_case(&t, agree, listed(test), "%s: %s%s", test, ok ?
		    "read, " : "refused: ", ok ? (agree ? "" : json_is_string(
		    pip) ? "pip refuses it" : "other pins") : err.msg);
		ep_pins_clear(&got);
		ep_pins_clear(&want);
		free(buf);
	}
	json_decref(fx);
	ow_done(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(requirements),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
