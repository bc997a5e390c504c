/*
 * optgroups.c: the option groups several commands take, each declared
 * once (opt.h): store, report, collector, registry, reference workload,
 * attestation, progress.  The subsystems take the plain structs these
 * fill (struct ep_storeopt, ep_reportopt, ep_capture_opts, ep_imgopt,
 * ep_probeopt, ep_attestopt); what the command line looks like is the
 * command layer's alone.  Handlers check a value where the subsystem's
 * rule says it is bad, with the message that names the option.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "attestopt.h"
#include "capture.h"
#include "colour.h"
#include "compare.h"
#include "image.h"
#include "opt.h"
#include "probe.h"
#include "probeopt.h"
#include "progress.h"
#include "regauth.h"
#include "report.h"
#include "storeopt.h"
#include "workload.h"

/* Store options. */

/* --store and --ref, which every command of a store takes; --profile
 * all of them but `profiles`. */
#define STORE_OPT_STORE							\
	EP_OPT_STR("store", 0, "PATH|URL", struct ep_storeopt, store,	\
	    "the golden store: a git repository path (bare or\n"		\
	    "not) or a URL (file://, git://, http(s)://, ssh://,\n"	\
	    "user@host:path); default $ENVPARITY_STORE, else\n"		\
	    ".envparity/store")
#define STORE_OPT_REF							\
	EP_OPT_STR("ref", 0, "REF", struct ep_storeopt, ref,		\
	    "the store's branch (default: the remote's HEAD\n"		\
	    "branch, or the local HEAD's); for reading, also\n"		\
	    "a tag (NAME, or refs/tags/NAME) or a full commit\n"		\
	    "id, which pin the golden to what was reviewed")
#define STORE_FOOTER							\
"Credentials: ENVPARITY_GIT_TOKEN (https), ENVPARITY_SSH_KEY or an ssh\n"	\
"agent (ssh), sent only to the store URL's own host and port, never\n"	\
"shown.  GIT_SSL_CAINFO or GIT_SSL_CAPATH: the CAs for an https store."

static const struct ep_opt store_opts[] = {
	STORE_OPT_STORE,
	STORE_OPT_REF,
	EP_OPT_STR("profile", 0, "NAME", struct ep_storeopt, profile,
	    "the profile (default $ENVPARITY_PROFILE, else\n"
	    "\"default\"); may be nested, folders joined by\n"
	    "'/' (train/h100), each [A-Za-z0-9._-], not\n"
	    "starting with '.'"),
	EP_OPT_END,
};

const struct ep_optgroup ep_og_store = {
	.name = "store",
	.bit = EP_OG_STORE,
	.heading = "Store options:",
	.opts = store_opts,
	.footer = STORE_FOOTER,
};

static const struct ep_opt store_where_opts[] = {
	STORE_OPT_STORE,
	STORE_OPT_REF,
	EP_OPT_END,
};

const struct ep_optgroup ep_og_store_where = {
	.name = "store",
	.bit = EP_OG_STORE,
	.heading = "Store options:",
	.opts = store_where_opts,
	.footer = STORE_FOOTER,
};

/* Report options. */

/* --color WHEN: the summary's verdicts painted; for the process. */
static int
og_color(void *field, const char *arg, struct ep_err *err)
{
	int mode;

	(void)field;
	if (ep_colour_parse(&mode, arg, err) < 0)
		return -1;
	ep_colour_mode(mode);
	return 0;
}

static const struct ep_opt report_opts[] = {
	EP_OPT_STR("json", 0, "FILE", struct ep_reportopt, json,
	    "the JSON report\n"
	    "(share/envparity/schemas/report.schema.json)"),
	EP_OPT_STR("junit", 0, "FILE", struct ep_reportopt, junit,
	    "JUnit XML for CI test views\n"
	    "(share/envparity/schemas/junit.xsd)"),
	EP_OPT_STR("markdown", 0, "FILE", struct ep_reportopt, markdown,
	    "a Markdown summary for job pages and comments"),
	EP_OPT_STR("prom", 0, "FILE", struct ep_reportopt, prom,
	    "Prometheus metrics (text exposition) for\n"
	    "node_exporter's textfile collector (*.prom)"),
	EP_OPT_CALL("color", 0, "WHEN", og_color,
	    "paint the summary's verdicts: auto (on a\n"
	    "terminal, not in CI, NO_COLOR unset), always, never"),
	EP_OPT_END,
};

