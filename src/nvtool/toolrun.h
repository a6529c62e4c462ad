/* toolrun: one run of a kernel under an NVIDIA tool, for nvtool.c. A run is a worker started under
 * the tool (worker.h's wrapper) with the runner's gate, that loads the kernel's module and runs its
 * plan once on inputs only (nothing is fetched back); the tool's log goes to a private temporary
 * folder and is read back with a cap.
 *
 * Two ways: ks_toolrun_fresh starts a worker for the one run and lets it and the tool exit (ncu,
 * and the sanitizer tools whose findings do not stop a kernel); ks_toolrun_kept runs memcheck in
 * a worker kept with the runner across kernels, so the sanitizer's CUDA context (about 0.4 s of a
 * lane's GPU time made and released inside its gate, docs/benchmarks.md) is made once per lane
 * thread instead of once per kernel. A kept worker is only ever trusted while it has nothing to
 * say: memcheck stops a kernel at its first finding, so a run that came back OK with nothing new
 * in the log is clean; after anything else the worker is closed, which makes the tool write out
 * and exit, and the kernel is judged on the whole of its part of the log and the tool's exit
 * status, as a fresh run's would be. A kept worker runs kernels of every entry of its lane thread,
 * as the runner's candidate worker does (DESIGN §4.4: it gets inputs, never expected outputs). */
#ifndef KS_TOOLRUN_H
#define KS_TOOLRUN_H

#include <stddef.h>
#include "load/plan.h"
#include "run/runner.h"
#include "run/worker.h"

typedef struct {
	int stage;            /* 0: the worker did not start; 1: started; 2: module loaded; 3: ran */
	ks_run_result run;    /* the run request's outcome (stage 3) */
	char *error;          /* why stage 3 was not reached */
	int exit_status;      /* the tool's wait status; -1 unknown (a kept worker has not exited) */
	char *log, *out;      /* the tool's log and console output of this run (capped) */
	size_t log_len;
	double seconds;
	int kept;             /* ks_toolrun_kept: the worker stays for the next kernel */
	unsigned before;      /* ks_toolrun_kept: kernels the worker ran before this one */
	char *replaced;       /* ks_toolrun_kept: why the kept worker was replaced by a fresh one for
			       * this kernel (it failed before the kernel's module loaded); NULL: not */
} ks_toolrun;

/* The kernel to run: a module and its kernels' lowered names. */
typedef struct {
	const void *cubin;
	size_t len;
	char *const *lowered;
	size_t n;
} ks_toolrun_kernel;

void ks_toolrun_clear(ks_toolrun *jr);

/* A private folder for one tool's files (its log, its console output, its HOME and TMPDIR),
 * beneath $TMPDIR when that is an absolute path the tools accept in --log-file (no '%'), else
 * /tmp. Caller removes and frees; NULL with a message when it cannot be made. */
char *ks_toolrun_scratch(void);

/* Runs plan once in a worker of run's GPU started under tool_argv, whose log file is dir/log
 * (dir from ks_toolrun_scratch; the caller removes it), and lets the worker and the tool exit.
 * role names the worker ("candidate", "golden"); tag names the run in $KSCORE_NVTOOL_KEEP
 * copies. With alone, the worker's requests are alone on the GPU (a profile); without, they share
 * it with other untimed requests, never with a timed one. Always fills *jr (caller clears). */
void ks_toolrun_fresh(ks_toolrun *jr, ks_runner *run, const char *role, const char *tag, char *const *tool_argv,
		      const char *dir, const ks_toolrun_kernel *k, const ks_plan *plan, double timeout_s, int alone);

/* Runs plan under compute-sanitizer's memcheck (the program `sanitizer`, options from
 * ks_sanitize_argv) in the worker kept with run (ks_runner_attach), started first when there is
 * none; the worker is closed again unless the run was clean (jr->kept). A kept worker that fails
 * before the kernel's module is loaded (it died after the kernels before) is replaced once by a
 * fresh one (jr->replaced says why). jr->log and jr->out hold only this kernel's part. Call it
 * only from run's own thread. Always fills *jr (caller clears). */
void ks_toolrun_kept(ks_toolrun *jr, ks_runner *run, const char *sanitizer, const char *tag,
		     const ks_toolrun_kernel *k, const ks_plan *plan, double timeout_s);

/* The bytes of path from offset off on, at most max (a tool's log as it grows): "" when it
 * cannot be read. Caller frees. */
char *ks_toolrun_read_from(const char *path, size_t off, size_t max, size_t *len);

#endif
