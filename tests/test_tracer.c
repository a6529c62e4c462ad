/* Tests of lang/triton/tracer.c: the kscore-triton server as a process, driven through a stand-in
 * that speaks its protocol and misbehaves on demand (tests/fixtures/triton/fake-helper): a trace,
 * a server that never answers, one that dies, one that writes garbage, what environment it gets,
 * and the one-shot static check. The real helper's own tests are tests/triton/. */
#include "ktest.h"
#include "lang/triton/tracer.h"
#include "util/errors.h"
#include "util/mem.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static ks_problem_set *load(void)
{
	ks_problem_set *s = NULL;
	KT_EQ_INT(ks_problem_set_load(&s, "tests/fixtures/problems", NULL), 0);
	return s;
}

static ks_tracer_options fake(void)
{
	ks_tracer_options o = KS_TRACER_OPTIONS_INIT;
	o.helper = "tests/fixtures/triton/fake-helper";
	o.start_timeout_s = 0;
	o.timeout_s = 1;
	o.grace_s = 0.5;
	return o;
}

static void trace(ks_tracer *t, ks_trace *out, const char *source)
{
	ks_problem_set *s = load();
	cJSON *entry = cJSON_CreateObject();
	cJSON_AddStringToObject(entry, "name", "vadd");
	KT_EQ_INT(ks_tracer_trace(t, out, ks_problem_set_find(s, "vadd"), entry, source, NULL), 0);
	cJSON_Delete(entry);
	ks_problem_set_free(s);
}

static void test_a_server_traces_answer_after_answer(void)
{
	ks_tracer_options o = fake();
	ks_tracer *t = NULL;
	ks_trace tr;
	struct timespec a, b;
	double s;
	KT_EQ_INT(ks_tracer_start(&t, &o), 0);
	trace(t, &tr, "ok");
	KT_EQ_STR(ks_trace_status_name(tr.status), "ok");
	KT_EQ_INT(tr.nkernels, 1);
	KT_EQ_INT(tr.correctness[2].nkernels, 1);
	ks_trace_clear(&tr);

	/* a server that misses the deadline is killed; the next answer gets a fresh one */
	clock_gettime(CLOCK_MONOTONIC, &a);
	trace(t, &tr, "sleep");
	clock_gettime(CLOCK_MONOTONIC, &b);
	s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	KT_EQ_STR(ks_trace_status_name(tr.status), "timeout");
	KT_ASSERT_MSG(s < 60, "the deadline took %.1f s", s);
	ks_trace_clear(&tr);
	trace(t, &tr, "ok");
	KT_EQ_STR(ks_trace_status_name(tr.status), "ok");
	ks_trace_clear(&tr);

	/* one that dies says so, with what it wrote on stderr; one that writes garbage is broken */
	trace(t, &tr, "exit");
	KT_EQ_STR(ks_trace_status_name(tr.status), "unavailable");
	KT_ASSERT_MSG(strstr(tr.message, "exits on purpose"), "%s", tr.message);
	ks_trace_clear(&tr);
	trace(t, &tr, "garbage");
	KT_EQ_STR(ks_trace_status_name(tr.status), "broken");
	ks_trace_clear(&tr);
	trace(t, &tr, "ok");
	KT_EQ_STR(ks_trace_status_name(tr.status), "ok");
	ks_trace_clear(&tr);
	ks_tracer_free(t);
}

static int cached(ks_tracer *t, ks_trace *out, const char *source, const char *dir, const char *salt)
{
	ks_problem_set *s = load();
	cJSON *entry = cJSON_CreateObject();
	int hit = -1;
	cJSON_AddStringToObject(entry, "name", "vadd");
	KT_EQ_INT(ks_tracer_trace_cached(t, out, &hit, ks_problem_set_find(s, "vadd"), entry, source, NULL, dir, salt), 0);
	cJSON_Delete(entry);
	ks_problem_set_free(s);
	return hit;
}

