/* result: what scoring found out about each submitted kernel, shared by the stages that fill it in
 * (check, timing, roofline) and those that read it (metrics, report, upload). Every failure
 * carries a reason code and a sentence that names the case, the tensor and the values. */
#ifndef KS_RESULT_H
#define KS_RESULT_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>
#include "errors.h"
#include "worker.h"

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
} ks_case_result;

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

	int compiled, call, exec;   /* exec implies call implies compiled */
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
} ks_kernel_result;

void ks_kernel_result_clear(ks_kernel_result *r);

/* Sets reason and detail (printf-style) unless a reason is already set. */
void ks_kernel_result_fail(ks_kernel_result *r, ks_reason reason, const char *fmt, ...)
	KS_PRINTF(3, 4);

/* The record of one kernel for score.json; caller frees with cJSON_Delete. */
cJSON *ks_kernel_result_json(const ks_kernel_result *r);

#endif
