/*
 * test_imgdoc.c: indices and manifests as registries and layouts serve
 * them: platforms with variants, attestation entries (unknown/unknown),
 * media types from the body or the Content-Type, and malformed documents
 * that must fail with a message saying what is wrong.
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

#include "image.h"

#define D16(c) c c c c c c c c c c c c c c c c
#define D(c) "sha256:" D16(c) D16(c) D16(c) D16(c)
#define DA D("a")
#define DB D("b")
#define DC D("c")
#define DD D("d")
#define DE D("e")
#define DF D("f")

#define SHA_ABC "sha256:" \
	"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"

static const char index_json[] =
    "{\"schemaVersion\":2,\"mediaType\":\"" EP_MT_OCI_INDEX "\","
    "\"manifests\":["
    "{\"mediaType\":\"" EP_MT_OCI_MANIFEST "\",\"digest\":\"" DA "\","
    "\"size\":1,\"platform\":{\"os\":\"linux\",\"architecture\":\"amd64\"}},"
    "{\"mediaType\":\"" EP_MT_OCI_MANIFEST "\",\"digest\":\"" DB "\","
    "\"size\":1,\"platform\":{\"os\":\"linux\",\"architecture\":\"arm64\","
    "\"variant\":\"v8\"}},"
    "{\"mediaType\":\"" EP_MT_OCI_MANIFEST "\",\"digest\":\"" DC "\","
    "\"size\":1,\"platform\":{\"os\":\"linux\",\"architecture\":\"arm\","
    "\"variant\":\"v7\"}},"
    "{\"mediaType\":\"" EP_MT_OCI_MANIFEST "\",\"digest\":\"" DD "\","
    "\"size\":1,\"platform\":{\"os\":\"linux\",\"architecture\":\"arm\","
    "\"variant\":\"v6\"}},"
    "{\"mediaType\":\"" EP_MT_OCI_MANIFEST "\",\"digest\":\"" DE "\","
    "\"size\":1,\"annotations\":{\"vnd.docker.reference.type\":"
    "\"attestation-manifest\"},"
    "\"platform\":{\"os\":\"unknown\",\"architecture\":\"unknown\"}},"
    "{\"digest\":\"" DF "\",\"size\":1}"
    "]}";

static int
parse(struct ep_imgdoc *d, const char *s, const char *ct, struct ep_err *e)
{
	return ep_imgdoc_parse(d, s, strlen(s), ct, e);
}

static void
test_index(void **state)
{
	struct ep_imgdoc d;
	struct ep_err err = { 0 };
	const struct ep_imgdoc_entry *e;
	char *why = NULL;

	(void)state;
	assert_int_equal(parse(&d, index_json, NULL, &err), 0);
	assert_true(d.is_index);
	assert_string_equal(d.media_type, EP_MT_OCI_INDEX);
	assert_null(d.config_digest);
	assert_int_equal(d.n, 6);
	assert_string_equal(d.v[1].platform, "linux/arm64/v8");
	assert_string_equal(d.v[4].platform, "unknown/unknown");
	assert_null(d.v[5].platform);
	assert_null(d.v[5].media_type);

	e = ep_imgdoc_pick(&d, "linux/amd64", &why);
	assert_non_null(e);
	assert_string_equal(e->digest, DA);
	e = ep_imgdoc_pick(&d, "linux/arm64", &why);
	assert_non_null(e);
	assert_string_equal(e->digest, DB);
	e = ep_imgdoc_pick(&d, "linux/arm64/v8", &why);
	assert_non_null(e);
	assert_string_equal(e->digest, DB);
	e = ep_imgdoc_pick(&d, "linux/arm/v6", &why);
	assert_non_null(e);
	assert_string_equal(e->digest, DD);
	/* No variant asked for: the first of several. */
	e = ep_imgdoc_pick(&d, "linux/arm", &why);
	assert_non_null(e);
	assert_string_equal(e->digest, DC);
	assert_null(why);

	assert_null(ep_imgdoc_pick(&d, "linux/s390x", &why));
	assert_non_null(why);
	assert_string_equal(why,
	    "linux/amd64, linux/arm64/v8, linux/arm/v7, linux/arm/v6");
	free(why);
	assert_null(ep_imgdoc_pick(&d, "linux/amd64/v3", &why));
	free(why);
	assert_null(ep_imgdoc_pick(&d, "windows/amd64", NULL));
	ep_imgdoc_clear(&d);
	assert_int_equal(d.n, 0);
}

