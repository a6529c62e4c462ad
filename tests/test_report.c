/* Tests of report: the result folder's GEAK-eval files and score.json, from recorded results (no
 * GPU), and what score.json says about the GPUs of a run (--devices). */
#include "ktest.h"
#include "report/report.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"

/* Two kernels of one pass: vadd passed on a GPU, rowsum's mismatch. */
static void results(ks_kernel_result r[2])
{
	memset(r, 0, 2 * sizeof(*r));
	r[0].file = ks_strdup("vadd.py");
	r[0].problem = ks_strdup("vadd");
	r[0].difficulty = 1;
	r[0].compiled = r[0].call = r[0].exec = r[0].ran = 1;
	r[1].index = 1;
	r[1].file = ks_strdup("rowsum.py");
	r[1].problem = ks_strdup("rowsum");
	r[1].difficulty = 2;
	r[1].compiled = r[1].call = r[1].ran = 1;
	ks_kernel_result_fail(&r[1], KS_REASON_MISMATCH, "case 7x1000: y[3] is 1, expected 2");
}

static void results_clear(ks_kernel_result r[2])
{
	ks_kernel_result_clear(&r[0]);
	ks_kernel_result_clear(&r[1]);
}

static void report_init(ks_report *rep, ks_submission *s, ks_pass *pass, ks_kernel_result *r,
			const char *out, int gpu)
{
	static const int ks[] = { 1 };
	memset(pass, 0, sizeof(*pass));
	pass->path = (char *)"team/team.json";
	pass->name = (char *)"team.json";
	snprintf(pass->sha256, sizeof(pass->sha256), "%064d", 7);
	pass->nentries = 2;
	memset(s, 0, sizeof(*s));
	s->path = (char *)"team/team.json";
	s->passes = pass;
	s->npasses = 1;
	snprintf(s->sha256, sizeof(s->sha256), "%064d", 9);
	memset(rep, 0, sizeof(*rep));
	rep->out_dir = out;
	rep->team = "team7";
	rep->submission = s;
	rep->results = r;
	rep->nresults = 2;
	rep->ks = ks;
	rep->nks = 1;
	rep->gpu = gpu;
	rep->no_gpu_reason = gpu ? NULL : "no CUDA driver";
	rep->arch = "sm_90a";
	rep->seed = 42;
	rep->started = 86400;
}

static const cJSON *get(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	KT_ASSERT_MSG(v != NULL, "no \"%s\"", k);
	return v;
}

static void test_record_of_a_gpu_run(void)
{
	ks_kernel_result r[2];
	ks_submission s;
	ks_pass pass;
	ks_report rep;
	cJSON *j;
	const cJSON *sum;

	results(r);
	report_init(&rep, &s, &pass, r, "unused", 1);
	j = ks_report_record(&rep);
	KT_EQ_STR(get(j, "schema")->valuestring, "kscore.score/1");
	KT_EQ_STR(get(get(j, "scorer"), "name")->valuestring, "kscore");
	KT_EQ_STR(get(j, "team")->valuestring, "team7");
	KT_EQ_STR(get(j, "created")->valuestring, "1970-01-02T00:00:00Z");
	KT_EQ_STR(get(j, "mode")->valuestring, "gpu");
	KT_EQ_STR(get(j, "seed")->valuestring, "42");
	KT_EQ_STR(get(get(j, "submission"), "sha256")->valuestring, s.sha256);
	KT_EQ_INT(cJSON_GetArraySize(get(get(j, "submission"), "passes")), 1);
	sum = get(j, "summary");
	KT_EQ_INT(get(sum, "kernels")->valueint, 2);
	KT_NEAR(get(sum, "call_accuracy")->valuedouble, 1.0, 1e-12);
	KT_NEAR(get(sum, "exec_accuracy")->valuedouble, 0.5, 1e-12);
	KT_ASSERT(cJSON_IsNull(get(sum, "score"))); /* nothing was timed */
	KT_EQ_INT(get(cJSON_GetArrayItem(get(sum, "pass_at_k"), 0), "k")->valueint, 1);
	KT_EQ_INT(cJSON_GetArraySize(get(j, "kernels")), 2);
	KT_EQ_STR(get(cJSON_GetArrayItem(get(j, "kernels"), 1), "reason")->valuestring, "mismatch");
	KT_EQ_INT(cJSON_GetArraySize(get(j, "suspicious")), 0);
	KT_ASSERT(cJSON_IsNull(get(j, "ceilings")));
	cJSON_Delete(j);
	results_clear(r);
}

