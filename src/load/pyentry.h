/* pyentry: the `python` section of a problem spec (docs/problem-format.md, "The Python entry"):
 * how a Triton answer's entry function is called for the problem, the way TritonBench-style
 * harnesses call it (`out = call_kernel(x)`, `embedding(ids, weight, start, end, out)`).
 *
 * This module reads the section's own syntax (identifiers, literals, caps) and writes the `entry`
 * object of a trace request (the helper protocol of src/lang/triton/). Whether the names it passes
 * are arguments of the spec, and whether every input and output is accounted for, is checked by
 * problem.c, which owns the spec. The types are included by load/problem.h: a problem holds one. */
#ifndef KS_PYENTRY_H
#define KS_PYENTRY_H

#include <stddef.h>
#include <cJSON.h>

typedef enum { KS_PYARG_NAME = 0, KS_PYARG_CONST } ks_pyarg_kind;
typedef struct {
	ks_pyarg_kind kind;
	char *key;       /* kwargs: the keyword; args: NULL */
	char *ref;       /* KS_PYARG_NAME: the spec arg it passes */
	char *json;      /* KS_PYARG_CONST: the literal, as JSON text */
} ks_pyarg;
typedef struct {
	char *entry;     /* NULL: the problem has no Python entry */
	ks_pyarg *args, *kwargs;
	size_t nargs, nkwargs;
	char *returns;   /* NULL: the entry writes its outputs in place */
	char **made_by_entry;
	size_t nmade;
	char *note;
} ks_python_entry;

#define KS_PYENTRY_MAX_ARGS 32      /* positional arguments; keyword arguments likewise */
#define KS_PYENTRY_MAX_MADE 16      /* inputs the entry makes itself */
#define KS_PYENTRY_MAX_NAME 64      /* the entry's name, keywords, argument names */
#define KS_PYENTRY_MAX_CONST 256    /* a literal's JSON text */
#define KS_PYENTRY_MAX_NOTE 4096    /* the note, bytes */

/* Parses the section v into *e (zeroed first; cleared again on failure). Checks its syntax only:
 * known keys, `entry` and keywords Python identifiers (not keywords of the language), each value a
 * name string or {"const": literal} with a bool, null, finite number or string, `returns` a name or
 * null, the caps above. Errors name the field ("python.kwargs.eps: ..."). */
int ks_pyentry_parse(ks_python_entry *e, const cJSON *v);

/* Frees what e holds and zeroes it. */
void ks_pyentry_clear(ks_python_entry *e);

/* The `entry` object of a trace request: {"name", "args": [...], "kwargs": {...}, "returns",
 * "made_by_entry": [...]}, each argument a name string or {"const": v}. NULL when e has no entry.
 * Caller frees with cJSON_Delete. */
cJSON *ks_pyentry_json(const ks_python_entry *e);

/* The call as Python source, for prompts and listings: `apply_rotary(x, cos, sin,
 * seqlen_offsets=seqlen_offset, interleaved=False)` (constants written as Python literals). NULL
 * when e has no entry. Caller frees with ks_free. */
char *ks_pyentry_call_text(const ks_python_entry *e);

/* A literal's JSON text as a Python literal: true -> True, null -> None; numbers and strings as
 * they are. Caller frees. */
char *ks_pyentry_literal(const char *json);

#endif
