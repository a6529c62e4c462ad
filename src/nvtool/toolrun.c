#include "nvtool/toolrun.h"
#include "nvtool/sanitize.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "util/tracelog.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_LOG (4u << 20)    /* a tool's log read back: findings and CSV tables are far smaller */
#define MAX_OUT (64u << 10)   /* its console output, kept for error messages */
/* A kept worker is replaced once its log or console output passes this: both grow with every
 * kernel (device printf goes to the console file) and a tool run may write at most 1 GiB
 * (worker.h, RLIMIT_FSIZE), which a long batch of printing kernels would otherwise reach. */
#define KEPT_MAX_FILE (64ull << 20)

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

void ks_toolrun_clear(ks_toolrun *jr)
{
	ks_run_result_clear(&jr->run);
	ks_free(jr->error);
	ks_free(jr->log);
	ks_free(jr->out);
	ks_free(jr->replaced);
	memset(jr, 0, sizeof(*jr));
}

char *ks_toolrun_scratch(void)
{
	const char *td = getenv("TMPDIR");
	char *tmpl;
	if (!td || td[0] != '/' || strchr(td, '%') || strlen(td) > 512)
		td = "/tmp";
	tmpl = ks_asprintf("%s/kscore-nvtool-XXXXXX", td);
	if (!mkdtemp(tmpl)) {
		ks_error_set(KS_EIO, "cannot create a temporary folder in %s: %s", td, strerror(errno));
		ks_free(tmpl);
		return NULL;
	}
	return tmpl;
}

char *ks_toolrun_read_from(const char *path, size_t off, size_t max, size_t *len)
{
	ks_buf b = KS_BUF_INIT(max);
	char chunk[65536];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0 && off && lseek(fd, (off_t)off, SEEK_SET) != (off_t)off) {
		close(fd);
		fd = -1;
	}
	while (fd >= 0) {
		ssize_t n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || ks_buf_put_truncated(&b, chunk, (size_t)n))
			break;
	}
	if (fd >= 0)
		close(fd);
	return ks_buf_take(&b, len);
}

static size_t file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && st.st_size > 0 ? (size_t)st.st_size : 0;
}

/* $KSCORE_NVTOOL_KEEP names a folder that receives a copy of every tool run's log and console
 * output, as <seq>-<tag>.log and .out: the raw material of tests/gpu/capture-nvtools.sh. */
static void keep_copy(const char *tag, const char *log, size_t log_len, const char *out)
{
	static _Atomic unsigned seq; /* lane threads run tools at once */
	const char *dir = getenv("KSCORE_NVTOOL_KEEP");
	char name[96], *p;
	unsigned n;
	size_t i;
	if (!dir || !*dir || ks_fs_mkdir_p(dir, 0755) < 0)
		return;
	n = seq++;
	snprintf(name, sizeof(name), "%03u-%s", n, tag);
	for (i = 0; name[i]; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '-' || name[i] == '_'))
			name[i] = '_';
	p = ks_asprintf("%s/%s.log", dir, name);
	ks_fs_write_atomic(p, log, log_len);
	ks_free(p);
	p = ks_asprintf("%s/%s.out", dir, name);
	ks_fs_write_atomic(p, out, strlen(out));
	ks_free(p);
}

/* Starts a worker under tool_argv (its console output to outp, HOME and TMPDIR in dir). */
static int start_under(ks_worker **w, ks_runner *run, const char *role, char *const *tool_argv, const char *dir,
		       const char *outp, int alone)
{
	ks_worker_options wo = KS_WORKER_OPTIONS_INIT;
	char *home = ks_asprintf("HOME=%s", dir), *tmp = ks_asprintf("TMPDIR=%s", dir);
	const char *env[] = { home, tmp, NULL };
	int rc;
	wo.wrapper = (const char *const *)tool_argv;
	wo.wrapper_env = env;
	wo.wrapper_output = outp;
	wo.alone = alone;
	rc = ks_runner_start_wrapped(run, w, role, &wo);
	ks_free(home);
	ks_free(tmp);
	return rc;
}

/* Loads k, runs plan on inputs only and, with unload, unloads the module again; jr->stage and
 * jr->error say how far it got. */