const struct ep_optgroup ep_og_report = {
	.name = "report",
	.bit = EP_OG_REPORT,
	.heading = "Report options (each written whole or not at all):",
	.opts = report_opts,
	.footer =
"FILE may be - or /dev/stdout for standard output (the summary then\n"
"goes to standard error; only one output can take it), /dev/stderr for\n"
"standard error.  A symbolic link, device, FIFO or directory is refused.\n"
"Under GitHub Actions the Markdown summary is also appended to\n"
"$GITHUB_STEP_SUMMARY, and failures are annotated (::error, on stderr).",
};

/* Collector options. */

#define CO struct ep_capture_opts
static const struct ep_opt capture_opts[] = {
	EP_OPT_STR("python", 0, "EXE", CO, python,
	    "the interpreter whose packages to list\n"
	    "(default: $VIRTUAL_ENV, else python3 on PATH)"),
	EP_OPT_STRV("site-packages", 0, "DIR", CO, site_dirs,
	    "list the distributions in DIR instead (repeatable)"),
	EP_OPT_STR("conda-prefix", 0, "DIR", CO, conda_prefix,
	    "a conda environment (default: $CONDA_PREFIX)"),
	EP_OPT_STRV("lockfile", 0, "PATH", CO, lockfiles,
	    "hash and read the pins of PATH (repeatable)"),
	EP_OPT_FLAG("no-discover", 0, CO, no_discover,
	    "do not pick up lockfiles in the current directory"),
	EP_OPT_STRV("lock-group", 0, "NAME", CO, lock_groups,
	    "judge the installed packages against the pins of\n"
	    "category, group or pixi environment NAME (repeatable;\n"
	    "all: every one) instead of what each tool installs\n"
	    "by default (stack.lock.*)"),
	EP_OPT_STRV("lib-path", 0, "DIR", CO, lib_paths,
	    "look for CUDA libraries in DIR first (repeatable)"),
	EP_OPT_FLAG("no-cache", 0, CO, no_cache,
	    "hash every file again, ignoring the cache"),
	EP_OPT_STRV("image", 0, "REF", CO, images,
	    "record the digests REF resolves to (repeatable):\n"
	    "[HOST/]NAME[:TAG][@DIGEST], oci:DIR[:TAG],\n"
	    "docker-archive:FILE[:NAME:TAG]; see the registry\n"
	    "options.  check also resolves every image its\n"
	    "golden recorded, named here or not; bless\n"
	    "without --image keeps the golden's images"),
	EP_OPT_STR("node", 0, "NAME", CO, node,
	    "the node name meta.node records, by which `fleet`\n"
	    "tells nodes apart (default: $SLURMD_NODENAME, else\n"
	    "the host name; host names can repeat in a cluster)"),
	EP_OPT_STRV("artifact", 0, "PATH", CO, artifacts,
	    "record the SHA-256 of a model file or directory\n"
	    "(SavedModel, TorchScript, ONNX, models.config,\n"
	    "batching parameters) as artifact.PATH.sha256 and\n"
	    "its file count as artifact.PATH.files (repeatable)"),
	EP_OPT_STRV("env", 0, "NAME|PREFIX*", CO, extra.env,
	    "also record environment variable NAME, or every\n"
	    "one whose name starts with PREFIX, as env.NAME\n"
	    "(repeatable); a name that looks like a credential's\n"
	    "(TOKEN, SECRET, KEY, ...) is refused, or left out\n"
	    "when a PREFIX takes it"),
	EP_OPT_STRV("env-not-secret", 0, "NAME", CO, extra.not_secret,
	    "NAME only looks like a credential's name\n"
	    "(HF_TOKEN_PATH, a path): --env may take it"),
	EP_OPT_STRV("file-sha256", 0, "PATH", CO, extra.sha256,
	    "record the SHA-256 of the file at PATH (absolute)\n"
	    "as file.PATH.sha256 (repeatable)"),
	EP_OPT_STRV("file-line", 0, "PATH", CO, extra.line,
	    "record the first line of the file at PATH\n"
	    "(absolute) as file.PATH.line (repeatable)"),
	EP_OPT_STRV("serving", 0, "PATH", CO, servings,
	    "record every field of a serving configuration as\n"
	    "serving.* facts (repeatable): Triton's config.pbtxt\n"
	    "or model repository, TF Serving's model config or\n"
	    "batching parameters, TorchServe's config.properties"),
	EP_OPT_END,
};
#undef CO

