/* drvrec: the recording core of the driver-level tracer (libkscore-cupti.so, docs/drvtrace.md).
 *
 * The injection library (inject.c) turns each CUPTI callback into one call here; this module owns
 * everything that does not need the driver: the trace file ("kscore.drvtrace/1", JSON Lines), the
 * CUBIN and copied-buffer files named by SHA-256, the per-process caps, the allocation map and the
 * packing of a launch's parameter block. Tests call it directly with fake callback data.
 *
 * Every function is safe to call from any thread (one lock) and never aborts or crashes the
 * traced program: a failed allocation, a full disk or a cap reached writes one "overflow" record
 * and stops the recording for good. Plain C and libc alone, like drvmap. */
#ifndef KS_DRVREC_H
#define KS_DRVREC_H

#include <stddef.h>
#include <stdint.h>

#include "trace/cupti/drvmap.h"

#define KS_DRVREC_FORMAT "kscore.drvtrace/1"
/* the largest parameter block a launch can have (CUDA 12.1's 32,764 bytes, rounded up) */
#define KS_DRVREC_MAX_PARAM_BYTES 32768u
#define KS_DRVREC_MAX_PARAMS 4096u
#define KS_DRVREC_MAX_ATTRS 32u

/* Per-process caps; the environment variables that change them are in brackets. */
typedef struct {
	uint64_t max_launches;   /* launch records [KSCORE_DRVTRACE_MAX_LAUNCHES] */
	uint64_t max_records;    /* records of any kind [KSCORE_DRVTRACE_MAX_RECORDS] */
	uint64_t max_bytes;      /* the trace file and every file beside it [KSCORE_DRVTRACE_MAX_BYTES] */
	uint64_t max_files;      /* CUBIN and data files [KSCORE_DRVTRACE_MAX_FILES] */
	uint64_t max_copy_bytes; /* source bytes kept of one host-to-device copy [KSCORE_DRVTRACE_MAX_COPY_BYTES] */
	uint64_t max_allocs;     /* live allocations tracked [KSCORE_DRVTRACE_MAX_ALLOCS] */
	int record;              /* launches recorded from the start (1), or from the first mark that turns
				    recording on (0) [KSCORE_DRVTRACE_RECORD=0|1] */
} ks_drvrec_limits;

#define KS_DRVREC_LIMITS_INIT                                                                      \
	{ .max_launches = 100000, .max_records = 1000000, .max_bytes = 4ull << 30, .max_files = 4096, \
	  .max_copy_bytes = 64ull << 20, .max_allocs = 1u << 20, .record = 1 }

/* Reads the variables above through get (getenv, or a test's table) into *lim, which holds the
 * defaults. A value that is not a plain decimal number (or 0|1 for RECORD) is ignored and named in
 * the returned count of ignored variables; the trace's header lists the caps in force. */
int ks_drvrec_limits_read(ks_drvrec_limits *lim, const char *(*get)(const char *name));

typedef struct ks_drvrec ks_drvrec;

/* Creates trace-<pid>.jsonl in dir (which must exist; the file must not: a process forked or
 * spawned by the traced program that initialises CUDA writes a trace of its own) and writes the
 * header line. Returns NULL when that fails (the library then records nothing). Caller closes with
 * ks_drvrec_close. */
ks_drvrec *ks_drvrec_open(const char *dir, const ks_drvrec_limits *lim);

/* Writes the "end" record and everything buffered; later calls record nothing. Safe to call more
 * than once (atexit and a destructor both may). */
void ks_drvrec_finish(ks_drvrec *r);

/* In a child forked from the traced process: r records nothing more and writes nothing, not even
 * what the parent had buffered (the parent writes that). Takes no lock. */
void ks_drvrec_detach(ks_drvrec *r);

/* ks_drvrec_finish, then frees r. Only when no other thread can still call in. */
void ks_drvrec_close(ks_drvrec *r);

/* Whether launches are being recorded now (recording on and not stopped): the injection library
 * skips the driver queries of a launch it would not record. */
int ks_drvrec_recording(ks_drvrec *r);

/* A start/stop marker: a "mark" record with label (cut to 200 bytes), then launches are recorded
 * or not as on says. Allocations, frees, modules and copies are recorded either way: a launch
 * recorded later points into memory allocated and filled before it. */
void ks_drvrec_mark(ks_drvrec *r, const char *label, int on);

/* A module's CUBIN (or whatever image the driver reported), written once as <sha256>.cubin beside
 * the trace, and a "module" record (via: "resource", "cuModuleLoadData", ...). Returns the module's
 * index (the same for the same bytes), -1 when nothing was recorded. */
int ks_drvrec_module(ks_drvrec *r, const void *image, size_t len, const char *via);

/* Binds a module handle (CUmodule or CUlibrary, as a number) to module index idx, so later
 * launches of its functions name it; ks_drvrec_module_of looks a handle up (-1 when unknown). */
void ks_drvrec_module_bind(ks_drvrec *r, uint64_t handle, int idx);
int ks_drvrec_module_of(ks_drvrec *r, uint64_t handle);

/* An allocation [base, base + size): an "alloc" record with a new id, and the range in the map.
 * kind names where it came from ("cuMemAlloc_v2", "range": found by asking the driver about a
 * launch parameter); managed marks memory the replay cannot re-create (then also an untraceable
 * record). Returns the id, 0 when nothing was recorded. */
