/* refcheck: what `score check-refs` (src/cli/cmd_check_refs.c) checks on every reference problem
 * before a hackathon relies on it: the spec loads, the golden kernel compiles, and on a GPU the
 * golden passes its own cases (it runs, keeps its guard bands, writes every output, leaves its
 * inputs alone, gives bit-identical outputs on a repeat run), its outputs carry signal (they
 * change with the inputs and are not near-constant or within tolerance of zero), its perf cases
 * are long enough to time, and it is not faster than the measured roofline (which would mean the
 * spec's bytes or FLOPs are wrong). */
#ifndef KS_REFCHECK_H
#define KS_REFCHECK_H

#include <cJSON.h>
#include "time/calibrate.h"
#include "time/config.h"
#include "util/errors.h"
#include "load/problem.h"
#include "run/runner.h"

/* A golden perf case shorter than this cannot be timed well. */
#define KS_REFCHECK_MIN_PERF_MS 0.1
/* The base seed of every check, so a failure can be reproduced. */
#define KS_REFCHECK_SEED 0x6b73636f7265ull

/* What was found about one problem. Zero-initialise, set p; free with ks_refcheck_row_clear. */
typedef struct {
	const ks_problem *p;
	int compiled;            /* the golden kernel compiled */
	char *fail;              /* the first failure; NULL while the problem passes */
	int cases_ok, cases;     /* correctness cases passed / run */
	double min_perf_ms;      /* the shortest golden perf case */
	double max_roofline;     /* the highest fraction of the roofline floor on a perf case */
	double signal;           /* fraction of output elements that changed with the inputs */
} ks_refcheck_row;

/* Records a failure unless one is recorded already (the first one is the one reported). */
void ks_refcheck_fail(ks_refcheck_row *r, const char *fmt, ...) KS_PRINTF(2, 3);

/* Runs the GPU checks of r->p, whose golden kernel run has compiled: every correctness case
 * (guard bands, inputs left alone, outputs written, a repeat bit for bit), the signal, then every
 * perf case (long enough, not beating the roofline of ceil when there is one). Failures go to
 * r->fail; nothing is returned. */
void ks_refcheck_problem(ks_refcheck_row *r, ks_runner *run, const ks_ceilings *ceil,
			 const ks_config *cfg);

/* One row as JSON (suite, problem, compiled, ran, cases_ok, cases, signal, min_perf_ms,
 * max_roofline_fraction, failure). Caller frees. */
cJSON *ks_refcheck_row_json(const ks_refcheck_row *r, int ran);

void ks_refcheck_row_clear(ks_refcheck_row *r);

#endif
