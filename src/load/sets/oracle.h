/* oracle: the client of kscore-oracle (src/load/sets/kscore_oracle/, docs/problem-format.md, "The
 * oracle"), the trusted helper that runs an imported set's own code: TritonBench-G's test code and
 * perf script, KernelBench's Model and get_inputs. Every call of an entry the code makes is a case;
 * `cases` describes them (arguments, return value, which arguments it wrote), `materialize` runs
 * the same code under a new seed and writes each case's input tensors into one folder and the
 * reference's outputs into another.
 *
 * Three parts: the helper process (oracle.c: started like the Triton helper, util/linechild.h, one
 * server per client, a request a file), its reply read into the case model below with caps on
 * everything (oracle_reply.c: the reply is a Python process's output, fuzzed), and a reply turned
 * into kscore's problem model (oracle_problem.c), refusing with a reason each case the model cannot
 * hold. The set's code is trusted (the organizer's); an answer's never runs here. */
#ifndef KS_ORACLE_H
#define KS_ORACLE_H

#include <stddef.h>
#include <stdint.h>
#include "load/problem.h"
#include "load/sets/set.h"

typedef enum {
	KS_ORACLE_OK = 0,
	KS_ORACLE_ERROR,        /* the set's code raised, called no entry, returned what cannot be described */
	KS_ORACLE_TIMEOUT,      /* the file's run passed its limit */
	KS_ORACLE_UNAVAILABLE,  /* no Python, no torch, no helper */
	KS_ORACLE_BAD_REQUEST,  /* the helper refused the request (a bug of kscore's) */
	KS_ORACLE_BROKEN        /* the helper died or its reply is malformed */
} ks_oracle_status;

/* "ok", "error", ... Static storage. */
const char *ks_oracle_status_name(ks_oracle_status s);

typedef enum {
	KS_OVAL_NONE = 0, KS_OVAL_TENSOR, KS_OVAL_INT, KS_OVAL_FLOAT, KS_OVAL_BOOL, KS_OVAL_STR,
	KS_OVAL_DTYPE, KS_OVAL_TUPLE, KS_OVAL_LIST, KS_OVAL_DICT, KS_OVAL_OTHER
} ks_oval_kind;

#define KS_ORACLE_MAX_RANK 16
#define KS_ORACLE_MAX_DEPTH 8       /* nesting of tuples, lists, dicts */
#define KS_ORACLE_MAX_CASES 1024    /* cases of one file (the helper's own cap) */
#define KS_ORACLE_MAX_VALUES 4096   /* values of one case */
#define KS_ORACLE_MAX_NOTES 32
#define KS_ORACLE_MAX_TEXT 4096     /* bytes of a string kept: reasons, notes, output */
#define KS_ORACLE_MAX_REPLY (32u << 20) /* bytes of one reply line */

/* One value of a call: an argument, an item, a return value. */
typedef struct ks_oval {
	ks_oval_kind kind;
	char *key;                  /* an item of a dict, a keyword argument: its key; else NULL */
	char *path;                 /* tensors: "a0", "a1.2", "k.out", "r", "r.0" */
	char *dtype;                /* tensors and dtypes: torch's name ("float32", "bfloat16") */
	int64_t shape[KS_ORACLE_MAX_RANK], strides[KS_ORACLE_MAX_RANK], offset;
	size_t ndim;
	int contiguous;
	char *device;               /* "cuda:0", "cpu" */
	int64_t ival;               /* ints (within 2^53), bools */
	double fval;                /* floats (NaN and infinities too) */
	char *sval;                 /* strings; "other": the type's name */
	struct ks_oval *items;      /* tuples, lists, dicts */
	size_t nitems;
} ks_oval;

typedef struct {
	size_t index;
	int perf;                   /* made by the perf script (a perf case), else by the test code */
	char *entry;                /* the entry it called */
	ks_oval *args, *kwargs;     /* kwargs: key set */
	size_t nargs, nkwargs;
	ks_oval ret;
	char **writes;              /* paths of the argument tensors the call changed */
	size_t nwrites;
	char signature[17];         /* the helper's digest of the call (materialize compares it) */
	/* materialize: per tensor path, the file it wrote and its size */
	char **in_paths, **in_files, **out_paths, **out_files;
	uint64_t *in_bytes, *out_bytes;
	size_t nin, nout;
} ks_oracle_case;

typedef struct {
	ks_oracle_status status;
	char *file;                 /* the file the request named */
	char *reason;               /* not ok: why (names the case where it is one's) */
	ks_oracle_case *cases;
	size_t ncases;
	char **notes;               /* what the run could not do, without failing (a perf script's error) */
	size_t nnotes;
	char *output;               /* the head of what the set's code printed */
	double seconds;
	int landlock;               /* the run was confined (Landlock) */
	char *confinement;          /* why not, when it was not */
	uint64_t bytes_written;     /* materialize */
} ks_oracle_reply;

/* Reads one reply line (JSON) into *out, checking every field and cap; a reply that breaks one
 * gives status KS_ORACLE_BROKEN and a reason naming the field. Never fails otherwise; caller
 * clears. */
void ks_oracle_reply_read(ks_oracle_reply *out, const char *line, size_t n);

void ks_oracle_reply_clear(ks_oracle_reply *r);

/* The tensor of a case at path ("a1", "r.0", "k.out"), NULL when none. */
const ks_oval *ks_oracle_case_tensor(const ks_oracle_case *c, const char *path);

