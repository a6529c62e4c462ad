/* problem: problem specs under reference_tests/ (docs/problem-format.md): loading, validation, the
 * per-case environment of dimension values, and lookup by the key submissions use.
 *
 * A spec is validated completely at load time (names, expressions, launch plan, cases, sizes), so
 * later stages can trust it; a problem folder that fails validation is reported and skipped, and
 * the other problems still load. */
#ifndef KS_PROBLEM_H
#define KS_PROBLEM_H

#include <stddef.h>
#include <stdint.h>
#include <cJSON.h>
#include "load/domain.h"
#include "load/dtype.h"
#include "load/expr.h"
#include "load/launch.h"
#include "load/pyentry.h"

typedef enum { KS_ROLE_IN = 0, KS_ROLE_OUT, KS_ROLE_INOUT, KS_ROLE_SCALAR } ks_role;

typedef enum {
	KS_DIST_DEFAULT = 0, /* normal(0,1) for floats, int(-100,100) for integers */
	KS_DIST_NORMAL,      /* a = mean, b = std */
	KS_DIST_UNIFORM,     /* [a, b) */
	KS_DIST_INT,         /* [lo, hi] inclusive; bounds may be expressions */
	KS_DIST_BITS,        /* random bit patterns */
	KS_DIST_DATA         /* the values of a file the oracle wrote (an imported set's case; never
			      * in a problem.json): `file`, beneath the problem's data_dir */
} ks_dist_kind;

typedef struct {
	ks_dist_kind kind;
	double a, b;
	char *lo, *hi;       /* KS_DIST_INT: expressions */
	char *file;          /* an imported set's case: the oracle's file of this arg ("c0.a1.bin",
			      * row-major elements), its values for an input (KS_DIST_DATA), its
			      * expected values for an output (in another folder) */
} ks_dist;

typedef struct {
	char *name;
	ks_role role;
	ks_dtype dtype;
	char **shape;        /* tensors: ndim expressions */
	size_t ndim;
	char *value;         /* integer scalars: expression */
	double fvalue;       /* float scalars */
	ks_dist dist;        /* in/inout tensors */
	double atol, rtol;   /* outputs: effective tolerance (problem default unless overridden) */
} ks_arg;

/* Which list of a problem a case is in: the scored correctness and perf cases, or the extended
 * ones (checked, reported, never counted; ks_problem.extended). */
typedef enum { KS_CASE_CORRECTNESS = 0, KS_CASE_PERF = 1, KS_CASE_EXTENDED = 2 } ks_case_kind;

typedef struct {
	char *label;         /* "n=4096" unless given */
	char **dims;         /* expressions, parallel to the problem's dims */
	int seeds;           /* correctness: distinct seeds checked (>= 2) */
	ks_dist *dist;       /* parallel to args; kind DEFAULT where not overridden */
	int perf;            /* written under cases.perf (1) or cases.correctness (0) */
	size_t index;        /* its index in that list of problem.json */
	int outside;         /* extended cases: the domain rule it breaks, -1 when inside */
} ks_case;

typedef struct {
	char *name, *suite, *dir, *description;
	int difficulty;
	char **dims;
	size_t ndims;
	char **let_names, **let_exprs;
	size_t nlets;
	ks_arg *args;
	size_t nargs;
	ks_launch launch;        /* default plan for candidates */
	ks_launch golden_launch; /* the golden kernel's plan */
	double atol, rtol;
	char *flops, *bytes;
	char *peak;              /* "f32", "f16_tc", "bf16_tc", "none" */
	ks_case *correctness, *perf;   /* the scored cases, inside the domain */
	size_t ncorrectness, nperf;
	ks_case *extended;             /* cases marked "extended": checked like correctness cases,
					* reported, never counted; correctness ones first */
	size_t nextended;
	ks_domain domain;              /* the operator's domain; no rules: every case is inside */
	char *golden_src;        /* golden.cu contents */
	char *instruction;       /* instruction.md contents */
	ks_python_entry python;  /* how a Triton answer's entry is called; entry NULL: none */
	char sha256[65];         /* of problem.json and golden.cu: identifies the spec version */
	/* An imported set's problem (load/sets/oracle.h): its cases' inputs are KS_DIST_DATA files
	 * in data_dir (NULL until the oracle has written them) and its expected outputs are the
	 * oracle's (the set's reference run on those inputs, files in another folder), not a golden
	 * kernel's: golden_src is NULL. */
	int oracle;
	char *data_dir;
	int64_t sm_count;        /* the `sm_count` of expressions: the device's, once one is known */
} ks_problem;

/* A single case may not ask for more device memory than this for its tensors (guard bands and
 * scratch buffers excluded). */
#define KS_PROBLEM_MAX_CASE_BYTES (8ull << 30)
#define KS_PROBLEM_MAX_SEEDS 16     /* input seeds per correctness case */

/* `sm_count` before a device is known (load-time validation, compile-only runs): an H100 SXM's. */
#define KS_PROBLEM_DEFAULT_SM_COUNT 132

typedef struct {
	char *root;
	ks_problem **problems;
	size_t n;
	char **errors;           /* one message per problem folder that failed to load */
	size_t nerrors;
} ks_problem_set;

/* The problem's Python entry for Triton answers (its `python` section, load/pyentry.h), as the
 * `entry` object of a trace request (docs/triton-protocol.md): {"name", "args", "kwargs",
 * "returns", "made_by_entry"}; NULL when the problem has none. Caller frees with cJSON_Delete. */
cJSON *ks_problem_python_json(const ks_problem *p);

/* Loads and validates one problem folder. Caller frees with ks_problem_free. */
int ks_problem_load(ks_problem **out, const char *dir, const char *suite);

/* Loads every problem under root/<suite>/<name>/ (or only the given suite if not NULL). Folders
 * that fail are listed in errors; duplicate names across suites are an error for the later one.
 * Fails only if root is unreadable. */
int ks_problem_set_load(ks_problem_set **out, const char *root, const char *suite);
const ks_problem *ks_problem_set_find(const ks_problem_set *set, const char *name);
void ks_problem_set_free(ks_problem_set *set);
void ks_problem_free(ks_problem *p);

/* Makes `sm_count` in every problem's expressions the device's multiprocessor count (persistent
 * kernels size their grids with it). Ignored unless sm_count > 0. */
void ks_problem_set_sm_count(ks_problem_set *set, int64_t sm_count);

/* The case of the given kind (ks_case_kind) and index, NULL when there is none. */
const ks_case *ks_problem_case(const ks_problem *p, int kind, size_t ci);

/* Builds the environment of case c: `sm_count`, its dims, then the lets. */
int ks_problem_env(ks_env *env, const ks_problem *p, const ks_case *c);

/* Element count of tensor arg a under env (product of its shape). */
int ks_problem_arg_count(uint64_t *out, const ks_problem *p, const ks_arg *a, const ks_env *env);

/* Index of the named arg, or -1. */
int ks_problem_arg_index(const ks_problem *p, const char *name);

/* Checks a launch plan's names against the problem (tensor, scratch, scalar, dim and let names;
 * expressions parse and use known names). `what` names the plan's source in messages. */
int ks_problem_check_launch(const ks_problem *p, const ks_launch *l, const char *what);

#endif
