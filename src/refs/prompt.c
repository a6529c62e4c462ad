/* prompt: see src/refs/prompt.h. */
#include "refs/prompt.h"
#include "lang/cuda/compat.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/mem.h"

#include <stdio.h>
#include <string.h>

/* instruction.md is at most 4 MiB; what is generated around it is small. */
#define MAX_PROMPT (8u << 20)

int ks_prompt_lang_parse(ks_prompt_lang *out, const char *name)
{
	if (!strcmp(name, "cuda"))
		*out = KS_PROMPT_CUDA;
	else if (!strcmp(name, "triton"))
		*out = KS_PROMPT_TRITON;
	else
		return ks_error_set(KS_EINVALID, "unknown language \"%s\" (cuda or triton)", name);
	return 0;
}

static int heading_level(const char *line)
{
	int n = 0;
	while (line[n] == '#')
		n++;
	return n > 0 && n <= 6 && line[n] == ' ' ? n : 0;
}

/* Whether the level-2 heading at line starts a section put_instruction leaves out: `## Triton
 * answers` always; for a Triton answer also the CUDA launch contract (`## Launch ...`, `## Default
 * launch`), which says how the harness launches a CUDA kernel and nothing about the problem. */
static int left_out(const char *line, int triton)
{
	const char *h = line + 3;
	size_t n = strcspn(h, "\r\n");
	if (n == 14 && !strncmp(h, "Triton answers", 14))
		return 1;
	return triton && (!strncmp(h, "Launch", 6) || !strncmp(h, "Default launch", 14));
}

/* Whether a block of the statement (a paragraph or a list item) states the CUDA compile rules
 * ("Device code only: compiled with NVRTC ..."), which a Triton answer does not follow: Triton
 * compiles it, and the Triton prompt states its own rules. */
static int cuda_rules(const char *block, size_t len)
{
	static const char key[] = "NVRTC";
	size_t i;
	for (i = 0; i + sizeof(key) - 1 <= len; i++)
		if (!memcmp(block + i, key, sizeof(key) - 1))
			return 1;
	return 0;
}

/* Appends instruction.md without the sections left_out names, each heading `shift` levels deeper
 * (shift 1: the Triton instruction, which holds it under its own heading, without the blocks
 * cuda_rules names). Lines inside ``` fences are never headings (`#include`, Python comments). */
static void put_instruction(ks_buf *b, const char *text, int shift)
{
	const char *line = text, *block = NULL;
	int fence = 0, skipping = 0;
	for (;;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line + 1) : strlen(line);
		int level = fence ? 0 : heading_level(line);
		/* a block ends before a blank line, a heading, a list item or a fence, and at the end */
		if (block && (!*line || fence || level || line[0] == '\n' || line[0] == '\r' ||
			      !strncmp(line, "- ", 2) || !strncmp(line, "```", 3))) {
			if (!cuda_rules(block, (size_t)(line - block)))
				ks_buf_put(b, block, (size_t)(line - block));
			block = NULL;
		}
		if (!*line)
			break;
		if (!strncmp(line, "```", 3))
			fence = !fence;
		if (level)
			skipping = level == 2 && left_out(line, shift > 0);
		if (!skipping) {
			if (level)
				ks_buf_printf(b, "%.*s", shift, "######");
			if (shift > 0 && !fence && !level && line[0] != '\n' && line[0] != '\r' &&
			    strncmp(line, "```", 3)) {
				if (!block)
					block = line;
			} else {
				ks_buf_put(b, line, len);
			}
		}
		line += len;
	}
	/* the section may have been the last: drop the blank line that led into it */
	while (b->len >= 2 && b->ptr[b->len - 1] == '\n' && b->ptr[b->len - 2] == '\n')
		b->ptr[--b->len] = '\0';
	if (b->len && b->ptr[b->len - 1] != '\n')
		ks_buf_puts(b, "\n");
}

static char *cuda_text(const ks_problem *p)
{
	ks_buf b = KS_BUF_INIT(MAX_PROMPT);
	put_instruction(&b, p->instruction, 0);
	/* What may be included is the same for every problem: one note, appended here. */
	ks_buf_printf(&b, "\n%s\n", KS_COMPAT_PROMPT_NOTE);
	return ks_buf_take(&b, NULL);
}

static const char *torch_dtype(ks_dtype t)
{
	static const char *const names[KS_DT_COUNT] = {
		[KS_DT_F32] = "float32", [KS_DT_F16] = "float16", [KS_DT_BF16] = "bfloat16",
		[KS_DT_F64] = "float64", [KS_DT_I8] = "int8",	  [KS_DT_U8] = "uint8",
		[KS_DT_I32] = "int32",	 [KS_DT_U32] = "uint32",  [KS_DT_I64] = "int64",
	};
	return (unsigned)t < KS_DT_COUNT ? names[t] : "?";
}