const struct ep_optgroup ep_og_capture = {
	.name = "capture",
	.bit = EP_OG_CAPTURE,
	.heading = "Collector options:",
	.opts = capture_opts,
};

/* Registry options. */

static int
og_platform(void *field, const char *arg, struct ep_err *err)
{
	struct ep_imgopt *o = field;

	if (!ep_image_platform_valid(arg))
		return ep_err_set(err, EP_E_INPUT, "--platform %s: expected "
		    "OS/ARCH or OS/ARCH/VARIANT in lowercase", arg);
	o->platform = arg;
	o->platform_explicit = 1;
	return 0;
}

static int
og_insecure(void *field, const char *arg, struct ep_err *err)
{
	if (*arg == '\0' || strchr(arg, '/') != NULL)
		return ep_err_set(err, EP_E_INPUT, "--insecure-registry %s: "
		    "expected HOST[:PORT]", arg);
	ep_strv_push(field, arg);
	return 0;
}

static int
og_realm(void *field, const char *arg, struct ep_err *err)
{
	if (!ep_regauth_hostport_valid(arg))
		return ep_err_set(err, EP_E_INPUT, "--registry-auth-realm %s: "
		    "expected HOST[:PORT] (the token server's host, no scheme "
		    "or path)", arg);
	ep_strv_push(field, arg);
	return 0;
}

static int
og_registry_timeout(void *field, const char *arg, struct ep_err *err)
{
	struct ep_imgopt *o = field;
	char *end;
	double secs;

	errno = 0;
	secs = strtod(arg, &end);
	if (errno != 0 || end == arg || *end != '\0' || !(secs > 0) ||
	    secs > 3600)
		return ep_err_set(err, EP_E_INPUT, "--registry-timeout %s: "
		    "expected seconds, more than 0 and at most 3600", arg);
	o->timeout_ms = (long)(secs * 1000);
	if (o->timeout_ms < 1)
		o->timeout_ms = 1;
	if (o->connect_timeout_ms > o->timeout_ms)
		o->connect_timeout_ms = o->timeout_ms;
	return 0;
}

#define IO struct ep_imgopt
static const struct ep_opt image_opts[] = {
	EP_OPT_CALL("platform", 0, "OS/ARCH[/VARIANT]", og_platform,
	    "the platform to pick from an index\n"
	    "(default linux/amd64; arm64 means arm64/v8);\n"
	    "given explicitly, a single image of another\n"
	    "platform fails"),
	EP_OPT_STR("registry-ca", 0, "FILE", IO, ca_file,
	    "trust this CA bundle for registries' TLS"),
	EP_OPT_FN("insecure-registry", 0, "HOST[:PORT]", IO, insecure,
	    og_insecure,
	    "plain http for this registry only\n"
	    "(repeatable; never chosen silently)"),
	EP_OPT_STR("registry-auth-file", 0, "FILE", IO, auth_file,
	    "credentials (default $REGISTRY_AUTH_FILE,\n"
	    "$XDG_RUNTIME_DIR/containers/auth.json,\n"
	    "~/.docker/config.json)"),
	EP_OPT_FN("registry-auth-realm", 0, "HOST[:PORT]", IO, auth_realms,
	    og_realm,
	    "a token server on another host\n"
	    "that may have the credentials (repeatable)"),
	EP_OPT_CALL("registry-timeout", 0, "SECONDS",
	    og_registry_timeout, "each request's limit (default 30)"),
	EP_OPT_END,
};
#undef IO

const struct ep_optgroup ep_og_image = {
	.name = "image",
	.bit = EP_OG_IMAGE,
	.heading = "Registry options:",
	.opts = image_opts,
};

/* The reference workload. */

static long
number(const char *s, long lo, long hi)
{
	char *end;
	long v;

	if (*s < '0' || *s > '9')
		return -1;
	v = strtol(s, &end, 10);
	return *end == '\0' && v >= lo && v <= hi ? v : -1;
}

int
ep_og_probe_runs(void *field, const char *arg, struct ep_err *err)
{
	struct ep_probeopt *o = field;
	long v;

	if ((v = number(arg, 1, EP_PROBE_RUNS_MAX)) < 0)
		return ep_err_set(err, EP_E_INPUT, "--runs %s: not a number "
		    "from 1 to %d", arg, EP_PROBE_RUNS_MAX);
	o->po.runs = (unsigned)v;
	return 0;
}

