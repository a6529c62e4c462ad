/* runner: a runner's start in two halves, against a stand-in worker (tests/fixtures/nvtools/
 * fake-worker.py, no GPU): begin knows the GPU before any context exists, so a run can compile for
 * it while the contexts are made (the driver makes them one at a time for the whole host); finish
 * completes the start. Everything else a runner does needs a GPU (tests/test_gpu.c). */
#include "ktest.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "run/runner.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char *g_fake;

/* A gate that records how it was entered: the runner's requests go through it. */
static int g_enters, g_exclusive_enters;

static void rec_enter(void *ud, int exclusive)
{
	(void)ud;
	g_enters++;
	g_exclusive_enters += exclusive != 0;
}

static void rec_leave(void *ud, int exclusive)
{
	(void)ud;
	(void)exclusive;
}

static int have_fake(void)
{
	if (access("/usr/bin/python3", X_OK) != 0)
		return 0;
	if (!g_fake)
		g_fake = realpath("tests/fixtures/nvtools/fake-worker.py", NULL);
	return g_fake != NULL;
}

/* Begin returns with the GPU described while both workers still wait for their contexts; finish
 * waits for them. */
static void test_runner_begin_knows_the_gpu_before_its_context(void)
{
	ks_runner_options ro = KS_RUNNER_OPTIONS_INIT;
	ks_runner *run = NULL;
	char *go = ks_path_join(kt_tmpdir(), "hello-go");

	if (!have_fake())
		KT_SKIP("no /usr/bin/python3 for the stand-in worker");
	unlink(go);
	setenv("KSFAKE_HELLO_WAIT", go, 1);
	setenv("KSCORE_WORKER_ENV", "KSFAKE_HELLO_WAIT,KSFAKE_NO_DESCRIBE", 1);
	unsetenv("KSFAKE_NO_DESCRIBE");
	setenv("TMPDIR", kt_tmpdir(), 1);
	ro.worker_exe = g_fake;
	KT_ASSERT_MSG(ks_runner_begin(&run, &ro) == 0, "%s", ks_error_msg());
	KT_ASSERT(run != NULL);
	KT_EQ_STR(ks_runner_device(run)->name, "Fake GPU");
	KT_EQ_INT(ks_runner_device(run)->sm_count, 132);
	KT_EQ_STR(ks_runner_arch(run), "sm_90a");
	KT_EQ_INT(access(go, F_OK), -1); /* no HELLO was answered: begin did not wait for one */
	KT_EQ_INT(ks_fs_write_atomic(go, "", 0), 0);
	KT_ASSERT_MSG(ks_runner_finish(run) == 0, "%s", ks_error_msg());
	KT_EQ_STR(ks_runner_device(run)->uuid, "GPU-00000000-0000-0000-0000-000000000000");
	KT_EQ_INT(ks_runner_candidate_starts(run), 1); /* the candidate worker is up too */
	ks_runner_free(run);
	unsetenv("KSFAKE_HELLO_WAIT");
	unsetenv("KSCORE_WORKER_ENV");
	ks_free(go);
}

/* A worker whose first reply describes nothing (an earlier build's): begin waits for its context
 * and has the GPU from HELLO; ks_runner_start is both halves. */
static void test_runner_begin_without_a_description_waits_for_hello(void)
{
	ks_runner_options ro = KS_RUNNER_OPTIONS_INIT;
	ks_runner *run = NULL;

	if (!have_fake())
		KT_SKIP("no /usr/bin/python3 for the stand-in worker");
	setenv("KSFAKE_NO_DESCRIBE", "1", 1);
	setenv("KSCORE_WORKER_ENV", "KSFAKE_NO_DESCRIBE", 1);
	setenv("TMPDIR", kt_tmpdir(), 1);
	ro.worker_exe = g_fake;
	KT_ASSERT_MSG(ks_runner_begin(&run, &ro) == 0, "%s", ks_error_msg());
	KT_EQ_STR(ks_runner_device(run)->name, "Fake GPU");
	KT_EQ_STR(ks_runner_arch(run), "sm_90a");
	KT_ASSERT_MSG(ks_runner_finish(run) == 0, "%s", ks_error_msg());
	ks_runner_free(run);
	run = NULL;
	KT_ASSERT_MSG(ks_runner_start(&run, &ro) == 0, "%s", ks_error_msg());
	KT_EQ_INT(ks_runner_candidate_starts(run), 1);
	ks_runner_free(run);
	unsetenv("KSFAKE_NO_DESCRIBE");
	unsetenv("KSCORE_WORKER_ENV");
}

/* A worker whose description after its context differs from the one before: finish fails rather
 * than run on a GPU the run did not check (the count decides how many lanes --devices all has). */
