/* compile: turns CUDA source into CUBIN with NVRTC, in an exec'd helper (`kscore-compile`) that runs
 * with an empty environment, a wall-clock and memory limit, and a filesystem view confined to CUDA's
 * headers and kscore's compatibility headers (DESIGN §4.2), so `#include "/proc/self/environ"`
 * cannot leak secrets into the log. The compatibility headers (compat.h) make device code written
 * for nvcc compile. Results are cached by content hash, so re-scoring skips NVRTC. The scoring
 * process never links NVRTC and never initialises CUDA. */
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
	KS_COMPILE_SANDBOX,   /* no sandbox available and unsandboxed compiles are not allowed */
	KS_COMPILE_NOHEADER   /* an included header does not exist: the log's first line says which
				 and what to include instead */
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
	const char *compat_dir;      /* kscore's compatibility headers; NULL: found (ks_compat_find) */
	int no_compat;               /* NVRTC alone: no compatibility headers, no prelude, no
					-default-device (for comparisons; submissions need them) */
} ks_compile_options;

/* The defaults every command starts from (scoreopts, pipeline and runner options refer to these):
 * Hopper with its architecture-specific features, 60 s and 8 GiB of address space per compile. */
#define KS_COMPILE_DEFAULT_ARCH "sm_90a"
#define KS_COMPILE_DEFAULT_TIMEOUT_S 60.0
#define KS_COMPILE_DEFAULT_MEMORY_MB 8192

#define KS_COMPILE_OPTIONS_INIT                                                                  \
	{ .arch = KS_COMPILE_DEFAULT_ARCH, .timeout_s = KS_COMPILE_DEFAULT_TIMEOUT_S,            \
	  .memory_mb = KS_COMPILE_DEFAULT_MEMORY_MB, .max_source = 1u << 20, .max_log = 64u << 10, \
	  .jobs = 4 }

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

/* ks_compile_run, calling done(ud, i) as soon as job i's outputs are final (served from the cache,
 * refused, or compiled), in the calling thread; the job is not touched afterwards, so another
 * thread may take its outputs from then on. Jobs start in index order: put first what is needed
 * first. When the helper cannot run at all, done is called for every job before the error return. */
int ks_compile_run_cb(ks_compile_job *jobs, size_t n, const ks_compile_options *opts,
		      void (*done)(void *ud, size_t i), void *ud);

/* Frees the outputs of a job (not its inputs). */
void ks_compile_job_clear(ks_compile_job *job);

/* The NVRTC version the helper reports ("13.0"), for provenance; caller frees. NULL on failure. */
char *ks_compile_nvrtc_version(const ks_compile_options *opts);

/* What a compile depends on besides the source, NVRTC and CUDA's headers: for score.json's
 * toolchain record. */
typedef struct {
	char *compat_sha256;  /* hex SHA-256 of kscore's compatibility headers; NULL with no_compat */
	char *options;        /* the NVRTC options, space-separated, with the directories written as
				 <compat> and <cuda> */
} ks_compile_toolchain;

/* Fills t for these options (arch included). Returns 0, or an error when the compatibility
 * headers cannot be found or read (message set); t is then empty. */
int ks_compile_toolchain_get(ks_compile_toolchain *t, const ks_compile_options *opts);

void ks_compile_toolchain_clear(ks_compile_toolchain *t);

/* ---- The helper protocol: shared by ks_compile_run and kscore-compile; not for other callers ----
 *
 * kscore-compile is run with an empty environment, the source on stdin, and
 *     --arch ARCH [--compat DIR] --include DIR... --name EXPR... --max-log N --max-source N
 *     [--allow-unsandboxed]
 * (or `--version`, which prints "MAJOR.MINOR\n"). It writes exactly one reply frame on stdout; the
 * integers are unsigned 32-bit little-endian:
 *     "KSCR" version status log_len log[log_len] cubin_len cubin[cubin_len]
 *     nnames { name_len name[name_len] }*nnames "KEND"
 * A cache file is "KSCC" version key[64] sha256hex(frame)[64] frame. */

#define KS_COMPILE_PROTO_VERSION 2
#define KS_COMPILE_MAX_CUBIN (64u << 20) /* a CUBIN larger than this is refused as LIMIT */
#define KS_COMPILE_MAX_NAMES 256         /* name expressions per job */
#define KS_COMPILE_MAX_NAME 1024         /* bytes of one name expression or lowered name */
#define KS_COMPILE_LOG_SLACK 64          /* room after max_log for the truncation note */

typedef struct {
	ks_compile_status status;   /* never TIMEOUT: only the parent can see a timeout */
	char *log;                  /* NUL-terminated, no NUL inside */
	size_t log_len;
	void *cubin;                /* an ELF image when status is OK */
	size_t cubin_len;
	char **lowered;             /* nlowered names; exactly one per requested name when OK */
	size_t nlowered;
} ks_compile_reply;

/* Serialises a reply into a new buffer (caller frees). */
int ks_compile_reply_encode(char **out, size_t *len, const ks_compile_reply *r);

/* Parses a frame strictly: exact length, known status, log at most max_log plus the slack and free
 * of NUL bytes, CUBIN at most KS_COMPILE_MAX_CUBIN and ELF when OK, exactly nnames lowered names
 * when OK and none otherwise. Returns 0 or KS_EINVALID (message says what was wrong); the caller
 * frees r with ks_compile_reply_clear either way. */
int ks_compile_reply_decode(ks_compile_reply *r, const void *data, size_t len, size_t max_log,
			    size_t nnames);

void ks_compile_reply_clear(ks_compile_reply *r);

/* Accepts a real architecture ("sm_90", "sm_90a", "sm_100f"); refuses virtual ones ("compute_90",
 * "lto_90": they give PTX, not CUBIN) and anything else, with KS_EINVALID and a message. */
int ks_compile_check_arch(const char *arch);

/* The complete NVRTC option list for an architecture, kscore's compatibility headers (NULL: none,
 * and no -default-device or prelude either) and CUDA's include directories, in order; the cache
 * key hashes exactly these. Caller frees with ks_free_strv(*opts, *n). */
void ks_compile_nvrtc_options(char ***opts, size_t *n, const char *arch, const char *compat_dir,
			      const char *const *include_dirs, size_t ninclude);

#endif