static char *slurp(const char *dir, const char *name)
{
	char *p = ks_path_join(dir, name), *text = NULL;
	if (ks_fs_read(&text, NULL, p, 16u << 20) < 0)
		KT_FAIL("cannot read %s: %s", p, ks_error_msg());
	ks_free(p);
	return text;
}

static void test_geak_files_and_score_json(void)
{
	ks_kernel_result r[2];
	ks_submission s;
	ks_pass pass;
	ks_report rep;
	char *out = ks_asprintf("%s/res", kt_tmpdir()), *text;
	cJSON *summary = NULL, *j = NULL;
	const cJSON *e;

	results(r);
	report_init(&rep, &s, &pass, r, out, 1);
	KT_EQ_INT(ks_report_write(&rep, &summary), 0);
	KT_ASSERT(summary != NULL);
	KT_NEAR(get(summary, "exec_accuracy")->valuedouble, 0.5, 1e-12);
	/* out.json: one GEAK-eval line per kernel, then the file's accuracies */
	text = slurp(out, "out.json");
	KT_CONTAINS(text, "File: vadd.py, Call Status: True, Exec Status: True, difficulty: 1, stderr: None");
	KT_CONTAINS(text, "File: rowsum.py, Call Status: True, Exec Status: False, difficulty: 2, stderr: "
			  "mismatch: case 7x1000: y[3] is 1, expected 2");
	KT_CONTAINS(text, "File: team/team.json, Call Accuracy: 1, Exec Accuracy: 0.5");
	ks_free(text);
	text = slurp(out, "out.json_results_0.json");
	KT_EQ_INT(ks_json_parse(&j, text, strlen(text), 16, "results"), 0);
	KT_EQ_INT(cJSON_GetArraySize(j), 2);
	e = cJSON_GetArrayItem(j, 1);
	KT_EQ_STR(get(e, "file_name")->valuestring, "rowsum.py");
	KT_EQ_INT(get(e, "call_status")->valueint, 1);
	KT_EQ_INT(get(e, "exec_status")->valueint, 0);
	KT_EQ_STR(get(e, "reason")->valuestring, "mismatch");
	cJSON_Delete(j);
	j = NULL;
	ks_free(text);
	text = slurp(out, "out.jsonpassk.txt");
	KT_EQ_STR(text, "Call Accuracy: 100.0\nExec Accuracy: 50.0\n");
	ks_free(text);
	text = slurp(out, "out.json_all_passes.json");
	KT_CONTAINS(text, "\"vadd.py\"");
	ks_free(text);
	text = slurp(out, "score.json");
	KT_EQ_INT(ks_json_parse(&j, text, strlen(text), 64, "score.json"), 0);
	KT_EQ_STR(get(j, "schema")->valuestring, "kscore.score/1");
	cJSON_Delete(j);
	ks_free(text);
	cJSON_Delete(summary);
	ks_free(out);
	results_clear(r);
}

/* Extended cases are reported per kernel (score.json, the GEAK results, performance_analysis.txt)
 * and never counted: the accuracies are those of the scored cases. */