static void test_runner_finish_refuses_two_descriptions(void)
{
	ks_runner_options ro = KS_RUNNER_OPTIONS_INIT;
	ks_runner *run = NULL;

	if (!have_fake())
		KT_SKIP("no /usr/bin/python3 for the stand-in worker");
	setenv("KSFAKE_HELLO_COUNT", "64", 1);
	setenv("KSCORE_WORKER_ENV", "KSFAKE_HELLO_COUNT", 1);
	setenv("TMPDIR", kt_tmpdir(), 1);
	ro.worker_exe = g_fake;
	KT_ASSERT_MSG(ks_runner_begin(&run, &ro) == 0, "%s", ks_error_msg());
	KT_EQ_INT(ks_runner_device(run)->device_count, 1);
	KT_ASSERT(ks_runner_finish(run) < 0);
	KT_CONTAINS(ks_error_msg(), "described");
	ks_runner_free(run);
	unsetenv("KSFAKE_HELLO_COUNT");
	unsetenv("KSCORE_WORKER_ENV");
}

/* No such worker: begin fails with nothing to free. */
/* A runner's Triton helper sees the runner's GPU alone, as its device 0 (the run's own entry for
 * it: CUDA_VISIBLE_DEVICES=5,7 and device 1 give GPU 7), never the GPUs where other lanes time;
 * and the trace of an answer that autotunes has its GPU alone, as a timed request. */
static void test_runner_trace_helper_sees_its_gpu_alone(void)
{
	ks_worker_gate gate = { rec_enter, rec_leave, NULL };
	ks_runner_options ro = KS_RUNNER_OPTIONS_INIT;
	ks_runner *run = NULL;
	ks_problem_set *s = NULL;
	cJSON *entry = cJSON_CreateObject();
	ks_trace tr;
	char *lib = ks_path_join(kt_tmpdir(), "libexec"), *link = ks_path_join(lib, "kscore-triton");
	char *helper = realpath("tests/fixtures/triton/fake-helper", NULL);
	const char *old = getenv("KSCORE_LIBEXEC");
	char *saved = old ? ks_strdup(old) : NULL;

	if (!have_fake() || !helper)
		KT_SKIP("no /usr/bin/python3 for the stand-in worker and helper");
	mkdir(lib, 0700);
	unlink(link);
	KT_EQ_INT(symlink(helper, link), 0);
	setenv("CUDA_VISIBLE_DEVICES", "5,7", 1);
	setenv("TMPDIR", kt_tmpdir(), 1);
	unsetenv("KSCORE_WORKER_ENV");
	ro.worker_exe = g_fake;
	ro.device = 1;
	ro.gate = &gate;
	KT_ASSERT_MSG(ks_runner_start(&run, &ro) == 0, "%s", ks_error_msg());
	g_enters = g_exclusive_enters = 0;
	setenv("KSCORE_LIBEXEC", lib, 1); /* the helper is found when the first answer comes */
	KT_EQ_INT(ks_problem_set_load(&s, "tests/fixtures/problems", NULL), 0);
	cJSON_AddStringToObject(entry, "name", "vadd");
	ks_runner_trace(run, &tr, ks_problem_set_find(s, "vadd"), entry, "gpu", NULL, 0);
	KT_ASSERT_MSG(tr.message && strstr(tr.message, "CUDA_VISIBLE_DEVICES=7 ") && strstr(tr.message, "device=0"),
		      "%s", tr.message ? tr.message : "(no message)");
	ks_trace_clear(&tr);
	/* a trace that measures nothing is untimed work; one that autotunes has the GPU alone */
	KT_EQ_INT(g_enters, 1);
	KT_EQ_INT(g_exclusive_enters, 0);
	ks_runner_trace(run, &tr, ks_problem_set_find(s, "vadd"), entry, "gpu\n@triton.autotune(configs=[])", NULL, 0);
	KT_CONTAINS(tr.message, "device=0");
	ks_trace_clear(&tr);
	KT_EQ_INT(g_enters, 2);
	KT_EQ_INT(g_exclusive_enters, 1);
	ks_runner_free(run);
	ks_problem_set_free(s);
	cJSON_Delete(entry);
	unsetenv("CUDA_VISIBLE_DEVICES");
	if (saved)
		setenv("KSCORE_LIBEXEC", saved, 1);
	else
		unsetenv("KSCORE_LIBEXEC");
	ks_free(saved);
	free(helper);
	ks_free(link);
	ks_free(lib);
}

static void test_runner_begin_fails_cleanly(void)
{
	ks_runner_options ro = KS_RUNNER_OPTIONS_INIT;
	ks_runner *run = (ks_runner *)&ro;
	ro.worker_exe = "/nonexistent/kscore-worker";
	KT_ASSERT(ks_runner_begin(&run, &ro) < 0);
	KT_ASSERT(run == NULL);
}

static const kt_test tests[] = {
	KT(test_runner_begin_knows_the_gpu_before_its_context),
	KT(test_runner_begin_without_a_description_waits_for_hello),
	KT(test_runner_finish_refuses_two_descriptions),
	KT(test_runner_trace_helper_sees_its_gpu_alone),
	KT(test_runner_begin_fails_cleanly),
	{ 0 }
};
KT_MAIN("runner", tests)
