/*
 * cmd_capture.c: `envparity capture [-o FILE] [collector options]`.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "capture.h"
#include "cmd.h"
#include "attestopt.h"
#include "nodesig.h"
#include "progress.h"
#include "image.h"
#include "probeopt.h"

static int cmd_capture_exec(const struct ep_cmd *, int, char **);

const struct ep_cmd ep_cmd_capture = {
	.name = "capture",
	.summary = "print or write a manifest of this machine's stack",
	.usage =
"usage: envparity capture [-o FILE] [-q] [--sign-key KEY.pem | -]\n"
"                         [--sign-key-fd N]\n"
"                         [--runs N [probe options]] [collector options]\n"
"\n"
"Capture this machine as a manifest of facts: OS, kernel, glibc, CPU ISA,\n"
"Python and conda packages, lockfile hashes and pins, the allowlisted\n"
"environment variables, and the NVIDIA stack (driver, GPUs, and the CUDA\n"
"libraries' versions, real paths and SHA-256), and the digests of the\n"
"container images named with --image.  What could not be looked at is\n"
"listed under meta.unavailable.\n"
"\n"
"With --runs N the reference workload runs too: its output hashes and\n"
"determinism domains become facts (probe.*), so that `fleet` can compare\n"
"nodes bit for bit, and any finding of its own (runs that disagree, a\n"
"wrong known answer, a crash) is kept under meta.probe.findings.\n"
"\n"
"  -o, --output FILE    write the manifest to FILE (atomically) instead of\n"
"                       standard output (- or /dev/stdout); a link, device,\n"
"                       FIFO or directory is refused\n"
"  -q, --quiet          do not repeat warnings on standard error\n"
"  --sign-key KEY.pem   sign the manifest with this node's own Ed25519\n"
"                       private key: it is written inside a DSSE envelope,\n"
"                       for `fleet --node-keys`; - reads the key from\n"
"                       standard input; a key file group or others can\n"
"                       read is refused\n"
"  --sign-key-fd N      read the node's key from descriptor N\n"
"                       (the key is read after the capture, once every\n"
"                       process it started has ended, and wiped after)\n"
EP_PROGRESS_HELP
"  -h, --help           show this help\n"
"\n"
EP_CAPTURE_HELP
"\n"
EP_IMAGE_HELP
"\n"
EP_PROBE_HELP
"\n"
"Exit codes: 0 captured (probe findings included: they are recorded), 2 a named input is missing or malformed (a bad\n"
"image reference or local image included), 3 the output could not be\n"
"written, a registry could not resolve an --image, or the probe could\n"
"not be started.\n",
	.exec = cmd_capture_exec,
};

static int
cmd_capture_exec(const struct ep_cmd *self, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		EP_SIGNKEY_LONGOPTS,
		EP_CAPTURE_LONGOPTS,
		EP_IMAGE_LONGOPTS,
		EP_PROBE_LONGOPTS,
		EP_PROGRESS_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	struct ep_capture_opts opts = { 0 };
	struct ep_results rs = { 0 };
	struct ep_probeopt popt;
	struct ep_manifest *m = NULL;
	struct ep_err err = { 0 };
	struct ep_attestopt key = { 0 };
	const char *output = "-";
	char *text = NULL, *env = NULL;
	int c, v, quiet = 0, rc = EP_EXIT_OK;

	ep_imgopt_init(&opts.img);
	ep_probeopt_init(&popt, 0);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:qh", longopts, NULL)) != -1) {
		if (ep_progress_opt(c))
			continue;
		if (ep_capture_opt(&opts, c, optarg))
			continue;
		if ((v = ep_image_opt(&opts.img, c, optarg, &err)) != 0 ||
		    (v = ep_probe_opt(&popt, c, optarg, &err)) != 0) {
			if (v < 0) {
				rc = ep_cmd_usage_error(self, "%s", err.msg);
				goto done;
			}
			continue;
		}
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'q':
			quiet = 1;
			break;
		case EP_OPT_SIGN_KEY:
		case EP_OPT_SIGN_KEY_FD:
			ep_attest_opt(&key, c, optarg);
			break;
		case 'h':
			fputs(self->usage, stdout);
			goto done;
		default:
			rc = ep_cmd_bad_option(self, c, longopts, argv);
			goto done;
		}
	}
	if ((rc = ep_cmd_operands(self, argc, argv, 0)) != 0)
		goto done;

	if (key.key_path != NULL && key.key_fd != NULL) {
		rc = ep_cmd_usage_error(self, "--sign-key and --sign-key-fd "
		    "exclude each other (one key signs)");
		goto done;
	}
	/* A key that cannot be one, and a path that cannot take the
	 * manifest (the key's own file among them: checking the key
	 * protects it), fail before the work; the key's bytes are read
	 * after it. */
	if (((key.key_path != NULL || key.key_fd != NULL) &&
	    ep_attestopt_key_check(&key, &err) < 0) ||
	    ep_out_check(output, EP_OUT_STDOUT, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (ep_capture(&m, &opts, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	/* The probe only when asked: a capture without it stays as it was. */
	if (popt.po.runs > 0) {
		if (ep_probeopt_run(&rs, m, &popt, &err) < 0) {
			rc = ep_cmd_fail(self, &err);
			goto done;
		}
		ep_probe_record_findings(m, &rs, popt.po.runs);
	}
	if (!quiet)
		ep_cmd_echo_meta(m);
	if (!key.have_src) {
		if (ep_manifest_write(m, output, &err) < 0)
			rc = ep_cmd_fail(self, &err);
		goto done;
	}
	/* Every helper of the capture has ended: only now the key. */
	if (ep_manifest_dump(&text, m, &err) < 0 ||
	    ep_nodesig_sign(&env, text, strlen(text), &key.src, &err) < 0 ||
	    ep_out_write(output, env, strlen(env), EP_OUT_STDOUT, &err) < 0)
		rc = ep_cmd_fail(self, &err);
done:
	free(text);
	free(env);
	ep_results_clear(&rs);
	ep_manifest_free(m);
	ep_capture_opts_clear(&opts);
	ep_attestopt_clear(&key);
	return rc;
}
