/*
 * main.c: envparity-probe's command line.  Runs one backend's workloads
 * once and prints one JSON line per workload on stdout (line.c has the
 * fields).  Exit 0 whenever the lines were printed, failed workloads
 * included; 2 on a usage error; 3 when it could not start (no working
 * SHA-256, or stdout unwritable).
 *
 * `envparity probe` starts this program N times, each a fresh process
 * and a fresh CUDA context, and compares the lines.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe.h"
#include "xalloc.h"

static const char usage_text[] =
    "usage: envparity-probe --backend cpu|cuda|cublas|cudnn "
    "[--lib NAME=PATH]... [--seed N] [--threads N]\n"
    "       envparity-probe --version\n"
    "NAME is cuda, nvml, cublas, cublaslt or cudnn (others are ignored).\n";

static int
usage(const char *msg, const char *arg)
{
	if (msg != NULL)
		fprintf(stderr, "envparity-probe: %s%s%s\n", msg,
		    arg != NULL ? ": " : "", arg != NULL ? arg : "");
	fputs(usage_text, stderr);
	return 2;
}

/* --lib NAME=PATH: libraries the runner found in capture.  Unknown names
 * are accepted and ignored, so that the runner can pass them all. */
static int
set_lib(struct probe_opts *o, const char *arg)
{
	static const struct {
		const char *name;
		size_t off;
	} libs[] = {
		{ "cuda", offsetof(struct probe_opts, lib_cuda) },
		{ "nvml", offsetof(struct probe_opts, lib_nvml) },
		{ "cublas", offsetof(struct probe_opts, lib_cublas) },
		{ "cublaslt", offsetof(struct probe_opts, lib_cublaslt) },
		{ "cudnn", offsetof(struct probe_opts, lib_cudnn) },
	};
	const char *eq = strchr(arg, '='), *path;
	size_t i, n;

	if (eq == NULL || eq == arg || eq[1] == '\0')
		return -1;
	n = (size_t)(eq - arg);
	path = eq + 1;
	for (i = 0; i < sizeof libs / sizeof libs[0]; i++) {
		if (strlen(libs[i].name) == n &&
		    strncmp(libs[i].name, arg, n) == 0)
			memcpy((char *)o + libs[i].off, &path, sizeof path);
	}
	return 0;
}

static int
parse_u64(uint64_t *out, const char *s)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno != 0 || *end != '\0')
		return -1;
	*out = v;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "lib", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 's' },
		{ "threads", required_argument, NULL, 't' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct probe_opts opts = { .seed = PROBE_DEFAULT_SEED };
	struct probe_run *run;
	const char *backend = NULL;
	char hex[65], *line;
	uint64_t v;
	size_t i;
	int c;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			backend = optarg;
			break;
		case 'l':
			if (set_lib(&opts, optarg) == -1)
				return usage("--lib wants NAME=PATH", optarg);
			break;
		case 's':
			if (parse_u64(&opts.seed, optarg) == -1)
				return usage("--seed wants an unsigned "
				    "64-bit decimal", optarg);
			break;
		case 't':
			if (parse_u64(&v, optarg) == -1 || v < 1 || v > 256)
				return usage("--threads wants 1 to 256",
				    optarg);
			opts.nthreads = (int)v;
			break;
		case 'V':
			puts(PROBE_VERSION);
			return 0;
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		default:
			return usage(NULL, NULL);
		}
	}
	if (optind < argc)
		return usage("unexpected argument", argv[optind]);
	if (backend == NULL)
		return usage("--backend is required", NULL);

	run = xcalloc(1, sizeof *run);
	if (strcmp(backend, "cpu") == 0)
		run->backend = "cpu";
	else if (strcmp(backend, "cuda") == 0)
		run->backend = "cuda";
	else if (strcmp(backend, "cublas") == 0)
		run->backend = "cublas";
	else if (strcmp(backend, "cudnn") == 0)
		run->backend = "cudnn";
	else {
		free(run);
		return usage("unknown backend", backend);
	}
	/* Every line carries a hash: without one there is nothing to say. */
	if (probe_sha256(hex, "", 0) == -1) {
		fprintf(stderr, "envparity-probe: OpenSSL's SHA-256 does not "
		    "work\n");
		free(run);
		return 3;
	}

	if (strcmp(run->backend, "cpu") == 0)
		probe_cpu_run(run, &opts);
	else if (strcmp(run->backend, "cuda") == 0)
		probe_cuda_run(run, &opts);
	else if (strcmp(run->backend, "cublas") == 0)
		probe_cublas_run(run, &opts);
	else
		probe_cudnn_run(run, &opts);

	for (i = 0; i < run->n; i++) {
		line = probe_line(run, i);
		printf("%s\n", line);
		free(line);
	}
	free(run);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "envparity-probe: stdout: %s\n",
		    strerror(errno));
		return 3;
	}
	return 0;
}