static void test_extended_cases_are_reported_not_counted(void)
{
	ks_kernel_result r[2];
	ks_submission s;
	ks_pass pass;
	ks_report rep;
	char *out = ks_asprintf("%s/ext", kt_tmpdir()), *text;
	static const ks_config config = KS_CONFIG_INIT;
	cJSON *summary = NULL, *j = NULL;
	const cJSON *k, *e;

	results(r);
	r[0].extended = 4;
	r[0].extended_run = 4;
	r[0].extended_passed = 3;
	r[0].cases = ks_calloc(2, sizeof(*r[0].cases));
	r[0].ncases = 2;
	r[0].cases[0].label = ks_strdup("n=4");
	r[0].cases[0].passed = 1;
	r[0].cases[1].label = ks_strdup("n=20000");
	r[0].cases[1].extended = 1;
	r[0].cases[1].reason = KS_REASON_MISMATCH;
	r[0].cases[1].detail = ks_strdup("c[9] is 1, expected 2");
	r[1].extended = 2; /* its scored cases failed: not run */
	report_init(&rep, &s, &pass, r, out, 1);
	rep.config = &config;
	KT_EQ_INT(ks_report_write(&rep, &summary), 0);
	KT_NEAR(get(summary, "exec_accuracy")->valuedouble, 0.5, 1e-12);
	KT_NEAR(get(summary, "call_accuracy")->valuedouble, 1.0, 1e-12);
	text = slurp(out, "score.json");
	KT_EQ_INT(ks_json_parse(&j, text, strlen(text), 64, "score.json"), 0);
	ks_free(text);
	text = cJSON_PrintUnformatted(j);
	KT_CONTAINS(text, "\"extended\":{\"cases\":4,\"run\":4,\"passed\":3,\"text\":\"extended: 3 of 4\"}");
	KT_CONTAINS(text, "\"extended\":{\"cases\":2,\"run\":0,\"passed\":0,\"text\":\"extended: 2 not run "
			  "(the scored cases did not pass)\"}");
	KT_CONTAINS(text, "\"case\":\"n=20000\"");
	free(text);
	cJSON_Delete(j);
	j = NULL;
	text = slurp(out, "out.json_results_0.json");
	KT_EQ_INT(ks_json_parse(&j, text, strlen(text), 16, "results"), 0);
	k = cJSON_GetArrayItem(j, 0);
	KT_EQ_STR(get(k, "extended")->valuestring, "extended: 3 of 4");
	KT_EQ_INT(get(k, "exec_status")->valueint, 1);
	e = cJSON_GetArrayItem(j, 1);
	KT_EQ_STR(get(e, "extended")->valuestring, "extended: 2 not run (the scored cases did not pass)");
	cJSON_Delete(j);
	ks_free(text);
	text = slurp(out, "exec/performance_analysis.txt");
	KT_CONTAINS(text, "   extended: 3 of 4 (beyond the problem's domain: not counted)\n"
			  "     case n=20000: mismatch: c[9] is 1, expected 2\n");
	ks_free(text);
	cJSON_Delete(summary);
	ks_free(out);
	results_clear(r);
}

static void test_compile_only_folder(void)
{
	ks_kernel_result r[2];
	ks_submission s;
	ks_pass pass;
	ks_report rep;
	char *out = ks_asprintf("%s/co", kt_tmpdir()), *text;
	cJSON *j = NULL;

	results(r);
	r[0].ran = r[1].ran = 0;
	r[0].call = r[0].exec = r[1].call = 0;
	r[0].reason = KS_REASON_NOT_RUN;
	report_init(&rep, &s, &pass, r, out, 0);
	KT_EQ_INT(ks_report_write(&rep, NULL), 0);
	text = slurp(out, "out.json");
	KT_CONTAINS(text, "File: vadd.py, Compile Status: True, difficulty: 1");
	KT_CONTAINS(text, "Compile Accuracy: 1 (compile-only: no kernel was run)");
	ks_free(text);
	text = slurp(out, "out.jsonpassk.txt");
	KT_CONTAINS(text, "Compile-only: no kernel was run");
	ks_free(text);
	text = slurp(out, "score.json");
	KT_EQ_INT(ks_json_parse(&j, text, strlen(text), 64, "score.json"), 0);
	KT_EQ_STR(get(j, "mode")->valuestring, "compile-only");
	KT_EQ_STR(get(j, "no_gpu_reason")->valuestring, "no CUDA driver");
	KT_ASSERT(cJSON_IsNull(get(j, "device")));
	KT_ASSERT(cJSON_IsNull(get(cJSON_GetArrayItem(get(get(j, "summary"), "pass_at_k"), 0), "exec")));
	cJSON_Delete(j);
	ks_free(text);
	/* nothing is left beside the folder */
	{
		char **names = NULL;
		size_t n = 0, i;
		KT_EQ_INT(ks_fs_list(&names, &n, kt_tmpdir(), 1), 0);
		for (i = 0; i < n; i++)
			KT_ASSERT_MSG(!strstr(names[i], ".tmp-") && !strstr(names[i], ".old-"), "left: %s",
				      names[i]);
		ks_free_strv(names, n);
	}
	ks_free(out);
	results_clear(r);
}

static ks_device_info lane_dev(const char *uuid)
{
	ks_device_info d;
	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "NVIDIA H100 80GB HBM3");
	snprintf(d.uuid, sizeof(d.uuid), "%s", uuid);
	d.cc_major = 9;
	return d;
}

/* --devices: a record of two kernels scored with the given lanes (the lanes with their status,
 * which lane ran each kernel, the shared_gpu flag that keeps timings from lanes on one GPU from
 * passing as clean). */
