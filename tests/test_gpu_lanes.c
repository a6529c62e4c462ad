/* GPU suite, the lanes (--devices): two lanes on one GPU, a lane that fails or cannot start, every
 * GPU of the host, and one queue for the run over several GPUs (issue 24; what needs two GPUs is
 * skipped, saying how many the host has, and each test says which GPU each lane used). Without a
 * usable GPU every test reports itself skipped, by name. `make gpu-test` runs it on a GPU host. */
#include "gputest.h"

/* ---- --devices: lanes (one GPU is enough: 0,0 runs two lanes on it) */

/* The bundled example with `extra` options, into folder `out`; checks its verdicts against
 * expected.json and returns the record. */
static cJSON *score_example(const char *extra, const char *out)
{
	char args[12000];
	cJSON *j;
	snprintf(args, sizeof(args), "--require-gpu --seed 777 %s --out '%s/%s' "
		 "submissions/example/reflexion_oneshot_tritonbench_4.json", extra, kt_tmpdir(), out);
	KT_EQ_INT(score(args), 1);
	snprintf(args, sizeof(args), "%s/score.json", out);
	j = load_json(args);
	check_example_verdicts(j, extra);
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

/* ---- one queue for the run over several GPUs (issue 24); on a host of one GPU, what needs two
 * says so and is skipped */

/* How many GPUs the driver shows (a run of --devices all, without timing). */
static int gpu_count(void)
{
	char args[4400];
	cJSON *j;
	int n;
	snprintf(args, sizeof(args), "--require-gpu --no-timing --devices all --refs tests/fixtures/problems --out "
		 "'%s/count' tests/fixtures/cli/good.json", kt_tmpdir());
	KT_ASSERT(score(args) <= 2);
	j = load_json("count/score.json");
	n = cJSON_GetArraySize(devices_of(j));
	cJSON_Delete(j);
	return n;
}

/* "0,1,...,n-1" for the first n GPUs, or skips the test when the host has fewer. */
static const char *first_gpus(int n)
{
	static char list[64];
	int have = gpu_count(), i;
	size_t k = 0;
	if (have < n)
		KT_SKIP("needs %d GPUs; this host has %d", n, have);
	for (i = 0; i < n; i++)
		k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%d", i ? "," : "", i);
	return list;
}

/* Says in the test's output which GPU each lane of a record used and what it did. */
static void say_lanes(const char *what, const cJSON *j)
{
	const cJSON *d;
	cJSON_ArrayForEach(d, devices_of(j))
	{
		const cJSON *g = cJSON_GetObjectItem(d, "golden_results");
		fprintf(stderr, "  %s: lane %d: GPU %d (%s, %s), %s, %d kernels, golden results %d computed, %d reused\n",
			what, cJSON_GetObjectItem(d, "lane")->valueint, cJSON_GetObjectItem(d, "ordinal")->valueint,
			kstr(d, "name"), kstr(d, "uuid"), kstr(d, "status"), cJSON_GetObjectItem(d, "kernels")->valueint,
			cJSON_IsObject(g) ? cJSON_GetObjectItem(g, "computed")->valueint : -1,
			cJSON_IsObject(g) ? cJSON_GetObjectItem(g, "reused")->valueint : -1);
	}
}

/* Two GPUs give the verdicts of one; each lane is its own GPU, not shared, and does work. */
static void test_gpu_gpus_two_give_the_verdicts_of_one(void)
{
	cJSON *one, *both;
	const cJSON *a, *b, *st;
	need_gpu();
	first_gpus(2);
	one = score_example("--devices 0", "one");
	both = score_example("--devices 0,1", "two");
	say_lanes("one GPU", one);
	say_lanes("two GPUs", both);
	KT_EQ_INT(cJSON_GetArraySize(devices_of(both)), 2);
	KT_ASSERT(strcmp(kstr(cJSON_GetArrayItem(devices_of(both), 0), "uuid"),
			 kstr(cJSON_GetArrayItem(devices_of(both), 1), "uuid")) != 0);
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(both, "summary"), "shared_gpu")));
	for (a = cJSON_GetObjectItem(one, "kernels")->child, b = cJSON_GetObjectItem(both, "kernels")->child; a && b;
	     a = a->next, b = b->next)
		KT_EQ_STR(kstr(a, "reason"), kstr(b, "reason"));
	KT_ASSERT(!a && !b);
	cJSON_ArrayForEach(a, devices_of(both))
	{
		KT_EQ_STR(kstr(a, "status"), "ok");
		KT_ASSERT_MSG(cJSON_GetObjectItem(a, "kernels")->valueint > 0, "GPU %d did no work",
			      cJSON_GetObjectItem(a, "ordinal")->valueint);
	}
	/* the start: both GPUs started and calibrated, in the record */
	st = cJSON_GetObjectItem(both, "start");
	KT_ASSERT(cJSON_IsObject(st));
	KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(st, "gpus")), 2);
	cJSON_ArrayForEach(a, cJSON_GetObjectItem(st, "gpus"))
		KT_ASSERT(strcmp(kstr(a, "ceilings"), "failed") != 0);
	fprintf(stderr, "  start: %.2f s (lanes %.2f s, ceilings %.2f s)\n",
		cJSON_GetObjectItem(st, "seconds")->valuedouble, cJSON_GetObjectItem(st, "lanes_seconds")->valuedouble,
		cJSON_GetObjectItem(st, "calibration_seconds")->valuedouble);
	cJSON_Delete(one);
	cJSON_Delete(both);
}

