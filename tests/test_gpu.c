/* GPU suite: runs the score binary on kernels that are correct, and on kernels that write nothing,
 * write half, write out of bounds, modify an input, hang, fault or are non-deterministic, and
 * checks each one fails with the right reason while the run goes on. Without a usable GPU every
 * test here reports itself skipped, by name. `make gpu-test` runs this binary on a GPU host. */
#include "ktest.h"
#include "fsutil.h"
#include "jsonutil.h"
#include "mem.h"

static char g_err[16384];

static const char *bin(void)
{
	const char *b = getenv("KSCORE_BIN");
	return b ? b : "build/test/score";
}

static int score(const char *args)
{
	char cmd[32768], pe[4300];
	FILE *f;
	size_t n;
	int st;
	snprintf(pe, sizeof(pe), "%s/stderr", kt_tmpdir());
	snprintf(cmd, sizeof(cmd), "XDG_CACHE_HOME='%s/cache' %s %s >/dev/null 2>'%s'", kt_tmpdir(), bin(),
		 args, pe);
	st = system(cmd);
	f = fopen(pe, "r");
	n = f ? fread(g_err, 1, sizeof(g_err) - 1, f) : 0;
	g_err[n] = 0;
	if (f)
		fclose(f);
	if (getenv("KT_VERBOSE"))
		fprintf(stderr, "%s", g_err);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void need_gpu(void)
{
	char args[4400];
	snprintf(args, sizeof(args), "--require-gpu --refs tests/fixtures/problems --out '%s/probe' "
		 "tests/fixtures/cli/good.json", kt_tmpdir());
	if (score(args) == 69) {
		char *nl = strchr(g_err, '\n');
		if (nl)
			*nl = 0;
		KT_SKIP("no usable GPU (%s)", g_err);
	}
}

static cJSON *load_json(const char *rel)
{
	char path[4400], *t = NULL;
	cJSON *j = NULL;
	snprintf(path, sizeof(path), "%s/%s", kt_tmpdir(), rel);
	if (ks_fs_read(&t, NULL, path, 256u << 20) < 0 || ks_json_parse(&j, t, strlen(t), 64, path) < 0)
		KT_FAIL("cannot read %s: %s", path, ks_error_msg());
	ks_free(t);
	return j;
}

static void test_gpu_correct_kernels_pass(void)
{
	char args[4400];
	cJSON *j;
	need_gpu();
	snprintf(args, sizeof(args), "--require-gpu --refs tests/fixtures/problems --out '%s/r' "
		 "tests/fixtures/cli/good.json", kt_tmpdir());
	KT_EQ_INT(score(args), 0);
	j = load_json("r/score.json");
	KT_NEAR(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "exec_accuracy")->valuedouble, 1.0, 0);
	KT_EQ_STR(cJSON_GetObjectItem(j, "mode")->valuestring, "gpu");
	KT_ASSERT(strlen(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "device"), "name")->valuestring) > 0);
	cJSON_Delete(j);
}

static void test_gpu_adversarial_kernels_fail_with_their_reason_in_one_run(void)
{
	char args[4400], *t = NULL;
	cJSON *j, *exp = NULL;
	const cJSON *ks, *e;
	int wrong = 0;
	need_gpu();
	snprintf(args, sizeof(args), "--require-gpu --kernel-timeout 3 --refs tests/fixtures/problems "
		 "--out '%s/r' tests/fixtures/gpu/adversarial.json", kt_tmpdir());
	KT_EQ_INT(score(args), 1);
	j = load_json("r/score.json");
	ks = cJSON_GetObjectItem(j, "kernels");
	KT_EQ_INT(ks_fs_read(&t, NULL, "tests/fixtures/gpu/adversarial.expected.json", 1 << 20), 0);
	KT_EQ_INT(ks_json_parse(&exp, t, strlen(t), 16, "expected"), 0);
	KT_EQ_INT(cJSON_GetArraySize(ks), cJSON_GetArraySize(exp));
	cJSON_ArrayForEach(e, exp)
	{
		int idx = (int)cJSON_GetObjectItem(e, "index")->valuedouble;
		const char *want = cJSON_GetObjectItem(e, "reason")->valuestring;
		const cJSON *k = cJSON_GetArrayItem(ks, idx);
		const char *got = cJSON_GetObjectItem(k, "reason")->valuestring;
		const cJSON *d = cJSON_GetObjectItem(k, "detail");
		int exec = cJSON_IsTrue(cJSON_GetObjectItem(k, "exec"));
		if (strcmp(got, want) || exec != !strcmp(want, "ok")) {
			fprintf(stderr, "  entry %d: got %s (exec %d), expected %s: %s\n", idx, got, exec, want,
				cJSON_IsString(d) ? d->valuestring : "");
			wrong++;
		}
	}
	KT_ASSERT_MSG(wrong == 0, "%d entries had the wrong verdict", wrong);
	cJSON_Delete(exp);
	cJSON_Delete(j);
	ks_free(t);
}