int
ep_og_probe_backend(void *field, const char *arg, struct ep_err *err)
{
	struct ep_probeopt *o = field;

	if (strcmp(arg, "all") != 0 && ep_probe_workloads(arg) == NULL)
		return ep_err_set(err, EP_E_INPUT, "--backend %s: not cpu, "
		    "cuda, cublas, cudnn or all", arg);
	o->po.backend = arg;
	return 0;
}

int
ep_og_probe_timeout(void *field, const char *arg, struct ep_err *err)
{
	struct ep_probeopt *o = field;
	long v;

	if ((v = number(arg, 1, EP_PROBE_TIMEOUT_MAX)) < 0)
		return ep_err_set(err, EP_E_INPUT, "--timeout %s: not a number "
		    "of seconds from 1 to %d", arg, EP_PROBE_TIMEOUT_MAX);
	o->po.timeout_s = (unsigned)v;
	return 0;
}

int
ep_og_probe_require_gpu(void *field, const char *arg, struct ep_err *err)
{
	struct ep_probeopt *o = field;

	(void)arg;
	(void)err;
	o->po.require_gpu = 1;
	return 0;
}

static int
og_gpus(void *field, const char *arg, struct ep_err *err)
{
	struct ep_probeopt *o = field;

	if (ep_probe_gpus_parse(arg, err) < 0)
		return -1;
	o->po.gpus = arg;
	return 0;
}

static int
og_jobs(void *field, const char *arg, struct ep_err *err)
{
	struct ep_probeopt *o = field;
	long v;

	if ((v = number(arg, 1, EP_PROBE_JOBS_MAX)) < 0)
		return ep_err_set(err, EP_E_INPUT, "--jobs %s: not a number "
		    "from 1 to %d", arg, EP_PROBE_JOBS_MAX);
	o->po.jobs = (unsigned)v;
	return 0;
}

/* --workload NAME=COMMAND: well formed, a name not given twice, at most
 * EP_WORKLOAD_MAX of them. */
static int
og_workload(void *field, const char *arg, struct ep_err *err)
{
	struct ep_probeopt *o = field;
	struct ep_workload w, prev;
	int rc = 0;

	if (ep_workload_parse(&w, arg, err) < 0)
		return -1;
	if (o->workloads.n >= EP_WORKLOAD_MAX)
		rc = ep_err_set(err, EP_E_INPUT, "--workload %s: more than "
		    "%d workloads", w.name, EP_WORKLOAD_MAX);
	for (size_t i = 0; rc == 0 && i < o->workloads.n; i++) {
		if (ep_workload_parse(&prev, o->workloads.v[i], err) < 0)
			rc = -1;
		else if (strcmp(prev.name, w.name) == 0)
			rc = ep_err_set(err, EP_E_INPUT, "--workload %s: "
			    "named twice", w.name);
		ep_workload_clear(&prev);
	}
	if (rc == 0)
		ep_strv_push(&o->workloads, arg);
	ep_workload_clear(&w);
	return rc;
}

#define PO struct ep_probeopt
static const struct ep_opt probe_gpus_opts[] = {
	EP_OPT_CALL("gpus", 0, "LIST", og_gpus,
	    "the GPUs the GPU backends run on, by index among\n"
	    "the visible ones (0,3), one process each, all at\n"
	    "once; default every visible GPU (gpu.count, or\n"
	    "the entries of a CUDA_VISIBLE_DEVICES already set)"),
	EP_OPT_CALL("jobs", 0, "N", og_jobs,
	    "at most N probe processes at once (default: the\n"
	    "CPUs this job may use, at least one per GPU):\n"
	    "run 1 of every backend on every GPU together,\n"
	    "then the other runs together; 1 runs one at a time"),
	EP_OPT_END,
};

const struct ep_optgroup ep_og_probe_gpus = {
	.name = "probe",
	.bit = EP_OG_PROBE,
	.opts = probe_gpus_opts,
};

