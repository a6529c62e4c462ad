/* compat: kscore's compatibility headers (compat/include, installed as share/kscore/compat/include)
 * and what kscore says about headers in a compile log.
 *
 * Models write CUDA for nvcc, whose implicit environment (cuda_runtime.h, the host's C and C++
 * headers) NVRTC lacks. kscore compiles against its own small header set, searched before CUDA's:
 * device-usable standard headers mapped to NVRTC built-ins and libcu++, empty stand-ins for
 * host-only and host-library headers, and a pre-included prelude (docs/submission-format.md).
 * This module finds the set and fingerprints it (the fingerprint is part of the compile-cache key
 * and of score.json's toolchain record), explains a header that is still missing, adds notes to a
 * failed compile, and normalises "cannot open source file" diagnostics so that a log never tells
 * a submission which host files exist (docs/sandbox.md). */
#ifndef KS_COMPAT_H
#define KS_COMPAT_H

#include <stddef.h>
#include "util/buf.h"

/* What an agent may include: appended to every exported agent prompt (score problems
 * --export-prompts) and to the instructions of the bundled example (submissions/build.py holds a
 * copy; tests/test_compat.c checks that they agree). */
#define KS_COMPAT_PROMPT_NOTE                                                                    \
	"Includes: the file is compiled as device code only, with NVRTC. You may include CUDA's "    \
	"headers (cuda_fp16.h, cuda_bf16.h, mma.h, cooperative_groups.h, cuda_pipeline.h, ...), "   \
	"CCCL (cuda/std/..., cuda/barrier, cub's block and warp levels, thrust's device side) and "  \
	"the standard headers device code can use (cmath, cstdint, climits, cfloat, limits, "       \
	"algorithm, utility, type_traits, array, cstdio for printf); int64_t, FLT_MAX, INFINITY, "  \
	"M_PI and std::min/std::max need no include, and functions without __device__ are device "  \
	"functions. Host-only headers (vector, iostream, torch/extension.h, cublas_v2.h) compile "   \
	"as empty stand-ins: nothing from them can be used in device code."

/* The header NVRTC pre-includes (--pre-include), relative to the set's directory. */
#define KS_COMPAT_PRELUDE "kscore/prelude.h"

/* Finds the set: `given` if not NULL, else the first directory of
 * <exe>/../share/kscore/compat/include, <exe>/../compat/include and <exe>/../../compat/include
 * (an installation, the build tree, the test build). Returns its real path (caller frees), or NULL
 * with KS_ENOTFOUND set. */
char *ks_compat_find(const char *given);

/* The set's fingerprint: hex SHA-256 over every regular file below dir, its relative path and its
 * content, in bytewise path order (hidden files and symbolic links are not part of the set).
 * Returns 0, or an error when the directory cannot be read or holds more than 4096 files, files
 * over 1 MiB or folders nested deeper than 16. */
int ks_compat_hash(char out[65], const char *dir);

/* NVRTC appends the reason after `cannot open source file "NAME"`: "Permission denied" for a file
 * the sandbox hides, "Not a directory" under a file, nothing for a missing one. That would tell a
 * submission which host files exist. Returns a copy of the log (caller frees) in which every
 * diagnostic line (one that starts in column 0) naming a file that cannot be opened ends at the
 * file name's closing quote. */
char *ks_compat_normalise_log(const char *log);

/* What the compile helper does besides NVRTC and the headers (paths in the log written as names,
 * the source fix-ups of ks_compat_fix_source): part of the compile-cache key, so that a result
 * cached by a helper that did otherwise is never reused. Change it with any of them. */
#define KS_COMPAT_HELPER_REVISION "kscore-compile 2: log paths as names; inline on __shared__ dropped"

/* nvcc accepts `inline` on a __shared__ variable declared in a function (`extern __shared__
 * inline float s[];`, a warning: "inline" is not allowed) and ignores it; NVRTC refuses it with an
 * error that neither an option nor a pragma turns into a warning. Returns a copy of src (caller
 * frees) in which every `inline` (`__inline__`, `__inline`) of a declaration inside a function
 * that is also `__shared__` is blanked with spaces, so lines and columns stay those of the source,
 * and sets *line to the line of the first one (0: none; then the copy equals src). At namespace
 * scope nvcc refuses it too, and so it is left. Comments, string and character literals are left
 * alone. */
char *ks_compat_fix_source(const char *src, size_t *line);

/* How a compile log names kscore's compatibility headers' folder: a log says
 * "<kscore-compat>/vector(9): error: ...", never the installation's path (docs/sandbox.md). */
#define KS_COMPAT_LOG_NAME "<kscore-compat>"

/* Returns a copy of log (caller frees) in which every occurrence of a directory dirs[i] (a path
 * followed by '/' or by a character that cannot continue a file name) is written names[i], the
 * longest directory first, so that a log never carries a path of the host (the compatibility
 * headers' installation, CUDA's). Directories shorter than two bytes are ignored. */
char *ks_compat_hide_paths(const char *log, const char *const *dirs, const char *const *names, size_t n);

/* The first "cannot open source file" diagnostic of a log: the header's name as written, and
 * where it was included ("submission.cu line 3"). Returns 1 and sets both (caller frees), or 0
 * when there is none. */
int ks_compat_missing_header(char **name, char **where, const char *log);

/* One sentence on why header `name` is not available and what to do instead, for the
 * `missing_header` reason. include_dirs are searched for a libcu++ counterpart
 * (<cuda/std/NAME>). It depends only on the name, never on whether some host file exists. Caller
 * frees. */
char *ks_compat_header_advice(const char *name, const char *const *include_dirs, size_t n);

/* Whether a header kscore provides is a host-only stand-in (<vector>, <torch/extension.h>,
 * <cublas_v2.h>, <thrust/sort.h>, ...): it compiles, but none of its names can be used in device
 * code. */
int ks_compat_is_stand_in(const char *name);

/* Appends explanatory lines for a failed compile to out (each ends with '\n'; none contains the
 * word "error", so the log's first error stays NVRTC's): which host-only stand-ins the source
 * includes, PyTorch names it uses, and what a __host__ function means under NVRTC. */
void ks_compat_notes(ks_buf *out, const char *source, const char *log);

#endif
