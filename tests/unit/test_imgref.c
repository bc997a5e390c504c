/*
 * test_imgref.c: image reference parsing: docker.io normalization, hosts
 * with ports, tags and digests, local references, names that never read
 * as the other kind, and errors that say which part is wrong.
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
#include "errors.h"
#include "str.h"

#define HEX64 \
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

struct good {
	const char *in;
	int kind;
	const char *name, *registry, *api_host, *repository, *tag, *digest,
	    *path;
};

static const struct good goods[] = {
	{ "ubuntu", EP_IMG_REGISTRY, "docker.io/library/ubuntu:latest",
	    "docker.io", "registry-1.docker.io", "library/ubuntu", "latest",
	    NULL, NULL },
	/* Hosts docker takes: inner dashes, a leading digit, the highest
	 * port; and 64 hex digits under a host, which are a name. */
	{ "a-b.c-d.com:65535/x", EP_IMG_REGISTRY,
	    "a-b.c-d.com:65535/x:latest", "a-b.c-d.com:65535",
	    "a-b.c-d.com:65535", "x", "latest", NULL, NULL },
	{ "001a.com/x", EP_IMG_REGISTRY, "001a.com/x:latest", "001a.com",
	    "001a.com", "x", "latest", NULL, NULL },
	{ "docker.io/" HEX64, EP_IMG_REGISTRY,
	    "docker.io/library/" HEX64 ":latest", "docker.io",
	    "registry-1.docker.io", "library/" HEX64, "latest", NULL, NULL },
	{ "ubuntu:22.04", EP_IMG_REGISTRY,
	    "docker.io/library/ubuntu:22.04", "docker.io",
	    "registry-1.docker.io", "library/ubuntu", "22.04", NULL, NULL },
	{ "library/ubuntu", EP_IMG_REGISTRY,
	    "docker.io/library/ubuntu:latest", "docker.io",
	    "registry-1.docker.io", "library/ubuntu", "latest", NULL, NULL },
	{ "docker.io/ubuntu", EP_IMG_REGISTRY,
	    "docker.io/library/ubuntu:latest", "docker.io",
	    "registry-1.docker.io", "library/ubuntu", "latest", NULL, NULL },
	{ "index.docker.io/ubuntu", EP_IMG_REGISTRY,
	    "docker.io/library/ubuntu:latest", "docker.io",
	    "registry-1.docker.io", "library/ubuntu", "latest", NULL, NULL },
	{ "docker://ubuntu:20.04", EP_IMG_REGISTRY,
	    "docker.io/library/ubuntu:20.04", "docker.io",
	    "registry-1.docker.io", "library/ubuntu", "20.04", NULL, NULL },
	{ "nvidia/cuda:12.4.1-base", EP_IMG_REGISTRY,
	    "docker.io/nvidia/cuda:12.4.1-base", "docker.io",
	    "registry-1.docker.io", "nvidia/cuda", "12.4.1-base", NULL, NULL },
	{ "localhost/x", EP_IMG_REGISTRY, "localhost/x:latest", "localhost",
	    "localhost", "x", "latest", NULL, NULL },
	{ "localhost", EP_IMG_REGISTRY, "docker.io/library/localhost:latest",
	    "docker.io", "registry-1.docker.io", "library/localhost",
	    "latest", NULL, NULL },
	{ "localhost:5000/x:t", EP_IMG_REGISTRY, "localhost:5000/x:t",
	    "localhost:5000", "localhost:5000", "x", "t", NULL, NULL },
	{ "127.0.0.1:5000/a/b@sha256:" HEX64, EP_IMG_REGISTRY,
	    "127.0.0.1:5000/a/b@sha256:" HEX64, "127.0.0.1:5000",
	    "127.0.0.1:5000", "a/b", NULL, "sha256:" HEX64, NULL },
	{ "a:b@sha256:" HEX64, EP_IMG_REGISTRY,
	    "docker.io/library/a:b@sha256:" HEX64, "docker.io",
	    "registry-1.docker.io", "library/a", "b", "sha256:" HEX64, NULL },
	{ "ghcr.io/o-r/p__q.r/s--t:V1_x", EP_IMG_REGISTRY,
	    "ghcr.io/o-r/p__q.r/s--t:V1_x", "ghcr.io", "ghcr.io",
	    "o-r/p__q.r/s--t", "V1_x", NULL, NULL },
	{ "Registry.Example.COM/x", EP_IMG_REGISTRY,
	    "Registry.Example.COM/x:latest", "Registry.Example.COM",
	    "Registry.Example.COM", "x", "latest", NULL, NULL },
	{ "[::1]:5000/x", EP_IMG_REGISTRY, "[::1]:5000/x:latest",
	    "[::1]:5000", "[::1]:5000", "x", "latest", NULL, NULL },
	/* A registry called oci or docker-archive: its name keeps the
	 * docker:// (a name "oci:5000/foo:latest" is a local layout). */
	{ "docker://oci:5000/foo", EP_IMG_REGISTRY,
	    "docker://oci:5000/foo:latest", "oci:5000", "oci:5000", "foo",
	    "latest", NULL, NULL },
	{ "docker://docker-archive:5000/a/b@sha256:" HEX64, EP_IMG_REGISTRY,
	    "docker://docker-archive:5000/a/b@sha256:" HEX64,
	    "docker-archive:5000", "docker-archive:5000", "a/b", NULL,
	    "sha256:" HEX64, NULL },
	{ "docker://oci.example:5000/foo", EP_IMG_REGISTRY,
	    "oci.example:5000/foo:latest", "oci.example:5000",
	    "oci.example:5000", "foo", "latest", NULL, NULL },
	{ "oci:5000/foo:latest", EP_IMG_OCI, "oci:5000/foo:latest", NULL,
	    NULL, NULL, "latest", NULL, "5000/foo" },
	{ "oci:/dir:tag", EP_IMG_OCI, "oci:/dir:tag", NULL, NULL, NULL,
	    "tag", NULL, "/dir" },
	{ "oci:relative", EP_IMG_OCI, "oci:relative", NULL, NULL, NULL, NULL,
	    NULL, "relative" },
	{ "oci:l/ay:out/v1.0-rc_1", EP_IMG_OCI, "oci:l/ay:out/v1.0-rc_1",
	    NULL, NULL, NULL, "out/v1.0-rc_1", NULL, "l/ay" },
	{ "docker-archive:f.tar", EP_IMG_ARCHIVE, "docker-archive:f.tar",
	    NULL, NULL, NULL, NULL, NULL, "f.tar" },
	{ "docker-archive:/x/f.tar:app:1", EP_IMG_ARCHIVE,
	    "docker-archive:/x/f.tar:app:1", NULL, NULL, NULL, "app:1", NULL,
	    "/x/f.tar" },
};