static void test_gpu_same_seed_same_verdicts(void)
{
	char args[4400];
	cJSON *a, *b;
	need_gpu();
	snprintf(args, sizeof(args), "--require-gpu --seed 12345 --refs tests/fixtures/problems --out '%s/a' "
		 "tests/fixtures/cli/good.json", kt_tmpdir());
	KT_EQ_INT(score(args), 0);
	snprintf(args, sizeof(args), "--require-gpu --seed 12345 --refs tests/fixtures/problems --out '%s/b' "
		 "tests/fixtures/cli/good.json", kt_tmpdir());
	KT_EQ_INT(score(args), 0);
	a = load_json("a/score.json");
	b = load_json("b/score.json");
	KT_EQ_STR(cJSON_GetObjectItem(a, "seed")->valuestring, "12345");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(
			  cJSON_GetObjectItem(a, "kernels"), 0), "cases"), 1), "seed")->valuestring,
		  cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(
			  cJSON_GetObjectItem(b, "kernels"), 0), "cases"), 1), "seed")->valuestring);
	cJSON_Delete(a);
	cJSON_Delete(b);
}

static void test_gpu_timing_catches_planted_cheats_and_spares_honest_kernels(void)
{
	char args[4400], *t = NULL;
	cJSON *j, *exp = NULL;
	const cJSON *ks, *e;
	int wrong = 0;
	need_gpu();
	snprintf(args, sizeof(args), "--require-gpu --kernel-timeout 5 --refs tests/fixtures/problems "
		 "--out '%s/r' tests/fixtures/gpu/timing_cheats.json", kt_tmpdir());
	KT_EQ_INT(score(args), 1);
	j = load_json("r/score.json");
	ks = cJSON_GetObjectItem(j, "kernels");
	KT_EQ_INT(ks_fs_read(&t, NULL, "tests/fixtures/gpu/timing_cheats.expected.json", 1 << 20), 0);
	KT_EQ_INT(ks_json_parse(&exp, t, strlen(t), 16, "expected"), 0);
	cJSON_ArrayForEach(e, exp)
	{
		int idx = (int)cJSON_GetObjectItem(e, "index")->valuedouble;
		const char *kind = cJSON_GetObjectItem(e, "kind")->valuestring;
		const cJSON *k = cJSON_GetArrayItem(ks, idx), *perf = cJSON_GetObjectItem(k, "perf");
		const cJSON *d = cJSON_GetObjectItem(k, "detail");
		int exec = cJSON_IsTrue(cJSON_GetObjectItem(k, "exec"));
		int sus = cJSON_IsTrue(cJSON_GetObjectItem(k, "suspicious"));
		const cJSON *sp = cJSON_GetObjectItem(k, "speedup");
		if (!strcmp(kind, "ok")) {
			/* honest: correct, timed against the golden, verified, not flagged */
			const cJSON *p0 = cJSON_GetArrayItem(perf, 0);
			if (!exec || sus || !cJSON_IsNumber(sp) || sp->valuedouble <= 0 || !p0 ||
			    cJSON_GetObjectItem(p0, "verified_runs")->valuedouble < 1 ||
			    cJSON_GetObjectItem(p0, "runs")->valuedouble < 10) {
				fprintf(stderr, "  entry %d (honest): exec %d suspicious %d speedup %s: %s\n", idx, exec,
					sus, cJSON_IsNumber(sp) ? "set" : "missing",
					cJSON_IsString(d) ? d->valuestring : "");
				wrong++;
			}
		} else if (exec || !cJSON_IsString(d) || !strstr(d->valuestring, "during timing")) {
			fprintf(stderr, "  entry %d (%s cheat): exec %d: %s\n", idx, kind, exec,
				cJSON_IsString(d) ? d->valuestring : "");
			wrong++;
		}
	}
	KT_ASSERT_MSG(wrong == 0, "%d entries had the wrong verdict", wrong);
	KT_ASSERT(cJSON_IsObject(cJSON_GetObjectItem(j, "ceilings")));
	KT_ASSERT(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "ceilings"), "bandwidth_gbps")->valuedouble > 100);
	t = (ks_free(t), NULL);
	{
		char path[4400];
		snprintf(path, sizeof(path), "%s/r/exec/performance_analysis.txt", kt_tmpdir());
		KT_EQ_INT(ks_fs_read(&t, NULL, path, 1 << 20), 0);
		KT_CONTAINS(t, "speedup");
		snprintf(path, sizeof(path), "%s/r/out.json_perf_0.json", kt_tmpdir());
		ks_free(t);
		KT_EQ_INT(ks_fs_read(&t, NULL, path, 1 << 20), 0);
		KT_CONTAINS(t, "speed_up");
	}
	cJSON_Delete(exp);
	cJSON_Delete(j);
	ks_free(t);
}

