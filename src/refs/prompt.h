/* prompt: the instruction an agent is given for one problem (`score problems --export-prompts`),
 * in the language its answer is to be written in.
 *
 * CUDA: the problem's instruction.md and the note on what the code may include. Triton: what to
 * write (the `@triton.jit` kernels and the Python entry with the exact call the scorer makes,
 * built from the spec's `python` section), every argument's torch type and shape, the cases in
 * words, the accuracy, what the scorer allows and refuses in the entry (its trace records only
 * allocations, views, copies, fills and Triton launches), and then instruction.md as the statement
 * of the problem. A `## Triton answers` section of instruction.md (the mapping onto TritonBench-G,
 * for people reading the spec) is left out of both: the Triton instruction says it in its own
 * words, and it does not concern CUDA answers. */
#ifndef KS_PROMPT_H
#define KS_PROMPT_H

#include "load/problem.h"

typedef enum { KS_PROMPT_CUDA = 0, KS_PROMPT_TRITON } ks_prompt_lang;

/* Parses "cuda" or "triton". Returns 0, or KS_EINVALID. */
int ks_prompt_lang_parse(ks_prompt_lang *out, const char *name);

/* The instruction for p in lang, as Markdown. NULL with KS_ENOTFOUND set when lang is Triton and p
 * has no Python entry. Caller frees with ks_free. */
char *ks_prompt_text(const ks_problem *p, ks_prompt_lang lang);

/* The Python modules a Triton answer may import, as the prompt lists them (the trace helper's
 * static check, src/lang/triton/, holds the list it enforces). */
#define KS_PROMPT_TRITON_IMPORTS                                                                 \
	"torch, triton, triton.language (as tl), triton.language.extra (libdevice), math, typing, " \
	"functools, itertools, operator, dataclasses, enum, numbers, collections, logging"

#endif
