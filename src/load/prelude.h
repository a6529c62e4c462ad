/* prelude: device code shared between reference problems. A problem.json may name a shared
 * source in "golden_prelude"; at load time, in the scoring process, the loader puts the problem's
 * #defines, then that source, in front of golden.cu, so the NVRTC sandbox stays closed to
 * #include of anything but CUDA's own headers (docs/problem-format.md):
 *
 *   "golden_prelude": {"source": "gemm_wgmma.cuh", "defines": {"GW_AB": "f16", "GW_B_KMAJOR": 0}}
 *
 * "source" is one file name or a list of them, put in front in that order.
 * The source lives in <reference root>/_shared/, two folders above the problem's own. #line
 * directives keep compile messages pointing into the right file and line. */
#ifndef KS_PRELUDE_H
#define KS_PRELUDE_H

#include <stddef.h>
#include <cJSON.h>

/* The largest shared source, the most sources, and the longest define value. */
#define KS_PRELUDE_MAX_BYTES (4u << 20)
#define KS_PRELUDE_MAX_SOURCES 8
#define KS_PRELUDE_MAX_VALUE 256

/* When spec (the parsed problem.json) has "golden_prelude", replaces *src (the text of the golden
 * file golden_name, owned, *len bytes) with defines + shared source + golden file; otherwise
 * leaves it alone. problem_dir is <root>/<suite>/<name>; `what` names problem.json in messages. Fails with KS_EINVALID naming the
 * file and key (the source is not a plain file name, a define is not an identifier with a
 * one-line value), or KS_ENOTFOUND / KS_ELIMIT for the shared file; *src is unchanged then. */
int ks_prelude_apply(char **src, size_t *len, const cJSON *spec, const char *problem_dir,
		     const char *golden_name, const char *what);

#endif
