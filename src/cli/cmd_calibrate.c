/* score calibrate: measures the GPU's ceilings, or shows the cached ones (src/cli/cmd.h). The work
 * is calibrate.c's; this file is options and output. */
#include "time/calibrate.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "load/paths.h"
#include "run/worker.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

int ks_calibrate_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "device", required_argument, 0, 'd' }, { "cache-dir", required_argument, 0, 'c' },
		{ "force", no_argument, 0, 'f' },         { "json", no_argument, 0, 'j' },
		{ "help", no_argument, 0, 'h' },          { 0, 0, 0, 0 }
	};
	ks_compile_options co = KS_COMPILE_OPTIONS_INIT;
	ks_worker_options wo = KS_WORKER_OPTIONS_INIT;
	ks_device_info info;
	ks_worker *w = NULL;
	ks_ceilings c;
	char *exe = NULL, *cache = NULL;
	int opt, device = 0, force = 0, json = 0, rc = KS_EXIT_OK;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (ks_cli_device_parse(&device, optarg) < 0) {
				rc = ks_cli_usage_error("score calibrate", "--device takes a device ordinal from 0 to %d",
							KS_DEVICE_MAX_ORDINAL);
				goto done;
			}
			break;
		case 'c':
			cache = ks_strdup(optarg);
			break;
		case 'f':
			force = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			printf("Usage: score calibrate [--device N] [--cache-dir DIR] [--force] [--json]\n"
			       "Measures the GPU's memory bandwidth and arithmetic ceilings (FP32 FMA, fp16/bf16\n"
			       "tensor cores through mma.sync and wgmma), caches them per device and driver, and\n"
			       "prints them. Scoring reads the cache (and measures once if there is none).\n"
			       "  --force   measure even if the cache has them\n"
			       "Exit status: 0 measured or cached, 69 no usable GPU, 70 calibration failed, 64 usage.\n");
			ks_free(cache);
			return KS_EXIT_OK;
		default:
			ks_free(cache);
			return KS_EXIT_USAGE;
		}
	}
	if (!cache)
		cache = ks_paths_default_cache();
	co.cache_dir = cache;
	exe = ks_fs_find_helper("kscore-worker");
	if (!exe) {
		fprintf(stderr, "score calibrate: %s\n", ks_error_msg());
		rc = KS_EXIT_SOFTWARE;
		goto done;
	}
	wo.exe = exe;
	wo.device = device;
	wo.role = "probe";
	if (ks_worker_start(&w, &info, &wo) < 0) {
		fprintf(stderr, "score calibrate: no usable GPU: %s\n", ks_error_msg());
		rc = KS_EXIT_UNAVAILABLE;
		goto done;
	}
	ks_worker_free(w);
	if (ks_ceilings_get(&c, cache, exe, device, &info, &co, force) < 0) {
		fprintf(stderr, "score calibrate: %s\n", ks_error_msg());
		rc = KS_EXIT_SOFTWARE;
		goto done;
	}
	if (json) {
		cJSON *o = ks_ceilings_json(&c);
		char *s = cJSON_Print(o);
		printf("%s\n", s);
		cJSON_free(s);
		cJSON_Delete(o);
	} else {
		printf("device:            %s (%s, driver %d)%s\n", c.device, c.arch, c.driver_version,
		       c.cached ? " [cached]" : "");
		printf("measured at:       %s\n", c.measured_at);
		printf("memory bandwidth:  %.0f GB/s (copies, bytes read + written: cuMemcpy %.0f, copy kernel %.0f; "
		       "read-only stream %.0f)\n",
		       c.bandwidth_gbps, c.memcpy_gbps, c.copy_kernel_gbps, c.read_kernel_gbps);
		printf("FP32 FMA:          %.1f TFLOP/s\n", c.fp32_tflops);
		printf("FP16 tensor cores: %.0f TFLOP/s (mma.sync %.0f, wgmma %.0f)\n", c.f16_tc_tflops,
		       c.f16_mma_tflops, c.f16_wgmma_tflops);
		printf("BF16 tensor cores: %.0f TFLOP/s (mma.sync %.0f, wgmma %.0f)\n", c.bf16_tc_tflops,
		       c.bf16_mma_tflops, c.bf16_wgmma_tflops);
		if (c.notes[0])
			printf("notes:             %s\n", c.notes);
	}
done:
	ks_free(exe);
	ks_free(cache);
	return rc;
}
