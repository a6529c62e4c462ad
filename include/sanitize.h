/* sanitize: what compute-sanitizer found (issue 11, item 3). A kernel that passed its checks is
 * run once more, on its first correctness case, in a worker started under compute-sanitizer
 * (nvtool.c); this module chooses the tools, builds their options and reads their log: every
 * finding (an invalid or misaligned access, a shared-memory race, a read of uninitialised global
 * memory, a barrier misuse) with where it happened, and one sentence for the entry's detail. Pure:
 * CI tests it on recorded logs. */
#ifndef KS_SANITIZE_H
#define KS_SANITIZE_H

#include <stddef.h>
#include <cJSON.h>

/* Whether the sanitizer stage runs when neither --sanitize nor --no-sanitize is given. One constant
 * per command, from the cost measured on the H100 (docs/sandbox.md, "Sanitizer"): `score batch`
 * wants the strongest check; `score` is what participants run in a loop. */
#define KS_SANITIZE_DEFAULT_SCORE 0
#define KS_SANITIZE_DEFAULT_BATCH 1
/* The tools run by default (each is a run of its own), and those --sanitize=LIST accepts. */
#define KS_SANITIZE_DEFAULT_TOOLS "memcheck"

typedef enum {
	KS_SAN_MEMCHECK = 1 << 0,
	KS_SAN_RACECHECK = 1 << 1,
	KS_SAN_INITCHECK = 1 << 2,
	KS_SAN_SYNCCHECK = 1 << 3
} ks_sanitize_tool;

#define KS_SAN_ALL (KS_SAN_MEMCHECK | KS_SAN_RACECHECK | KS_SAN_INITCHECK | KS_SAN_SYNCCHECK)
#define KS_SAN_NTOOLS 4

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
	char *where;      /* its "at" line: "vadd+0x70 in kernel.cu:3", "0x70 in vadd" */
	char *who;        /* "by thread (0,0,0) in block (0,0,0)" */
	char *address;    /* "Address 0x... is out of bounds and is 65532 bytes after the nearest ..." */
	int error;        /* 1: an error; 0: a warning (racecheck's possible hazards) */
} ks_sanitize_finding;

#define KS_SANITIZE_MAX_FINDINGS 16
#define KS_SANITIZE_MAX_TEXT 320

typedef struct {
	ks_sanitize_finding items[KS_SANITIZE_MAX_FINDINGS];
	size_t n;              /* findings kept (the first KS_SANITIZE_MAX_FINDINGS) */
	size_t total;          /* findings seen in the log */
	size_t errors;         /* of those, errors */
	long summary_errors;   /* "ERROR SUMMARY: N errors", -1 when absent */
	size_t api_errors;     /* "Program hit ..." lines: CUDA API calls that failed, which follow a
				* finding (the context is gone) and are not findings themselves */
	char *tool_error;      /* the sanitizer's own failure ("Internal Sanitizer Error", an unknown
				* option), if it said so */
} ks_sanitize_report;

/* Parses a compute-sanitizer log (its --log-file; lines prefixed "========= "). Untrusted input
 * (kernel names come from the submission): lines are capped at 4 KiB, texts at
 * KS_SANITIZE_MAX_TEXT bytes of printable ASCII, findings at KS_SANITIZE_MAX_FINDINGS. Never
 * fails. Caller clears. */
void ks_sanitize_parse(ks_sanitize_report *out, const char *log, size_t len);
void ks_sanitize_report_clear(ks_sanitize_report *r);

/* One sentence for the entry's detail from the first error of r, prefixed with the tool's name:
 * "memcheck: invalid __global__ write of size 4 bytes at vadd+0x70 by thread (0,0,0) in block
 * (0,0,0): address 0x... is out of bounds ... (3 errors in all)". NULL when r has no error.
 * Caller frees. */
char *ks_sanitize_detail(const ks_sanitize_report *r, const char *tool);

/* The findings as JSON: [{"tool", "severity", "what", "where", "who", "address"}]. */
cJSON *ks_sanitize_findings_json(const ks_sanitize_report *r, const char *tool);

#endif