static void
eq_or_null(const char *want, const char *got, const char *what,
    const char *in)
{
	if (want == NULL && got == NULL)
		return;
	if (want == NULL || got == NULL || strcmp(want, got) != 0) {
		print_error("%s: %s: want '%s', got '%s'\n", in, what,
		    want != NULL ? want : "(null)", got != NULL ? got :
		    "(null)");
		fail();
	}
}

static void
test_good(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof goods / sizeof goods[0]; i++) {
		const struct good *g = &goods[i];
		struct ep_imgref r;
		struct ep_err err = { 0 };

		if (ep_imgref_parse(&r, g->in, &err) != 0) {
			print_error("%s: %s\n", g->in, err.msg);
			fail();
		}
		assert_int_equal(r.kind, g->kind);
		assert_string_equal(r.input, g->in);
		eq_or_null(g->name, r.name, "name", g->in);
		eq_or_null(g->registry, r.registry, "registry", g->in);
		eq_or_null(g->api_host, r.api_host, "api_host", g->in);
		eq_or_null(g->repository, r.repository, "repository", g->in);
		eq_or_null(g->tag, r.tag, "tag", g->in);
		eq_or_null(g->digest, r.digest, "digest", g->in);
		eq_or_null(g->path, r.path, "path", g->in);
		ep_imgref_clear(&r);
		assert_null(r.name);
	}
}

struct bad {
	const char *in;
	const char *part;	/* in the message */
};

