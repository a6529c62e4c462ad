/* report tests: what score.json says about the GPUs of a run (--devices): the lanes with their
 * status, which lane ran each kernel, and the shared_gpu flag that keeps timings from lanes on one
 * GPU from passing as clean. */
#include "ktest.h"
#include "report.h"
#include "errors.h"
#include "mem.h"

static ks_device_info dev(const char *uuid)
{
	ks_device_info d;
	memset(&d, 0, sizeof(d));
	snprintf(d.name, sizeof(d.name), "NVIDIA H100 80GB HBM3");
	snprintf(d.uuid, sizeof(d.uuid), "%s", uuid);
	d.cc_major = 9;
	return d;
}

/* A record of two kernels scored with the given lanes. */
static cJSON *record(const ks_report_lane *lanes, size_t nlanes, const int *kernel_lane)
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

static const cJSON *kernel(const cJSON *j, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(j, "kernels"), i);
}

static void test_two_lanes_on_one_gpu_are_marked_shared(void)
{
	ks_device_info d = dev("GPU-0000");
	ks_report_lane lanes[2];
	int kl[2] = { 1, 0 };
	const cJSON *l, *g;
	cJSON *j;
	memset(lanes, 0, sizeof(lanes));
	lanes[0].device = lanes[1].device = &d;
	lanes[0].shared = lanes[1].shared = 1;
	j = record(lanes, 2, kl);
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "shared_gpu")));
	KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "devices")), 2);
	l = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "devices"), 1);
	KT_EQ_INT(cJSON_GetObjectItem(l, "lane")->valueint, 1);
	KT_EQ_STR(cJSON_GetObjectItem(l, "uuid")->valuestring, "GPU-0000");
	KT_EQ_STR(cJSON_GetObjectItem(l, "status")->valuestring, "ok");
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(l, "shared_gpu")));
	KT_EQ_INT(cJSON_GetObjectItem(l, "kernels")->valueint, 1);
	g = cJSON_GetObjectItem(kernel(j, 0), "gpu");
	KT_EQ_INT(cJSON_GetObjectItem(g, "lane")->valueint, 1);
	KT_EQ_INT(cJSON_GetObjectItem(g, "ordinal")->valueint, 0);
	KT_EQ_STR(cJSON_GetObjectItem(g, "uuid")->valuestring, "GPU-0000");
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(kernel(j, 0), "shared_gpu")));
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(kernel(j, 1), "shared_gpu")));
	cJSON_Delete(j);
}

static void test_lanes_of_their_own_gpus_are_clean_and_failures_recorded(void)
{
	ks_device_info d0 = dev("GPU-0000"), d1 = dev("GPU-1111");
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
	j = record(lanes, 3, kl);
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "shared_gpu")));
	a = cJSON_GetObjectItem(j, "devices");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 0), "status")->valuestring, "ok");
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 0), "failure")));
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 1), "status")->valuestring, "failed");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 1), "failure")->valuestring, "a fresh worker cannot start");
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 2), "status")->valuestring, "not_started");
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetArrayItem(a, 2), "uuid")));
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(kernel(j, 0), "shared_gpu")));
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(kernel(j, 1), "gpu"))); /* ran on none */
	/* the run's device record is unchanged: the first lane's */
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "device"), "uuid")->valuestring, "GPU-0000");
	cJSON_Delete(j);
}

static void test_without_a_gpu_there_are_no_lanes(void)
{
	cJSON *j = record(NULL, 0, NULL);
	KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "devices")), 0);
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "shared_gpu")));
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(kernel(j, 0), "gpu")));
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(kernel(j, 0), "shared_gpu")));
	cJSON_Delete(j);
}

static const kt_test tests[] = {
	KT(test_two_lanes_on_one_gpu_are_marked_shared),
	KT(test_lanes_of_their_own_gpus_are_clean_and_failures_recorded),
	KT(test_without_a_gpu_there_are_no_lanes),
	{ 0 }
};
KT_MAIN("report", tests)
