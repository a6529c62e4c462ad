/* sandbox: running untrusted work in child processes with limits (DESIGN §4.2, §4.3).
 *
 * Two halves: the parent side spawns a helper with an exact (normally empty) environment, stdin
 * data, capped stdout/stderr capture and a wall-clock kill; the child side (ks_sandbox_child_setup,
 * called between fork and exec) puts the child in its own process group, sets rlimits, closes
 * inherited descriptors and asks to die with its parent. ks_sandbox_confine() is called by a helper
 * on itself, after it has loaded what it needs, to restrict the filesystem to read-only access to a
 * list of directories (Landlock). */
#ifndef KS_SANDBOX_H
#define KS_SANDBOX_H

#include <stddef.h>
#include <sys/types.h>

typedef struct {
	unsigned cpu_seconds;     /* RLIMIT_CPU; 0 = unlimited */
	size_t address_space_mb;  /* RLIMIT_AS; 0 = unlimited (the CUDA driver needs it unlimited) */
	size_t file_size_mb;      /* RLIMIT_FSIZE; 0 = may not write files at all */
	unsigned max_files;       /* RLIMIT_NOFILE; 0 = leave as is */
} ks_sandbox_limits;

#define KS_SANDBOX_DEFAULT_MAX_FILES 64

/* Everything unlimited (0) except open files. */
#define KS_SANDBOX_LIMITS_INIT { .max_files = KS_SANDBOX_DEFAULT_MAX_FILES }

/* Child side, between fork and exec: setpgid(0,0), PR_SET_PDEATHSIG(SIGKILL), PR_SET_NO_NEW_PRIVS,
 * RLIMIT_CORE 0, the limits above, and closes every descriptor >= 3 except keep_fd (-1 for none).
 * Returns 0 or -1 (errno set); the caller then _exit()s. Async-signal-safe. */
int ks_sandbox_child_setup(const ks_sandbox_limits *lim, int keep_fd);

/* Restricts the calling process (and its future children) to read-only access beneath the given
 * paths; everything else on the filesystem becomes inaccessible, /proc included. Returns 0,
 * KS_EUNSUPPORTED (message set) if the kernel has no Landlock, or another error. Irreversible. */
int ks_sandbox_confine(const char *const *read_paths, size_t n);

/* Reports whether ks_sandbox_confine can work on this kernel (Landlock ABI >= 1). */
int ks_sandbox_available(void);

typedef struct {
	const char *const *argv;    /* argv[0] is the program path */
	const char *const *envp;    /* exact environment; NULL means empty */
	const void *stdin_data;     /* written to the child's stdin, then closed */
	size_t stdin_len;
	size_t max_stdout;          /* capture caps; output beyond is discarded and flagged */
	size_t max_stderr;
	double timeout_s;           /* wall clock; the process group is SIGKILLed past it; 0 = none */
	ks_sandbox_limits limits;
} ks_spawn_options;

typedef struct {
	int exited, exit_code;      /* normal exit */
	int signaled, signal;       /* killed by a signal (SIGKILL after a timeout too) */
	int timed_out;
	int stdout_truncated, stderr_truncated;
	char *out, *err;            /* captured, NUL-terminated; caller frees with ks_spawn_result_clear */
	size_t out_len, err_len;
	double seconds;             /* wall time */
	double cpu_seconds;         /* user + system time of the child (not of its own children) */
	long max_rss_kb;            /* peak resident set size of the child, from wait4 */
} ks_spawn_result;

/* Runs one child to completion. Returns 0 when the child was started and reaped (whatever its
 * status); an error only if it could not be started. */
int ks_spawn_run(ks_spawn_result *res, const ks_spawn_options *opts);

/* Runs up to `parallel` children at a time until all n have finished. res[i] matches opts[i]. */
int ks_spawn_run_many(ks_spawn_result *res, const ks_spawn_options *opts, size_t n, int parallel);

/* Called as soon as res[i] is final (the child reaped and its output drained), in the thread that
 * runs the children; ks_spawn_run_many does not touch res[i] afterwards. */
typedef void (*ks_spawn_done_fn)(void *ud, size_t i);

/* ks_spawn_run_many, calling done(ud, i) for each child as it finishes, so that a caller can use
 * early results while later children still run. */
int ks_spawn_run_many_cb(ks_spawn_result *res, const ks_spawn_options *opts, size_t n, int parallel,
			 ks_spawn_done_fn done, void *ud);

void ks_spawn_result_clear(ks_spawn_result *res);

#endif
