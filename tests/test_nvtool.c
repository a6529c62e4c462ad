/* nvtool: finding the NVIDIA tools, and a GPU worker started under a wrapper (worker.h), with a
 * shell script standing in for ncu / compute-sanitizer: it must get the tool's argv then the
 * worker's, the worker's empty environment plus the tool's entries, its console output in the
 * given file, and the worker must still talk over fd 3 through it; the tool's exit status comes
 * back, and the tool is given time to finish its log after the worker ends (killed past that). */
#include "ktest.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "nvtool/nvtool.h"
#include "run/worker.h"

#include <sys/stat.h>
#include <time.h>

static char *path_in_tmp(const char *name)
{
	return ks_path_join(kt_tmpdir(), name);
}

static void write_exec(const char *path, const char *text)
{
	KT_EQ_INT(ks_fs_write_atomic(path, text, strlen(text)), 0);
	KT_EQ_INT(chmod(path, 0755), 0);
}

static double mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

static void test_nvtool_find_looks_where_it_says(void)
{
	char *bin = path_in_tmp("cuda/bin"), *ncu, *plain = path_in_tmp("plain"), *got;
	KT_EQ_INT(ks_fs_mkdir_p(bin, 0755), 0);
	ncu = ks_path_join(bin, "ncu");
	write_exec(ncu, "#!/bin/sh\nexit 0\n");
	KT_EQ_INT(ks_fs_write_atomic(plain, "x", 1), 0);
	/* an explicit program wins, and must be executable */
	setenv("KSCORE_NCU", ncu, 1);
	got = ks_nvtool_find("ncu");
	KT_ASSERT(got && !strcmp(got, ncu));
	ks_free(got);
	setenv("KSCORE_NCU", plain, 1);
	KT_ASSERT(ks_nvtool_find("ncu") == NULL);
	KT_CONTAINS(ks_error_msg(), "not an executable");
	unsetenv("KSCORE_NCU");
	/* $CUDA_HOME/bin */
	{
		char *home = path_in_tmp("cuda");
		setenv("CUDA_HOME", home, 1);
		got = ks_nvtool_find("ncu");
		KT_ASSERT(got && !strcmp(got, ncu));
		ks_free(got);
		ks_free(home);
	}
	/* $PATH, absolute entries only */
	setenv("CUDA_HOME", "/nonexistent-cuda", 1);
	{
		char *p = ks_asprintf("relative/bin:%s", bin);
		setenv("PATH", p, 1);
		ks_free(p);
	}
	setenv("KSCORE_COMPUTE_SANITIZER", "", 1);
	if (access("/usr/local/cuda/bin/ncu", X_OK) != 0) {
		got = ks_nvtool_find("ncu");
		KT_ASSERT(got && !strcmp(got, ncu));
		ks_free(got);
	}
	if (access("/usr/local/cuda/bin/compute-sanitizer", X_OK) != 0) {
		KT_ASSERT(ks_nvtool_find("compute-sanitizer") == NULL);
		KT_CONTAINS(ks_error_msg(), "compute-sanitizer not found (looked in $CUDA_HOME/bin");
	}
	ks_free(bin);
	ks_free(ncu);
	ks_free(plain);
}

/* The stand-in tool: records its argv, its environment and whether fd 3 reached it, prints on its
 * stdout, runs the worker as its child, then writes to its log after the worker is gone (as ncu
 * writes its table) and exits with 7. With HANG=1 it never exits. */
static const char *g_tool =
	"#!/bin/sh\n"
	"log=\"$1\"; shift\n"
	"echo \"argv: $*\" > \"$log\"\n"
	"export -p > \"$log.env\"\n"
	"if { true >&3; } 2>/dev/null; then echo fd3 >> \"$log\"; fi\n"
	"echo on-stdout\n"
	"echo on-stderr >&2\n"
	"\"$@\"\n"
	"echo \"worker exit $?\" >> \"$log\"\n"
	"if [ \"$HANG\" = 1 ]; then while :; do :; done; fi\n"
	"echo after >> \"$log\"\n"
	"exit 7\n";

static ks_worker_options wrapped(const char **argv, const char **env, const char *out, double grace)
{
	ks_worker_options wo = KS_WORKER_OPTIONS_INIT;
	wo.exe = ks_fs_find_helper("kscore-worker");
	wo.role = "candidate";
	wo.wrapper = argv;
	wo.wrapper_env = env;
	wo.wrapper_output = out;
	wo.exit_grace_s = grace;
	wo.start_timeout_s = 30;
	return wo;
}