static void put_shape(ks_buf *b, const ks_arg *a)
{
	size_t i;
	ks_buf_puts(b, "`[");
	for (i = 0; i < a->ndim; i++)
		ks_buf_printf(b, "%s%s", i ? ", " : "", a->shape[i]);
	ks_buf_puts(b, "]`");
}

/* How the entry gets spec argument a: "positional argument 2", "keyword `eps`", "returned", ... */
static void put_passing(ks_buf *b, const ks_python_entry *e, const ks_arg *a)
{
	size_t i;
	for (i = 0; i < e->nargs; i++)
		if (e->args[i].kind == KS_PYARG_NAME && !strcmp(e->args[i].ref, a->name)) {
			ks_buf_printf(b, "positional argument %zu", i + 1);
			return;
		}
	for (i = 0; i < e->nkwargs; i++)
		if (e->kwargs[i].kind == KS_PYARG_NAME && !strcmp(e->kwargs[i].ref, a->name)) {
			ks_buf_printf(b, "keyword `%s`", e->kwargs[i].key);
			return;
		}
	if (e->returns && !strcmp(e->returns, a->name)) {
		ks_buf_puts(b, "returned by the entry");
		return;
	}
	for (i = 0; i < e->nmade; i++)
		if (!strcmp(e->made_by_entry[i], a->name)) {
			ks_buf_puts(b, "made by the entry (random)");
			return;
		}
	ks_buf_puts(b, "not passed (read it from the shapes)");
}

static void put_arg_row(ks_buf *b, const ks_python_entry *e, const ks_arg *a)
{
	ks_buf_printf(b, "| `%s` | ", a->name);
	put_passing(b, e, a);
	if (a->role == KS_ROLE_SCALAR) {
		ks_buf_printf(b, " | Python %s | scalar ", ks_dtype_is_float(a->dtype) ? "float" : "int");
		if (ks_dtype_is_float(a->dtype))
			ks_buf_printf(b, "(%g)", a->fvalue);
		else
			ks_buf_printf(b, "(`= %s`)", a->value);
		ks_buf_puts(b, " | |\n");
		return;
	}
	ks_buf_printf(b, " | torch.%s tensor | ", torch_dtype(a->dtype));
	put_shape(b, a);
	ks_buf_printf(b, " | %s |\n", a->role == KS_ROLE_IN ? "input, read only" :
				   a->role == KS_ROLE_OUT ? "output, write every element" :
				   "input and output (updated in place)");
}

/* The call the scorer makes, as one Python line. */
static void put_call(ks_buf *b, const ks_python_entry *e)
{
	char *call = ks_pyentry_call_text(e);
	ks_buf_puts(b, "```python\n");
	if (e->returns)
		ks_buf_printf(b, "%s = ", e->returns);
	ks_buf_printf(b, "%s\n```\n\n", call);
	ks_free(call);
}

static void put_entry(ks_buf *b, const ks_problem *p)
{
	const ks_python_entry *e = &p->python;
	size_t i, nouts = 0;
	ks_buf_printf(b, "## What to write\n\nOne Python file: `@triton.jit` kernels (`@triton.autotune` and "
			 "`@triton.heuristics` may wrap them) and the entry function `%s`, which allocates "
			 "what it needs and launches the kernels. For every case the scorer calls it as\n\n",
		      e->entry);
	put_call(b, e);
	if (e->returns) {
		const ks_arg *a = &p->args[ks_problem_arg_index(p, e->returns)];
		ks_buf_printf(b, "It returns `%s`: a new contiguous torch.%s tensor with the spec's number of "
				 "elements (shape ", a->name, torch_dtype(a->dtype));
		put_shape(b, a);
		ks_buf_puts(b, "), allocated by the entry in that call (`torch.empty`, `torch.empty_like`, ...).");
	}
	for (i = 0; i < p->nargs; i++) {
		const ks_arg *a = &p->args[i];
		if ((a->role == KS_ROLE_OUT || a->role == KS_ROLE_INOUT) &&
		    !(e->returns && !strcmp(e->returns, a->name)))
			ks_buf_printf(b, "%s`%s`", nouts++ ? ", " : (e->returns ? " It also writes " :
								    "It writes "), a->name);
	}
	if (nouts)
		ks_buf_printf(b, " in place (passed in, allocated by the scorer)%s.",
			      e->returns ? "" : " and returns nothing");
	for (i = 0; i < e->nmade; i++) {
		const ks_arg *a = &p->args[ks_problem_arg_index(p, e->made_by_entry[i])];
		ks_buf_printf(b, " `%s` is not passed: the entry makes it itself with a random op "
				 "(`torch.randn`, `torch.rand`, ...) as a torch.%s tensor of shape ",
			      a->name, torch_dtype(a->dtype));
		put_shape(b, a);
		ks_buf_puts(b, "; the first random tensor of that shape and dtype the entry makes is taken as "
			       "this input, and the kernels are checked and timed on the scorer's own data.");
	}
	ks_buf_puts(b, "\n\n| argument | passed as | type | shape | role |\n| --- | --- | --- | --- | --- |\n");
	for (i = 0; i < p->nargs; i++)
		put_arg_row(b, e, &p->args[i]);
	for (i = 0; i < e->nargs + e->nkwargs; i++) {
		const ks_pyarg *a = i < e->nargs ? &e->args[i] : &e->kwargs[i - e->nargs];
		char *lit;
		if (a->kind != KS_PYARG_CONST)
			continue;
		lit = ks_pyentry_literal(a->json);
		if (a->key)
			ks_buf_printf(b, "| `%s=%s` | keyword `%s` | constant | | |\n", a->key, lit, a->key);
		else
			ks_buf_printf(b, "| `%s` | positional argument %zu | constant | | |\n", lit, i + 1);
		ks_free(lit);
	}
	ks_buf_puts(b, "\nTensors are contiguous and row-major, on the GPU. Dims: ");
	for (i = 0; i < p->ndims; i++)
		ks_buf_printf(b, "%s`%s`", i ? ", " : "", p->dims[i]);
	ks_buf_puts(b, ".\n\n");
	if (e->note)
		ks_buf_printf(b, "%s\n\n", e->note);
}