static const struct ep_opt probe_opts[] = {
	EP_OPT_CALL("runs", 0, "N", ep_og_probe_runs,
	    "run the probe N times per backend, each a fresh\n"
	    "process: runs must be bit-identical, known answers\n"
	    "exact, and output hashes equal the golden's within\n"
	    "one determinism domain"),
	EP_OPT_CALL("backend", 0, "B", ep_og_probe_backend,
	    "cpu, cuda, cublas, cudnn or all (default all)"),
	EP_OPT_CALL("timeout", 0, "S", ep_og_probe_timeout,
	    "kill a run after S seconds (default 60)"),
	EP_OPT_CALL0("require-gpu", 0, ep_og_probe_require_gpu,
	    "a GPU backend that cannot run fails, not skips"),
	EP_OPT_STR("probe", 0, "PATH", PO, given,
	    "the probe binary (default: beside envparity)"),
	EP_OPT_CALL("workload", 0, "NAME=COMMAND", og_workload,
	    "also run the team's own reference run (repeatable):\n"
	    "/bin/sh -c COMMAND, --runs times (default 5), each\n"
	    "a fresh confined process; its output (the file\n"
	    "$ENVPARITY_WORKLOAD_OUTPUT names, else standard\n"
	    "output) hashed as workload.NAME.sha256; see\n"
	    "envparity(1), --workload"),
	EP_OPT_GROUP_NOSTRUCT(ep_og_probe_gpus),
	EP_OPT_END,
};
#undef PO

const struct ep_optgroup ep_og_probe = {
	.name = "probe",
	.bit = EP_OG_PROBE,
	.heading = "Reference workload (envparity-probe; not run unless "
	    "--runs is given):",
	.opts = probe_opts,
};

/* Attestation options. */

#define AO struct ep_attestopt
static const struct ep_opt signkey_opts[] = {
	EP_OPT_STR("sign-key", 0, "KEY.pem", AO, key_path,
	    "the Ed25519 private key (PEM) to sign with; - reads\n"
	    "it from standard input; a key file readable by\n"
	    "group or others is refused"),
	EP_OPT_STR("sign-key-fd", 0, "N", AO, key_fd,
	    "read the key from descriptor N (3< key.pem, or a\n"
	    "pipe from the CI's secret store)"),
	EP_OPT_END,
};

const struct ep_optgroup ep_og_signkey = {
	.name = "attest",
	.bit = EP_OG_SIGNKEY,
	.opts = signkey_opts,
};

static const struct ep_opt attest_opts[] = {
	EP_OPT_STR("attest", 0, "FILE", AO, file,
	    "write a signed attestation of the verdict: an\n"
	    "in-toto Statement v1 in a DSSE envelope, written\n"
	    "whatever the verdict (- for standard output)"),
	EP_OPT_STR("statement", 0, "FILE", AO, statement,
	    "write the same statement unsigned, for a later\n"
	    "`envparity attest` step that holds the key"),
	EP_OPT_GROUP_NOSTRUCT(ep_og_signkey),
	EP_OPT_END,
};
#undef AO

const struct ep_optgroup ep_og_attest = {
	.name = "attest",
	.bit = EP_OG_ATTEST,
	.heading = "Attestation options (envparity(1)):",
	.opts = attest_opts,
	.footer =
"--attest needs a key, and a key needs --attest.  The key is read after\n"
"the work, once every process it started has ended, and wiped after\n"
"signing; no output may name its file.  Check it with `envparity verify`.",
};

/* Progress: the process's own setting, no struct. */

static int
og_progress(void *field, const char *arg, struct ep_err *err)
{
	(void)field;
	(void)arg;
	(void)err;
	ep_progress_mode(EP_PROGRESS_ALWAYS);
	return 0;
}

static int
og_no_progress(void *field, const char *arg, struct ep_err *err)
{
	(void)field;
	(void)arg;
	(void)err;
	ep_progress_mode(EP_PROGRESS_NEVER);
	return 0;
}

static const struct ep_opt progress_opts[] = {
	EP_OPT_CALL0("progress", 0, og_progress,
	    "show progress on standard error (files hashed,\n"
	    "references resolved, probe runs, node manifests\n"
	    "read) even when it is not a terminal or in CI\n"
	    "(default: on a terminal, not in CI)"),
	EP_OPT_CALL0("no-progress", 0, og_no_progress,
	    "never show progress"),
	EP_OPT_END,
};

const struct ep_optgroup ep_og_progress = {
	.name = "progress",
	.bit = EP_OG_PROGRESS,
	.opts = progress_opts,
};

int
ep_og_expiry(void *field, const char *arg, struct ep_err *err)
{
	return ep_expiry_days(field, arg, err);
}
