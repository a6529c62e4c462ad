/* compile: turns CUDA source into CUBIN with NVRTC, in an exec'd helper (`kscore-compile`) that runs
 * with an empty environment, a wall-clock and memory limit, and a filesystem view confined to CUDA's
 * headers (DESIGN §4.2), so `#include "/proc/self/environ"` cannot leak secrets into the log.
 * Results are cached by content hash, so re-scoring skips NVRTC. The scoring process never links
 * NVRTC and never initialises CUDA. */
#ifndef KS_COMPILE_H
#define KS_COMPILE_H

#include <stddef.h>

typedef enum {
	KS_COMPILE_OK = 0,
	KS_COMPILE_ERROR,     /* NVRTC rejected the source: see log */
	KS_COMPILE_TIMEOUT,   /* killed at the wall-clock limit */
	KS_COMPILE_LIMIT,     /* ran out of its memory limit, or source/log over their caps */
	KS_COMPILE_CRASH,     /* the helper died or broke its protocol */
	KS_COMPILE_NONAME,    /* compiled, but a requested kernel name does not exist */
	KS_COMPILE_SANDBOX    /* no sandbox available and unsandboxed compiles are not allowed */
} ks_compile_status;

const char *ks_compile_status_name(ks_compile_status s); /* "ok", "compile error", ... */

typedef struct {
	const char *arch;            /* NVRTC target, e.g. "sm_90a"; CUBIN, never PTX */
	const char *cuda_home;       /* where include/ lives; default KS_CUDA_HOME */
	const char *helper;          /* path of kscore-compile */
	const char *cache_dir;       /* NULL: no cache */
	double timeout_s;            /* per compile, wall clock */
	size_t memory_mb;            /* per compile, address space */
	size_t max_source;           /* bytes */
	size_t max_log;              /* bytes kept of the NVRTC log */
	int jobs;                    /* helpers run in parallel */
	int allow_unsandboxed;       /* compile even where Landlock is missing (trusted input only) */
} ks_compile_options;

#define KS_COMPILE_OPTIONS_INIT { "sm_90a", NULL, NULL, NULL, 60.0, 8192, 1u << 20, 64u << 10, 4, 0 }

typedef struct {
	/* in */
	const char *source;
	const char *const *names;    /* kernel names (name expressions) to resolve */
	size_t nnames;
	const char *label;           /* names the job in messages: "team.json entry 3 (sin_kernel)" */
	/* out */
	ks_compile_status status;
	char *log;                   /* NVRTC log (capped) or the reason of a failure; never NULL after run */
	void *cubin;
	size_t cubin_len;
	char **lowered;              /* nnames lowered (mangled) names when status is OK */
	double seconds;              /* wall time of the helper; 0 when served from the cache */
	int cached;
	char key[65];                /* cache key: sha256 of NVRTC version, arch, options, names, source */
} ks_compile_job;

/* Compiles every job (in parallel, up to opts->jobs helpers). Per-job failures are reported in the
 * job's status and log, never as a return code; returns nonzero only if the helper cannot be run
 * at all (message set). */
int ks_compile_run(ks_compile_job *jobs, size_t n, const ks_compile_options *opts);

/* Frees the outputs of a job (not its inputs). */
void ks_compile_job_clear(ks_compile_job *job);

/* The NVRTC version the helper reports ("13.0"), for provenance; caller frees. NULL on failure. */
char *ks_compile_nvrtc_version(const ks_compile_options *opts);

#endif