static void test_nvtool_worker_runs_under_a_wrapper(void)
{
	char *tool = path_in_tmp("tool.sh"), *log = path_in_tmp("tool.log"), *out = path_in_tmp("tool.out");
	char *envf = ks_asprintf("%s.env", log), *text = NULL;
	const char *argv[] = { tool, log, NULL };
	const char *env[] = { "HOME=/nowhere", NULL };
	ks_worker_options wo;
	ks_worker *w = NULL;
	ks_device_info info;
	int st;

	write_exec(tool, g_tool);
	setenv("KSCORE_TEST_SECRET", "leak", 1);
	wo = wrapped(argv, env, out, 20);
	KT_ASSERT(wo.exe != NULL);
	/* no GPU here: the worker answers HELLO with an error through the tool; with one it starts */
	KT_EQ_INT(ks_worker_spawn(&w, &wo), 0);
	if (ks_worker_ready(w, &info) < 0)
		KT_CONTAINS(ks_error_msg(), "");
	st = ks_worker_close(w);
	ks_worker_free(w);
	KT_ASSERT_MSG(st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 7, "the tool's exit status is %d", st);
	KT_EQ_INT(ks_fs_read(&text, NULL, log, 1 << 20), 0);
	KT_CONTAINS(text, "argv: ");
	KT_CONTAINS(text, "kscore-worker candidate 0 0\n"); /* role, then the device HELLO names and its ordinal */
	KT_CONTAINS(text, "fd3\n");
	KT_CONTAINS(text, "worker exit 0\n");
	KT_CONTAINS(text, "after\n"); /* the tool finished its log before anything was killed */
	ks_free(text);
	KT_EQ_INT(ks_fs_read(&text, NULL, envf, 1 << 20), 0);
	KT_CONTAINS(text, "HOME");
	KT_CONTAINS(text, "/nowhere");
	KT_ASSERT(!strstr(text, "KSCORE_TEST_SECRET"));
	ks_free(text);
	KT_EQ_INT(ks_fs_read(&text, NULL, out, 1 << 20), 0);
	KT_CONTAINS(text, "on-stdout\n");
	KT_CONTAINS(text, "on-stderr\n");
	ks_free(text);
	ks_free((char *)wo.exe);
	ks_free(tool);
	ks_free(log);
	ks_free(out);
	ks_free(envf);
}

static void test_nvtool_a_tool_that_never_exits_is_killed_after_the_grace(void)
{
	char *tool = path_in_tmp("tool.sh"), *log = path_in_tmp("tool.log");
	const char *argv[] = { tool, log, NULL };
	const char *env[] = { "HANG=1", NULL };
	ks_worker_options wo;
	ks_worker *w = NULL;
	ks_device_info info;
	double t0;
	int st;

	write_exec(tool, g_tool);
	wo = wrapped(argv, env, NULL, 0.5);
	KT_EQ_INT(ks_worker_spawn(&w, &wo), 0);
	ks_worker_ready(w, &info);
	t0 = mono();
	st = ks_worker_close(w);
	KT_EQ_INT(st, -1);
	KT_ASSERT(mono() - t0 < 10);
	KT_ASSERT(!ks_worker_alive(w));
	ks_worker_free(w);
	ks_free((char *)wo.exe);
	ks_free(tool);
	ks_free(log);
}

/* A kept sanitizer worker's close at the end of its lane thread (toolrun.c) shortens the grace its
 * tool gets: its log will not be read. A tool that never exits, started with a minute's grace, is
 * ended within seconds. */
static void test_nvtool_a_shortened_grace_ends_a_hung_tool_sooner(void)
{
	char *tool = path_in_tmp("tool.sh"), *log = path_in_tmp("tool.log");
	const char *argv[] = { tool, log, NULL };
	const char *env[] = { "HANG=1", NULL };
	ks_worker_options wo;
	ks_worker *w = NULL;
	ks_device_info info;
	double t0;

	write_exec(tool, g_tool);
	wo = wrapped(argv, env, NULL, 60);
	KT_EQ_INT(ks_worker_spawn(&w, &wo), 0);
	/* set after the worker started, before it ends: here, without a GPU, it ends as it fails to
	 * make its context (the tool's grace starts then); with a GPU, at the close */
	ks_worker_set_exit_grace(w, 0.5);
	t0 = mono();
	ks_worker_ready(w, &info);
	KT_EQ_INT(ks_worker_close(w), -1);
	KT_ASSERT_MSG(mono() - t0 < 5, "the worker's end took %.1f s", mono() - t0);
	KT_ASSERT(!ks_worker_alive(w));
	ks_worker_free(w);
	ks_free((char *)wo.exe);
	ks_free(tool);
	ks_free(log);
}

