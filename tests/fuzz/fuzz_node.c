/*
 * fuzz_node.c: what the node collector parses of the machine's files
 * (collect/node.h): the kernel command line (ep_node_cmdline_facts), a
 * dpkg status file (ep_node_dpkg_version), a sysfs choice ("always
 * [madvise] never", ep_node_choice) and a sysfs list ("0-1,4",
 * ep_node_list_count), each on the whole input.  Only allowlisted
 * parameters become facts, and every answer is made of the input.
 */
#include "fuzz.h"
#include "manifest.h"
#include "node.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fz_cstr(data, size), *v;
	struct ep_manifest *m = ep_manifest_new();
	const char *k;
	json_t *val;
	long n;

	ep_node_cmdline_facts(m, s);
	FZ_CHECK(json_object_size(m->facts) <= 24);
	json_object_foreach(m->facts, k, val) {
		FZ_CHECK(strncmp(k, "node.cmdline.", 13) == 0);
		FZ_CHECK(strchr(k + 13, ' ') == NULL &&
		    strchr(k + 13, '=') == NULL && strchr(k + 13, '-') == NULL);
		/* A value is the input's, its bytes that are not UTF-8
		 * replaced by U+FFFD (three bytes); a repeated flag is "on". */
		FZ_CHECK(strlen(json_string_value(val)) <= 3 * strlen(s) + 2);
	}
	ep_manifest_free(m);

	if ((v = ep_node_dpkg_version(s, "nvidia-fabricmanager")) != NULL) {
		FZ_CHECK(v[0] != '\0' && strlen(v) < strlen(s));
		FZ_CHECK(strchr(v, '\n') == NULL);
		free(v);
	}
	if ((v = ep_node_choice(s)) != NULL) {
		FZ_CHECK(v[0] != '\0' && strchr(v, ']') == NULL &&
		    strstr(s, v) != NULL);
		free(v);
	}
	n = ep_node_list_count(s);
	FZ_CHECK(n >= -1);
	if (n >= 0)
		FZ_CHECK(strspn(s, "0123456789,-") == strlen(s));
	free(s);
	return 0;
}
