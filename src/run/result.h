/* result: what scoring found out about each submitted kernel, shared by the stages that fill it in
 * (check, timing, roofline) and those that read it (metrics, report, upload). Every failure
 * carries a reason code and a sentence that names the case, the tensor and the values. */
#ifndef KS_RESULT_H
#define KS_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>
#include "util/errors.h"
#include "run/device.h"
#include "load/extract.h"

typedef enum {
	KS_REASON_OK = 0,
	KS_REASON_BAD_ENTRY,        /* the entry itself is malformed */
	KS_REASON_UNKNOWN_PROBLEM,  /* its file names no problem in reference_tests */
	KS_REASON_PROBLEM_INVALID,  /* the problem's golden kernel failed its own checks */
	KS_REASON_NO_CODE,          /* no CUDA code could be extracted */
	KS_REASON_BAD_LAUNCH,       /* the launch plan is malformed or does not evaluate */
	KS_REASON_COMPILE_ERROR,
	KS_REASON_COMPILE_TIMEOUT,
	KS_REASON_COMPILE_LIMIT,
	KS_REASON_COMPILE_CRASH,
	KS_REASON_MISSING_KERNEL,   /* compiled, but a kernel the plan launches does not exist */
	KS_REASON_LOAD_ERROR,
	KS_REASON_LAUNCH_ERROR,     /* the launch was refused (geometry, resources, parameters) */
	KS_REASON_FAULT,            /* a sticky CUDA error (illegal address, trap, ...) */
	KS_REASON_TIMEOUT,          /* ran past the kernel time limit and was killed */
	KS_REASON_CRASH,            /* the worker process died */
	KS_REASON_OOB_WRITE,        /* a guard band around a buffer was modified */
	KS_REASON_INPUT_MODIFIED,
	KS_REASON_UNWRITTEN,        /* outputs still hold the poison pattern */
	KS_REASON_MISMATCH,
	KS_REASON_NONDETERMINISTIC, /* the same inputs gave a different, wrong answer */
	KS_REASON_NOT_RUN,          /* compile-only mode: compiled, not run */
	KS_REASON_BAD_ENCODING,     /* the entry holds bytes text cannot: not UTF-8, NUL, lone surrogate */
	KS_REASON_DUPLICATE,        /* an earlier entry of the file names the same problem: not counted */
	KS_REASON_NOT_CUDA,         /* the answer is Python without a Triton kernel: neither front-end */
	KS_REASON_SANITIZER,        /* compute-sanitizer found an error (nvtool.c, sanitize.h) */
	KS_REASON_MISSING_HEADER,   /* an included header does not exist (the detail says what to
				       include instead) */
	KS_REASON_REFUSED,          /* Triton: the static check refused the source before it ran */
	KS_REASON_HOST_OP,          /* Triton: the wrapper computed with torch instead of its kernels */
	KS_REASON_UNTRACEABLE,      /* Triton: what the wrapper launched cannot be replayed faithfully */
	KS_REASON_TRACE_ERROR,      /* Triton: the answer raised, or its kernels did not compile */
	KS_REASON_COUNT
} ks_reason;

/* Stable machine names ("mismatch", "oob_write", ...) used in every output file. */
const char *ks_reason_name(ks_reason r);

typedef struct {
	char *label;          /* the case's label ("n=4097") */
	size_t case_index;
	int seed_index;       /* which of the case's seeds; -1 for the determinism re-run */
	uint64_t seed;
	int passed;
	ks_reason reason;
	char *detail;
	double ms;            /* event time of the launch sequence */
	int extended;         /* a case of the problem's extended list: reported, never counted */
} ks_case_result;

/* One perf case of one kernel, timed against the golden kernel in the same session. */
typedef struct {
	char *label;
	size_t case_index;
	double ms, ms_min, ms_max, ms_stdev;     /* candidate: median, min, max, stdev */
	size_t runs;
	double rel_error;                        /* stdev / sqrt(runs) / mean */
	double golden_ms, golden_min, golden_max, golden_stdev;
	size_t golden_runs;
	double golden_rel_error;
	double speedup;                          /* baseline median / candidate median (the baseline:
						  * the golden kernel, or the reference, refbase.h) */
	double reference_ms;                     /* the reference's median (--baseline reference);
						  * 0: none (no reference baseline, or it has no time here) */
	double speedup_golden;                   /* golden median / candidate median */
	double bytes, flops;                     /* the spec's minimum bytes and FLOPs */
	double gbps, tflops;                     /* achieved by the candidate */
	double floor_ms;                         /* roofline floor; 0 when there are no ceilings */
	double roofline_fraction;                /* floor_ms / ms */
	int verified;                            /* timed runs on refilled inputs, checked */
	int checked;                             /* ordinary timed runs checked after the fact */
	int suspicious;
	char *why;                               /* why suspicious, with the numbers */
} ks_perf_result;