/* Whether c's label is the one the loader makes up ("n=4096 m=8"), which says nothing new. */
static int default_label(const ks_problem *p, const ks_case *c)
{
	ks_buf d = KS_BUF_INIT(64u << 10);
	size_t i;
	int same;
	for (i = 0; i < p->ndims; i++)
		ks_buf_printf(&d, "%s%s=%s", i ? " " : "", p->dims[i], c->dims[i]);
	same = d.ptr && !strcmp(d.ptr, c->label);
	ks_buf_free(&d);
	return same;
}

/* One case in words: its label and its dims, evaluated. Returns the largest tensor's element
 * count in *largest. */
static void put_case(ks_buf *b, const ks_problem *p, const ks_case *c, uint64_t *largest)
{
	ks_env env = KS_ENV_INIT;
	size_t i;
	ks_buf_puts(b, "- ");
	if (ks_problem_env(&env, p, c) < 0) { /* validated at load: not expected */
		ks_buf_printf(b, "%s\n", c->label);
		ks_env_free(&env);
		return;
	}
	for (i = 0; i < p->ndims; i++) {
		int64_t v = 0;
		ks_env_get(&env, p->dims[i], &v);
		ks_buf_printf(b, "%s%s=%lld", i ? ", " : "", p->dims[i], (long long)v);
	}
	if (c->label && !default_label(p, c))
		ks_buf_printf(b, ": %s", c->label);
	ks_buf_puts(b, "\n");
	for (i = 0; i < p->nargs; i++) {
		uint64_t n = 0;
		if (p->args[i].role != KS_ROLE_SCALAR && ks_problem_arg_count(&n, p, &p->args[i], &env) == 0 &&
		    n > *largest)
			*largest = n;
	}
	ks_env_free(&env);
}

static void put_cases(ks_buf *b, const ks_problem *p)
{
	uint64_t largest = 0;
	size_t i;
	ks_buf_puts(b, "## Cases\n\nCorrectness (every element of every output is checked, for several "
		       "input seeds):\n\n");
	for (i = 0; i < p->ncorrectness; i++)
		put_case(b, p, &p->correctness[i], &largest);
	if (p->nperf) {
		ks_buf_puts(b, "\nTimed (checked as well, and timed against the reference kernel):\n\n");
		for (i = 0; i < p->nperf; i++)
			put_case(b, p, &p->perf[i], &largest);
	}
	ks_buf_printf(b, "\nSizes are not multiples of any block size: mask every load and store.");
	if (largest > 0x7fffffffull)
		ks_buf_printf(b, " The largest tensor holds %llu elements, more than 2^31: compute offsets in "
				 "int64 (`pid.to(tl.int64) * BLOCK`, `row.to(tl.int64) * stride`) where they can "
				 "pass 2^31.", (unsigned long long)largest);
	ks_buf_puts(b, "\n\n");
}