static void load_and_run(ks_toolrun *jr, ks_worker *w, const ks_toolrun_kernel *k, const ks_plan *plan,
			 double timeout_s, int unload)
{
	ks_fetch_mode *fetch = ks_calloc(plan->nbufs + 1, sizeof(ks_fetch_mode));
	ks_func_info *fi = ks_calloc(k->n + 1, sizeof(ks_func_info));
	ks_run_result lr;
	int module = -1;

	memset(&lr, 0, sizeof(lr));
	ks_worker_load(w, &lr, &module, fi, k->cubin, k->len, k->lowered, k->n, timeout_s);
	if (lr.status != KS_RUN_OK) {
		jr->error = ks_asprintf("loading the module: %s: %s", ks_run_status_name(lr.status),
					lr.message ? lr.message : "?");
		goto done;
	}
	jr->stage = 2;
	ks_worker_run(w, &jr->run, module, plan, fetch, 0, 0, timeout_s);
	jr->stage = 3;
	if (unload && jr->run.status == KS_RUN_OK)
		ks_worker_unload(w, module);
done:
	ks_run_result_clear(&lr);
	ks_free(fetch);
	ks_free(fi);
}

void ks_toolrun_fresh(ks_toolrun *jr, ks_runner *run, const char *role, const char *tag, char *const *tool_argv,
		      const char *dir, const ks_toolrun_kernel *k, const ks_plan *plan, double timeout_s, int alone)
{
	char *outp = ks_path_join(dir, "out"), *logp = ks_path_join(dir, "log");
	ks_worker *w = NULL;
	double t0 = now_s(), t_span = ks_tracelog_ms();

	memset(jr, 0, sizeof(*jr));
	jr->exit_status = -1;
	if (start_under(&w, run, role, tool_argv, dir, outp, alone) < 0) {
		jr->error = ks_strdup(ks_error_msg());
		goto read;
	}
	jr->stage = 1;
	load_and_run(jr, w, k, plan, timeout_s, 0);
	jr->exit_status = ks_worker_close(w);
read:
	ks_worker_free(w);
	jr->log = ks_toolrun_read_from(logp, 0, MAX_LOG, &jr->log_len);
	jr->out = ks_toolrun_read_from(outp, 0, MAX_OUT, NULL);
	jr->seconds = now_s() - t0;
	ks_tracelog_span("nvtool", role, t_span);
	keep_copy(tag, jr->log, jr->log_len, jr->out);
	ks_free(outp);
	ks_free(logp);
}

/* ---- the memcheck worker kept with a runner */

typedef struct {
	ks_worker *w;
	char *sanitizer;      /* the tool it runs under */
	char *dir, *logp, *outp;
	unsigned kernels;     /* kernels it ran */
} kept_worker;

/* Closes the kept worker (the tool writes out and exits) and removes its folder; *status gets the
 * tool's wait status. */
static void kept_close(kept_worker *kw, int *status)
{
	int st = -1;
	if (kw->w)
		st = ks_worker_close(kw->w);
	ks_worker_free(kw->w);
	kw->w = NULL;
	if (kw->dir)
		ks_fs_rm_rf(kw->dir);
	ks_free(kw->dir);
	ks_free(kw->logp);
	ks_free(kw->outp);
	ks_free(kw->sanitizer);
	kw->dir = kw->logp = kw->outp = kw->sanitizer = NULL;
	kw->kernels = 0;
	if (status)
		*status = st;
}

/* How long the tool of a kept worker gets to exit when its lane thread ends: every kernel it ran
 * was judged already, so nothing waits for its log, and a GPU that failed under it must not hold
 * the end of the run for the minute a tool gets to finish a log that counts. */
#define KEPT_RELEASE_GRACE_S 3.0

static void kept_release(void *data)
{
	kept_worker *kw = data;
	ks_worker_set_exit_grace(kw->w, KEPT_RELEASE_GRACE_S);
	kept_close(kw, NULL);
	ks_free(kw);
}

