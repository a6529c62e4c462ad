/* score calibrate: measures the GPUs' ceilings, or shows the cached ones (include/cmd.h). The work
 * is calibrate.c's; this file is options and output. With --devices every GPU listed (or all) is
 * measured at once, each in a worker of its own and never two on one GPU, so a box is calibrated
 * once for every lane a scoring run will have. */
#include "time/calibrate.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "session/scoreopts.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "load/paths.h"
#include "run/worker.h"

#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One GPU to calibrate. */
typedef struct {
	int ordinal;
	const char *exe, *cache;
	int force;
	ks_device_info info;
	int started, same_as;        /* same_as: index of an earlier item on the same GPU, or -1 */
	char *error;
	ks_ceilings c;
	int ok;
} gpu_job;

static void *probe_main(void *ud)
{
	gpu_job *g = ud;
	ks_worker_options wo = KS_WORKER_OPTIONS_INIT;
	ks_worker *w = NULL;
	wo.exe = g->exe;
	wo.device = g->ordinal;
	wo.role = "probe";
	if (ks_worker_start(&w, &g->info, &wo) < 0)
		g->error = ks_asprintf("no usable GPU %d: %s", g->ordinal, ks_error_msg());
	else
		g->started = 1;
	ks_worker_free(w);
	return NULL;
}

static void *calibrate_main(void *ud)
{
	gpu_job *g = ud;
	ks_compile_options co = KS_COMPILE_OPTIONS_INIT;
	co.cache_dir = g->cache;
	if (ks_ceilings_get(&g->c, g->cache, g->exe, g->ordinal, &g->info, &co, g->force) < 0)
		g->error = ks_strdup(ks_error_msg());
	else
		g->ok = 1;
	return NULL;
}

/* Runs fn on every job that wants it, each in a thread of its own (in the caller when none can be
 * had). */
static void each(gpu_job *g, size_t n, void *(*fn)(void *), int only_started)
{
	pthread_t *th = ks_calloc(n + 1, sizeof(*th));
	int *made = ks_calloc(n + 1, sizeof(*made));
	size_t i;
	for (i = 0; i < n; i++)
		if (!only_started || (g[i].started && g[i].same_as < 0))
			made[i] = 1 + (pthread_create(&th[i], NULL, fn, &g[i]) == 0);
	for (i = 0; i < n; i++) {
		if (made[i] == 2)
			pthread_join(th[i], NULL);
		else if (made[i] == 1)
			fn(&g[i]);
	}
	ks_free(th);
	ks_free(made);
}

static void print_text(const ks_ceilings *c, int ordinal, int several)
{
	if (several)
		printf("GPU %d\n", ordinal);
	printf("device:            %s (%s, driver %d)%s\n", c->device, c->arch, c->driver_version,
	       c->cached ? " [cached]" : "");
	printf("measured at:       %s\n", c->measured_at);
	printf("memory bandwidth:  %.0f GB/s (copies, bytes read + written: cuMemcpy %.0f, copy kernel %.0f; "
	       "read-only stream %.0f)\n",
	       c->bandwidth_gbps, c->memcpy_gbps, c->copy_kernel_gbps, c->read_kernel_gbps);
	printf("FP32 FMA:          %.1f TFLOP/s\n", c->fp32_tflops);
	printf("FP16 tensor cores: %.0f TFLOP/s (mma.sync %.0f, wgmma %.0f)\n", c->f16_tc_tflops, c->f16_mma_tflops,
	       c->f16_wgmma_tflops);
	printf("BF16 tensor cores: %.0f TFLOP/s (mma.sync %.0f, wgmma %.0f)\n", c->bf16_tc_tflops, c->bf16_mma_tflops,
	       c->bf16_wgmma_tflops);
	if (c->notes[0])
		printf("notes:             %s\n", c->notes);
	if (several)
		printf("\n");
}

