/* drvplan: a read driver trace (trace/drvtrace.h) of one recorded forward, turned into the replay
 * model: the buffers the forward touched with their sizes and roles, its steps in recorded order
 * (launches with relocated parameter blocks, fills, fills from kept bytes, copies) and the modules
 * (CUBINs, by SHA-256) to bundle. docs/drvtrace.md, "The replay plan", says how the trace maps.
 *
 * Launch steps carry a raw parameter block with relocations, which lang/triton/trace.c's launch
 * step (typed parameters, one per kernel parameter) cannot express: a struct parameter with an
 * embedded pointer, a tensor map. The trace is untrusted input: every index is the reader's checked
 * one, every region is checked to lie inside its buffer, and what a replay could not express
 * faithfully makes the plan refused with its reason (the `untraceable` verdict), never guessed. */
#ifndef KS_DRVPLAN_H
#define KS_DRVPLAN_H

#include <stddef.h>
#include <stdint.h>
#include "trace/drvtrace.h"

typedef enum { KS_DRVBUF_INPUT = 0, KS_DRVBUF_OUTPUT, KS_DRVBUF_CONST, KS_DRVBUF_SCRATCH } ks_drvbuf_role;

const char *ks_drvbuf_role_name(ks_drvbuf_role r);

/* A tensor of the case as the trace child reports it: an argument's data pointer and size
 * (INPUT) or a result's (OUTPUT), addresses of the traced process. */
typedef struct {
	ks_drvbuf_role role; /* INPUT or OUTPUT */
	uint64_t ptr, bytes;
} ks_drvplan_tensor;

typedef struct {
	ks_drvbuf_role role;
	int tensor;          /* INPUT, OUTPUT: index into the given tensors; -1 */
	int64_t alloc;       /* the recorded allocation it lies in, -1 none (a tensor nothing touched) */
	uint64_t base, bytes; /* its recorded address range */
} ks_drvplan_buf;

typedef enum { KS_DRVREL_POINTER = 0, KS_DRVREL_TMAP } ks_drvrel_kind;

/* A word of a parameter block the replay rewrites: POINTER, the 8 bytes at offset become the
 * address of buf + off; TMAP, the 128 bytes at offset become tensor map tmap (an index into the
 * trace's tmaps) re-encoded with its global address at buf + off. */
typedef struct {
	uint32_t offset;
	ks_drvrel_kind kind;
	uint32_t buf;
	uint64_t off;
	size_t tmap;
} ks_drvplan_reloc;

typedef enum { KS_DRVSTEP_LAUNCH = 0, KS_DRVSTEP_FILL, KS_DRVSTEP_FILL_BYTES, KS_DRVSTEP_COPY } ks_drvstep_kind;

const char *ks_drvstep_kind_name(ks_drvstep_kind k);

typedef struct {
	ks_drvstep_kind kind;
	uint64_t seq;         /* the record it comes from */
	int setup;            /* before the forward: fills what the forward found there (constants) */
	/* LAUNCH */
	uint32_t module;      /* index into the plan's modules */
	uint32_t func;        /* index into the plan's names: the image's kernel (ks_drvplan_image) */
	const char *name;     /* borrowed from the trace */
	uint32_t grid[3], block[3], smem;
	const ks_drvtrace_attr *attrs; /* borrowed */
	size_t nattrs;
	unsigned char *params; /* the block as recorded, relocated words zeroed */
	size_t nparams;
	ks_drvplan_reloc *relocs;
	size_t nrelocs;
	/* FILL (value, elem bytes of it), FILL_BYTES (data: the kept bytes' SHA-256), COPY (from src) */
	uint32_t buf, src;
	uint64_t off, src_off, bytes;
	unsigned elem;
	uint32_t value;
	char data[65];
} ks_drvplan_step;

typedef struct {
	size_t max_bufs, max_steps;
	size_t max_funcs;   /* distinct kernels (module and name) */
	uint64_t max_bytes; /* all buffers together */
} ks_drvplan_limits;

#define KS_DRVPLAN_LIMITS_INIT                                                                      \
	{ .max_bufs = 4096, .max_steps = 200000, .max_funcs = 256, .max_bytes = 64ull << 30 }

typedef struct {
	ks_drvplan_buf *bufs; /* the tensors first, in the given order, then the others in first use */
	size_t nbufs;
	ks_drvplan_step *steps;
	size_t nsteps;
	size_t *modules;      /* indices into the trace's modules, in first use */
	size_t nmodules;
	const char **names;   /* the kernels launched, grouped by module in the modules' order, each
			       * module's in first use (borrowed from the trace) */
	size_t nnames;
	uint32_t *module_names; /* per module: how many of names are its */
	char *refused;        /* NULL, or why the forward cannot be replayed (then the rest is partial) */
} ks_drvplan;

/* Builds the replay plan of trace t (one recorded forward) for the case's tensors (ntensors of
 * them; ranges must be non-empty and disjoint). Returns 0 with *out filled and out->refused NULL, or
 * 0 with out->refused saying what cannot be replayed (the trace's own refusals first, then the
 * plan's: a pointer or copy into a recorded allocation no tensor explains that crosses a tensor's
 * range, a copy whose bytes were not kept, a read back to the host during the forward); KS_EINVALID
 * (message) for bad tensors, KS_ELIMIT for a cap. t must outlive *out (names and attributes are
 * borrowed). Caller clears *out whatever the result. */
int ks_drvplan_build(ks_drvplan *out, const ks_drvtrace *t, const ks_drvplan_tensor *tensors, size_t ntensors,
		     const ks_drvplan_limits *lim);

/* The image of a plan that was not refused: its modules' CUBINs as a bundle (lang/image.h; one
 * CUBIN stays a CUBIN), whose names are p->names (each part resolving module_names of them), so
 * that a launch step's func indexes the image's kernels. t is the plan's trace. Caller frees
 * *blob with ks_free. KS_EINVALID for a refused plan or one without modules, KS_ELIMIT past
 * KS_IMAGE_MAX_PARTS modules. */
int ks_drvplan_image(void **blob, size_t *len, const ks_drvplan *p, const ks_drvtrace *t);

void ks_drvplan_clear(ks_drvplan *p);

#endif
