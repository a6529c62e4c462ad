/* set_int: what the readers of the set family share (set.c): the reader's shape and a static
 * reading of Python source. Private to src/load/sets/. */
#ifndef KS_SET_INT_H
#define KS_SET_INT_H

#include <stddef.h>
#include "load/sets/set.h"

/* A reader of one format: fills p from one file's text (p->path, p->name and p->suite are set),
 * or returns a reason the file is not a problem (allocated; the caller frees). */
typedef struct {
	ks_set_format format;
	char *(*read_file)(ks_set_problem *p, const char *text, const ks_set_limits *lim);
} ks_set_reader;

extern const ks_set_reader ks_set_tritonbench_reader;
extern const ks_set_reader ks_set_kernelbench_reader;

/* A top-level definition of a Python module. */
typedef struct {
	char *name;
	int kernel;   /* decorated by a Triton jit (@triton.jit, @jit, autotune/heuristics over one) */
	int is_class;
	int is_name;  /* a module-level assignment, NAME = ..., not a def or class */
} ks_py_def;

/* What a static reading of a module finds at its top level: statements that start in column 0
 * outside strings, brackets and continuation lines. */
typedef struct {
	ks_py_def *defs;
	size_t ndefs;
	char **imports;     /* top-level module names (import a.b as c -> "a"), once each */
	size_t nimports;
	char *gold_fn;      /* `result_gold = NAME(...)`: NAME */
	int truncated;      /* more names than the cap: the rest were left out */
} ks_py_info;

/* Reads text (NUL-terminated) into *out, at most max_names names of each kind. Never fails. */
void ks_py_scan(ks_py_info *out, const char *text, size_t max_names);
void ks_py_info_clear(ks_py_info *info);

/* Whether the code of text calls, launches or reaches into name: "name(", "name[grid](" (a Triton
 * kernel launched directly) or "name.attr" (a class's `Function.apply(...)`) outside strings and
 * comments, not as an attribute itself (".name(") nor
 * as part of a longer name. */
int ks_py_uses(const char *text, const char *name);

/* Frees what a problem holds and zeroes it (a reader's partial fill too). */
void ks_set_problem_clear(ks_set_problem *p);

/* Adds a copy of s to the list (*v, *n) unless it is there or the list holds max already. */
void ks_set_strv_add(char ***v, size_t *n, const char *s, size_t max);

#endif
