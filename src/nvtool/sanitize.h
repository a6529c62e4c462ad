/* sanitize: what compute-sanitizer found (issue 11, item 3). A kernel that passed its checks is
 * run once more, on one correctness case (the first with several blocks and a partial tail, issue
 * 23.2), in a worker started under compute-sanitizer (nvtool.c); this module chooses the case and
 * the tools, builds their options and reads their log: every finding (an invalid or misaligned
 * access, a shared-memory race, a read of uninitialised global memory, a barrier misuse) with
 * where it happened, and one sentence for the entry's detail. Pure: CI tests it on recorded logs
 * and on the reference problems' plans. */
#ifndef KS_SANITIZE_H
#define KS_SANITIZE_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>
#include "load/plan.h"
#include "run/candidate.h"

/* Whether the sanitizer stage runs when neither --sanitize nor --no-sanitize is given. One constant
 * per command, from the cost measured on the H100 (docs/sandbox.md, "Sanitizer"; memcheck: 0.43 s
 * per kernel, wall time x1.30 on the bundled example, x1.95 on a file of 16 short kernels, with a
 * worker per kernel; in memcheck's kept worker, toolrun.h, a few hundredths of a second a kernel):
 * `score batch` wants the strongest check and stays under twice the wall time; `score` is what
 * participants run in a loop. */
#define KS_SANITIZE_DEFAULT_SCORE 0
#define KS_SANITIZE_DEFAULT_BATCH 1
/* The tools run by default (each is a run of its own: memcheck in its kept worker, toolrun.h), and
 * those --sanitize=LIST accepts. */
#define KS_SANITIZE_DEFAULT_TOOLS "memcheck"

typedef enum {
	KS_SAN_MEMCHECK = 1 << 0,
	KS_SAN_RACECHECK = 1 << 1,
	KS_SAN_INITCHECK = 1 << 2,
	KS_SAN_SYNCCHECK = 1 << 3
} ks_sanitize_tool;

#define KS_SAN_ALL (KS_SAN_MEMCHECK | KS_SAN_RACECHECK | KS_SAN_INITCHECK | KS_SAN_SYNCCHECK)
#define KS_SAN_NTOOLS 4

/* The largest case the sanitizer runs on: the bytes of all of its plan's buffers (guard bands not
 * counted). The tools slow a kernel down by one to two orders of magnitude; correctness cases are
 * small, and this keeps an unusually large one from costing more than a worker's start under the
 * tool (0.4 s). */
#define KS_SANITIZE_MAX_CASE_BYTES (16ull << 20)

/* Why the sanitizer ran on the case it ran on (ks_sanitize_pick_case). */
typedef enum {
	KS_SAN_CASE_TAIL = 0,  /* the first case under the cap with several blocks and a partial tail */
	KS_SAN_CASE_LARGEST,   /* no case under the cap has them: the largest case under it */
	KS_SAN_CASE_SMALLEST   /* every case is over the cap: the smallest */
} ks_sanitize_case_rule;

/* "partial_tail", "largest_under_cap", "smallest". */
const char *ks_sanitize_case_rule_name(ks_sanitize_case_rule r);
/* The rule in words, for reports ("the first with several blocks and a partial tail"). */
const char *ks_sanitize_case_rule_text(ks_sanitize_case_rule r);

/* 1 when some launch of plan has several blocks and a partial tail: more than one block, and a
 * buffer it is passed that it may write (an output, an inout tensor, scratch) whose element count
 * n is not a multiple of one block's tile. The tile is what the plan says of it without knowing the
 * kernel: n over the launch's blocks, rounded up to a whole multiple of its threads per block. So
 * the last block that has work does only part of it, past the first block: where an index
 * computed wrong runs past the end (docs/sandbox.md, "Sanitizer"). */
int ks_sanitize_plan_has_tail(const ks_plan *plan);

/* Chooses the correctness case of img's problem to run the sanitizer on: the first case whose plan
 * (ks_candidate_plan, limits lim) is at most max_bytes and has several blocks and a partial tail;
 * else the largest case under max_bytes (the first of equals); else the smallest case. *ci and
 * *rule say which and why. Fails with KS_EINVALID when no case's plan builds. */
int ks_sanitize_pick_case(size_t *ci, ks_sanitize_case_rule *rule, const ks_candidate_image *img,
			  const ks_plan_limits *lim, uint64_t max_bytes);

/* Parses a comma-separated tool list ("memcheck,racecheck", or "all") into a mask. KS_EINVALID
 * with a message naming the bad item. */
int ks_sanitize_tools_parse(unsigned *mask, const char *list);

/* The name of tool bit t ("memcheck"); NULL if t is not one tool. */
const char *ks_sanitize_tool_name(unsigned t);

