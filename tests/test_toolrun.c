/* toolrun: the parts of a run under a tool that need no GPU: its private folder, reading a tool's
 * log from where the kernel before it left off (a kept worker's log grows across kernels), and a
 * kept worker that dies between kernels, with a stand-in worker (fixtures/nvtools/fake-worker.py)
 * under a stand-in tool. The runs themselves are in the GPU suite (test_gpu.c, the sanitizer
 * tests). */
#include "ktest.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "nvtool/toolrun.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void test_toolrun_reads_a_log_from_an_offset(void)
{
	char *p = ks_path_join(kt_tmpdir(), "log"), *t;
	const char *text = "========= COMPUTE-SANITIZER\n========= Invalid __global__ write\n";
	size_t len = 99;
	KT_ASSERT(ks_fs_write_atomic(p, text, strlen(text)) == 0);
	t = ks_toolrun_read_from(p, 0, 1024, &len);
	KT_EQ_STR(t, text);
	KT_ASSERT(len == strlen(text));
	ks_free(t);
	t = ks_toolrun_read_from(p, 28, 1024, &len);
	KT_EQ_STR(t, "========= Invalid __global__ write\n");
	ks_free(t);
	/* capped: a kernel cannot make kscore read a log without end */
	t = ks_toolrun_read_from(p, 28, 9, &len);
	KT_ASSERT(len == 9);
	KT_EQ_STR(t, "=========");
	ks_free(t);
	/* past the end, and a log the tool never wrote: nothing */
	t = ks_toolrun_read_from(p, 4096, 1024, &len);
	KT_EQ_STR(t, "");
	KT_ASSERT(len == 0);
	ks_free(t);
	ks_free(p);
	p = ks_path_join(kt_tmpdir(), "absent");
	t = ks_toolrun_read_from(p, 0, 1024, &len);
	KT_EQ_STR(t, "");
	KT_ASSERT(len == 0);
	ks_free(t);
	ks_free(p);
}

static void test_toolrun_scratch_is_private_and_under_tmpdir(void)
{
	char *old = getenv("TMPDIR") ? ks_strdup(getenv("TMPDIR")) : NULL, *d;
	struct stat st;
	setenv("TMPDIR", kt_tmpdir(), 1);
	d = ks_toolrun_scratch();
	KT_ASSERT(d != NULL);
	KT_ASSERT(!strncmp(d, kt_tmpdir(), strlen(kt_tmpdir())));
	KT_ASSERT(stat(d, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 077) == 0);
	KT_ASSERT(ks_fs_rm_rf(d) == 0);
	ks_free(d);
	/* a TMPDIR the tools would misread in --log-file ('%') or a relative one: /tmp instead */
	setenv("TMPDIR", "rel/dir", 1);
	d = ks_toolrun_scratch();
	KT_ASSERT(d && !strncmp(d, "/tmp/kscore-nvtool-", 19));
	ks_fs_rm_rf(d);
	ks_free(d);
	if (old)
		setenv("TMPDIR", old, 1);
	else
		unsetenv("TMPDIR");
	ks_free(old);
}

/* The stand-in compute-sanitizer: writes the banner to its --log-file, then runs the worker (the
 * last four arguments: the worker, its role, device and ordinal). The first worker it starts is told to die after its first kernel, idle,
 * once that kernel was judged (fake-worker.py). */
static const char *g_sanitizer =
	"#!/bin/sh\n"
	"log=\n"
	"prev=\n"
	"for a in \"$@\"; do [ \"$prev\" = --log-file ] && log=$a; prev=$a; done\n"
	"echo '========= COMPUTE-SANITIZER' >> \"$log\"\n"
	"if mkdir \"$MARK\" 2>/dev/null; then export KSFAKE_DIE_AFTER_UNLOAD=1; fi\n"
	"shift $(($# - 4))\n"
	"exec \"$@\"\n";

/* A kept memcheck worker that died idle after a clean kernel: the next kernel is not left unchecked
 * (not_run, charged to nobody) but runs in a fresh worker, and says so. */
static void test_toolrun_a_kept_worker_that_died_idle_is_replaced(void)
{
	ks_runner_options ro = KS_RUNNER_OPTIONS_INIT;
	ks_runner *run = NULL;
	char *fake = realpath("tests/fixtures/nvtools/fake-worker.py", NULL);
	char *san = ks_path_join(kt_tmpdir(), "compute-sanitizer"), *mark = ks_path_join(kt_tmpdir(), "first");
	char *text = ks_asprintf("#!/bin/sh\nMARK='%s'\n%s", mark, g_sanitizer + strlen("#!/bin/sh\n"));
	char *lowered[] = { (char *)"k", NULL };
	ks_toolrun_kernel k = { "not a cubin", 11, lowered, 1 };
	ks_plan plan;
	ks_toolrun jr;

	if (access("/usr/bin/python3", X_OK) != 0)
		KT_SKIP("no /usr/bin/python3 for the stand-in worker");
	KT_ASSERT(fake != NULL);
	KT_EQ_INT(ks_fs_write_atomic(san, text, strlen(text)), 0);
	KT_EQ_INT(chmod(san, 0755), 0);
	setenv("TMPDIR", kt_tmpdir(), 1);
	ro.worker_exe = fake;
	KT_ASSERT_MSG(ks_runner_start(&run, &ro) == 0, "%s", ks_error_msg());
	memset(&plan, 0, sizeof(plan));

	/* the first kernel: clean, and its worker is kept (then dies, idle) */
	ks_toolrun_kept(&jr, run, san, "first", &k, &plan, 20);
	KT_ASSERT_MSG(jr.stage == 3 && jr.run.status == KS_RUN_OK, "stage %d: %s", jr.stage, jr.error);
	KT_ASSERT(jr.kept);
	KT_EQ_INT(jr.before, 0);
	KT_ASSERT(jr.replaced == NULL);
	ks_toolrun_clear(&jr);

	/* the second: its kept worker is gone before the load, so it runs in a fresh one */
	ks_toolrun_kept(&jr, run, san, "second", &k, &plan, 20);
	KT_ASSERT_MSG(jr.stage == 3 && jr.run.status == KS_RUN_OK, "stage %d: %s", jr.stage,
		      jr.error ? jr.error : "-");
	KT_ASSERT(jr.kept);
	KT_EQ_INT(jr.before, 0);
	KT_ASSERT(jr.replaced != NULL);
	KT_CONTAINS(jr.replaced, "failed before this kernel ran");
	ks_toolrun_clear(&jr);

	/* the third: the fresh worker was kept and serves it (it does not die) */
	ks_toolrun_kept(&jr, run, san, "third", &k, &plan, 20);
	KT_ASSERT(jr.stage == 3 && jr.kept);
	KT_EQ_INT(jr.before, 1);
	KT_ASSERT(jr.replaced == NULL);
	ks_toolrun_clear(&jr);

	ks_runner_free(run);
	free(fake);
	ks_free(san);
	ks_free(mark);
	ks_free(text);
}

static const kt_test tests[] = {
	KT(test_toolrun_reads_a_log_from_an_offset),
	KT(test_toolrun_scratch_is_private_and_under_tmpdir),
	KT(test_toolrun_a_kept_worker_that_died_idle_is_replaced),
	{ 0 }
};

KT_MAIN("toolrun", tests)
