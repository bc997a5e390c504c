/*
 * cmd_attest.c: `envparity attest`: sign, in a step of its own, the
 * statement an earlier `check --statement` or `fleet --statement` wrote.
 *
 * The signing key is the one secret of a promotion gate, and the check
 * before it runs the code of the environment it judges (a pull
 * request's interpreter and libraries).  Here nothing of that
 * environment runs: the statement is read and checked to be envparity's,
 * then the key is read, signs the statement's bytes as they were written
 * (what `check --attest` signs in one step), and is wiped.  A CI job
 * gives the key to this step only.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attestopt.h"
#include "clean.h"
#include "cmd.h"
#include "dsse.h"
#include "opt.h"
#include "outfile.h"
#include "errors.h"
#include "files.h"

static int cmd_attest_exec(const struct ep_cmd *, int, char **);

/* A statement is at most this large: its envelope, in base64, must still
 * be one verify reads (dsse.h). */
#define STATEMENT_MAX	(EP_DSSE_MAX / 2)

/* What the command line says. */
struct attest_opts {
	struct ep_attestopt aopt;
	const char *output;
};

#define AO struct attest_opts
static const struct ep_opt attest_opts[] = {
	EP_OPT_STR("output", 'o', "FILE", AO, output,
	    "write the envelope there, atomically (default:\n"
	    "standard output); never the key's file"),
	EP_OPT_GROUP(ep_og_signkey, AO, aopt, NULL),
	EP_OPT_HELP,
	EP_OPT_END,
};
#undef AO

const struct ep_cmd ep_cmd_attest = {
	.name = "attest",
	.summary = "sign a statement check or fleet wrote, in a step of its own",
	.usage =
"usage: envparity attest STATEMENT (--sign-key KEY.pem | --sign-key - |\n"
"                        --sign-key-fd N) [-o ENVELOPE]\n"
"\n"
"Sign the in-toto statement that `check --statement FILE` or `fleet\n"
"--statement FILE` wrote into the DSSE envelope `check --attest` would\n"
"have written (envparity(1), attest), in a step where no code of the\n"
"environment checked runs while the key is held.  STATEMENT (- for\n"
"standard input) must be envparity's statement, every field `verify`\n"
"reads; its bytes are signed as they were written (the newline after\n"
"them aside).\n"
"\n",
	.opts = attest_opts,
	.footer =
"Check the envelope with `envparity verify`.\n"
"\n"
"Exit codes: 0 signed, 2 usage, a statement that is not one or a key that\n"
"cannot sign, 3 the statement cannot be read or the envelope written.\n",
	.max_operands = -1,
	.exec = cmd_attest_exec,
};

/* The statement's bytes, less one newline at the end: unreadable is
 * EP_E_IO, too large for an envelope EP_E_INPUT. */
static int
read_statement(char **text, size_t *len, const char *path, struct ep_err *err)
{
	struct stat st;
	int fd, rc;

	*text = NULL;
	if (strcmp(path, "-") == 0)
		rc = ep_read_fd(text, len, 0, "standard input", STATEMENT_MAX,
		    err);
	else if ((fd = ep_open_regular(path, &st, err)) < 0)
		rc = -1;
	else {
		rc = ep_read_fd(text, len, fd, path, STATEMENT_MAX, err);
		close(fd);
	}
	if (rc < 0) {
		if (strstr(err->msg, "too large") == NULL)
			err->kind = EP_E_IO;
		return -1;
	}
	if (*len > 0 && (*text)[*len - 1] == '\n')
		(*text)[--*len] = '\0';
	return 0;
}

/* STATEMENT and one key, not both from standard input: 0, or the usage
 * error's exit code, printed. */
static int
attest_usage(const struct ep_cmd *self, const struct ep_attestopt *aopt,
    const struct ep_cmd_args *args)
{
	const char *path;

	if (args->n == 0)
		return ep_cmd_usage_error(self, "name the statement to sign "
		    "(the file check --statement or fleet --statement wrote)");
	if (args->n > 1)
		return ep_cmd_usage_error(self, "unexpected argument '%s'",
		    args->v[1]);
	path = args->v[0];
	if (aopt->key_path == NULL && aopt->key_fd == NULL)
		return ep_cmd_usage_error(self, "sign with --sign-key KEY.pem, "
		    "--sign-key - or --sign-key-fd N (the Ed25519 private "
		    "key)");
	if (aopt->key_path != NULL && aopt->key_fd != NULL)
		return ep_cmd_usage_error(self, "%s",
		    ep_attestopt_unpaired(aopt));
	if (strcmp(path, "-") == 0 && ((aopt->key_path != NULL &&
	    strcmp(aopt->key_path, "-") == 0) || (aopt->key_fd != NULL &&
	    strcmp(aopt->key_fd, "0") == 0)))
		return ep_cmd_usage_error(self, "the statement and the key "
		    "cannot both come from standard input");
	return 0;
}

static int
cmd_attest_exec(const struct ep_cmd *self, int argc, char **argv)
{
	struct attest_opts o = { .output = "-" };
	struct ep_attestopt *aopt = &o.aopt;
	struct ep_cmd_args args;
	struct ep_attestation *a = NULL;
	struct ep_err err = { 0 };
	const char *path;
	char *text = NULL;
	size_t len = 0;
	int rc;

	if (ep_opt_parse(&args, &rc, self, &o, argc, argv) < 0)
		goto done;
	if ((rc = attest_usage(self, aopt, &args)) != 0)
		goto done;
	path = args.v[0];
	/* Where the key comes from, then the envelope's path (never the
	 * key's file), before anything is read. */
	if (ep_attestopt_key_check(aopt, &err) < 0 ||
	    ep_out_check(o.output, EP_OUT_STDOUT, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (read_statement(&text, &len, path, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (ep_attest_parse(&a, text, len, &err) < 0) {
		ep_say(stderr, "envparity attest: %s: %s", path, err.msg);
		rc = EP_EXIT_USAGE;
		goto done;
	}
	if (ep_attestopt_sign_text(aopt, text, len, &err) < 0 ||
	    ep_out_write(o.output, aopt->envelope, strlen(aopt->envelope),
	    EP_OUT_STDOUT, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (ep_out_stream(o.output, EP_OUT_STDOUT) == 0)
		ep_say(stdout, "envparity attest: %s: signed the %s of %s at "
		    "%s (%s)", o.output, a->command, a->host, a->time_text,
		    a->verdict);
	rc = EP_EXIT_OK;
done:
	ep_attestation_free(a);
	free(text);
	ep_attestopt_clear(aopt);
	return rc;
}
