/*
 * workload.h: the team's own reference run (--workload NAME=COMMAND).
 * envparity runs COMMAND N times (--runs), each run `/bin/sh -c COMMAND`
 * in a freshly executed helper with the probe's allowlisted environment
 * and confinement (child.h), its own deadline, killed as a tree; what the
 * run wrote to the file $ENVPARITY_WORKLOAD_OUTPUT names (else its
 * standard output) is hashed, never kept in memory, and at most
 * EP_WORKLOAD_OUTPUT_MAX bytes of it may be written.  The runs become
 * results and facts:
 *	workload.<NAME>.sha256	the output's SHA-256, where every run that
 *				gave an output gave this one
 *	workload.<NAME>.runs	"identical", or "<K> distinct" (outputs)
 *	workload.domain		the determinism domain: the facts of the
 *				capture that bind bit-exactness (GPU model
 *				and capability, driver, CUDA, cuBLAS,
 *				cuDNN, each framework's version and build,
 *				the CPU's ISA); the workload's hashes bind
 *				only within it, as the probe's bind within
 *				probe.domain (compare.c, fleet_odd.c)
 * and each run's time in meta.workload.<NAME>.seconds (meta is never
 * compared).  Result keys:
 *	workload.<NAME>		run-to-run identity: pass when every run's
 *				output is the same, fail "3 distinct outputs
 *				in 5 runs" (naming which), fail when no run
 *				gave an output
 *	workload.<NAME>.run<N>	run N failed: hung, crashed, exited with a
 *				status other than 0, printed nothing, or
 *				wrote more than the limit (fail); its
 *				output could not be read (error)
 *
 * workload.c holds the pure half (parsing the option, aggregating runs,
 * the domain), unit-tested; workload_run.c runs the processes.
 */
#ifndef EP_WORKLOAD_H
#define EP_WORKLOAD_H

#include "errors.h"
#include "manifest.h"
#include "results.h"

#define EP_WORKLOAD_OUTPUT_VAR	"ENVPARITY_WORKLOAD_OUTPUT"
#define EP_WORKLOAD_RUN_VAR	"ENVPARITY_WORKLOAD_RUN"
/* What one run may write (its output file and standard output each):
 * past it the run is killed (SIGXFSZ) and says so. */
#define EP_WORKLOAD_OUTPUT_MAX	(64u * 1024 * 1024)
#define EP_WORKLOAD_NAME_MAX	64
#define EP_WORKLOAD_MAX		32
#define EP_WORKLOAD_RUNS_DEFAULT 5
#define EP_WORKLOAD_SHA256_HEX	65

/* One --workload. */
struct ep_workload {
	char *name;		/* [A-Za-z0-9_-], 1 to EP_WORKLOAD_NAME_MAX */
	char *command;		/* for /bin/sh -c, not empty */
};
void ep_workload_clear(struct ep_workload *w);

/* Split "NAME=COMMAND" into *out (both strings new; ep_workload_clear
 * frees them).  EP_E_INPUT with one line naming --workload and the
 * problem when there is no '=', the name is empty, too long or holds
 * another character, or the command is empty. */
int ep_workload_parse(struct ep_workload *out, const char *arg,
    struct ep_err *err);

enum ep_workload_outcome {
	EP_WORKLOAD_OK,		/* exited 0 with an output: sha256 set */
	EP_WORKLOAD_HUNG,	/* killed at its deadline */
	EP_WORKLOAD_CRASHED,	/* died of a signal */
	EP_WORKLOAD_EXITED,	/* exited with a status other than 0 */
	EP_WORKLOAD_EMPTY,	/* exited 0 and wrote nothing */
	EP_WORKLOAD_TOO_BIG,	/* wrote EP_WORKLOAD_OUTPUT_MAX or more */
	EP_WORKLOAD_UNREADABLE,	/* its output is not a regular file, or
				   could not be read */
};

/* One run. */
struct ep_workload_run {
	int outcome;		/* enum ep_workload_outcome */
	char *why;		/* the failure, without "run N of M: "
				   (owned); NULL when EP_WORKLOAD_OK */
	char sha256[EP_WORKLOAD_SHA256_HEX];	/* EP_WORKLOAD_OK only */
	double seconds;		/* wall time of the process */
};

/* The runs of one workload, in order: runs[i] is run i + 1. */
struct ep_workload_set {
	const char *name;	/* borrowed */
	struct ep_workload_run *runs;
	size_t n;
};
void ep_workload_set_clear(struct ep_workload_set *s);

/* The runs of s into results (added to rs), facts (workload.<NAME>.sha256
 * and .runs set in facts) and meta.workload.<NAME> (the runs' seconds).
 * Never fails. */
void ep_workload_aggregate(struct ep_results *rs, struct ep_manifest *facts,
    const struct ep_workload_set *s);

/* Set workload.domain in m from m's own facts (see above); the parts m
 * lacks are left out, and "cpu" stands for a machine that gave none.
 * Never fails. */
void ep_workload_domain(struct ep_manifest *m);

/* Run each of the n workloads runs times, one process at a time, each
 * under timeout_s, and aggregate them into rs and m (then
 * ep_workload_domain).  -1 with err (EP_E_IO) only when a helper cannot
 * be started or its private directory made; what a run does wrong is a
 * result. */
int ep_workload_run_all(struct ep_results *rs, struct ep_manifest *m,
    const struct ep_workload *w, size_t n, unsigned runs, unsigned timeout_s,
    struct ep_err *err);

#endif
