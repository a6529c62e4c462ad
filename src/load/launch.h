/* launch: launch plans (docs/problem-format.md, "Launch plans"): which kernels run, in what order,
 * with what grid, block, dynamic shared memory and arguments, and which scratch buffers they need.
 * This module only parses the JSON into a structure; names are checked against a problem by
 * ks_problem_check_launch() and resolved for a concrete case by the plan module. */
#ifndef KS_LAUNCH_H
#define KS_LAUNCH_H

#include <stddef.h>
#include <cJSON.h>
#include "load/dtype.h"

#define KS_LAUNCH_MAX_KERNELS 8
#define KS_LAUNCH_MAX_SCRATCH 8
#define KS_LAUNCH_MAX_ARGS 64
#define KS_LAUNCH_MAX_EXPR 1024       /* characters of one expression */
#define KS_LAUNCH_MAX_TEXT (64 << 10) /* bytes of a plan given as text (entry field, comment) */

typedef enum {
	KS_LARG_NAME = 0, /* a tensor, scratch, scalar, dim or let name */
	KS_LARG_INT,      /* {"i32"|"u32"|"i64": "expr"} */
	KS_LARG_FLOAT     /* {"f32"|"f64": number} */
} ks_larg_kind;

typedef struct {
	ks_larg_kind kind;
	char *name;      /* NAME */
	ks_dtype type;   /* INT and FLOAT */
	char *expr;      /* INT */
	double value;    /* FLOAT */
} ks_launch_arg;

typedef struct {
	char *name;          /* kernel name or name expression */
	char *grid[3];       /* expressions; unused dims are NULL (= 1) */
	char *block[3];
	char *shared;        /* expression; NULL = 0 */
	ks_launch_arg *args; /* NULL with default_args = 1: the problem's args in order */
	size_t nargs;
	int default_args;
} ks_kernel_launch;

typedef struct {
	char *name;
	ks_dtype dtype;
	char *count;         /* elements, an expression */
	int zero;            /* cleared before every launch sequence; otherwise poisoned */
} ks_scratch;

typedef struct {
	ks_kernel_launch *kernels;
	size_t nkernels;
	ks_scratch *scratch;
	size_t nscratch;
} ks_launch;

/* Parses a plan from JSON. `what` names the source in messages ("problem sin_kernel",
 * "team.json entry 3"). On failure returns KS_EINVALID/KS_ELIMIT with a message and leaves *out
 * empty. Caller clears with ks_launch_clear. */
int ks_launch_parse(ks_launch *out, const cJSON *json, const char *what);

/* The same from JSON text (an entry's `launch` field or a kscore-launch comment). */
int ks_launch_parse_text(ks_launch *out, const char *text, const char *what);

/* Deep copy. */
void ks_launch_copy(ks_launch *dst, const ks_launch *src);

/* Back to JSON (for score.json and the reports); caller frees with cJSON_Delete. */
cJSON *ks_launch_to_json(const ks_launch *l);

void ks_launch_clear(ks_launch *l);

#endif