/* The exit status compute-sanitizer is told to use when it found errors. */
#define KS_SANITIZE_EXIT_CODE 86

/* compute-sanitizer's options for one tool, log written to log_path: a NULL-terminated list the
 * caller frees with ks_free_strv(argv, n) (argv[0] is sanitizer, the tool's path). */
void ks_sanitize_argv(char ***argv, size_t *n, const char *sanitizer, unsigned tool, const char *log_path);

typedef struct {
	char *what;       /* the finding's headline: "Invalid __global__ write of size 4 bytes" */
	char *where;      /* its "at" line: "vadd+0x1b0", "vadd+0x70 in kernel.cu:3" */
	char *who;        /* "by thread (0,0,0) in block (0,0,0)" */
	char *address;    /* "Access to 0x... is out of bounds and is 61,189 bytes after the nearest ..." */
	int error;        /* 1: an error; 0: a warning (racecheck's "Warning: Race reported ...") */
} ks_sanitize_finding;

#define KS_SANITIZE_MAX_FINDINGS 16
#define KS_SANITIZE_MAX_TEXT 320

typedef struct {
	ks_sanitize_finding items[KS_SANITIZE_MAX_FINDINGS];
	size_t n;              /* findings kept (the first KS_SANITIZE_MAX_FINDINGS) */
	size_t total;          /* findings seen in the log */
	size_t errors;         /* of those, errors */
	long summary_errors;   /* "ERROR SUMMARY: N errors", -1 when absent */
	long not_printed;      /* "ERROR SUMMARY: N errors were not printed" (past --print-limit), 0 when absent */
	long summary_hazards;  /* racecheck's "RACECHECK SUMMARY: N hazards displayed (E errors, W
				* warnings)": N, -1 when absent */
	size_t api_errors;     /* "Program hit ..." lines: CUDA API calls that failed. Not findings: the
				* worker's own probes (it counts a kernel's parameters by asking
				* cuFuncGetParamInfo until it refuses) and the calls that fail after a
				* finding broke the context; ks_sanitize_argv turns them off */
	char *tool_error;      /* the sanitizer's own failure ("Internal Sanitizer Error", an unknown
				* option), if it said so */
} ks_sanitize_report;

/* Parses a compute-sanitizer log (its --log-file; lines prefixed "========= "). Untrusted input
 * (kernel names come from the submission): lines are capped at 4 KiB, texts at
 * KS_SANITIZE_MAX_TEXT bytes of printable ASCII, findings at KS_SANITIZE_MAX_FINDINGS. Never
 * fails. Caller clears. */
void ks_sanitize_parse(ks_sanitize_report *out, const char *log, size_t len);
void ks_sanitize_report_clear(ks_sanitize_report *r);

/* Whether a part of a log says nothing at all: every line empty, the tool's banner "=========
 * COMPUTE-SANITIZER" or a bare "=========". A line kscore does not know is not nothing. What a
 * kept memcheck worker must have written for a kernel to keep it (toolrun.h). */
int ks_sanitize_quiet(const char *log, size_t len);

/* Whether r fails the kernel, for tool (one bit of the mask): any error; for racecheck, any hazard
 * too. Racecheck rates a hazard a warning when the programming model forbids it but warp-level
 * code may have meant it (warp-synchronous code without __syncwarp): since Volta the threads of a
 * warp are not kept in step, so such code is a race like any other, and compute-sanitizer itself
 * exits with --error-exitcode on it. */
int ks_sanitize_fails(const ks_sanitize_report *r, unsigned tool);

/* Whether compute-sanitizer's exit status (a wait status; -1 unknown) says it found errors that r
 * does not show: it exited with KS_SANITIZE_EXIT_CODE, yet r holds no finding and no more errors
 * than failed API calls. A log kscore cannot read must not let a kernel pass. */
int ks_sanitize_unread_errors(const ks_sanitize_report *r, int exit_status);

/* One sentence for the entry's detail from the first finding that fails the kernel (see
 * ks_sanitize_fails), prefixed with the tool's name: "memcheck: invalid __global__ write of size 4
 * bytes at vadd+0x1b0 by thread (0,0,0) in block (0,0,0): access to 0x... is out of bounds and is
 * 61,189 bytes after the nearest allocation ... (3 errors in all)". NULL when nothing fails.
 * Caller frees. */
char *ks_sanitize_detail(const ks_sanitize_report *r, const char *tool);

/* The findings as JSON: [{"tool", "severity", "what", "where", "who", "address"}]. */
cJSON *ks_sanitize_findings_json(const ks_sanitize_report *r, const char *tool);

#endif
