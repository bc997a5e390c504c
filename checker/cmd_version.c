/*
 * cmd_version.c: `envparity version`: this release and the libraries it
 * was built with.
 */
#include <getopt.h>
#include <stdio.h>

#include "cmd.h"
#include "hash.h"
#include "registry.h"
#include "manifest.h"
#include "report.h"
#include "store.h"
#include "version.h"

static int cmd_version_exec(const struct ep_cmd *, int, char **);

const struct ep_cmd ep_cmd_version = {
	.name = "version",
	.summary = "print the envparity version and its libraries",
	.usage =
"usage: envparity version\n"
"\n"
"Print the envparity release, the manifest schema it writes, and the\n"
"versions of the libraries it runs with.\n",
	.exec = cmd_version_exec,
};

static int
cmd_version_exec(const struct ep_cmd *self, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(self->usage, stdout);
			return EP_EXIT_OK;
		}
		return ep_cmd_bad_option(self, c, longopts, argv);
	}
	if ((rc = ep_cmd_operands(self, argc, argv, 0)) != 0)
		return rc;
	printf("envparity %s\n", EP_VERSION);
	printf("manifest schema %s\n", EP_MANIFEST_SCHEMA);
	printf("%s\n", ep_manifest_library_version());
	printf("%s\n", ep_hash_library_version());
	printf("%s\n", ep_store_library_version());
	printf("%s\n", ep_registry_library_version());
	printf("%s\n", ep_report_library_version());
	return EP_EXIT_OK;
}