static void put_accuracy(ks_buf *b, const ks_problem *p)
{
	size_t i;
	ks_buf_puts(b, "## Accuracy\n\n");
	for (i = 0; i < p->nargs; i++) {
		const ks_arg *a = &p->args[i];
		if (a->role != KS_ROLE_OUT && a->role != KS_ROLE_INOUT)
			continue;
		if (!ks_dtype_is_float(a->dtype) || (a->atol == 0 && a->rtol == 0))
			ks_buf_printf(b, "- `%s`: exact, bit for bit.\n", a->name);
		else
			ks_buf_printf(b, "- `%s`: `|%s - ref| <= %g + %g * |ref|` per element; NaN and "
					 "infinities where the reference has them.\n",
				      a->name, a->name, a->atol, a->rtol);
	}
	ks_buf_puts(b, "\n");
}

static void put_rules(ks_buf *b)
{
	ks_buf_puts(b,
		    "## What the scorer allows\n\n"
		    "The scorer runs your Python only to record what it launches. For each case it calls the "
		    "entry twice with the same inputs (the first call may autotune and compile), records the "
		    "Triton launches of the second call, and then checks and times those kernels itself, on "
		    "its own inputs, with no Python running. So:\n\n"
		    "- In the entry, torch may only allocate (`torch.empty`, `empty_like`, `zeros`, "
		    "`zeros_like`, `full`, `new_empty`, ...), take views (`view`, `reshape` of a contiguous "
		    "tensor, `transpose`, `permute`, slicing, `unsqueeze`, `squeeze`, `flatten`, `expand`), "
		    "copy (`.contiguous()`, `copy_`, `clone`) and fill (`zero_`, `fill_`); the work is done "
		    "by Triton launches (`kernel[grid](...)`). A torch operation that computes (`torch.sin`, "
		    "`torch.matmul`, `x + y`, `x * 2`, `.to(dtype)`, `.sum()`, `.item()`, ...) refuses the "
		    "answer (`host_op`), however small.\n"
		    "- Both calls must launch the same kernels with the same grids: no results cached from "
		    "one call to the next, nothing skipped on the second call. Launch on the current stream "
		    "only (no `torch.cuda.Stream`, no CUDA graphs). Shape checks and asserts are fine.\n"
		    "- A returned tensor must be allocated by the entry in that call, contiguous, with the "
		    "spec's dtype and number of elements (not a view into a larger buffer).\n"
		    "- Kernels must write every element of every output and nothing outside the outputs and "
		    "the buffers the entry allocated (writes past an end are caught), must not modify "
		    "inputs, and must give bitwise identical results when run twice (no floating-point "
		    "atomics whose order varies). The timed runs are checked too.\n"
		    "- The top level of the file may hold only imports of " KS_PROMPT_TRITON_IMPORTS
		    "; function and class definitions; assignments of constants (numbers, strings, tuples, "
		    "`tl.constexpr(...)`, lists of `triton.Config(...)`); docstrings; and "
		    "`if __name__ == \"__main__\":` blocks, which are never run. Anything else (another "
		    "import, a top-level call, `exec`, `eval`, `open`, file, process or network access) "
		    "refuses the answer before it runs.\n"
		    "- Write for Triton 3.6 (`tl.program_id`, `tl.arange`, `tl.load`/`tl.store` with `mask` "
		    "and `other`, `tl.dot`, `tl.sum`/`tl.max` with `axis`, `tl.exp`, `tl.math.*`, "
		    "`tl.extra.cuda.libdevice`) on an NVIDIA GPU (an H100 in the reference setup). Answer "
		    "with the Python source only.\n\n");
}

static char *triton_text(const ks_problem *p)
{
	ks_buf b = KS_BUF_INIT(MAX_PROMPT);
	if (!p->python.entry) {
		ks_error_set(KS_ENOTFOUND, "problem %s has no Python entry (no \"python\" section)", p->name);
		return NULL;
	}
	ks_buf_printf(&b, "# %s (Triton)\n\nWrite a Triton answer (Python) for `%s`%s%s.\n\n", p->name, p->name,
		      p->description ? ": " : "", p->description ? p->description : "");
	put_entry(&b, p);
	put_cases(&b, p);
	put_accuracy(&b, p);
	ks_buf_puts(&b, "## The problem statement\n\nWritten for CUDA answers: its semantics, shapes, dtypes, "
			"input distributions and accuracy hold for Triton answers too; its CUDA signature, "
			"launch contract and `kscore-launch` comments do not (the entry launches its kernels "
			"itself), and its CUDA compile rules are left out (Triton's own follow).\n\n");
	put_instruction(&b, p->instruction, 1);
	/* last, so that the prompt ends with the rules of its own language */
	ks_buf_puts(&b, "\n");
	put_rules(&b);
	while (b.len >= 2 && b.ptr[b.len - 1] == '\n' && b.ptr[b.len - 2] == '\n')
		b.ptr[--b.len] = '\0';
	return ks_buf_take(&b, NULL);
}

char *ks_prompt_text(const ks_problem *p, ks_prompt_lang lang)
{
	return lang == KS_PROMPT_TRITON ? triton_text(p) : cuda_text(p);
}