static void test_nvtool_profile_when_parses(void)
{
	ks_profile_when w = KS_PROFILE_NEVER;
	KT_EQ_INT(ks_profile_when_parse(&w, NULL), 0);
	KT_EQ_INT(w, KS_PROFILE_SLOW);
	KT_EQ_INT(ks_profile_when_parse(&w, "all"), 0);
	KT_EQ_INT(w, KS_PROFILE_ALL);
	KT_EQ_INT(ks_profile_when_parse(&w, "never"), 0);
	KT_EQ_INT(w, KS_PROFILE_NEVER);
	KT_EQ_INT(ks_profile_when_parse(&w, "sometimes"), KS_EINVALID);
	KT_EQ_STR(ks_profile_when_name(KS_PROFILE_SLOW), "slow");
}

static void test_nvtool_missing_tools_turn_their_stage_off(void)
{
	ks_nvtool_options o = KS_NVTOOL_OPTIONS_INIT;
	ks_nvtool *t = NULL;
	ks_kernel_result r;
	cJSON *j;
	char *plain = path_in_tmp("plain");
	KT_EQ_INT(ks_fs_write_atomic(plain, "x", 1), 0);
	setenv("KSCORE_NCU", plain, 1);
	setenv("KSCORE_COMPUTE_SANITIZER", plain, 1);
	o.sanitize = 1;
	o.profile = KS_PROFILE_ALL;
	/* the warnings go where the caller says (here a file the test reads, not the suite's output,
	 * where they read like failures) */
	o.warn = tmpfile();
	KT_ASSERT(o.warn != NULL);
	ks_nvtool_new(&t, &o);
	{
		char said[2048];
		size_t n;
		rewind(o.warn);
		n = fread(said, 1, sizeof(said) - 1, o.warn);
		said[n] = 0;
		fclose(o.warn);
		KT_CONTAINS(said, "score: warning: --sanitize: $KSCORE_COMPUTE_SANITIZER names ");
		KT_CONTAINS(said, "which is not an executable; kernels are scored without the sanitizer stage\n");
		KT_CONTAINS(said, "score: warning: --profile: Nsight Compute's $KSCORE_NCU names ");
	}
	memset(&r, 0, sizeof(r));
	r.exec = r.timed = 1;
	r.nperf = 1;
	r.speedup = 0.5;
	KT_EQ_INT(ks_nvtool_wants_profile(t, &r), 0);
	j = ks_nvtool_json(t);
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "profiler"), "available")));
	KT_CONTAINS(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "sanitizer"), "note")->valuestring, "not an executable");
	KT_EQ_STR(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "sanitizer"), "tools"), 0)->valuestring,
		  "memcheck");
	cJSON_Delete(j);
	ks_nvtool_free(t);
	ks_free(plain);
}

static void test_nvtool_profile_selection(void)
{
	ks_nvtool_options o = KS_NVTOOL_OPTIONS_INIT;
	ks_nvtool *t = NULL;
	ks_kernel_result r;
	char *tool = path_in_tmp("ncu");
	write_exec(tool, "#!/bin/sh\nexit 0\n");
	setenv("KSCORE_NCU", tool, 1);
	o.profile = KS_PROFILE_SLOW;
	ks_nvtool_new(&t, &o);
	memset(&r, 0, sizeof(r));
	r.exec = r.timed = 1;
	r.nperf = 1;
	r.speedup = 0.8;
	KT_EQ_INT(ks_nvtool_wants_profile(t, &r), 1);
	r.speedup = 1.2;
	KT_EQ_INT(ks_nvtool_wants_profile(t, &r), 0);
	ks_nvtool_free(t);
	o.profile = KS_PROFILE_ALL;
	ks_nvtool_new(&t, &o);
	KT_EQ_INT(ks_nvtool_wants_profile(t, &r), 1);
	r.exec = 0; /* failed kernels are never profiled */
	KT_EQ_INT(ks_nvtool_wants_profile(t, &r), 0);
	ks_nvtool_free(t);
	ks_free(tool);
}