static cJSON *lanes_record(const ks_report_lane *lanes, size_t nlanes, const int *kernel_lane)
{
	ks_submission *sub = NULL;
	ks_kernel_result res[2];
	ks_report rep;
	cJSON *j;
	int i;
	KT_EQ_INT(ks_submission_load(&sub, "tests/fixtures/cli/good.json", NULL), 0);
	memset(res, 0, sizeof(res));
	for (i = 0; i < 2; i++) {
		res[i].problem = ks_strdup(i ? "rowsum" : "vadd");
		res[i].compiled = res[i].call = res[i].exec = res[i].ran = 1;
	}
	memset(&rep, 0, sizeof(rep));
	rep.submission = sub;
	rep.results = res;
	rep.nresults = 2;
	rep.gpu = nlanes > 0;
	rep.device = nlanes ? lanes[0].device : NULL;
	rep.lanes = lanes;
	rep.nlanes = nlanes;
	rep.kernel_lane = kernel_lane;
	j = ks_report_record(&rep);
	for (i = 0; i < 2; i++)
		ks_kernel_result_clear(&res[i]);
	ks_submission_free(sub);
	return j;
}

static const cJSON *lanes_kernel(const cJSON *j, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(j, "kernels"), i);
}

static void test_two_lanes_on_one_gpu_are_marked_shared(void)
{
	ks_device_info d = lane_dev("GPU-0000");
	ks_report_lane lanes[2];
	int kl[2] = { 1, 0 };
	const cJSON *l, *g;
	cJSON *j;
	memset(lanes, 0, sizeof(lanes));
	lanes[0].device = lanes[1].device = &d;
	lanes[0].shared = lanes[1].shared = 1;
	j = lanes_record(lanes, 2, kl);
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "shared_gpu")));
	KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "devices")), 2);
	l = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "devices"), 1);
	KT_EQ_INT(cJSON_GetObjectItem(l, "lane")->valueint, 1);
	KT_EQ_STR(cJSON_GetObjectItem(l, "uuid")->valuestring, "GPU-0000");
	KT_EQ_STR(cJSON_GetObjectItem(l, "status")->valuestring, "ok");
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(l, "shared_gpu")));
	KT_EQ_INT(cJSON_GetObjectItem(l, "kernels")->valueint, 1);
	g = cJSON_GetObjectItem(lanes_kernel(j, 0), "gpu");
	KT_EQ_INT(cJSON_GetObjectItem(g, "lane")->valueint, 1);
	KT_EQ_INT(cJSON_GetObjectItem(g, "ordinal")->valueint, 0);
	KT_EQ_STR(cJSON_GetObjectItem(g, "uuid")->valuestring, "GPU-0000");
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(lanes_kernel(j, 0), "shared_gpu")));
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(lanes_kernel(j, 1), "shared_gpu")));
	cJSON_Delete(j);
}

static void test_lanes_of_their_own_gpus_are_clean_and_failures_recorded(void)
{
	ks_device_info d0 = lane_dev("GPU-0000"), d1 = lane_dev("GPU-1111");
	ks_report_lane lanes[3];
	int kl[2] = { 0, -1 };
	const cJSON *a;
	cJSON *j;
	memset(lanes, 0, sizeof(lanes));
	lanes[0].device = &d0;
	lanes[1].device = &d1;
	lanes[1].ordinal = 1;
	lanes[1].out = "a fresh worker cannot start";
	lanes[2].ordinal = 2;
	j = lanes_record(lanes, 3, kl);
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "shared_gpu")));
	a = cJSON_GetObjectItem(j, "devices");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 0), "status")->valuestring, "ok");
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 0), "failure")));
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 1), "status")->valuestring, "failed");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 1), "failure")->valuestring, "a fresh worker cannot start");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 2), "status")->valuestring, "not_started");
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 2), "uuid")));
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(lanes_kernel(j, 0), "shared_gpu")));
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(lanes_kernel(j, 1), "gpu"))); /* ran on none */
	/* the run's device record is unchanged: the first lane's */
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "device"), "uuid")->valuestring, "GPU-0000");
	cJSON_Delete(j);
}

static void test_without_a_gpu_there_are_no_lanes(void)
{
	cJSON *j = lanes_record(NULL, 0, NULL);
	KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "devices")), 0);
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "shared_gpu")));
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(lanes_kernel(j, 0), "gpu")));
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(lanes_kernel(j, 0), "shared_gpu")));
	cJSON_Delete(j);
}

static const kt_test tests[] = {
	KT(test_record_of_a_gpu_run),
	KT(test_geak_files_and_score_json), KT(test_extended_cases_are_reported_not_counted),
	KT(test_compile_only_folder),
	KT(test_two_lanes_on_one_gpu_are_marked_shared),
	KT(test_lanes_of_their_own_gpus_are_clean_and_failures_recorded),
	KT(test_without_a_gpu_there_are_no_lanes),
	{ NULL, NULL }
};

KT_MAIN("report", tests)