int ks_calibrate_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "device", required_argument, 0, 'd' }, { "devices", required_argument, 0, 'D' },
		{ "cache-dir", required_argument, 0, 'c' }, { "force", no_argument, 0, 'f' },
		{ "json", no_argument, 0, 'j' },          { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	int devs[KS_PIPELINE_MAX_LANES] = { 0 };
	gpu_job *g = NULL;
	char *exe = NULL, *cache = NULL;
	size_t n = 1, i, k;
	int opt, all = 0, list = 0, force = 0, json = 0, rc = KS_EXIT_OK, started = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			if (ks_cli_device_parse(&devs[0], optarg) < 0) {
				rc = ks_cli_usage_error("score calibrate", "--device takes a device ordinal from 0 to %d",
							KS_DEVICE_MAX_ORDINAL);
				goto done;
			}
			n = 1;
			all = list = 0;
			break;
		case 'D': {
			ks_pipeline_options po = KS_PIPELINE_OPTIONS_INIT;
			if (ks_scoreopts_parse_devices(&po, optarg) < 0) {
				rc = ks_cli_usage_error("score calibrate", "--devices takes a device ordinal from 0 to "
							"%d, a comma-separated list of them, or all", KS_DEVICE_MAX_ORDINAL);
				goto done;
			}
			all = po.devices_all;
			n = po.ndevices;
			memcpy(devs, po.devices, n * sizeof(devs[0]));
			list = 1;
			break;
		}
		case 'c':
			ks_free(cache);
			cache = ks_strdup(optarg);
			break;
		case 'f':
			force = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			printf("Usage: score calibrate [--device N | --devices LIST|all] [--cache-dir DIR] [--force] [--json]\n"
			       "Measures the GPU's memory bandwidth and arithmetic ceilings (FP32 FMA, fp16/bf16\n"
			       "tensor cores through mma.sync and wgmma), caches them per device and driver, and\n"
			       "prints them. Scoring reads the cache (and measures once if there is none).\n"
			       "  --devices LIST|all  every GPU listed (or every GPU the driver sees), at once, each\n"
			       "            in a worker of its own, never two on one GPU (--json: an array)\n"
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
	exe = ks_fs_find_helper("kscore-worker");
	if (!exe) {
		fprintf(stderr, "score calibrate: %s\n", ks_error_msg());
		rc = KS_EXIT_SOFTWARE;
		goto done;
	}
	if (all) {
		/* how many there are, a worker on GPU 0 tells (score never initialises CUDA itself) */
		gpu_job p0;
		memset(&p0, 0, sizeof(p0));
		p0.exe = exe;
		probe_main(&p0);
		n = p0.started ? (size_t)p0.info.device_count : 0;
		if (n > KS_PIPELINE_MAX_LANES)
			n = KS_PIPELINE_MAX_LANES;
		for (i = 0; i < n; i++)
			devs[i] = (int)i;
		if (!n) {
			fprintf(stderr, "score calibrate: %s\n", p0.error ? p0.error : "the driver sees no GPU");
			ks_free(p0.error);
			rc = KS_EXIT_UNAVAILABLE;
			goto done;
		}
	}
	g = ks_calloc(n + 1, sizeof(*g));
	for (i = 0; i < n; i++) {
		g[i].ordinal = devs[i];
		g[i].exe = exe;
		g[i].cache = cache;
		g[i].force = force;
		g[i].same_as = -1;
	}
	each(g, n, probe_main, 0);
	/* a GPU listed twice is measured once: two measurements on one GPU would disturb each other */
	for (i = 0; i < n; i++)
		for (k = 0; g[i].started && k < i; k++)
			if (g[k].started && g[k].same_as < 0 && !strcmp(g[k].info.uuid, g[i].info.uuid) &&
			    (g[i].info.uuid[0] || g[k].ordinal == g[i].ordinal)) {
				g[i].same_as = (int)k;
				break;
			}
	each(g, n, calibrate_main, 1);
	for (i = 0; i < n; i++) {
		const gpu_job *src = g[i].same_as >= 0 ? &g[g[i].same_as] : &g[i];
		started += g[i].started;
		if (!g[i].started) {
			fprintf(stderr, "score calibrate: %s\n", g[i].error);
			if (rc == KS_EXIT_OK)
				rc = KS_EXIT_UNAVAILABLE;
		} else if (!src->ok) {
			if (g[i].same_as < 0)
				fprintf(stderr, "score calibrate: GPU %d: %s\n", g[i].ordinal, src->error);
			rc = KS_EXIT_SOFTWARE;
		}
	}
	if (json) {
		cJSON *a = list ? cJSON_CreateArray() : NULL, *o;
		char *s;
		for (i = 0; i < n; i++) {
			const gpu_job *src = g[i].same_as >= 0 ? &g[g[i].same_as] : &g[i];
			if (!src->ok)
				continue;
			o = ks_ceilings_json(&src->c);
			if (list) {
				cJSON_AddNumberToObject(o, "ordinal", g[i].ordinal);
				cJSON_AddItemToArray(a, o);
			} else
				a = o;
		}
		if (a) {
			s = cJSON_Print(a);
			printf("%s\n", s);
			cJSON_free(s);
			cJSON_Delete(a);
		}
	} else
		for (i = 0; i < n; i++) {
			const gpu_job *src = g[i].same_as >= 0 ? &g[g[i].same_as] : &g[i];
			if (src->ok)
				print_text(&src->c, g[i].ordinal, list);
		}
	if (!started && rc != KS_EXIT_UNAVAILABLE)
		rc = KS_EXIT_UNAVAILABLE;
done:
	for (i = 0; g && i < n; i++)
		ks_free(g[i].error);
	ks_free(g);
	ks_free(exe);
	ks_free(cache);
	return rc;
}
