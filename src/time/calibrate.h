/* calibrate: the device's ceilings, measured on the device itself (DESIGN §4.7): memory bandwidth
 * (the best of a large device-to-device copy, bytes read plus written, by cuMemcpy and by a copy
 * kernel, and of a read-only streaming kernel: reads alone run faster than a copy's mix, and a
 * kernel that mostly reads must not look faster than the device) and
 * arithmetic rates (FP32 FMA; fp16/bf16 tensor cores through mma.sync and, on Hopper, wgmma).
 * Results are cached per device and driver, so scoring measures once and reuses them; the roofline
 * verdicts compare every timing against these numbers, never against a datasheet. */
#ifndef KS_CALIBRATE_H
#define KS_CALIBRATE_H

#include <cJSON.h>
#include "lang/cuda/compile.h"
#include "run/device.h"
#include "run/proto.h"

/* The calibration kernels' names, in ks_cal_kernel order (proto.h). */
extern const char *const ks_calibrate_kernels[KS_CAL_COUNT];
const char *ks_calibrate_source(void);

typedef struct {
	double bandwidth_gbps;                  /* the ceiling used: the best of the three below */
	double memcpy_gbps, copy_kernel_gbps;   /* copies: bytes read + written */
	double read_kernel_gbps;                /* a read-only stream: bytes read */
	double fp32_tflops;
	double f16_mma_tflops, bf16_mma_tflops;
	double f16_wgmma_tflops, bf16_wgmma_tflops;
	double f16_tc_tflops, bf16_tc_tflops;   /* the ceilings used: best tensor-core path */
	char device[256], uuid[64], arch[16], measured_at[32];
	int driver_version;
	char notes[512];                        /* paths that could not be measured, and why */
	int cached;                             /* loaded from the cache, not measured now */
} ks_ceilings;

/* Measures the ceilings of `device` in a worker of its own (a kernel refused by the driver cannot
 * harm the scoring workers). co->arch is replaced by the device's own. */
int ks_calibrate_measure(ks_ceilings *out, const char *worker_exe, int device, const ks_compile_options *co);

/* Returns cached ceilings for this device and driver if there are any (0), else measures and
 * caches them. force = 1 always measures. cache_dir may be NULL (no cache). */
int ks_ceilings_get(ks_ceilings *out, const char *cache_dir, const char *worker_exe, int device,
		    const ks_device_info *dev, const ks_compile_options *co, int force);

/* The arithmetic ceiling in TFLOP/s for a problem's "peak" (f32, f16_tc, bf16_tc); 0 for none. */
double ks_ceilings_peak(const ks_ceilings *c, const char *peak);

cJSON *ks_ceilings_json(const ks_ceilings *c);
int ks_ceilings_from_json(ks_ceilings *c, const cJSON *j);

#endif
