#include "ktest.h"
#include "time/calibrate.h"
#include "lang/cuda/compile.h"
#include "run/harness.h"
#include "worker/nvml.h"

/* The device-side sources the scorer ships must compile for the GPUs it targets: the calibration
 * kernels (with wgmma on Hopper, without it elsewhere) and the harness kernels. */
static void compile_names(const char *src, const char *arch, const char *const *names, size_t n,
			  ks_compile_status want)
{
	ks_compile_options o = KS_COMPILE_OPTIONS_INIT;
	ks_compile_job j;
	memset(&j, 0, sizeof(j));
	o.arch = arch;
	o.jobs = 1;
	j.source = src;
	j.names = names;
	j.nnames = n;
	KT_EQ_INT(ks_compile_run(&j, 1, &o), 0);
	KT_ASSERT_MSG(j.status == want, "%s for %s: %s: %s", names[0], arch, ks_compile_status_name(j.status),
		      j.log);
	ks_compile_job_clear(&j);
}

static void test_calibration_kernels_compile_for_hopper_with_wgmma(void)
{
	compile_names(ks_calibrate_source(), "sm_90a", ks_calibrate_kernels, KS_CAL_COUNT, KS_COMPILE_OK);
}

static void test_calibration_kernels_without_wgmma_elsewhere(void)
{
	compile_names(ks_calibrate_source(), "sm_80", ks_calibrate_kernels, KS_CAL_COUNT, KS_COMPILE_NONAME);
	compile_names(ks_calibrate_source(), "sm_80", ks_calibrate_kernels, KS_CAL_WGMMA_F16, KS_COMPILE_OK);
}

static void test_harness_kernels_compile(void)
{
	compile_names(ks_harness_source(), "sm_90a", ks_harness_kernels, KS_HK_COUNT, KS_COMPILE_OK);
	compile_names(ks_harness_source(), "sm_80", ks_harness_kernels, KS_HK_COUNT, KS_COMPILE_OK);
}

static void test_ceilings_json_roundtrip_and_peaks(void)
{
	ks_ceilings c, d;
	cJSON *j;
	memset(&c, 0, sizeof(c));
	c.memcpy_gbps = 2900;
	c.copy_kernel_gbps = 3010;
	c.fp32_tflops = 60;
	c.f16_mma_tflops = 500;
	c.f16_wgmma_tflops = 780;
	c.bf16_mma_tflops = 510;
	strcpy(c.device, "test");
	j = ks_ceilings_json(&c);
	KT_EQ_INT(ks_ceilings_from_json(&d, j), 0);
	KT_NEAR(d.bandwidth_gbps, 3010, 0); /* best of the two copies */
	KT_NEAR(ks_ceilings_peak(&d, "f16_tc"), 780, 0); /* best tensor-core path */
	KT_NEAR(ks_ceilings_peak(&d, "bf16_tc"), 510, 0);
	KT_NEAR(ks_ceilings_peak(&d, "f32"), 60, 0);
	KT_NEAR(ks_ceilings_peak(&d, "none"), 0, 0);
	cJSON_Delete(j);
	/* a read-only stream faster than the copies sets the bandwidth ceiling */
	c.read_kernel_gbps = 3180;
	j = ks_ceilings_json(&c);
	KT_EQ_INT(ks_ceilings_from_json(&d, j), 0);
	KT_NEAR(d.read_kernel_gbps, 3180, 0);
	KT_NEAR(d.bandwidth_gbps, 3180, 0);
	cJSON_Delete(j);
	/* a /1 record (before the read-only stream) still loads */
	j = cJSON_Parse("{\"schema\": \"kscore.ceilings/1\", \"memcpy_gbps\": 2900, \"copy_kernel_gbps\": 2800, "
			"\"fp32_tflops\": 60}");
	KT_EQ_INT(ks_ceilings_from_json(&d, j), 0);
	KT_NEAR(d.bandwidth_gbps, 2900, 0);
	cJSON_Delete(j);
	/* every measured rate is stored under its record name and read back into its own field */
	c.bf16_wgmma_tflops = 790;
	j = ks_ceilings_json(&c);
	KT_NEAR(cJSON_GetObjectItem(j, "f16_mma_sync_tflops")->valuedouble, 500, 0);
	KT_NEAR(cJSON_GetObjectItem(j, "bf16_mma_sync_tflops")->valuedouble, 510, 0);
	KT_NEAR(cJSON_GetObjectItem(j, "f16_wgmma_tflops")->valuedouble, 780, 0);
	KT_NEAR(cJSON_GetObjectItem(j, "bf16_wgmma_tflops")->valuedouble, 790, 0);
	KT_NEAR(cJSON_GetObjectItem(j, "read_kernel_gbps")->valuedouble, 3180, 0);
	KT_EQ_INT(ks_ceilings_from_json(&d, j), 0);
	KT_NEAR(d.memcpy_gbps, 2900, 0);
	KT_NEAR(d.copy_kernel_gbps, 3010, 0);
	KT_NEAR(d.read_kernel_gbps, 3180, 0);
	KT_NEAR(d.fp32_tflops, 60, 0);
	KT_NEAR(d.f16_mma_tflops, 500, 0);
	KT_NEAR(d.bf16_mma_tflops, 510, 0);
	KT_NEAR(d.f16_wgmma_tflops, 780, 0);
	KT_NEAR(d.bf16_wgmma_tflops, 790, 0);
	KT_NEAR(ks_ceilings_peak(&d, "bf16_tc"), 790, 0);
	cJSON_Delete(j);
	KT_EQ_STR(ks_nvml_throttle_names(0), "none");
	KT_EQ_STR(ks_nvml_throttle_names(0x4 | 0x40), "sw_power_cap, hw_thermal");
}

static const kt_test tests[] = {
	KT(test_calibration_kernels_compile_for_hopper_with_wgmma),
	KT(test_calibration_kernels_without_wgmma_elsewhere), KT(test_harness_kernels_compile),
	KT(test_ceilings_json_roundtrip_and_peaks), { 0 }
};
KT_MAIN("calibrate", tests)
