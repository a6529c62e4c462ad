/* linechild: a helper process spoken to in lines over pipes (the Triton helper, the oracle):
 * spawned under util/sandbox.h's child set-up (own process group, rlimits, death with its parent),
 * its stdin and stdout pipes kept, its stderr written to a log file; one request line written, one
 * response line read back with a deadline and a size cap; the process group killed and reaped on
 * stop. The protocols spoken over it are their modules' own (lang/triton/tracer.c,
 * load/sets/oracle.c). */
#ifndef KS_LINECHILD_H
#define KS_LINECHILD_H

#include <stddef.h>
#include <sys/types.h>
#include "util/buf.h"
#include "util/sandbox.h"

typedef struct {
	pid_t pid;            /* -1: not running */
	int in, out;          /* its stdin (written) and stdout (read, non-blocking) */
	size_t max_line;      /* a response line longer than this is an error */
	ks_buf pending;       /* bytes read past the last line */
} ks_linechild;

/* Sets c up as not running, with lines capped at max_line bytes. */
void ks_linechild_init(ks_linechild *c, size_t max_line);

/* Forks and executes argv (argv[0] a path) with exactly envp, under lim, stderr to log (created,
 * mode 0600). Returns 0, or KS_EIO with a message (pipe or fork failed). SIGPIPE is ignored from
 * then on in the calling process, so that a helper that died turns writes into errors. */
int ks_linechild_spawn(ks_linechild *c, const char *const *argv, const char *const *envp, const char *log,
		       const ks_sandbox_limits *lim);

/* Writes n bytes and a newline. Returns 0, or -1 when the helper is gone (no message set). */
int ks_linechild_send(ks_linechild *c, const char *line, size_t n);

/* Reads one line (without its newline) into *line (caller frees), waiting until deadline (a
 * CLOCK_MONOTONIC time, ks_linechild_now). KS_ETIMEOUT, KS_ECHILD (it closed its output), KS_ELIMIT
 * (a line over the cap), KS_EIO; `who` names the helper in the message. */
int ks_linechild_recv(ks_linechild *c, char **line, double deadline, const char *who);

/* Closes the pipes, kills the process group and reaps it; c may be spawned again. */
void ks_linechild_stop(ks_linechild *c);

/* Stops c and frees what it holds. */
void ks_linechild_free(ks_linechild *c);

/* The Python kscore's helpers run: given, else $KSCORE_PYTHON, else python3 found on PATH. Returns
 * its path (caller frees), or NULL with KS_ENOTFOUND and a message saying what to set. */
char *ks_linechild_python(const char *given);

/* The environment of kscore's Python helpers (the Triton helper, the oracle; both run Triton
 * code): nothing of kscore's (tokens, paths) but CUDA_VISIBLE_DEVICES (visible, else the run's
 * own) and what KSCORE_TRITON_ENV names (comma-separated); HOME, TMPDIR and the Triton cache in
 * dir; one hardware queue per CUDA context unless KSCORE_TRITON_ENV passes the variable. A
 * NULL-terminated array; free with ks_linechild_env_free. */
char **ks_linechild_env(const char *dir, const char *visible);
void ks_linechild_env_free(char **env);

/* CLOCK_MONOTONIC seconds. */
double ks_linechild_now(void);

#endif