static void test_gpu_stored_baseline_replaces_live_golden_timing(void)
{
	char args[12000];
	cJSON *j;
	const cJSON *t;
	need_gpu();
	snprintf(args, sizeof(args), "baseline --refs tests/fixtures/problems --out '%s/base.json'", kt_tmpdir());
	KT_EQ_INT(score(args), 0);
	snprintf(args, sizeof(args), "--require-gpu --refs tests/fixtures/problems --baseline='%s/base.json' "
		 "--out '%s/r' tests/fixtures/cli/good.json", kt_tmpdir(), kt_tmpdir());
	KT_EQ_INT(score(args), 0);
	j = load_json("r/score.json");
	t = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "timing"), "golden_times");
	KT_ASSERT(cJSON_IsString(t));
	KT_CONTAINS(t->valuestring, "stored baseline");
	KT_ASSERT(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "kernels"), 0), "speedup")));
	cJSON_Delete(j);
}

static void test_gpu_bundled_example_gets_its_expected_verdicts(void)
{
	char args[12000], *t = NULL;
	cJSON *j, *exp = NULL;
	const cJSON *k;
	int wrong = 0;
	need_gpu();
	snprintf(args, sizeof(args), "--require-gpu --out '%s/r' submissions/example/reflexion_oneshot_tritonbench_4.json",
		 kt_tmpdir());
	KT_EQ_INT(score(args), 1);
	j = load_json("r/score.json");
	KT_EQ_INT(ks_fs_read(&t, NULL, "submissions/example/expected.json", 1 << 20), 0);
	KT_EQ_INT(ks_json_parse(&exp, t, strlen(t), 16, "expected"), 0);
	cJSON_ArrayForEach(k, cJSON_GetObjectItem(j, "kernels"))
	{
		const char *prob = cJSON_GetObjectItem(k, "problem")->valuestring;
		const cJSON *e = cJSON_GetObjectItem(exp, prob);
		int call = cJSON_IsTrue(cJSON_GetObjectItem(k, "call")), ex = cJSON_IsTrue(cJSON_GetObjectItem(k, "exec"));
		if (!e || call != cJSON_IsTrue(cJSON_GetObjectItem(e, "call")) ||
		    ex != cJSON_IsTrue(cJSON_GetObjectItem(e, "exec"))) {
			fprintf(stderr, "  %s: call %d exec %d (%s)\n", prob, call, ex,
				cJSON_GetObjectItem(k, "reason")->valuestring);
			wrong++;
		}
	}
	KT_ASSERT_MSG(wrong == 0, "%d kernels of the example got an unexpected verdict", wrong);
	KT_NEAR(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "call_accuracy")->valuedouble, 0.9, 1e-9);
	KT_NEAR(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "exec_accuracy")->valuedouble, 0.7, 1e-9);
	KT_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "suspicious")->valuedouble, 0);
	cJSON_Delete(exp);
	cJSON_Delete(j);
	ks_free(t);
}

