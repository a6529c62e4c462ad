/* cubin: what the scoring process can read from a compiled kernel image without a GPU: each
 * kernel's parameter list. NVRTC's CUBIN is an ELF64 file; section `.nv.info.<lowered name>` holds
 * the kernel's attribute records, among them one EIATTR_KPARAM_INFO per parameter (ordinal, offset
 * in the parameter bank, size) and EIATTR_CBANK_PARAM_SIZE (all parameters' bytes). Compile-only
 * runs use it to find a kernel whose parameter list does not match its launch plan, the check the
 * GPU worker makes with cuFuncGetParamInfo.
 *
 * The image was produced from untrusted source, so it is read as untrusted bytes: every offset,
 * size and count is bounds-checked with overflow-checked arithmetic before use, nothing is
 * allocated, and the work is linear in the image's size. Where the image does not say (no such
 * section, an unknown record format), callers accept: the GPU path checks again. */
#ifndef KS_CUBIN_H
#define KS_CUBIN_H

#include <stddef.h>
#include <stdint.h>
#include "load/launch.h"
#include "load/plan.h"
#include "load/problem.h"

/* Parameters whose sizes are kept; a kernel may have more (up to 32764 bytes of parameters), then
 * only the count is exact. Launch plans pass at most KS_LAUNCH_MAX_ARGS, so a longer list is a
 * mismatch either way. */
#define KS_CUBIN_MAX_PARAMS 256

typedef struct {
	size_t nparams;                      /* highest ordinal + 1 */
	uint32_t size[KS_CUBIN_MAX_PARAMS];  /* bytes of parameter i (i < KS_CUBIN_MAX_PARAMS); 0: no record */
	int64_t total;                       /* EIATTR_CBANK_PARAM_SIZE; -1 when absent */
} ks_cubin_params;

/* Reads the parameter list of kernel `lowered` (its lowered, possibly mangled, name) from
 * image[0..len). Returns 0 with *out filled; 1 when the image holds no usable parameter
 * information for that kernel (*out zeroed); KS_EINVALID with a message when the bytes are not a
 * well-formed little-endian ELF64 image or a record runs past its section. */
int ks_cubin_kernel_params(ks_cubin_params *out, const void *image, size_t len, const char *lowered);

/* Compares every kernel launch of plan with the image's parameter lists (pointers are 8 bytes,
 * i32/u32/f32 4, i64/f64 8; plan kernel k is lowered[plan->kernels[k].func]). Returns 0 when every
 * list matches or the image cannot tell; 1 with *detail (caller frees) naming the kernel and the
 * expected and found lists, in the words the GPU worker uses for the same mismatch. */
int ks_cubin_check_plan(char **detail, const void *image, size_t len, char *const *lowered,
			size_t nlowered, const ks_plan *plan);

/* ks_cubin_check_plan on the plan that launch l resolves to for problem p's first correctness
 * case (parameter types do not depend on the case). Returns 0 also when that plan cannot be built
 * (the caller has already validated it). */
int ks_cubin_check_launch(char **detail, const void *image, size_t len, char *const *lowered,
			  size_t nlowered, const ks_problem *p, const ks_launch *l);

#endif
