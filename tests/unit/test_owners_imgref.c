/*
 * test_owners_imgref.c: distribution/reference's own cases for image
 * references (tests/fixtures/owners/distribution), run through
 * ep_imgref_parse: which references are malformed, and for the others the
 * host, repository, tag and digest after docker's normalization
 * ("ubuntu" is docker.io/library/ubuntu).
 *
 * The deliberate differences below are docs/images.md's "Reference
 * normalization" list; each must still differ.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "image.h"
#include "owners.h"
#include "errors.h"
#include "str.h"

static const struct difference {
	const char *table, *input;
	int valid;		/* envparity's answer: 1 parsed, 0 refused */
	size_t len;		/* not 0: input is the start of a case of
				   this length */
} deliberate[] = {
	/* An uppercase first element is a Docker Hub namespace with a typo,
	 * not a host to send a request to. */
	{ "TestValidateReferenceName", "LOCALDOMAIN/library/debian", 0, 0 },
	{ "TestValidateReferenceName", "LOCALDOMAIN/debian", 0, 0 },
	{ "TestValidateReferenceName", "Docker/docker", 0, 0 },
	{ "TestValidateReferenceName", "DOCKER/docker", 0, 0 },
	{ "TestParseRepositoryInfo", "LOCALDOMAIN/fooo", 0, 0 },
	{ "TestParseRepositoryInfo", "LOCALDOMAIN/fooo/bar", 0, 0 },
	{ "TestParseRepositoryInfo", "Foo/bar", 0, 0 },
	{ "TestParseRepositoryInfo", "FOO/bar", 0, 0 },
	/* 255 characters is the limit of the whole name, host included:
	 * distribution counts the path only. */
	{ "TestReferenceParse", "a/a/", 0, 278 },	/* ("a/" x 127)a:tag... */
	{ "TestReferenceParse", "example.com/aaaa", 0, 271 },	/* a x 255 */
	/* A port is a number up to 65535: docker's pattern takes any
	 * digits and fails when it connects. */
	{ "TestDomainRegexp", "192.168.1.1:75050/foo", 0, 0 },
	{ "TestDomainRegexp", "192.168.1.1:750050/foo", 0, 0 },
	{ "TestDomainRegexp", "[fd00:1:2::3]:75050/foo", 0, 0 },
	{ "TestDomainRegexp", "[fd00123123123]:75050/foo", 0, 0 },
	{ "TestDomainRegexp", "[2001:0db8:85a3:0000:0000:8a2e:0370:7334]"
	    ":75050/foo", 0, 0 },
	{ "TestDomainRegexp", "[2001:0db8:85a3:0000:0000:8a2e:0370:7334]"
	    ":750505/foo", 0, 0 },
	/* ParseAnyReference reads a bare image ID as one; envparity asks
	 * registries for names, and reads these two as docker pull does
	 * (ParseNormalizedNamed): no name at all, and the name "sha256". */
	{ "TestParseAnyReference", "dbcc1c35ac38df41fd2f5e4130b32ffdb93ebae8b3"
	    "dbe638c23575912276fc9c", 0, 0 },
	{ "TestParseAnyReference", "sha256:dbcc1c35ac38df41fd2f5e4130b32ffdb93e"
	    "bae8b3dbe638c23575912276fc9c", 1, 0 },
};

static const struct difference *
listed(const char *table, const char *input)
{
	for (size_t i = 0; i < sizeof deliberate / sizeof deliberate[0]; i++)
		if (strcmp(deliberate[i].table, table) == 0 &&
		    (deliberate[i].len == 0 ?
		    strcmp(deliberate[i].input, input) == 0 :
		    strlen(input) == deliberate[i].len &&
		    ep_startswith(input, deliberate[i].input)))
			return &deliberate[i];
	return NULL;
}

static const char *
want(json_t *c, const char *field)
{
	return json_string_value(json_object_get(c, field));
}

/* Does the parse agree with the owner's answer in c?  why says where not. */
static int
agrees(json_t *c, int ok, const struct ep_imgref *r, const char **why)
{
	const char *w;

	*why = "";
	if (!json_is_true(json_object_get(c, "valid"))) {
		*why = "parsed, the owner refuses it";
		return !ok;
	}
	if (!ok) {
		*why = "refused, the owner takes it";
		return 0;
	}
	if (want(c, "id") != NULL) {
		*why = "parsed as a name, the owner reads an image ID";
		return 0;
	}
	if ((w = want(c, "domain")) != NULL && strcmp(w, r->registry) != 0) {
		*why = "another host";
		return 0;
	}
	if ((w = want(c, "path")) != NULL && strcmp(w, r->repository) != 0) {
		*why = "another repository";
		return 0;
	}
	if ((w = want(c, "tag")) != NULL && (r->tag == NULL ||
	    strcmp(w, r->tag) != 0)) {
		*why = "another tag";
		return 0;
	}
	if ((w = want(c, "digest")) != NULL && (r->digest == NULL ||
	    strcmp(w, r->digest) != 0)) {
		*why = "another digest";
		return 0;
	}
	if (w == NULL && r->digest != NULL) {
		*why = "a digest the owner does not see";
		return 0;
	}
	return 1;
}

static void
references(void **state)
{
	struct ow_tally t = { .owner = "distribution", .table = "references" };
	json_t *fx = ow_load("distribution/references.json"), *c;
	size_t i;

	(void)state;
	json_array_foreach(ow_array(fx, "cases"), i, c) {
		const char *table = want(c, "table"), *in = want(c, "input");
		const struct difference *d = listed(table, in);
		struct ep_imgref r;
		struct ep_err err = { 0 };
		const char *why;
		int ok = ep_imgref_parse(&r, in, &err) == 0, agree;

		agree = agrees(c, ok, &r, &why);
		/* A listed difference holds only with the answer listed. */
		ow_case(&t, agree, d != NULL && (agree || ok == d->valid),
		    "%s %.80s: %s%s%s", table, in, why, ok ? " -> " : ": ",
		    ok ? r.name : err.msg);
		if (ok)
			ep_imgref_clear(&r);
	}
	json_decref(fx);
	ow_done(&t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(references),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