/* One run, two files, every GPU the host has (up to two): both result folders are written with
 * the example's verdicts, and the second file's golden results are those the first computed. */
static void test_gpu_gpus_one_queue_for_several_files(void)
{
	char args[12000];
	cJSON *a, *b;
	const cJSON *d;
	int reused = 0, n;
	need_gpu();
	n = gpu_count() >= 2 ? 2 : 1;
	snprintf(args, sizeof(args), "cp submissions/example/reflexion_oneshot_tritonbench_4.json '%s/a.json' && "
		 "cp submissions/example/reflexion_oneshot_tritonbench_4.json '%s/b.json'", kt_tmpdir(), kt_tmpdir());
	KT_EQ_INT(system(args), 0);
	snprintf(args, sizeof(args), "--require-gpu --seed 777 --devices %s '%s/a.json' '%s/b.json'",
		 n == 2 ? "0,1" : "0", kt_tmpdir(), kt_tmpdir());
	KT_EQ_INT(score(args), 1);
	a = load_json("a/score.json");
	b = load_json("b/score.json");
	check_example_verdicts(a, "file a");
	check_example_verdicts(b, "file b");
	say_lanes("a.json", a);
	say_lanes("b.json", b);
	cJSON_ArrayForEach(d, devices_of(b))
	{
		const cJSON *g = cJSON_GetObjectItem(d, "golden_results");
		KT_ASSERT(cJSON_IsObject(g));
		reused += cJSON_GetObjectItem(g, "reused")->valueint;
	}
	KT_ASSERT_MSG(reused > 0, "no golden result was reused across the two files");
	cJSON_Delete(a);
	cJSON_Delete(b);
}

/* A GPU that fails hands its work to the other GPU; nothing is charged to a kernel. */
static void test_gpu_gpus_a_failing_gpu_hands_its_work_to_the_other(void)
{
	cJSON *j;
	const cJSON *k;
	need_gpu();
	first_gpus(2);
	setenv("KSCORE_TEST_FAIL_LANE", "1:1", 1);
	j = score_example("--devices 0,1", "r");
	unsetenv("KSCORE_TEST_FAIL_LANE");
	say_lanes("lane 1 failing", j);
	KT_CONTAINS(g_err, "lane 1 (GPU 1");
	KT_CONTAINS(g_err, "is out of the rotation: KSCORE_TEST_FAIL_LANE");
	KT_EQ_STR(kstr(cJSON_GetArrayItem(devices_of(j), 1), "status"), "failed");
	KT_EQ_STR(kstr(cJSON_GetArrayItem(devices_of(j), 0), "status"), "ok");
	cJSON_ArrayForEach(k, cJSON_GetObjectItem(j, "kernels"))
	{
		KT_ASSERT(strcmp(kstr(k, "reason"), "not_run"));
		KT_ASSERT(strcmp(kstr(k, "reason"), "crash"));
	}
	cJSON_Delete(j);
}