static const struct bad bads[] = {
	{ "", "empty" },
	{ "Ubuntu", "uppercase in repository name" },
	{ "docker.io/Library/ubuntu", "uppercase in repository name" },
	{ "ubuntu:", "empty tag" },
	{ "ubuntu:-x", "bad tag '-x'" },
	{ "ubuntu:a+b", "bad tag 'a+b'" },
	{ "ubuntu:" "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	    "bad tag" },
	{ "ubuntu@sha256:abc", "bad digest 'sha256:abc'" },
	{ "ubuntu@sha256:" "0123456789ABCDEF0123456789abcdef0123456789abcdef"
	    "0123456789abcdef", "bad digest" },
	{ "ubuntu@md5:" HEX64, "bad digest" },
	{ "ubuntu@", "bad digest" },
	{ "a//b", "empty path component" },
	{ "/a", "empty path component" },
	{ "a/", "empty path component" },
	{ "localhost:5000/", "empty path component" },
	{ ":tag", "empty repository name" },
	{ "a_-b", "bad character or separator" },
	{ "a___b", "bad character or separator" },
	{ "a.", "bad character or separator" },
	{ "host:99999999/x", "bad registry host" },
	/* Host labels: none empty, none beginning or ending with '-'; a
	 * port up to 65535. */
	{ "dock..er/docker", "bad registry host 'dock..er'" },
	{ "ab-.com/foo", "bad registry host 'ab-.com'" },
	{ "ab.-com/foo", "bad registry host 'ab.-com'" },
	{ "ab.com-/foo", "bad registry host 'ab.com-'" },
	{ ".ab.com/foo", "bad registry host" },
	{ "host.x:65536/x", "bad registry host 'host.x:65536'" },
	{ "host.x:/x", "bad registry host" },
	/* An image ID is no name. */
	{ HEX64, "64 hexadecimal digits are an image ID" },
	{ "ho st/x", "white space" },
	{ "oci:", "empty directory" },
	{ "oci::tag", "empty directory" },
	{ "oci:/d:", "empty tag" },
	{ "oci:/d:a b", "bad tag 'a b'" },
	{ "oci:/d:a\tb", "control character" },
	{ "oci:/d:-x", "bad tag '-x'" },
	{ "docker-archive:", "empty archive path" },
	{ "docker-archive:f.tar:", "empty image reference" },
	{ "docker-archive:f.tar:Bad:1", "bad image in the archive" },
	{ "docker-archive:f.tar:x@sha256:" HEX64,
	    "bad image in the archive" },
};

static void
test_bad(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
		struct ep_imgref r;
		struct ep_err err = { 0 };

		if (ep_imgref_parse(&r, bads[i].in, &err) == 0) {
			print_error("'%s' parsed as %s\n", bads[i].in, r.name);
			ep_imgref_clear(&r);
			fail();
		}
		assert_int_equal(err.kind, EP_E_INPUT);
		assert_null(r.name);
		if (strstr(err.msg, bads[i].part) == NULL) {
			print_error("'%s': message '%s' lacks '%s'\n",
			    bads[i].in, err.msg, bads[i].part);
			fail();
		}
		/* The message names the input (but an empty one has no
		 * name, and a long one is cut). */
		if (*bads[i].in != '\0' && strlen(bads[i].in) < 64)
			assert_non_null(strstr(err.msg, bads[i].in));
	}
}

/* USER:PASSWORD@HOST/REPO, as one would write a URL: refused, and the
 * part before the '@' (a password, perhaps) is in no message. */
static void
test_credentials_never_repeated(void **state)
{
	static const char *const in[] = {
		"robot:s3cr3tpw@registry.example.com/team/app:1",
		"s3cr3tpw@registry.example.com/app",
		"docker://robot:s3cr3tpw@localhost:5000/app",
		"robot:s3cr3tpw@localhost:5000/app@sha256:" HEX64,
	};

	(void)state;
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		struct ep_imgref r = { 0 };
		struct ep_err err = { 0 };

		assert_int_equal(ep_imgref_parse(&r, in[i], &err), -1);
		assert_int_equal(err.kind, EP_E_INPUT);
		if (strstr(err.msg, "s3cr3tpw") != NULL) {
			print_error("'%s': message '%s' repeats the "
			    "password\n", in[i], err.msg);
			fail();
		}
		assert_non_null(strstr(err.msg, "credentials are not part"));
	}
}