uint64_t ks_drvrec_alloc(ks_drvrec *r, uint64_t base, uint64_t size, const char *kind, int managed);

/* A free of base: a "free" record naming the allocation's id (null when base was not allocated
 * as far as the recorder saw). */
void ks_drvrec_free(ks_drvrec *r, uint64_t base, const char *api);

/* Whether address a lies in a live recorded allocation. */
int ks_drvrec_known(ks_drvrec *r, uint64_t a);

/* The 8-byte-aligned words of block[0..len) that look like device addresses (at least 64 KiB,
 * below 2^57) and lie in no recorded allocation, at most max of them, into out: the injection
 * library asks the driver about those. Returns how many. */
size_t ks_drvrec_unknown_words(ks_drvrec *r, uint64_t *out, size_t max, const unsigned char *block,
			       size_t len);

/* Packs a kernelParams array into a parameter block: parameter i (params[i] points at its bytes)
 * goes to offsets[i], sizes[i] bytes. *len is the block's length (the end of the last parameter).
 * Returns 0, -1 when a parameter does not fit in cap bytes or a pointer is NULL. */
int ks_drvrec_pack(unsigned char *block, size_t cap, size_t *len, void *const *params,
		   const uint32_t *offsets, const uint32_t *sizes, size_t n);

/* The packed buffer of a launch's `extra` array (CU_LAUNCH_PARAM_BUFFER_POINTER and _SIZE, ended
 * by CU_LAUNCH_PARAM_END, read at most 64 entries): *buf and *size. Returns 0, -1 when extra holds
 * no buffer or its size is unreadable or over KS_DRVREC_MAX_PARAM_BYTES. */
int ks_drvrec_extra(const void **buf, size_t *size, void *const *extra);

typedef struct {
	uint32_t id;   /* CUlaunchAttributeID */
	uint32_t v[3]; /* its value's first three 32-bit words (cluster x, y, z; a flag) */
} ks_drvrec_attr;

typedef struct {
	const char *api;     /* "cuLaunchKernel", "cuLaunchKernelEx_ptsz", ... */
	const char *runtime; /* the runtime call it came through ("cudaLaunchKernel"), or NULL */
	const char *name;    /* the function's name, or NULL */
	uint64_t func;       /* the CUfunction (or CUkernel) handle */
	int module;          /* module index, -1 unknown */
	uint32_t grid[3], block[3], smem;
	uint64_t stream;
	const ks_drvrec_attr *attrs;
	size_t nattrs;
	const char *layout; /* where the parameter layout came from: "func" (cuFuncGetParamInfo),
			       "kernel" (cuKernelGetParamInfo), NULL: unknown */
	const uint32_t *offsets, *sizes;
	size_t nparams;
	const unsigned char *args; /* the parameter block */
	size_t nargs;
	int extra;           /* the block came from `extra` */
	const char *refused; /* why it cannot be replayed, or NULL */
} ks_drvrec_launch;

/* A launch record. Counts against max_launches; ignored while recording is off. */
void ks_drvrec_launch_add(ks_drvrec *r, const ks_drvrec_launch *l);

/* A copy: dir is "htod", "dtoh", "dtod" or "any" (cuMemcpy between unified addresses). host_src,
 * when not NULL, holds the source bytes (host memory the call read), kept as <sha256>.bin when
 * bytes <= max_copy_bytes ("cut": true otherwise). */
void ks_drvrec_copy(ks_drvrec *r, const char *api, const char *dir, uint64_t dst, uint64_t src,
		    uint64_t bytes, const void *host_src, uint64_t stream);

/* A memset of count elements of elem (1, 2 or 4) bytes holding value. */
void ks_drvrec_set(ks_drvrec *r, const char *api, uint64_t dst, unsigned elem, uint32_t value,
		   uint64_t count, uint64_t stream);

typedef struct {
	const char *api; /* cuTensorMapEncodeTiled, ...Im2col, ...Im2colWide */
	uint32_t dtype, rank;
	uint64_t addr;
	const uint64_t *dims;     /* rank */
	const uint64_t *strides;  /* rank - 1 */
	const uint32_t *box;      /* rank (Tiled) or NULL */
	const uint32_t *estrides; /* rank */
	const int32_t *lower, *upper; /* rank - 2 (Im2col), or 1 each (Im2colWide), or NULL */
	size_t ncorner;
	uint32_t channels, pixels; /* Im2col */
	uint32_t interleave, swizzle, l2, oob, mode;
	const unsigned char *bytes; /* the 128 encoded bytes */
} ks_drvrec_tmap;

/* A tensor-map encoding and the 128 bytes it produced (a launch's block holds them by value). */
void ks_drvrec_tmap_add(ks_drvrec *r, const ks_drvrec_tmap *t);

/* Something the replay cannot express: what (the API), why, and a handle (0 for none). */
void ks_drvrec_untraceable(ks_drvrec *r, const char *what, const char *why, uint64_t handle);

/* Stream and event use: a synchronisation, an event record or wait, a stream created ("sync",
 * "event", "stream"), with the API's name and the handles involved. */
void ks_drvrec_event(ks_drvrec *r, const char *kind, const char *api, uint64_t stream, uint64_t handle);

/* Counters, for tests and the end record. */
typedef struct {
	uint64_t records, launches, bytes, files, modules, allocs;
	int stopped; /* an overflow stopped the recording */
} ks_drvrec_stats;

void ks_drvrec_stats_get(ks_drvrec_stats *out, ks_drvrec *r);

#endif