/* score calibrate --devices all: every GPU once, each its own ceilings. */
static void test_gpu_gpus_calibrate_devices_all_measures_each_gpu(void)
{
	char *out;
	cJSON *j = NULL;
	const cJSON *x, *y;
	int n;
	need_gpu();
	n = gpu_count();
	out = score_stdout("calibrate --devices all --json", 0);
	KT_ASSERT_MSG(ks_json_parse(&j, out, strlen(out), 16, "calibrate") == 0, "%s", out);
	KT_ASSERT(cJSON_IsArray(j));
	KT_EQ_INT(cJSON_GetArraySize(j), n);
	cJSON_ArrayForEach(x, j)
	{
		fprintf(stderr, "  GPU %d: %s, %.0f GB/s, %s\n", cJSON_GetObjectItem(x, "ordinal")->valueint,
			kstr(x, "device"), cJSON_GetObjectItem(x, "bandwidth_gbps")->valuedouble, kstr(x, "uuid"));
		KT_ASSERT(cJSON_GetObjectItem(x, "bandwidth_gbps")->valuedouble > 0);
		for (y = x->next; y; y = y->next)
			KT_ASSERT(strcmp(kstr(x, "uuid"), kstr(y, "uuid")) != 0);
	}
	cJSON_Delete(j);
	ks_free(out);
}

/* A Triton answer traced in a lane sees that lane's GPU alone, as its device 0: its Python cannot
 * reach the GPUs where other lanes time other kernels (the helper's CUDA_VISIBLE_DEVICES is the
 * lane's own entry). */
static void test_gpu_gpus_a_triton_answer_sees_its_lanes_gpu_alone(void)
{
	static const char answer[] =
		"[{\"instruction\": \"sees\", \"label\": null, \"file\": \"sin_kernel.py\", \"test_code\": \"\", "
		"\"predict\": \"import torch\\nimport triton\\nimport triton.language as tl\\n\\n\\n@triton.jit\\n"
		"def unused(x_ptr):\\n    pass\\n\\n\\ndef call_kernel(x):\\n    raise RuntimeError("
		"'sees %d GPUs, on device %d' % (torch.cuda.device_count(), torch.cuda.current_device()))\\n\"}]\n";
	char path[4200], args[9000], *t = NULL;
	need_gpu();
	first_gpus(2);
	snprintf(path, sizeof(path), "%s/sees.json", kt_tmpdir());
	KT_EQ_INT(ks_fs_write_atomic(path, answer, strlen(answer)), 0);
	snprintf(args, sizeof(args), "--require-gpu --seed 5 --devices 1 --out '%s/sees' '%s'", kt_tmpdir(), path);
	score(args);
	snprintf(path, sizeof(path), "%s/sees/score.json", kt_tmpdir());
	KT_ASSERT_MSG(ks_fs_read(&t, NULL, path, 1 << 24) == 0, "no score.json: %s", g_err);
	if (!strstr(t, "sees ") && (strstr(t, "torch") || strstr(t, "triton")) && strstr(t, "not_run")) {
		ks_free(t);
		KT_SKIP("no Python with torch and triton for the Triton helper");
	}
	{
		const char *m = strstr(t, "sees ");
		KT_ASSERT_MSG(m && !strncmp(m, "sees 1 GPUs, on device 0", 24), "the answer said: %.60s", m ? m : t);
	}
	fprintf(stderr, "  a Triton answer on GPU 1 of %d: sees 1 GPUs, on device 0\n", gpu_count());
	ks_free(t);
}

static const kt_test tests[] = {
	KT(test_gpu_two_lanes_on_one_gpu_give_the_same_verdicts_marked_shared),
	KT(test_gpu_a_failing_lane_hands_its_work_to_the_other),
	KT(test_gpu_a_lane_that_cannot_start_is_left_out),
	KT(test_gpu_devices_all_is_every_visible_gpu),
	KT(test_gpu_gpus_two_give_the_verdicts_of_one),
	KT(test_gpu_gpus_one_queue_for_several_files),
	KT(test_gpu_gpus_a_failing_gpu_hands_its_work_to_the_other),
	KT(test_gpu_gpus_calibrate_devices_all_measures_each_gpu),
	KT(test_gpu_gpus_a_triton_answer_sees_its_lanes_gpu_alone),
	{ 0 }
};
KT_MAIN("gpu_lanes", tests)