/*
 * A canonical name is a fact key's middle and what dedupes a batch: the
 * names of a registry image and of a local one never meet, and every
 * name, given back as a reference, is the same image again.
 */
static void
test_names_apart(void **state)
{
	static const char *const in[] = {
		"oci:5000/foo:latest", "docker://oci:5000/foo",
		"docker://oci:5000/foo:latest", "oci:5000/foo",
		"docker-archive:5000/foo:app:1", "docker://docker-archive:5000/"
		"foo", "docker-archive:5000/foo", "docker://oci:1/a@sha256:"
		HEX64, "oci:1/a@sha256:" HEX64, "docker://docker:5000/x",
		"docker:5000/x", "localhost:5000/x", "ubuntu", "oci:x",
	};
	const size_t n = sizeof in / sizeof in[0];
	struct ep_imgref r[sizeof in / sizeof in[0]];

	(void)state;
	for (size_t i = 0; i < n; i++) {
		struct ep_imgref again;
		struct ep_err err = { 0 };

		if (ep_imgref_parse(&r[i], in[i], &err) != 0) {
			print_error("%s: %s\n", in[i], err.msg);
			fail();
		}
		/* The name reads back as the same image. */
		if (ep_imgref_parse(&again, r[i].name, &err) != 0) {
			print_error("%s: its name %s: %s\n", in[i], r[i].name,
			    err.msg);
			fail();
		}
		if (again.kind != r[i].kind ||
		    strcmp(again.name, r[i].name) != 0) {
			print_error("%s: its name %s reads as %s (kind %d, not "
			    "%d)\n", in[i], r[i].name, again.name, again.kind,
			    r[i].kind);
			fail();
		}
		ep_imgref_clear(&again);
		/* A local name starts with its kind's prefix; a registry
		 * name with neither. */
		if (r[i].kind == EP_IMG_REGISTRY) {
			assert_false(ep_startswith(r[i].name, "oci:"));
			assert_false(ep_startswith(r[i].name,
			    "docker-archive:"));
		} else
			assert_true(ep_startswith(r[i].name, r[i].kind ==
			    EP_IMG_OCI ? "oci:" : "docker-archive:"));
	}
	/* One name, one kind. */
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++)
			if (strcmp(r[i].name, r[j].name) == 0 &&
			    r[i].kind != r[j].kind) {
				print_error("%s and %s: one name %s\n", in[i],
				    in[j], r[i].name);
				fail();
			}
	for (size_t i = 0; i < n; i++)
		ep_imgref_clear(&r[i]);
}

/* distribution's limit: 255 characters for host and path together. */
static void
test_long_names(void **state)
{
	char buf[600];
	struct ep_imgref r;
	struct ep_err err = { 0 };
	size_t n;

	(void)state;
	/* docker.io/ (10) + library/ (8) + 237 = 255: allowed. */
	n = 237;
	memset(buf, 'a', n);
	buf[n] = '\0';
	assert_int_equal(ep_imgref_parse(&r, buf, &err), 0);
	assert_int_equal(strlen(r.registry) + 1 + strlen(r.repository), 255);
	ep_imgref_clear(&r);
	buf[n++] = 'a';
	buf[n] = '\0';
	assert_int_equal(ep_imgref_parse(&r, buf, &err), -1);
	assert_non_null(strstr(err.msg, "longer than 255"));
	memset(buf, 'b', 300);
	memcpy(buf, "example.com/", 12);
	buf[300] = '\0';
	assert_int_equal(ep_imgref_parse(&r, buf, &err), -1);
	assert_non_null(strstr(err.msg, "longer than 255"));
}

static void
test_digest_valid(void **state)
{
	(void)state;
	assert_true(ep_digest_valid("sha256:" HEX64));
	assert_false(ep_digest_valid(NULL));
	assert_false(ep_digest_valid("sha256:" HEX64 "0"));
	assert_false(ep_digest_valid("sha256:" "0123456789abcdef"));
	assert_false(ep_digest_valid("sha512:" HEX64));
	assert_false(ep_digest_valid(HEX64));
	assert_false(ep_digest_valid("sha256:g123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_credentials_never_repeated),
		cmocka_unit_test(test_names_apart),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_digest_valid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
