/*
 * cmd_version.c: `envparity version`: this release and the libraries it
 * was built with.
 */
#include <stdio.h>

#include "cmd.h"
#include "hash.h"
#include "registry.h"
#include "manifest.h"
#include "opt.h"
#include "report.h"
#include "store.h"
#include "version.h"

static int cmd_version_exec(const struct ep_cmd *, int, char **);

/* --help alone, not listed: the help is the two lines. */
static const struct ep_opt version_opts[] = {
	{ .kind = EP_OPTK_HELP, .name = "help", .letter = 'h',
	  .arg = EP_ARG_NONE, .hidden = 1 },
	EP_OPT_END,
};

const struct ep_cmd ep_cmd_version = {
	.name = "version",
	.summary = "print the envparity version and its libraries",
	.usage =
"usage: envparity version\n"
"\n"
"Print the envparity release, the manifest schema it writes, and the\n"
"versions of the libraries it runs with.\n",
	.opts = version_opts,
	.in_order = 1,
	.exec = cmd_version_exec,
};

static int
cmd_version_exec(const struct ep_cmd *self, int argc, char **argv)
{
	struct ep_cmd_args args;
	int rc;

	if (ep_opt_parse(&args, &rc, self, NULL, argc, argv) < 0)
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