typedef struct ks_oracle ks_oracle;

#define KS_ORACLE_DEFAULT_TIMEOUT 300.0       /* one file: imports, Triton compiles, every test */
#define KS_ORACLE_DEFAULT_START_TIMEOUT 180.0 /* importing torch on a busy node */

typedef struct {
	const char *python;         /* NULL: $KSCORE_PYTHON, else python3 on PATH */
	const char *helper;         /* NULL: kscore-oracle, found like kscore's other helpers */
	const char *visible_devices;/* its CUDA_VISIBLE_DEVICES; NULL: the run's own */
	double timeout_s;           /* one file's run (the helper's limit on its child) */
	double start_timeout_s;
	int unconfined;             /* ask the helper not to confine the set's code */
} ks_oracle_options;

#define KS_ORACLE_OPTIONS_INIT                                                                   \
	{ .timeout_s = KS_ORACLE_DEFAULT_TIMEOUT, .start_timeout_s = KS_ORACLE_DEFAULT_START_TIMEOUT }

/* Starts a helper. Returns 0, or KS_ENOTFOUND / KS_EIO with a message (no Python, no helper). */
int ks_oracle_start(ks_oracle **out, const ks_oracle_options *o);

/* The helper's versions line ({"python", "torch", "protocol"}) as text (caller frees), or NULL with
 * a message when it cannot answer; *torch_missing set when it has no torch (its reason in the
 * message). */
char *ks_oracle_versions(ks_oracle *o, int *torch_missing);

/* The cases of problem p of the set (format from set.h), made under seed. Always fills *out (caller
 * clears): a helper that dies or misses the deadline gives KS_ORACLE_BROKEN or KS_ORACLE_TIMEOUT
 * and is started again on the next call. Returns 0, or an error when no request could be made. */
int ks_oracle_cases(ks_oracle *o, ks_oracle_reply *out, ks_set_format format, const ks_set_problem *p,
		    uint64_t seed);

/* The same run under a new seed, writing each case's inputs into inputs_dir and the reference's
 * outputs into outputs_dir (two existing folders, made by the caller, which owns what lands in
 * them). `cases` is the reply of the cases run (its seed cases_seed): a call whose arguments differ
 * from it is an error naming the case. max_bytes caps what is written (0: the helper's default). */
int ks_oracle_materialize(ks_oracle *o, ks_oracle_reply *out, ks_set_format format, const ks_set_problem *p,
			  uint64_t seed, const ks_oracle_reply *cases, uint64_t cases_seed, const char *inputs_dir,
			  const char *outputs_dir, uint64_t max_bytes);

void ks_oracle_free(ks_oracle *o);

/* A case of the reply kscore's problem model cannot hold, and why. */
typedef struct {
	size_t index;
	char *reason;
} ks_oracle_refusal;

/* GEAK-eval's comparison (allclose, element by element), TritonBench-G's default tolerance */
#define KS_ORACLE_TRITONBENCH_ATOL 1e-2
#define KS_ORACLE_TRITONBENCH_RTOL 1e-1

/* Turns an ok reply into kscore's problem model (load/problem.h): the most-called entry's cases
 * with the argument list of its first case. Tensors of any argument, nested item or return value
 * become args named after their path ("a0", "a1_2", "k_out", "r", "r_0"): inputs (role in), those
 * the call wrote (inout) and returned ones (out); their shapes are dims `<arg>_d<axis>` whose values
 * each case gives; int arguments become scalars whose value is a dim `<arg>`; None, bools, floats,
 * strings and dtypes are constants of the Python entry (p->python). Each case's input tensors have
 * dist KS_DIST_DATA with the file materialize writes for them ("c<index>.<path>.bin"), and each
 * output's dist names the file of its expected values the same way; p->oracle is set, data_dir NULL. A case is refused (listed in *refused, caller frees with
 * ks_oracle_refusals_free) when it calls another entry, has another argument list, another dtype or
 * constant, a strided or offset tensor, or a dtype kscore has not. Returns 0 with *out NULL when
 * every case is refused; KS_EINVALID when the reply is not ok. Caller frees *out with
 * ks_problem_free. */
int ks_oracle_problem(ks_problem **out, ks_oracle_refusal **refused, size_t *nrefused, const ks_set_problem *sp,
		      ks_set_format format, const ks_oracle_reply *r);

void ks_oracle_refusals_free(ks_oracle_refusal *v, size_t n);

/* The bytes of tensor arg `ai` of case c of an oracle problem, as the case's dims make it (its
 * element count times its dtype's size). Returns 0, or KS_EINVALID (a scalar arg, a shape that does
 * not evaluate) with a message. */
int ks_oracle_arg_bytes(uint64_t *out, const ks_problem *p, const ks_case *c, size_t ai);

/* Reads the file the oracle wrote for tensor arg `ai` of case c (its dist's file,
 * `c<case>.<path>.bin`) from dir: the inputs folder for inputs, the outputs folder for expected outputs, which only
 * the process that compares may read (DESIGN §4.4). The file is opened without following a link,
 * must be a regular file, and must hold exactly the bytes the case's shape gives: anything else is
 * KS_EINVALID naming the file. *out (caller frees) holds the row-major elements. */
int ks_oracle_read_tensor(void **out, size_t *n, const ks_problem *p, const ks_case *c, size_t ai,
			  const char *dir);

#endif
