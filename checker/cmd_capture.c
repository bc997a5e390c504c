/*
 * cmd_capture.c: `envparity capture [-o FILE] [collector options]`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "capture.h"
#include "cmd.h"
#include "attestopt.h"
#include "nodesig.h"
#include "opt.h"
#include "image.h"
#include "probeopt.h"

static int cmd_capture_exec(const struct ep_cmd *, int, char **);

/* What the command line says. */
struct capture_opts {
	struct ep_capture_opts copts;
	struct ep_probeopt popt;
	struct ep_attestopt key;	/* the node's own key */
	const char *output;
	int quiet;
};

#define CA struct capture_opts
static const struct ep_opt capture_opts[] = {
	EP_OPT_STR("output", 'o', "FILE", CA, output,
	    "write the manifest to FILE (atomically) instead of\n"
	    "standard output (- or /dev/stdout); a link, device,\n"
	    "FIFO or directory is refused"),
	EP_OPT_FLAG("quiet", 'q', CA, quiet,
	    "do not repeat warnings on standard error"),
	EP_OPT_STR("sign-key", 0, "KEY.pem", CA, key.key_path,
	    "sign the manifest with this node's own Ed25519\n"
	    "private key: it is written inside a DSSE envelope,\n"
	    "for `fleet --node-keys`; - reads the key from\n"
	    "standard input; a key file group or others can\n"
	    "read is refused"),
	EP_OPT_STR("sign-key-fd", 0, "N", CA, key.key_fd,
	    "read the node's key from descriptor N\n"
	    "(the key is read after the capture, once every\n"
	    "process it started has ended, and wiped after)"),
	EP_OPT_GROUP_NOSTRUCT(ep_og_progress),
	EP_OPT_HELP,
	EP_OPT_GROUP(ep_og_capture, CA, copts, NULL),
	EP_OPT_GROUP(ep_og_image, CA, copts.img, NULL),
	EP_OPT_GROUP(ep_og_probe, CA, popt, NULL),
	EP_OPT_END,
};
#undef CA

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
"\n",
	.opts = capture_opts,
	.footer =
"Exit codes: 0 captured (probe findings included: they are recorded), 2 a named input is missing or malformed (a bad\n"
"image reference or local image included), 3 the output could not be\n"
"written, a registry could not resolve an --image, or the probe could\n"
"not be started.\n",
	.in_order = 1,
	.exec = cmd_capture_exec,
};

static int
cmd_capture_exec(const struct ep_cmd *self, int argc, char **argv)
{
	struct capture_opts o = { .output = "-" };
	struct ep_attestopt *key = &o.key;
	struct ep_cmd_args args;
	struct ep_results rs = { 0 };
	struct ep_manifest *m = NULL;
	struct ep_err err = { 0 };
	char *text = NULL, *env = NULL;
	int rc;

	ep_imgopt_init(&o.copts.img);
	ep_probeopt_init(&o.popt, 0);
	if (ep_opt_parse(&args, &rc, self, &o, argc, argv) < 0)
		goto done;
	if (key->key_path != NULL && key->key_fd != NULL) {
		rc = ep_cmd_usage_error(self, "--sign-key and --sign-key-fd "
		    "exclude each other (one key signs)");
		goto done;
	}
	/* A key that cannot be one, and a path that cannot take the
	 * manifest (the key's own file among them: checking the key
	 * protects it), fail before the work; the key's bytes are read
	 * after it. */
	if (((key->key_path != NULL || key->key_fd != NULL) &&
	    ep_attestopt_key_check(key, &err) < 0) ||
	    ep_out_check(o.output, EP_OUT_STDOUT, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	if (ep_capture(&m, &o.copts, &err) < 0) {
		rc = ep_cmd_fail(self, &err);
		goto done;
	}
	/* The probe and the workloads only when asked: a capture without
	 * them stays as it was. */
	if (o.popt.po.runs > 0 || o.popt.workloads.n > 0) {
		if (ep_probeopt_run(&rs, m, &o.popt, &err) < 0) {
			rc = ep_cmd_fail(self, &err);
			goto done;
		}
		ep_probe_record_findings(m, &rs, o.popt.po.runs);
	}
	if (!o.quiet)
		ep_cmd_echo_meta(m);
	if (!key->have_src) {
		if (ep_manifest_write(m, o.output, &err) < 0)
			rc = ep_cmd_fail(self, &err);
		goto done;
	}
	/* Every helper of the capture has ended: only now the key. */
	if (ep_manifest_dump(&text, m, &err) < 0 ||
	    ep_nodesig_sign(&env, text, strlen(text), &key->src, &err) < 0 ||
	    ep_out_write(o.output, env, strlen(env), EP_OUT_STDOUT, &err) < 0)
		rc = ep_cmd_fail(self, &err);
done:
	free(text);
	free(env);
	ep_results_clear(&rs);
	ep_manifest_free(m);
	ep_capture_opts_clear(&o.copts);
	ep_probeopt_clear(&o.popt);
	ep_attestopt_clear(key);
	return rc;
}