typedef struct {
	char *name;           /* as launched */
	ks_func_info info;
} ks_kernel_info;

typedef struct {
	size_t pass, index;         /* which file of the submission, which entry in it */
	char *file;                 /* the entry's "file" field */
	char *problem;              /* matched problem key (NULL if the entry names none) */
	int difficulty;
	char entry_sha256[65];

	ks_language language;       /* of the answer's code (load/extract.h); NONE when none was found */
	int compiled, call, exec;   /* exec implies call implies compiled (a Triton answer is
				     * "compiled" once traced: its kernels were compiled by Triton) */
	int ran;                    /* 1 when it ran on a GPU (0 in compile-only mode) */
	ks_reason reason;           /* first failure, or OK */
	char *detail;               /* one or two sentences for people */

	char *extract_note;
	char *launch_source;        /* "problem default", "entry launch field", "code comment" */
	cJSON *launch;              /* the plan that was used */
	char *compile_log;          /* excerpt */
	double compile_s;
	int compile_cached;

	ks_kernel_info *kernels;
	size_t nkernels;
	ks_case_result *cases;
	size_t ncases;
	/* the problem's extended cases (beyond its domain: checked once the scored ones passed,
	 * reported, never counted in call, exec or the score; a Triton answer's are not run) */
	size_t extended, extended_run, extended_passed;

	/* timing and judging (only for kernels that passed their checks on a GPU) */
	int timed;
	char *timing_error;         /* timing could not be done, for a reason not the kernel's */
	ks_perf_result *perf;
	size_t nperf;
	double speedup;             /* sum of baseline medians / sum of candidate medians (GEAK's rule),
				     * over the cases the baseline has a time for */
	int over_reference;         /* the baseline is the reference implementation (session/refbase.h) */
	char *reference_note;       /* over_reference, and the reference has no time: why */
	double speedup_golden;      /* sum of golden medians / sum of candidate medians */
	double speedup_geomean;     /* geometric mean of the per-case speedups */
	double roofline_fraction;   /* sum of floors / sum of candidate medians */
	int suspicious;
	char *suspicious_why;
	double score;               /* speedup if exec-correct and not suspicious, else 0 */

	cJSON *sanitizer;           /* the sanitizer stage's record (nvtool.c); NULL when not run */
	cJSON *profile;             /* the Nsight Compute profile and diagnosis (nvtool.c); NULL when none */
	/* what the kernel printed (device printf) in its checks and timed runs: the first
	 * KS_WORKER_OUTPUT_KEEP bytes made safe to show (ks_proto_output_text), NULL when nothing */
	char *device_output;
	uint64_t device_output_bytes;   /* all it printed */
	size_t device_output_raw;       /* bytes of it kept (before making them safe) */

	double check_s, timing_s;   /* wall time of the check and timing stages */
	double timing_gpu_ms;       /* GPU time of the timed runs themselves (both kernels) */
	double timing_busy_ms;      /* GPU time of their timed batches as a whole: the runs with the
				     * fills, poison, L2 flushes and kept samples around each; what the
				     * timing protocol holds the GPU for, alone */
} ks_kernel_result;

void ks_kernel_result_clear(ks_kernel_result *r);

/* Sets reason and detail (printf-style) unless a reason is already set. */
void ks_kernel_result_fail(ks_kernel_result *r, ks_reason reason, const char *fmt, ...)
	KS_PRINTF(3, 4);

/* The line that reports a kernel's extended cases, "extended: 3 of 4" (passed of all), or why
 * they were not run; "extended: none" when the problem has none. Written into buf (n bytes). */
void ks_kernel_result_extended_text(char *buf, size_t n, const ks_kernel_result *r);

/* The record of one kernel for score.json; caller frees with cJSON_Delete. */
cJSON *ks_kernel_result_json(const ks_kernel_result *r);

#endif