/* An arm64 entry without a variant is v8, as a request for v8 is. */
static void
test_arm64_plain(void **state)
{
	static const char s[] =
	    "{\"schemaVersion\":2,\"mediaType\":\"" EP_MT_DOCKER_LIST "\","
	    "\"manifests\":[{\"mediaType\":\"" EP_MT_DOCKER_MANIFEST "\","
	    "\"digest\":\"" DA "\",\"size\":1,\"platform\":{\"os\":\"linux\","
	    "\"architecture\":\"arm64\"}}]}";
	struct ep_imgdoc d;
	struct ep_err err = { 0 };
	const struct ep_imgdoc_entry *e;
	char *why = NULL;

	(void)state;
	assert_int_equal(parse(&d, s, NULL, &err), 0);
	assert_string_equal(d.media_type, EP_MT_DOCKER_LIST);
	e = ep_imgdoc_pick(&d, "linux/arm64/v8", &why);
	assert_non_null(e);
	assert_string_equal(e->media_type, EP_MT_DOCKER_MANIFEST);
	assert_null(ep_imgdoc_pick(&d, "linux/arm64/v9", &why));
	assert_string_equal(why, "linux/arm64");
	free(why);
	ep_imgdoc_clear(&d);
}

static void
test_empty_index(void **state)
{
	struct ep_imgdoc d;
	struct ep_err err = { 0 };
	char *why = NULL;

	(void)state;
	assert_int_equal(parse(&d, "{\"schemaVersion\":2,\"manifests\":[]}",
	    NULL, &err), 0);
	assert_true(d.is_index);
	assert_null(ep_imgdoc_pick(&d, "linux/amd64", &why));
	assert_string_equal(why, "no platforms");
	free(why);
	ep_imgdoc_clear(&d);
}

static void
test_manifest(void **state)
{
	static const char oci[] =
	    "{\"schemaVersion\":2,\"mediaType\":\"" EP_MT_OCI_MANIFEST "\","
	    "\"config\":{\"mediaType\":\"application/vnd.oci.image.config.v1"
	    "+json\",\"digest\":\"" DA "\",\"size\":2},\"layers\":[]}";
	static const char bare[] =
	    "{\"schemaVersion\":2,\"config\":{\"digest\":\"" DB "\"},"
	    "\"layers\":[]}";
	struct ep_imgdoc d;
	struct ep_err err = { 0 };

	(void)state;
	assert_int_equal(parse(&d, oci, NULL, &err), 0);
	assert_false(d.is_index);
	assert_string_equal(d.media_type, EP_MT_OCI_MANIFEST);
	assert_string_equal(d.config_digest, DA);
	assert_int_equal(d.n, 0);
	ep_imgdoc_clear(&d);

	/* No mediaType in the body: the Content-Type, parameters cut. */
	assert_int_equal(parse(&d, bare, EP_MT_DOCKER_MANIFEST
	    "; charset=utf-8", &err), 0);
	assert_string_equal(d.media_type, EP_MT_DOCKER_MANIFEST);
	assert_string_equal(d.config_digest, DB);
	ep_imgdoc_clear(&d);

	/* Neither: what the document holds. */
	assert_int_equal(parse(&d, bare, "application/octet-stream", &err),
	    0);
	assert_string_equal(d.media_type, EP_MT_OCI_MANIFEST);
	ep_imgdoc_clear(&d);
}

struct bad {
	const char *doc;
	const char *ct;
	const char *msg;
};