/* ---- --devices: lanes (one GPU is enough: 0,0 runs two lanes on it) */

/* The bundled example with `extra` options, into folder `out`; checks its verdicts against
 * expected.json and returns the record. */
static cJSON *score_example(const char *extra, const char *out)
{
	char args[12000], *t = NULL;
	cJSON *j, *exp = NULL;
	const cJSON *k;
	int wrong = 0;
	snprintf(args, sizeof(args), "--require-gpu --seed 777 %s --out '%s/%s' "
		 "submissions/example/reflexion_oneshot_tritonbench_4.json", extra, kt_tmpdir(), out);
	KT_EQ_INT(score(args), 1);
	snprintf(args, sizeof(args), "%s/score.json", out);
	j = load_json(args);
	KT_EQ_INT(ks_fs_read(&t, NULL, "submissions/example/expected.json", 1 << 20), 0);
	KT_EQ_INT(ks_json_parse(&exp, t, strlen(t), 16, "expected"), 0);
	cJSON_ArrayForEach(k, cJSON_GetObjectItem(j, "kernels"))
	{
		const char *prob = cJSON_GetObjectItem(k, "problem")->valuestring;
		const cJSON *e = cJSON_GetObjectItem(exp, prob);
		int call = cJSON_IsTrue(cJSON_GetObjectItem(k, "call")), ex = cJSON_IsTrue(cJSON_GetObjectItem(k, "exec"));
		if (!e || call != cJSON_IsTrue(cJSON_GetObjectItem(e, "call")) ||
		    ex != cJSON_IsTrue(cJSON_GetObjectItem(e, "exec"))) {
			fprintf(stderr, "  %s (%s): call %d exec %d (%s)\n", prob, extra, call, ex,
				cJSON_GetObjectItem(k, "reason")->valuestring);
			wrong++;
		}
	}
	KT_ASSERT_MSG(wrong == 0, "%d kernels of the example got an unexpected verdict with %s", wrong, extra);
	KT_EQ_INT(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "suspicious")->valuedouble, 0);
	cJSON_Delete(exp);
	ks_free(t);
	return j;
}

static const cJSON *devices_of(const cJSON *j)
{
	return cJSON_GetObjectItem(j, "devices");
}

static void test_gpu_two_lanes_on_one_gpu_give_the_same_verdicts_marked_shared(void)
{
	cJSON *one, *two;
	const cJSON *a, *b;
	int lanes_used[2] = { 0, 0 };
	need_gpu();
	one = score_example("", "one");
	two = score_example("--devices 0,0", "two");
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(one, "summary"), "shared_gpu")));
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(two, "summary"), "shared_gpu")));
	KT_EQ_INT(cJSON_GetArraySize(devices_of(one)), 1);
	KT_EQ_INT(cJSON_GetArraySize(devices_of(two)), 2);
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(devices_of(two), 0), "uuid")->valuestring,
		  cJSON_GetObjectItem(cJSON_GetArrayItem(devices_of(two), 1), "uuid")->valuestring);
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(devices_of(two), 1), "status")->valuestring, "ok");
	/* the same reasons, kernel by kernel, and every kernel that ran is marked */
	for (a = cJSON_GetObjectItem(one, "kernels")->child, b = cJSON_GetObjectItem(two, "kernels")->child; a && b;
	     a = a->next, b = b->next) {
		const cJSON *g = cJSON_GetObjectItem(b, "gpu");
		KT_EQ_STR(cJSON_GetObjectItem(a, "reason")->valuestring, cJSON_GetObjectItem(b, "reason")->valuestring);
		KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(a, "shared_gpu")));
		if (cJSON_IsObject(g)) {
			KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(b, "shared_gpu")));
			lanes_used[cJSON_GetObjectItem(g, "lane")->valueint & 1] = 1;
		}
		/* timed alike (timings on a shared GPU are noisier: not compared) */
		KT_EQ_INT(cJSON_IsNumber(cJSON_GetObjectItem(a, "speedup")), cJSON_IsNumber(cJSON_GetObjectItem(b, "speedup")));
	}
	KT_ASSERT(!a && !b);
	KT_ASSERT_MSG(lanes_used[0] && lanes_used[1], "one lane did all the work");
	cJSON_Delete(one);
	cJSON_Delete(two);
}

