/* drvtrace: the scorer's reader of a driver-level trace ("kscore.drvtrace/1", docs/drvtrace.md),
 * the record libkscore-cupti.so writes inside a traced process.
 *
 * The record comes from a process that ran an answer's code, so it is untrusted input: read with
 * caps, every CUBIN and data file checked against the SHA-256 that names it, and every launch's
 * parameter block classified word by word (each 8-byte-aligned word a pointer into a recorded
 * allocation, with the allocation and the offset, a part of a recorded tensor map, or a value).
 * What a replay could not express is kept as a refusal with its reason, never guessed. */
#ifndef KS_DRVTRACE_H
#define KS_DRVTRACE_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
	size_t max_trace_bytes; /* the trace file */
	size_t max_records;
	size_t max_launches;
	size_t max_allocs;
	size_t max_file_bytes;  /* one CUBIN or data file */
	size_t max_total_bytes; /* every CUBIN kept in memory, together */
	/* reads the file <sha>.<ext> ("cubin", "bin") beside the trace into *data, *len (caller frees
	 * with ks_free): 0, or < 0 with a message. NULL: ks_drvtrace_read's reader of dir. */
	int (*read_file)(void *ctx, char **data, size_t *len, const char *sha, const char *ext, size_t max);
	void *ctx;
} ks_drvtrace_options;

#define KS_DRVTRACE_OPTIONS_INIT                                                                    \
	{ .max_trace_bytes = 512u << 20, .max_records = 2000000, .max_launches = 200000,             \
	  .max_allocs = 1u << 20, .max_file_bytes = 512u << 20, .max_total_bytes = 2048u << 20 }

typedef struct {
	char sha[65];
	char *bytes; /* the CUBIN (verified against sha) */
	size_t len;
	int elf;     /* it starts with the ELF magic */
} ks_drvtrace_module;

typedef struct {
	uint64_t id, base, size;
	char via[40];
	int managed, host; /* memory a replay cannot re-create (managed) or that is not the device's */
	int freed;
} ks_drvtrace_alloc;

typedef enum { KS_DRVWORD_VALUE = 0, KS_DRVWORD_POINTER, KS_DRVWORD_TMAP } ks_drvword_kind;

const char *ks_drvword_kind_name(ks_drvword_kind k);

typedef struct {
	uint32_t offset;
	ks_drvword_kind kind;
	size_t alloc;      /* POINTER: index into allocs */
	uint64_t alloc_off;
	size_t tmap;       /* TMAP: index into tmaps */
} ks_drvtrace_word;

typedef struct {
	uint32_t id, v[3];
} ks_drvtrace_attr;

typedef struct {
	uint64_t seq;
	char *api, *runtime, *name; /* runtime and name may be NULL */
	int module;                 /* index into modules, -1 unknown (then refused) */
	int module_by_name;         /* found by the function's name in one CUBIN, not by the handle */
	uint32_t grid[3], block[3], smem;
	uint64_t stream;
	ks_drvtrace_attr *attrs;
	size_t nattrs;
	int layout; /* the driver gave the parameter layout */
	uint32_t *offsets, *sizes;
	size_t nparams;
	unsigned char *args;
	size_t nargs;
	int extra;
	ks_drvtrace_word *words; /* one per 8-byte-aligned word of args */
	size_t nwords;
	char *refused; /* why it cannot be replayed, or NULL */
} ks_drvtrace_launch;

typedef struct {
	uint64_t seq;
	char kind[8];  /* "htod", "dtoh", "dtod", "htoh", "set" */
	char *api;
	uint64_t dst, src, bytes; /* set: bytes = count * elem */
	unsigned elem;
	uint32_t value;
	char data[65]; /* htod: the sha of the kept source bytes, "" when not kept */
	int cut;
	uint64_t stream;
	int64_t dst_alloc, src_alloc; /* the live allocations holding dst and src when it was recorded:
				       * indices into allocs, -1 none */
	int recording;                /* it happened while launches were recorded */
} ks_drvtrace_copy;

typedef struct {
	uint64_t seq;
	char *api;
	uint64_t addr;
	uint32_t rank;
	unsigned char bytes[128];
	int64_t alloc; /* the live allocation holding addr when it was encoded, -1 none */
} ks_drvtrace_tmap;

typedef struct {
	uint64_t seq;
	char *what, *why;
	int recording; /* it happened while launches were recorded */
} ks_drvtrace_refusal;

typedef struct {
	uint64_t pid, records;
	int complete; /* the end record is there: the process finished its trace */
	int stopped;  /* a cap stopped the recording (overflow names it) */
	char *overflow;
	ks_drvtrace_module *modules;
	size_t nmodules;
	ks_drvtrace_alloc *allocs;
	size_t nallocs;
	ks_drvtrace_launch *launches;
	size_t nlaunches;
	ks_drvtrace_copy *copies;
	size_t ncopies;
	ks_drvtrace_tmap *tmaps;
	size_t ntmaps;
	ks_drvtrace_refusal *refusals;
	size_t nrefusals;
	size_t marks, syncs, events;
} ks_drvtrace;

/* Parses a trace's text into *out (cleared first; ks_drvtrace_clear it whatever the result).
 * Returns 0; KS_EINVALID naming the line and the reason for a malformed record or a file whose
 * hash does not match; KS_ELIMIT for a cap. A last line without its newline (the process died
 * while writing) is dropped and the trace marked incomplete. */
int ks_drvtrace_parse(ks_drvtrace *out, const char *text, size_t len, const ks_drvtrace_options *opts);

/* Reads dir/name (name NULL: the one trace-*.jsonl of dir, refused when there are several) with
 * the files beside it. Messages name the file. */
int ks_drvtrace_read(ks_drvtrace *out, const char *dir, const char *name, const ks_drvtrace_options *opts);

void ks_drvtrace_clear(ks_drvtrace *t);

/* Whether the recorded launches can be replayed: 1, or 0 with *why (caller frees with ks_free)
 * naming the first reason (an incomplete or stopped trace, a refusal while recording, a refused
 * launch, no launch at all). */
int ks_drvtrace_replayable(const ks_drvtrace *t, char **why);

#endif