static const struct bad bads[] = {
	{ "", NULL, "not JSON" },
	{ "garbage", NULL, "not JSON" },
	{ "{\"config\":{\"digest\":\"" DA "\"}", NULL, "not JSON" },
	{ "[1,2]", NULL, "not a JSON object" },
	{ "{\"schemaVersion\":1,\"config\":{\"digest\":\"" DA "\"}}", NULL,
	    "schemaVersion is not 2" },
	{ "{\"schemaVersion\":\"2\",\"config\":{\"digest\":\"" DA "\"}}", NULL,
	    "schemaVersion is not 2" },
	{ "{\"schemaVersion\":2}", NULL, "manifest has no config" },
	{ "{\"schemaVersion\":2,\"mediaType\":\"" EP_MT_OCI_MANIFEST "\"}",
	    NULL, "manifest has no config" },
	{ "{\"config\":[]}", NULL, "config is not an object" },
	{ "{\"config\":{}}", NULL, "no config digest" },
	{ "{\"config\":{\"digest\":5}}", NULL, "no config digest" },
	{ "{\"config\":{\"digest\":\"sha256:abc\"}}", NULL,
	    "bad config digest" },
	{ "{\"mediaType\":5,\"config\":{\"digest\":\"" DA "\"}}", NULL,
	    "mediaType is not a string" },
	{ "{\"mediaType\":\"application/vnd.docker.distribution.manifest.v1"
	    "+prettyjws\"}", NULL, "unsupported media type" },
	{ "{\"mediaType\":\"" EP_MT_OCI_INDEX "\"}", NULL,
	    "index has no manifests" },
	{ "{\"manifests\":{}}", NULL, "manifests is not an array" },
	{ "{\"manifests\":[5]}", NULL, "manifests[0] is not an object" },
	{ "{\"manifests\":[{\"digest\":\"" DA "\"},{\"digest\":\"x\"}]}", NULL,
	    "bad digest in manifests[1]" },
	{ "{\"manifests\":[{}]}", NULL, "bad digest in manifests[0]" },
	{ "{\"manifests\":[{\"digest\":\"" DA "\",\"mediaType\":[]}]}", NULL,
	    "mediaType of manifests[0] is not a string" },
	{ "{\"manifests\":[{\"digest\":\"" DA "\",\"platform\":\"linux\"}]}",
	    NULL, "bad platform in manifests[0]" },
	{ "{\"manifests\":[{\"digest\":\"" DA "\",\"platform\":{\"os\":"
	    "\"linux\"}}]}", NULL, "bad platform in manifests[0]" },
	{ "{\"manifests\":[{\"digest\":\"" DA "\",\"platform\":{\"os\":"
	    "\"linux\",\"architecture\":\"a/b\"}}]}", NULL,
	    "bad platform in manifests[0]" },
	{ "{\"config\":{\"digest\":\"" DA "\"},\"config\":{\"digest\":\"" DB
	    "\"}}", NULL, "not JSON" },
	{ "{\"config\":{\"digest\":\"" DA "\"}}", EP_MT_OCI_INDEX,
	    "index has no manifests" },
};

static void
test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
		struct ep_imgdoc d;
		struct ep_err err = { 0 };

		if (parse(&d, bads[i].doc, bads[i].ct, &err) == 0) {
			print_error("parsed: %s\n", bads[i].doc);
			ep_imgdoc_clear(&d);
			fail();
		}
		assert_int_equal(err.kind, EP_E_INPUT);
		assert_int_equal(d.n, 0);
		assert_null(d.media_type);
		if (strstr(err.msg, bads[i].msg) == NULL) {
			print_error("%s: '%s' lacks '%s'\n", bads[i].doc,
			    err.msg, bads[i].msg);
			fail();
		}
	}
}

static void
test_digest_matches(void **state)
{
	(void)state;
	assert_true(ep_digest_matches(SHA_ABC, "abc", 3));
	assert_false(ep_digest_matches(SHA_ABC, "abd", 3));
	assert_false(ep_digest_matches(SHA_ABC, "abc", 2));
	assert_false(ep_digest_matches("sha256:BA7816BF8F01CFEA414140DE5DAE"
	    "2223B00361A396177A9CB410FF61F20015AD", "abc", 3));
	assert_false(ep_digest_matches("ba7816bf8f01cfea414140de5dae2223b00"
	    "361a396177a9cb410ff61f20015ad", "abc", 3));
	assert_false(ep_digest_matches(NULL, "abc", 3));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_index),
		cmocka_unit_test(test_arm64_plain),
		cmocka_unit_test(test_empty_index),
		cmocka_unit_test(test_manifest),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_digest_matches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