/* A kept worker started under sanitizer, or an error message. */
static int kept_start(kept_worker *kw, ks_runner *run, const char *sanitizer)
{
	char **argv = NULL;
	size_t an = 0;
	int rc;
	if (!(kw->dir = ks_toolrun_scratch()))
		return -1;
	kw->logp = ks_path_join(kw->dir, "log");
	kw->outp = ks_path_join(kw->dir, "out");
	kw->sanitizer = ks_strdup(sanitizer);
	ks_sanitize_argv(&argv, &an, sanitizer, KS_SAN_MEMCHECK, kw->logp);
	rc = start_under(&kw->w, run, "candidate", argv, kw->dir, kw->outp, 0);
	ks_free_strv(argv, an);
	return rc;
}

void ks_toolrun_kept(ks_toolrun *jr, ks_runner *run, const char *sanitizer, const char *tag,
		     const ks_toolrun_kernel *k, const ks_plan *plan, double timeout_s)
{
	kept_worker *kw = ks_runner_attached(run);
	size_t log_off, out_off;
	double t0 = now_s(), t_span = ks_tracelog_ms();
	char *replaced = NULL;

	memset(jr, 0, sizeof(*jr));
	jr->exit_status = -1;
	if (!kw) {
		kw = ks_calloc(1, sizeof(*kw));
		ks_runner_attach(run, kw, kept_release);
	}
	if (kw->w && strcmp(kw->sanitizer, sanitizer))
		kept_close(kw, NULL);
again:
	if (!kw->w && kept_start(kw, run, sanitizer) < 0) {
		jr->error = ks_strdup(ks_error_msg());
		if (kw->logp) {
			jr->log = ks_toolrun_read_from(kw->logp, 0, MAX_LOG, &jr->log_len);
			jr->out = ks_toolrun_read_from(kw->outp, 0, MAX_OUT, NULL);
		}
		kept_close(kw, NULL);
		goto done;
	}
	jr->stage = 1;
	jr->before = kw->kernels;
	log_off = file_size(kw->logp);
	out_off = file_size(kw->outp);
	load_and_run(jr, kw->w, k, plan, timeout_s, 1);
	if (jr->stage == 1 && jr->before > 0 && !ks_worker_alive(kw->w) && !replaced) {
		/* the worker that ran the kernels before this one was lost before this kernel's module
		 * was loaded (it died idle, or at the load): once, the kernel runs in a fresh worker, as
		 * it would without a kept one, rather than going unchecked */
		replaced = ks_asprintf("the worker kept for memcheck failed before this kernel ran (%s); it "
				       "ran in a fresh one", jr->error ? jr->error : "?");
		ks_free(jr->error);
		jr->error = NULL;
		kept_close(kw, NULL);
		goto again;
	}
	jr->log = ks_toolrun_read_from(kw->logp, log_off, MAX_LOG, &jr->log_len);
	jr->kept = jr->stage == 3 && jr->run.status == KS_RUN_OK && ks_worker_alive(kw->w) &&
		   ks_sanitize_quiet(jr->log, jr->log_len);
	if (jr->kept) {
		kw->kernels++;
		jr->out = ks_toolrun_read_from(kw->outp, out_off, MAX_OUT, NULL);
		if (file_size(kw->logp) > KEPT_MAX_FILE || file_size(kw->outp) > KEPT_MAX_FILE) {
			kept_close(kw, NULL); /* the next kernel starts a fresh one */
			jr->kept = 0;
		}
		goto done;
	}
	/* something to say, or a run that failed: the tool writes out everything as it exits, and
	 * this kernel's part of the log is what came after the clean kernels before it */
	jr->exit_status = ks_worker_close(kw->w);
	ks_worker_free(kw->w);
	kw->w = NULL;
	ks_free(jr->log);
	jr->log = ks_toolrun_read_from(kw->logp, log_off, MAX_LOG, &jr->log_len);
	jr->out = ks_toolrun_read_from(kw->outp, out_off, MAX_OUT, NULL);
	kept_close(kw, NULL);
done:
	jr->replaced = replaced;
	jr->seconds = now_s() - t0;
	ks_tracelog_span("nvtool", "candidate", t_span);
	keep_copy(tag, jr->log ? jr->log : "", jr->log_len, jr->out ? jr->out : "");
}
