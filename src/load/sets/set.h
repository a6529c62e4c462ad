/* set: problem sets read from their source (DESIGN §3; docs/problem-format.md, "Imported problem
 * sets"), a family of readers in this folder, one per format, behind this one interface:
 * TritonBench-G as GEAK-eval ships it (tritonbench.c) and KernelBench (kernelbench.c). kscore's own
 * JSON problems (load/problem.h) are detected here too, so a command can tell the three apart.
 *
 * A reader reads a set's files as text, statically: which problems there are, their reference
 * implementation, their test code or input generators, the kernels and the entry functions they
 * define, the perf script that goes with each; every file it cannot use is kept with the reason.
 * It runs none of their code: the cases come from the set's own code run later by the trusted
 * oracle process (docs/problem-format.md). The files are the organizer's, not an answer's, but a
 * set is a folder from anywhere: every file and count is capped. */
#ifndef KS_SET_H
#define KS_SET_H

#include <stddef.h>

typedef enum {
	KS_SET_KSCORE = 0,     /* reference_tests/: <suite>/<name>/problem.json */
	KS_SET_TRITONBENCH_G,  /* reference/<op>.py (a line of 146 '#', then test code), perf/<op>_perf.py */
	KS_SET_KERNELBENCH     /* level1/ .. level4/: <N>_<Name>.py with Model, get_inputs, get_init_inputs */
} ks_set_format;

/* One problem of an imported set. Strings are owned by the source. */
typedef struct {
	char *name;            /* what answers name it by: "sin_kernel" (TritonBench-G), "19_ReLU" (KernelBench) */
	char *suite;           /* "tritonbench-g", "kernelbench-level1", ... */
	char *path;            /* the file it was read from */
	char *perf_path;       /* TritonBench-G: its perf script; NULL: none (no perf cases) */
	int level, number;     /* KernelBench: level and problem number; 0 otherwise */
	char *reference;       /* the reference implementation (TritonBench-G: the code above the separator) */
	char *test_code;       /* TritonBench-G: the code below it; NULL for KernelBench */
	char *test_fn;         /* TritonBench-G: the test function whose value is result_gold */
	char **kernels;        /* the @triton.jit functions the reference defines */
	size_t nkernels;
	char **entries;        /* TritonBench-G: the reference's functions its test code calls;
	                        * KernelBench: "Model" */
	size_t nentries;
	char **imports;        /* the top-level modules the reference imports, in order, once each */
	size_t nimports;
} ks_set_problem;

/* A file of the set that is not a problem, and why. */
typedef struct {
	char *path;
	char *reason;
} ks_set_skip;

typedef struct {
	ks_set_format format;
	char *root;
	ks_set_problem *problems; /* in the order of their file names */
	size_t n;
	ks_set_skip *skipped;
	size_t nskipped;
} ks_problem_source;

/* Caps on what a set makes a reader read. */
typedef struct {
	size_t max_file_bytes; /* one source file */
	size_t max_files;      /* files of the set */
	size_t max_names;      /* kernels, entries or imports of one file */
} ks_set_limits;

#define KS_SET_DEFAULT_MAX_FILE_BYTES (4u << 20)
#define KS_SET_DEFAULT_MAX_FILES 10000
#define KS_SET_DEFAULT_MAX_NAMES 256
#define KS_SET_LIMITS_INIT                                                                     \
	{ KS_SET_DEFAULT_MAX_FILE_BYTES, KS_SET_DEFAULT_MAX_FILES, KS_SET_DEFAULT_MAX_NAMES }

/* The format of the set in dir: kscore's (a <suite>/<name>/problem.json below it), TritonBench-G (a
 * reference/ folder, or dir itself, holding .py files with the 146-'#' separator) or KernelBench
 * (level<N>/ folders, or dir itself named level<N>, holding .py files). Returns 0, or KS_ENOTFOUND
 * (no such folder) / KS_EINVALID (none of these) with a message naming dir. */
int ks_set_detect(ks_set_format *out, const char *dir);

/* The name of a format ("kscore", "tritonbench-g", "kernelbench"). Static storage. */
const char *ks_set_format_name(ks_set_format f);

/* Reads an imported set (TritonBench-G or KernelBench; kscore's own sets are load/problem.h's:
 * KS_EINVALID). Files that are not problems land in skipped with their reason; the read fails only
 * when dir cannot be listed or holds more than max_files files (KS_ELIMIT). limits may be NULL.
 * Caller frees *out with ks_set_free. */
int ks_set_read(ks_problem_source **out, const char *dir, const ks_set_limits *limits);

/* The problem an answer's key names: its name, with or without ".py" ("sin_kernel.py"), or for
 * KernelBench "level_<L>_problem_<N>[_...]" (the layout of KernelBench's runs) or "<N>_<Name>".
 * NULL when none. */
const ks_set_problem *ks_set_find(const ks_problem_source *s, const char *key);

void ks_set_free(ks_problem_source *s);

#endif