/* exec/performance_analysis.txt says which case the sanitizer ran and why that one (issue 23.2). */
static void test_nvtool_text_names_the_sanitizer_case(void)
{
	static const char rec[] = "{\"case\": \"n=1000\", \"case_index\": 1, \"case_choice\": \"partial_tail\", "
				  "\"case_why\": \"the first with several blocks and a partial tail\", \"seconds\": 0.5, "
				  "\"tools\": [{\"tool\": \"memcheck\", \"status\": \"clean\"}], \"findings\": []}";
	ks_kernel_result r;
	ks_buf b = KS_BUF_INIT(1 << 16);
	char *t;
	memset(&r, 0, sizeof(r));
	r.sanitizer = cJSON_Parse(rec);
	KT_ASSERT(r.sanitizer != NULL);
	ks_nvtool_text(&b, &r);
	t = ks_buf_take(&b, NULL);
	KT_CONTAINS(t, "sanitizer on case n=1000 (the first with several blocks and a partial tail) (0.5 s): memcheck clean;");
	ks_free(t);
	cJSON_Delete(r.sanitizer);
}

/* The environment a worker of (device, own_device) was started with, as the stand-in tool saw it. */
static char *worker_env_seen(int device, int own, const char *cvd, const char *pass)
{
	char *tool = path_in_tmp("tool.sh"), *log = path_in_tmp("tool.log"), *envf = ks_asprintf("%s.env", log);
	const char *argv[] = { tool, log, NULL };
	const char *env[] = { NULL };
	ks_worker_options wo;
	ks_worker *w = NULL;
	ks_device_info info;
	char *text = NULL;

	write_exec(tool, g_tool);
	if (cvd)
		setenv("CUDA_VISIBLE_DEVICES", cvd, 1);
	else
		unsetenv("CUDA_VISIBLE_DEVICES");
	if (pass)
		setenv("KSCORE_WORKER_ENV", pass, 1);
	wo = wrapped(argv, env, NULL, 5);
	wo.device = device;
	wo.own_device = own;
	KT_EQ_INT(ks_worker_spawn(&w, &wo), 0);
	ks_worker_ready(w, &info); /* no GPU here: fails, after the tool saw the environment */
	ks_worker_free(w);
	KT_EQ_INT(ks_fs_read(&text, NULL, envf, 1 << 20), 0);
	unsetenv("CUDA_VISIBLE_DEVICES");
	unsetenv("KSCORE_WORKER_ENV");
	ks_free((char *)wo.exe);
	ks_free(tool);
	ks_free(log);
	ks_free(envf);
	return text;
}

/* A lane's worker sees its own GPU only (so its driver does not initialise every GPU of the host):
 * the run's own CUDA_VISIBLE_DEVICES entry for the ordinal, the ordinal without one, nothing past
 * the run's list; a worker that is not narrowed gets the run's list as it is. */
static void test_nvtool_a_worker_of_its_own_gpu_sees_only_that_gpu(void)
{
	char *t = worker_env_seen(1, 1, "5,GPU-abc,7", NULL);
	KT_CONTAINS(t, "CUDA_VISIBLE_DEVICES='GPU-abc'");
	ks_free(t);
	t = worker_env_seen(2, 1, NULL, NULL);
	KT_CONTAINS(t, "CUDA_VISIBLE_DEVICES='2'");
	ks_free(t);
	t = worker_env_seen(3, 1, "5,7", NULL);
	KT_CONTAINS(t, "CUDA_VISIBLE_DEVICES=''");
	ks_free(t);
	t = worker_env_seen(1, 0, "5,7", NULL);
	KT_CONTAINS(t, "CUDA_VISIBLE_DEVICES='5,7'");
	ks_free(t);
	/* a worker given the whole environment still gets its own entry, once */
	t = worker_env_seen(0, 1, "5,7", "*");
	KT_CONTAINS(t, "CUDA_VISIBLE_DEVICES='5'");
	KT_ASSERT(!strstr(t, "5,7"));
	ks_free(t);
}

static const kt_test tests[] = {
	KT(test_nvtool_a_worker_of_its_own_gpu_sees_only_that_gpu),
	KT(test_nvtool_text_names_the_sanitizer_case),
	KT(test_nvtool_find_looks_where_it_says),
	KT(test_nvtool_worker_runs_under_a_wrapper),
	KT(test_nvtool_a_tool_that_never_exits_is_killed_after_the_grace),
	KT(test_nvtool_a_shortened_grace_ends_a_hung_tool_sooner),
	KT(test_nvtool_profile_when_parses),
	KT(test_nvtool_missing_tools_turn_their_stage_off),
	KT(test_nvtool_profile_selection),
	{ 0 }
};
KT_MAIN("nvtool", tests)
