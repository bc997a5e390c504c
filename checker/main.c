/*
 * main.c: find the subcommand (cmdtable.c's table) and run it.  Global flags
 * are --help and --version; everything else belongs to a subcommand.
 * `envparity __options VERB`, not in the help, lists a command's options
 * from its table, for the check of the man page and the completions
 * (tests/cli/docsync.sh).
 */
#include <locale.h>
#include <sys/prctl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "child.h"
#include "clean.h"
#include "cmd.h"
#include "dynload.h"
#include "store.h"
#include "version.h"

static const struct ep_cmd *
ep_cmd_find(const char *name)
{
	for (size_t i = 0; ep_cmd_table[i] != NULL; i++)
		if (strcmp(ep_cmd_table[i]->name, name) == 0)
			return ep_cmd_table[i];
	return NULL;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: envparity COMMAND [OPTIONS]\n\n"
	    "Tell whether this machine's ML stack is the one you tested on.\n\n"
	    "Commands:\n");
	for (size_t i = 0; ep_cmd_table[i] != NULL; i++)
		fprintf(f, "  %-10s %s\n", ep_cmd_table[i]->name,
		    ep_cmd_table[i]->summary);
	fprintf(f, "\nRun 'envparity COMMAND --help' for a command's options.\n"
	    "Exit codes: 0 parity, 1 drift or a failed check, 2 usage or "
	    "malformed input,\n3 could not run (store unreachable, I/O error).\n");
}

int
main(int argc, char **argv)
{
	const struct ep_cmd *cmd;
	struct ep_err err = { 0 };
	int rc;

	/* A dlopen helper (dynload.h): this binary executed afresh by
	 * ourselves to load one library, before anything else runs. */
	if (argc > 1 && strcmp(argv[1], EP_DYNLOAD_HELPER) == 0)
		return ep_dynload_main(argc, argv);
	/* Not readable by processes of the same user: code envparity loads
	 * (a library a pull request put in site-packages) runs in helpers
	 * that could otherwise read our environment (the store token) or
	 * write to our terminal through /proc/PPID.  It also keeps the token
	 * out of core files.  A helper of root's runs as nobody or without
	 * any capability, and under Landlock (child.h), so it cannot either. */
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	/* No library search path into the current directory (the
	 * checkout): restarts without relative LD_LIBRARY_PATH entries. */
	if (ep_child_sane_loader(argv, &err) < 0) {
		ep_say(stderr, "envparity: %s", err.msg);
		return EP_EXIT_NORUN;
	}
	/* The store's credentials leave the environment before anything
	 * runs: root's children, whom the line above does not stop, find
	 * zeros in /proc/PID/environ. */
	ep_store_cred_take();
	/* Byte-stable output whatever the caller's locale. */
	setlocale(LC_ALL, "C");
	/* A closed pipe is an error to report, not a reason to die. */
	signal(SIGPIPE, SIG_IGN);

	if (argc < 2) {
		usage(stderr);
		return EP_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && (cmd = ep_cmd_find(argv[2])) != NULL) {
			ep_opt_help(stdout, cmd);
			return EP_EXIT_OK;
		}
		usage(stdout);
		return EP_EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("envparity %s\n", EP_VERSION);
		return EP_EXIT_OK;
	}
	if (strcmp(argv[1], "__options") == 0 && argc == 3 &&
	    (cmd = ep_cmd_find(argv[2])) != NULL) {
		ep_opt_list(stdout, cmd);
		return EP_EXIT_OK;
	}
	if ((cmd = ep_cmd_find(argv[1])) == NULL) {
		const char *names[64];
		const char *hint;
		size_t n = 0;

		for (size_t i = 0; ep_cmd_table[i] != NULL &&
		    n < sizeof names / sizeof names[0]; i++)
			names[n++] = ep_cmd_table[i]->name;
		if ((hint = ep_cmd_suggest(argv[1], names, n)) != NULL) {
			ep_say(stderr, "envparity: unknown command '%s'; did "
			    "you mean '%s'?", argv[1], hint);
			ep_say(stderr, "Try 'envparity --help'.");
			return EP_EXIT_USAGE;
		}
		ep_say(stderr, "envparity: unknown command '%s'", argv[1]);
		fputc('\n', stderr);
		usage(stderr);
		return EP_EXIT_USAGE;
	}
	rc = cmd->exec(cmd, argc - 1, argv + 1);
	ep_store_cred_forget();
	return rc;
}