static void test_gpu_a_failing_lane_hands_its_work_to_the_other(void)
{
	cJSON *j;
	const cJSON *d, *k;
	setenv("KSCORE_TEST_FAIL_LANE", "1:1", 1);
	need_gpu();
	j = score_example("--devices 0,0", "r");
	KT_CONTAINS(g_err, "lane 1 (GPU 0");
	KT_CONTAINS(g_err, "is out of the rotation: KSCORE_TEST_FAIL_LANE");
	KT_CONTAINS(g_err, "its work goes to the other lanes");
	d = cJSON_GetArrayItem(devices_of(j), 1);
	KT_EQ_STR(cJSON_GetObjectItem(d, "status")->valuestring, "failed");
	KT_CONTAINS(cJSON_GetObjectItem(d, "failure")->valuestring, "KSCORE_TEST_FAIL_LANE");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(devices_of(j), 0), "status")->valuestring, "ok");
	/* nothing was charged for it: no kernel is not_run or crashed */
	cJSON_ArrayForEach(k, cJSON_GetObjectItem(j, "kernels"))
	{
		KT_ASSERT(strcmp(cJSON_GetObjectItem(k, "reason")->valuestring, "not_run"));
		KT_ASSERT(strcmp(cJSON_GetObjectItem(k, "reason")->valuestring, "crash"));
	}
	/* it finished one item (each of its two runners may have been in the middle of one more) */
	KT_ASSERT(cJSON_GetObjectItem(d, "kernels")->valueint <= 2);
	cJSON_Delete(j);
}

static void test_gpu_a_lane_that_cannot_start_is_left_out(void)
{
	cJSON *j;
	const cJSON *d;
	need_gpu();
	setenv("KSCORE_TEST_FAIL_LANE", "1", 1);
	j = score_example("--devices 0,0", "r");
	KT_CONTAINS(g_err, "lane 1 (GPU 0) could not start: KSCORE_TEST_FAIL_LANE");
	d = cJSON_GetArrayItem(devices_of(j), 1);
	KT_EQ_STR(cJSON_GetObjectItem(d, "status")->valuestring, "not_started");
	KT_EQ_INT(cJSON_GetObjectItem(d, "kernels")->valueint, 0);
	/* the lane that is left is not marked shared: it had the GPU to itself */
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "shared_gpu")));
	cJSON_Delete(j);
}

static void test_gpu_devices_all_is_every_visible_gpu(void)
{
	cJSON *j;
	need_gpu();
	j = score_example("--devices all", "r");
	KT_ASSERT(cJSON_GetArraySize(devices_of(j)) >= 1);
	KT_EQ_INT(cJSON_GetObjectItem(cJSON_GetArrayItem(devices_of(j), 0), "ordinal")->valueint, 0);
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "shared_gpu")));
	cJSON_Delete(j);
}

static const kt_test tests[] = {
	KT(test_gpu_bundled_example_gets_its_expected_verdicts),
	KT(test_gpu_stored_baseline_replaces_live_golden_timing),
	KT(test_gpu_timing_catches_planted_cheats_and_spares_honest_kernels),
	KT(test_gpu_correct_kernels_pass), KT(test_gpu_adversarial_kernels_fail_with_their_reason_in_one_run),
	KT(test_gpu_same_seed_same_verdicts), KT(test_gpu_two_lanes_on_one_gpu_give_the_same_verdicts_marked_shared),
	KT(test_gpu_a_failing_lane_hands_its_work_to_the_other), KT(test_gpu_a_lane_that_cannot_start_is_left_out),
	KT(test_gpu_devices_all_is_every_visible_gpu), { 0 }
};
KT_MAIN("gpu", tests)