static size_t entries(const char *dir)
{
	char cmd[4200], buf[64] = "";
	FILE *f;
	snprintf(cmd, sizeof(cmd), "ls '%s/traces' 2>/dev/null | wc -l", dir);
	f = popen(cmd, "r");
	if (f && fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = 0;
	if (f)
		pclose(f);
	return (size_t)strtoul(buf, NULL, 10);
}

/* A trusted reference's trace is kept across runs: read back for the same request, helper, kscore
 * and GPU model; traced again for another salt or a damaged entry; a failed trace is never kept. */
static void test_a_references_trace_is_kept_and_read_back(void)
{
	ks_tracer_options o = fake();
	ks_tracer *t = NULL;
	ks_trace tr;
	char *dir = ks_asprintf("%s/tcache", kt_tmpdir()), cmd[4300];
	KT_EQ_INT(ks_tracer_start(&t, &o), 0);
	KT_EQ_INT(cached(t, &tr, "ok", dir, "H200 sm_90"), 0);
	KT_EQ_STR(ks_trace_status_name(tr.status), "ok");
	KT_ASSERT(!tr.cached);
	ks_trace_clear(&tr);
	KT_EQ_INT(entries(dir), 1);
	/* a later run: a fresh server of the same versions, and the entry is read back */
	ks_tracer_free(t);
	KT_EQ_INT(ks_tracer_start(&t, &o), 0);
	KT_EQ_INT(cached(t, &tr, "ok", dir, "H200 sm_90"), 1);
	KT_EQ_STR(ks_trace_status_name(tr.status), "ok");
	KT_ASSERT(tr.cached);
	KT_EQ_INT(tr.correctness[2].nkernels, 1);
	ks_trace_clear(&tr);
	/* another GPU model: its own entry */
	KT_EQ_INT(cached(t, &tr, "ok", dir, "H100 sm_90"), 0);
	ks_trace_clear(&tr);
	KT_EQ_INT(entries(dir), 2);
	/* a damaged entry is traced again and replaced */
	snprintf(cmd, sizeof(cmd), "for f in '%s'/traces/*.json; do echo '{\"id\": 1, \"status\": \"ok\"' >\"$f\"; done",
		 dir);
	KT_EQ_INT(system(cmd), 0);
	KT_EQ_INT(cached(t, &tr, "ok", dir, "H200 sm_90"), 0);
	KT_EQ_STR(ks_trace_status_name(tr.status), "ok");
	ks_trace_clear(&tr);
	KT_EQ_INT(cached(t, &tr, "ok", dir, "H200 sm_90"), 1);
	ks_trace_clear(&tr);
	/* what failed is not kept */
	KT_EQ_INT(cached(t, &tr, "garbage", dir, "H200 sm_90"), 0);
	KT_EQ_STR(ks_trace_status_name(tr.status), "broken");
	ks_trace_clear(&tr);
	KT_EQ_INT(entries(dir), 2);
	ks_tracer_free(t);
	ks_free(dir);
}

/* Nothing of kscore's environment reaches the helper (an upload token least of all): only what it
 * is given, its home and temporary folder being a private folder of its own. */
static void test_the_helper_gets_an_environment_of_its_own(void)
{
	ks_tracer_options o = fake();
	ks_tracer *t = NULL;
	ks_trace tr;
	setenv("KSCORE_UPLOAD_TOKEN", "secret-token", 1);
	setenv("KSCORE_TRITON_ENV", "KSCORE_TEST_PASSED", 1);
	setenv("KSCORE_TEST_PASSED", "1", 1);
	KT_EQ_INT(ks_tracer_start(&t, &o), 0);
	trace(t, &tr, "env");
	KT_EQ_STR(ks_trace_status_name(tr.status), "error");
	KT_ASSERT(!strstr(tr.message, "KSCORE_UPLOAD_TOKEN"));
	KT_ASSERT(strstr(tr.message, "\"HOME\""));
	KT_ASSERT(strstr(tr.message, "\"TRITON_CACHE_DIR\""));
	KT_ASSERT(strstr(tr.message, "\"KSCORE_TEST_PASSED\""));
	ks_trace_clear(&tr);
	ks_tracer_free(t);
	unsetenv("KSCORE_UPLOAD_TOKEN");
	unsetenv("KSCORE_TRITON_ENV");
	unsetenv("KSCORE_TEST_PASSED");
}

/* The helper sees the GPU it is given (visible_devices), not the run's list, and one hardware queue
 * per context unless KSCORE_TRITON_ENV passes the variable; without visible_devices, the run's. */
static void test_the_helper_sees_the_gpu_it_is_given(void)
{
	ks_tracer_options o = fake();
	ks_tracer *t = NULL;
	ks_trace tr;
	char vis[8] = "7";
	setenv("CUDA_VISIBLE_DEVICES", "5,7", 1);
	o.visible_devices = vis;
	o.device = 0;
	KT_EQ_INT(ks_tracer_start(&t, &o), 0);
	vis[0] = '9'; /* copied at the start: a restarted server gets the same */
	trace(t, &tr, "gpu");
	KT_CONTAINS(tr.message, "CUDA_VISIBLE_DEVICES=7 CUDA_DEVICE_MAX_CONNECTIONS=1 device=0");
	ks_trace_clear(&tr);
	trace(t, &tr, "exit"); /* the next answer gets a fresh server */
	ks_trace_clear(&tr);
	trace(t, &tr, "gpu");
	KT_CONTAINS(tr.message, "CUDA_VISIBLE_DEVICES=7 ");
	ks_trace_clear(&tr);
	ks_tracer_free(t);

	o = fake();
	setenv("KSCORE_TRITON_ENV", "CUDA_DEVICE_MAX_CONNECTIONS", 1);
	setenv("CUDA_DEVICE_MAX_CONNECTIONS", "4", 1);
	KT_EQ_INT(ks_tracer_start(&t, &o), 0);
	trace(t, &tr, "gpu");
	KT_CONTAINS(tr.message, "CUDA_VISIBLE_DEVICES=5,7 CUDA_DEVICE_MAX_CONNECTIONS=4 device=0");
	ks_trace_clear(&tr);
	ks_tracer_free(t);
	unsetenv("KSCORE_TRITON_ENV");
	unsetenv("CUDA_DEVICE_MAX_CONNECTIONS");
	unsetenv("CUDA_VISIBLE_DEVICES");
}

/* ready returns once the server has started (the real one imports torch and triton first), and at
 * once after that; a trace follows without the wait. */
static void test_ready_waits_for_the_server_to_start(void)
{
	ks_tracer_options o = fake();
	ks_tracer *t = NULL;
	ks_trace tr;
	struct timespec a, b, c;
	double first, again;
	setenv("KSCORE_TRITON_ENV", "KSFAKE_START_SLEEP", 1);
	setenv("KSFAKE_START_SLEEP", "0.5", 1);
	o.start_timeout_s = 30;
	KT_EQ_INT(ks_tracer_start(&t, &o), 0);
	clock_gettime(CLOCK_MONOTONIC, &a);
	KT_EQ_INT(ks_tracer_ready(t), 0);
	clock_gettime(CLOCK_MONOTONIC, &b);
	KT_EQ_INT(ks_tracer_ready(t), 0);
	clock_gettime(CLOCK_MONOTONIC, &c);
	first = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	again = (double)(c.tv_sec - b.tv_sec) + (c.tv_nsec - b.tv_nsec) / 1e9;
	KT_ASSERT_MSG(first >= 0.45, "ready returned after %.2f s, before the server was up", first);
	KT_ASSERT_MSG(again < 0.2, "a second ready took %.2f s", again);
	trace(t, &tr, "ok");
	KT_EQ_STR(ks_trace_status_name(tr.status), "ok");
	ks_trace_clear(&tr);
	ks_tracer_free(t);
	unsetenv("KSCORE_TRITON_ENV");
	unsetenv("KSFAKE_START_SLEEP");
}

/* An answer that may time its own kernels while traced (the autotuner, do_bench) is told apart. */
static void test_an_answer_that_measures_is_told_apart(void)
{
	KT_EQ_INT(ks_tracer_measures("@triton.autotune(configs=[triton.Config({'B': 64})], key=['n'])\n"), 1);
	KT_EQ_INT(ks_tracer_measures("from triton import autotune as at\n"), 1);
	KT_EQ_INT(ks_tracer_measures("ms = triton.testing.do_bench(lambda: f(x))\n"), 1);
	KT_EQ_INT(ks_tracer_measures("@triton.jit\ndef k(x_ptr):\n    pass\n"), 0);
	KT_EQ_INT(ks_tracer_measures(NULL), 0);
}

static void test_the_static_check_runs_alone(void)
{
	ks_tracer_options o = fake();
	char *reason = NULL;
	int ok = -1, line = 0;
	KT_EQ_INT(ks_tracer_check(&ok, &reason, &line, &o, "import triton\n"), 0);
	KT_EQ_INT(ok, 1);
	KT_ASSERT(reason == NULL);
	KT_EQ_INT(ks_tracer_check(&ok, &reason, &line, &o, "refuse"), 0);
	KT_EQ_INT(ok, 0);
	KT_EQ_INT(line, 3);
	KT_ASSERT(strstr(reason, "import os"));
	ks_free(reason);
}

static void test_python_is_found_or_named(void)
{
	char *py;
	setenv("KSCORE_PYTHON", "/nonexistent/python3", 1);
	KT_ASSERT(ks_tracer_find_python(NULL) == NULL);
	KT_ASSERT(strstr(ks_error_msg(), "KSCORE_PYTHON=/nonexistent/python3"));
	unsetenv("KSCORE_PYTHON");
	py = ks_tracer_find_python(NULL);
	KT_ASSERT_MSG(py != NULL, "no python3 on PATH: %s", ks_error_msg());
	ks_free(py);
	{
		const char *path = getenv("PATH");
		char *saved = path ? ks_strdup(path) : NULL;
		setenv("PATH", "/nonexistent", 1);
		KT_ASSERT(ks_tracer_find_python(NULL) == NULL);
		KT_ASSERT(strstr(ks_error_msg(), "KSCORE_PYTHON"));
		if (saved)
			setenv("PATH", saved, 1);
		ks_free(saved);
	}
}

static const kt_test tests[] = {
	KT(test_a_server_traces_answer_after_answer),
	KT(test_the_helper_gets_an_environment_of_its_own),
	KT(test_the_helper_sees_the_gpu_it_is_given),
	KT(test_ready_waits_for_the_server_to_start),
	KT(test_an_answer_that_measures_is_told_apart),
	KT(test_the_static_check_runs_alone),
	KT(test_a_references_trace_is_kept_and_read_back), KT(test_python_is_found_or_named),
	{ 0 }
};

KT_MAIN("tracer", tests)
