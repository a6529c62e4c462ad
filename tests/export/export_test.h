/* Fixtures of the site tests, built by the scorer's own writers (ks_report_write for each
 * team's result folder, ks_leaderboard_write for the leaderboard, batch.json as `score
 * batch` writes it), so their formats are the real ones by construction.
 *
 * fx_standard_batch writes a realistic GPU batch (H100 numbers from docs/problems.md: speedups,
 * failures, a suspicious kernel, a CJK name, a team without a result, later commits); it is
 * committed as web_export/fixtures/batch/ (`make export-fixture` writes it again) and the
 * tests read it from KSCORE_EXPORT_FIXTURE when set, so a batch recorded on a GPU host can take
 * its place. fx_edge_batch writes hostile and broken input for the escaping tests. */
#ifndef KS_EXPORT_TEST_H
#define KS_EXPORT_TEST_H

#include "batch/batch.h"
#include "time/calibrate.h"
#include "time/config.h"
#include "util/fsutil.h"
#include "util/hash.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "report/report.h"
#include "run/result.h"
#include "load/submission.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FX static __attribute__((unused))

#define FX_DEADLINE 1756079999 /* 2025-08-24T23:59:59Z */
#define FX_BW 3006.4

typedef struct {
	const char *name, *file, *kernel;
	const char *labels[3];
	double bytes[3], flops[3], golden_ms[3];
	double peak;     /* TFLOP/s of the problem's arithmetic ceiling; 0: none */
	int ncases, registers, shared;
} fx_problem;

/* The ten hackathon problems: perf cases, minimum bytes and FLOPs from the specs, golden medians
 * measured on an H100 (docs/problems.md). */
static const fx_problem fx_problems[] = {
	{ "sin_kernel", "sin_kernel.py", "sin_kernel", { "n=67108864", "n=134217728", "n=100000007" },
	  { 536870912, 1073741824, 800000056 }, { 67108864, 134217728, 100000007 }, { 0.1821, 0.3590, 0.2697 },
	  65.0, 3, 16, 0 },
	{ "matrix_transpose", "matrix_transpose.py", "transpose_kernel",
	  { "m=16384, n=16384", "m=4194304, n=64", "m=8192, n=32776" }, { 1073741824, 1073741824, 1074003968 },
	  { 0, 0, 0 }, { 0.3813, 0.3861, 0.3928 }, 0, 3, 24, 4352 },
	{ "l2_norm_triton1", "l2_norm_triton1.py", "l2_norm_kernel",
	  { "rows=2048, cols=65536", "rows=64, cols=2097152", "rows=16, cols=8388608" },
	  { 1073741824, 1073741824, 1073741824 }, { 402653184, 402653184, 402653184 }, { 0.5699, 0.5722, 0.5522 },
	  0, 3, 32, 128 },
	{ "embedding_triton_kernel", "embedding_triton_kernel.py", "embedding_kernel",
	  { "seq=32768, vocab=131072, hidden=4096", "seq=131072, vocab=524288, hidden=1024",
	    "seq=262144, vocab=10000, hidden=768" }, { 503400800, 503839600, 403728000 }, { 0, 0, 0 },
	  { 0.1928, 0.1892, 0.1941 }, 0, 3, 20, 0 },
	{ "flash_decode2_phi", "flash_decode2_phi.py", "flash_decode_stage2",
	  { "batch=32768, heads=8, nblk=16, head_dim=64", "batch=2048, heads=32, nblk=16, head_dim=128" },
	  { 1158034500, 574557900 }, { 536870912, 268435456 }, { 0.4365, 0.2247 }, 0, 2, 40, 0 },
	{ "matrix_vector_multip", "matrix_vector_multip.py", "mv_kernel",
	  { "n=16384, m=8192", "n=4096, m=32768", "n=1048576, m=128" }, { 536969216, 537018368, 541065728 },
	  { 268435456, 268435456, 268435456 }, { 0.1888, 0.2012, 0.1889 }, 0, 3, 30, 1024 },
	{ "rotary_transform", "rotary_transform.py", "rotary_kernel",
	  { "batch=32, seqlen=2048, nheads=16, headdim=128", "batch=2048, seqlen=128, nheads=8, headdim=64",
	    "batch=16, seqlen=4096, nheads=32, headdim=64" }, { 1074328200, 1074048000, 1075030000 },
	  { 201326592, 201326592, 402653184 }, { 0.3742, 0.3840, 0.3707 }, 0, 3, 28, 0 },
	{ "l2_norm_bwd", "l2_norm_bwd.py", "l2_norm_bwd_kernel",
	  { "rows=16384, cols=4096", "rows=4096, cols=16384", "rows=262144, cols=256" },
	  { 805306368, 805306368, 805306368 }, { 469762048, 469762048, 469762048 }, { 0.2684, 0.2709, 0.2671 },
	  0, 3, 38, 256 },
	{ "int4_matmul", "int4_matmul.py", "int4_gemm",
	  { "M=4096, N=4096, K=4096, G=128", "M=8192, N=8192, K=4096, G=128", "M=512, N=8192, K=8192, G=128" },
	  { 75825152, 218759168, 51642368 }, { 137438953472.0, 549755813888.0, 68719476736.0 },
	  { 0.2722, 1.0755, 0.1404 }, 965.5, 3, 168, 49152 },
	{ "triton_matmul", "triton_matmul.py", "matmul_kernel",
	  { "M=4096, N=4096, K=4096", "M=8192, N=8192, K=8192", "M=3000, N=5000, K=4000" },
	  { 100663296, 402653184, 94000000 }, { 137438953472.0, 1099511627776.0, 120000000000.0 },
	  { 0.2560, 2.0838, 0.3563 }, 965.5, 3, 128, 32768 },
};

#define FX_NPROBLEMS (sizeof(fx_problems) / sizeof(fx_problems[0]))

/* What one entry did: a speedup per case (NAN: the kernel failed with `reason`). */
typedef struct {
	const char *problem;
	double speedup;          /* the same factor for every case */
	ks_reason reason;        /* KS_REASON_OK for a correct kernel */
	const char *detail;
	const char *code;        /* predict text; NULL: a plain one is made up */
	const char *output;      /* device output; NULL: none */
} fx_entry;

typedef struct {
	const char *name, *folder;
	int gpu;                 /* 0: compile-only */
	const fx_entry *entries;
	size_t n;
	/* batch.json */
	const char *status, *reason, *detail;  /* status NULL: scored */
	const char *commit, *commit_time, *subject;
	int64_t commit_epoch;
	int nlater, later_ancestor;
	const char *fetch_warning;
} fx_team;

static const fx_problem *fx_problem_find(const char *name)
{
	size_t i;
	for (i = 0; i < FX_NPROBLEMS; i++)
		if (!strcmp(fx_problems[i].name, name))
			return &fx_problems[i];
	return NULL;
}

static char *fx_predict(const fx_problem *p, const fx_entry *e)
{
	if (e->code)
		return ks_strdup(e->code);
	return ks_asprintf("Here is the kernel.\n```cuda\n#include <cuda_fp16.h>\n\n// %s\n"
			   "extern \"C\" __global__ void %s(const float *x, float *y, int n)\n{\n"
			   "\tint i = blockIdx.x * blockDim.x + threadIdx.x;\n\tif (i < n)\n\t\ty[i] = x[i];\n}\n```\n",
			   p ? p->name : "unknown", p ? p->kernel : "k");
}

/* Fills one kernel result as the pipeline would, with numbers derived from the golden times. */
static void fx_result(ks_kernel_result *r, size_t index, const fx_entry *e, int gpu, const ks_config *cfg,
		      const ks_ceilings *ceil)
{
	const fx_problem *p = fx_problem_find(e->problem);
	char *predict = fx_predict(p, e);
	double sg = 0, sc = 0, sf = 0, lg = 0;
	size_t c;

	memset(r, 0, sizeof(*r));
	r->index = index;
	r->file = ks_strdup(p ? p->file : e->problem);
	r->problem = p ? ks_strdup(p->name) : NULL;
	r->difficulty = -1;
	{
		/* the entry's sha256 as ks_submission computes it: predict, then launch (none) */
		ks_sha256 *h = ks_sha256_new();
		ks_sha256_update_str(h, predict);
		ks_sha256_update_str(h, NULL);
		ks_sha256_final(h, r->entry_sha256);
	}
	ks_free(predict);
	r->extract_note = ks_strdup("1 ```cuda block");
	r->launch_source = ks_strdup("problem default");
	r->compile_s = 0.21 + 0.01 * (double)index;
	if (e->reason == KS_REASON_COMPILE_ERROR) {
		r->reason = e->reason;
		r->detail = ks_strdup(e->detail ? e->detail : "NVRTC: 1 error");
		r->compile_log = ks_strdup("kernel.cu(12): error: identifier \"INFINITY\" is undefined\n"
					   "1 error detected in the compilation of \"kernel.cu\".\n");
		return;
	}
	r->compiled = 1;
	r->nkernels = 1;
	r->kernels = ks_calloc(1, sizeof(*r->kernels));
	r->kernels[0].name = ks_strdup(p ? p->kernel : "k");
	r->kernels[0].info.registers = p ? p->registers : 32;
	r->kernels[0].info.shared_static = p ? p->shared : 0;
	r->kernels[0].info.local_bytes = e->speedup < 0.2 ? 96 : 0;
	r->kernels[0].info.max_threads = 1024;
	if (!gpu) {
		r->reason = KS_REASON_NOT_RUN;
		r->detail = ks_strdup("compiled for sm_90a; not run (no GPU)");
		return;
	}
	r->ran = 1;
	r->call = 1;
	r->ncases = 3;
	r->cases = ks_calloc(3, sizeof(*r->cases));
	for (c = 0; c < 3; c++) {
		ks_case_result *k = &r->cases[c];
		k->label = ks_strdup(c == 0 ? "n=1" : c == 1 ? "n=1000" : "n=4097");
		k->case_index = c;
		k->seed_index = c == 2 ? -1 : 0;
		k->seed = 1000003ull * (c + 1) + index;
		k->passed = 1;
		k->ms = 0.004 + 0.001 * (double)c;
	}
	r->check_s = 0.05;
	if (e->reason != KS_REASON_OK) {
		r->reason = e->reason;
		r->detail = ks_strdup(e->detail ? e->detail : "mismatch");
		r->cases[1].passed = 0;
		r->cases[1].reason = e->reason;
		r->cases[1].detail = ks_strdup(e->detail ? e->detail : "mismatch");
		return;
	}
	r->exec = 1;
	if (!p)
		return;
	r->timed = 1;
	r->nperf = (size_t)p->ncases;
	r->perf = ks_calloc(r->nperf, sizeof(*r->perf));
	for (c = 0; c < r->nperf; c++) {
		ks_perf_result *q = &r->perf[c];
		double bw_ms = p->bytes[c] / (ceil->bandwidth_gbps * 1e6);
		double fl_ms = p->peak > 0 ? p->flops[c] / (p->peak * 1e9) : 0;
		q->label = ks_strdup(p->labels[c]);
		q->case_index = c;
		q->golden_ms = p->golden_ms[c];
		q->ms = p->golden_ms[c] / e->speedup;
		q->ms_min = q->ms * 0.985;
		q->ms_max = q->ms * 1.02;
		q->ms_stdev = q->ms * 0.006;
		q->runs = 40 + 2 * c;
		q->rel_error = 0.001;
		q->golden_min = q->golden_ms * 0.99;
		q->golden_max = q->golden_ms * 1.015;
		q->golden_stdev = q->golden_ms * 0.005;
		q->golden_runs = 40 + 2 * c;
		q->golden_rel_error = 0.0009;
		q->speedup = q->golden_ms / q->ms;
		q->bytes = p->bytes[c];
		q->flops = p->flops[c];
		q->gbps = q->bytes / q->ms / 1e6;
		q->tflops = q->flops / q->ms / 1e9;
		q->floor_ms = bw_ms > fl_ms ? bw_ms : fl_ms;
		q->roofline_fraction = q->floor_ms / q->ms;
		q->verified = cfg->verify_runs;
		if (q->ms < q->floor_ms * (1 - cfg->roofline_margin)) {
			q->suspicious = 1;
			q->why = ks_asprintf("%.4f ms is %.0f%% below the roofline floor %.4f ms (%.0f bytes at %.0f GB/s, "
					     "%.3g FLOPs at %.1f TFLOP/s)", q->ms, 100 * (1 - q->ms / q->floor_ms),
					     q->floor_ms, q->bytes, ceil->bandwidth_gbps, q->flops, p->peak);
			if (!r->suspicious) {
				r->suspicious = 1;
				r->suspicious_why = ks_asprintf("perf case %s: %s", q->label, q->why);
			}
		}
		sg += q->golden_ms;
		sc += q->ms;
		sf += q->floor_ms;
		lg += log(q->speedup);
	}
	r->speedup = sg / sc;
	r->speedup_geomean = exp(lg / (double)r->nperf);
	r->roofline_fraction = sf / sc;
	r->score = r->suspicious ? 0 : r->speedup;
	r->timing_s = 0.4;
	r->timing_gpu_ms = 2 * sc * 40;
}

/* Writes <dir>/<folder>/ with the scorer's report writer and, for a batch, batch.json. */
FX void fx_write_team(const char *results, const fx_team *t, int batch)
{
	ks_config cfg = KS_CONFIG_INIT;
	ks_ceilings ceil;
	ks_device_info dev;
	ks_submission sub;
	ks_pass pass;
	ks_report rep;
	ks_kernel_result *res = ks_calloc(t->n + 1, sizeof(*res));
	int ks[1] = { 1 };
	char *dir = ks_path_join(results, t->folder);
	size_t i;

	memset(&ceil, 0, sizeof(ceil));
	ceil.bandwidth_gbps = FX_BW;
	ceil.memcpy_gbps = 2741.2;
	ceil.copy_kernel_gbps = 2860.9;
	ceil.read_kernel_gbps = FX_BW;
	ceil.fp32_tflops = 65.0;
	ceil.f16_mma_tflops = 662.1;
	ceil.bf16_mma_tflops = 661.8;
	ceil.f16_wgmma_tflops = 965.5;
	ceil.bf16_wgmma_tflops = 965.3;
	ceil.f16_tc_tflops = 965.5;
	ceil.bf16_tc_tflops = 965.3;
	snprintf(ceil.device, sizeof(ceil.device), "NVIDIA H100 80GB HBM3");
	snprintf(ceil.uuid, sizeof(ceil.uuid), "GPU-5c3b2f1e-8a7d-4f0c-9b1e-2d4c6a8e0f13");
	snprintf(ceil.arch, sizeof(ceil.arch), "sm_90a");
	snprintf(ceil.measured_at, sizeof(ceil.measured_at), "2025-08-25T01:12:40Z");
	ceil.driver_version = 13000;
	ceil.cached = 1;
	memset(&dev, 0, sizeof(dev));
	snprintf(dev.name, sizeof(dev.name), "NVIDIA H100 80GB HBM3");
	snprintf(dev.uuid, sizeof(dev.uuid), "%s", ceil.uuid);
	snprintf(dev.pci_bus_id, sizeof(dev.pci_bus_id), "00000000:19:00.0");
	dev.driver_version = 13000;
	dev.cc_major = 9;
	dev.sm_count = 132;
	dev.l2_bytes = 52428800;
	dev.clock_khz = 1980000;
	dev.memory_clock_khz = 2619000;
	dev.memory_bus_bits = 5120;
	dev.ecc = 1;
	dev.memory_bytes = 85045477376ull;

	memset(&pass, 0, sizeof(pass));
	pass.path = ks_strdup("submissions/reflexion_oneshot_tritonbench_4.json");
	pass.name = ks_strdup("reflexion_oneshot_tritonbench_4.json");
	pass.nentries = t->n;
	ks_sha256_hex(pass.sha256, t->name, strlen(t->name));
	memset(&sub, 0, sizeof(sub));
	sub.path = batch ? ks_asprintf("https://github.com/example/%s.git@%s:%s", t->folder,
				       t->commit ? t->commit : "0", pass.path)
			 : ks_strdup(pass.path);
	sub.passes = &pass;
	sub.npasses = 1;
	ks_sha256_hex(sub.sha256, pass.sha256, 64);
	for (i = 0; i < t->n; i++)
		fx_result(&res[i], i, &t->entries[i], t->gpu, &cfg, &ceil);

	memset(&rep, 0, sizeof(rep));
	rep.out_dir = dir;
	rep.team = t->name;
	rep.submission = &sub;
	rep.results = res;
	rep.nresults = t->n;
	rep.ks = ks;
	rep.nks = 1;
	rep.gpu = t->gpu;
	rep.no_gpu_reason = t->gpu ? NULL : "no CUDA driver (libcuda.so.1 not found)";
	rep.device = t->gpu ? &dev : NULL;
	rep.arch = "sm_90a";
	rep.nvrtc_version = "13.0";
	rep.seed = 0x5eed5eedull + (uint64_t)strlen(t->name);
	rep.started = (time_t)FX_DEADLINE + 3600;
	rep.wall_s = 3.5 + 0.4 * (double)t->n;
	rep.ceilings = t->gpu ? &ceil : NULL;
	rep.config = t->gpu ? &cfg : NULL;
	rep.golden_source = t->gpu ? "live co-run" : NULL;
	if (!t->status && ks_report_write(&rep, NULL) < 0) {
		fprintf(stderr, "fixture: %s\n", ks_error_msg());
		exit(1);
	}
	if (t->status)
		ks_fs_mkdir_p(dir, 0755);
	/* device output, as a worker that captured printf would report it in GEAK's "stdout" */
	for (i = 0; i < t->n && !t->status; i++)
		if (t->entries[i].output) {
			char *p = ks_path_join(dir, "out.json_all_passes.json"), *text = NULL;
			size_t n = 0, k = 0;
			cJSON *all = NULL, *x;
			ks_fs_read(&text, &n, p, 1 << 26);
			ks_json_parse(&all, text, n, 64, p);
			cJSON_ArrayForEach(x, all)
				if (k++ == i)
					cJSON_ReplaceItemInObjectCaseSensitive(x, "stdout",
									       cJSON_CreateString(t->entries[i].output));
			ks_json_write_file(p, all, 1);
			cJSON_Delete(all);
			ks_free(text);
			ks_free(p);
		}
	if (batch) {
		cJSON *r = cJSON_CreateObject(), *a, *x;
		char *bp = ks_path_join(dir, "batch.json");
		char repo[256], ts[32], id[48];
		int k;
		snprintf(repo, sizeof(repo), "https://github.com/example/%s.git", t->folder);
		cJSON_AddStringToObject(r, "schema", "kscore.batch-team/1");
		cJSON_AddStringToObject(r, "team", t->name);
		cJSON_AddStringToObject(r, "folder", t->folder);
		cJSON_AddStringToObject(r, "status", t->status ? t->status : "scored");
		if (t->reason)
			cJSON_AddStringToObject(r, "reason", t->reason);
		else
			cJSON_AddNullToObject(r, "reason");
		if (t->detail)
			cJSON_AddStringToObject(r, "detail", t->detail);
		else
			cJSON_AddNullToObject(r, "detail");
		cJSON_AddStringToObject(r, "repository", repo);
		cJSON_AddStringToObject(r, "ref", "HEAD");
		if (t->commit)
			cJSON_AddStringToObject(r, "ref_commit", t->commit);
		else
			cJSON_AddNullToObject(r, "ref_commit");
		cJSON_AddStringToObject(r, "deadline", "2025-08-24T23:59:59Z");
		cJSON_AddStringToObject(r, "fetched_at", "2025-08-25T00:05:12Z");
		if (t->fetch_warning)
			cJSON_AddStringToObject(r, "fetch_warning", t->fetch_warning);
		if (t->commit) {
			cJSON_AddStringToObject(r, "commit", t->commit);
			cJSON_AddStringToObject(r, "commit_time", t->commit_time);
			cJSON_AddNumberToObject(r, "commit_time_epoch", (double)t->commit_epoch);
			cJSON_AddStringToObject(r, "commit_subject", t->subject ? t->subject : "");
		} else {
			cJSON_AddNullToObject(r, "commit");
			cJSON_AddNullToObject(r, "commit_time");
		}
		cJSON_AddStringToObject(r, "submission", "submissions/*/reflexion_oneshot_tritonbench_<N>.json");
		if (t->status)
			cJSON_AddNullToObject(r, "file");
		else
			cJSON_AddStringToObject(r, "file", pass.path);
		a = cJSON_AddArrayToObject(r, "later_commits");
		for (k = 0; k < t->nlater; k++) {
			x = cJSON_CreateObject();
			snprintf(id, sizeof(id), "f00d%036d", 7 + k);
			cJSON_AddStringToObject(x, "id", id);
			ks_manifest_format_time(ts, FX_DEADLINE + 600 + 3600 * k);
			cJSON_AddStringToObject(x, "time", ts);
			cJSON_AddStringToObject(x, "subject", k == 0 ? "speed up matmul after the deadline" : "fix typo");
			cJSON_AddBoolToObject(x, "ancestor_of_scored", k == 0 && t->later_ancestor);
			cJSON_AddItemToArray(a, x);
		}
		cJSON_AddNumberToObject(r, "later_commits_total", t->nlater);
		x = cJSON_AddObjectToObject(r, "scorer");
		cJSON_AddStringToObject(x, "name", "kscore");
		cJSON_AddStringToObject(x, "version", KS_VERSION);
		cJSON_AddStringToObject(r, "mode", t->gpu ? "gpu" : "compile-only");
		cJSON_AddBoolToObject(r, "timing", 1);
		cJSON_AddNullToObject(r, "config");
		cJSON_AddStringToObject(r, "problems_sha256",
					"9f2c1e7a5b3d4c6e8f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60");
		if (t->status)
			cJSON_AddNullToObject(r, "submission_sha256");
		else
			cJSON_AddStringToObject(r, "submission_sha256", sub.sha256);
		cJSON_AddStringToObject(r, "recorded_at", "2025-08-25T01:20:00Z");
		ks_json_write_file(bp, r, 1);
		cJSON_Delete(r);
		ks_free(bp);
	}
	for (i = 0; i < t->n; i++)
		ks_kernel_result_clear(&res[i]);
	ks_free(res);
	ks_free(sub.path);
	ks_free(pass.path);
	ks_free(pass.name);
	ks_free(dir);
}

/* leaderboard.json and .csv over the teams' folders, by the batch's own code. */
FX void fx_write_leaderboard(const char *results, const fx_team *teams, size_t n)
{
	ks_leaderboard_row *rows = ks_calloc(n + 1, sizeof(*rows));
	size_t i;
	for (i = 0; i < n; i++) {
		ks_leaderboard_row_load(&rows[i], results, teams[i].name, teams[i].folder);
	}
	ks_leaderboard_rank(rows, n);
	if (ks_leaderboard_write(results, rows, n, FX_DEADLINE) < 0) {
		fprintf(stderr, "fixture: %s\n", ks_error_msg());
		exit(1);
	}
	for (i = 0; i < n; i++)
		ks_leaderboard_row_clear(&rows[i]);
	ks_free(rows);
}

#define FX_OK(p, s) { p, s, KS_REASON_OK, NULL, NULL, NULL }

static const fx_entry fx_alpha[] = {
	FX_OK("sin_kernel", 1.02), FX_OK("matrix_transpose", 0.98), FX_OK("l2_norm_triton1", 1.46),
	FX_OK("embedding_triton_kernel", 1.05), FX_OK("flash_decode2_phi", 1.08),
	FX_OK("matrix_vector_multip", 1.01), FX_OK("rotary_transform", 0.97), FX_OK("l2_norm_bwd", 0.99),
	FX_OK("int4_matmul", 1.31),
	/* timings under the compute floor: a replayed result or a timer trick */
	{ "triton_matmul", 4.1, KS_REASON_OK, NULL, NULL, NULL },
};

static const fx_entry fx_bravo[] = {
	FX_OK("sin_kernel", 0.99), FX_OK("matrix_transpose", 0.42),
	{ "l2_norm_triton1", NAN, KS_REASON_UNWRITTEN,
	  "case rows=1, cols=1, seed 1: y holds the poison pattern at 1 of 1 elements (y[0]); the kernel did not "
	  "write them", NULL, NULL },
	{ "embedding_triton_kernel", NAN, KS_REASON_MISMATCH,
	  "case seq=7, vocab=100, hidden=64, seed 1: out[0] = 0 but the golden kernel gives 0.4419 "
	  "(|diff| 0.4419 > atol 0.001 + rtol 0.001 * 0.4419); 64 of 448 elements differ", NULL, NULL },
	{ "flash_decode2_phi", NAN, KS_REASON_COMPILE_ERROR,
	  "kernel.cu(12): error: identifier \"INFINITY\" is undefined", NULL, NULL },
	FX_OK("matrix_vector_multip", 1.12), FX_OK("rotary_transform", 0.61), FX_OK("l2_norm_bwd", 0.93),
	FX_OK("int4_matmul", 0.081), FX_OK("triton_matmul", 0.45),
};

static const fx_entry fx_charlie[] = {
	FX_OK("sin_kernel", 1.0), FX_OK("matrix_transpose", 0.95), FX_OK("l2_norm_triton1", 1.3),
	FX_OK("rotary_transform", 1.1),
	{ "int4_matmul", NAN, KS_REASON_OOB_WRITE,
	  "case M=1, N=8, K=128, G=128, seed 1: 4 bytes written past the end of out (guard band modified at "
	  "offset 16)", NULL, "block 0: tile done\nblock 1: tile done\n" },
	FX_OK("triton_matmul", 0.7),
};

static const fx_entry fx_echo[] = {
	FX_OK("sin_kernel", 0.97), FX_OK("matrix_transpose", 0.91), FX_OK("l2_norm_triton1", 1.12),
	FX_OK("embedding_triton_kernel", 0.88), FX_OK("flash_decode2_phi", 0.93),
	FX_OK("matrix_vector_multip", 0.96), FX_OK("rotary_transform", 0.9), FX_OK("l2_norm_bwd", 0.95),
	FX_OK("int4_matmul", 0.52), FX_OK("triton_matmul", 0.66),
};

static const fx_team fx_standard[] = {
	{ "Team Alpha", "Team_Alpha", 1, fx_alpha, 10, NULL, NULL, NULL,
	  "3f1c9a7e5b2d4c6e8f0a1b2c3d4e5f6071829304", "2025-08-24T21:03:11Z", "final tuning of the int4 GEMM",
	  1756069391, 0, 0, NULL },
	{ "bravo", "bravo", 1, fx_bravo, 10, NULL, NULL, NULL, "8e2d4c6a1b3f5e7d9c0b2a4f6e8d0c1b3a5f7e9d",
	  "2025-08-24T18:40:00Z", "iteration 10", 1756060800, 0, 0, NULL },
	{ "チーム 中文队 \xF0\x9F\x9A\x80", "team", 1, fx_charlie, 6, NULL, NULL, NULL,
	  "c4a1e3b5d7f9021436587a9cbedf0123456789ab", "2025-08-24T23:59:59Z", "最终提交", 1756079999, 0, 0, NULL },
	{ "echo", "echo", 1, fx_echo, 10, NULL, NULL, NULL, "0a1b2c3d4e5f60718293a4b5c6d7e8f901234567",
	  "2025-08-23T09:15:00Z", "first working version", 1755940500, 2, 1,
	  "fetch of https://github.com/example/echo.git failed: connection timed out; the cached copy was used" },
	{ "delta", "delta", 1, NULL, 0, "failed", "missing_file",
	  "repository https://github.com/example/delta.git: commit 5d6e7f809a1b: no file matches "
	  "submissions/*/reflexion_oneshot_tritonbench_<N>.json", "5d6e7f809a1b2c3d4e5f60718293a4b5c6d7e8f9",
	  "2025-08-22T12:00:00Z", "initial commit", 1755864000, 0, 0, NULL },
};

#define FX_NSTANDARD (sizeof(fx_standard) / sizeof(fx_standard[0]))

FX void fx_standard_batch(const char *results)
{
	size_t i;
	ks_fs_mkdir_p(results, 0755);
	for (i = 0; i < FX_NSTANDARD; i++)
		fx_write_team(results, &fx_standard[i], 1);
	fx_write_leaderboard(results, fx_standard, FX_NSTANDARD);
}

/* The standard batch carries this file, so the tests know when they may check its own facts (a
 * batch recorded on a GPU host, put in its place, does not). */
#define FX_GENERATED ".generated-fixture"

FX void fx_mark_generated(const char *results)
{
	char *p = ks_path_join(results, FX_GENERATED);
	const char *text = "written by make export-fixture (tests/export/export_test.h)\n";
	ks_fs_write_atomic(p, text, strlen(text));
	ks_free(p);
}

FX int fx_is_generated(const char *results)
{
	char *p = ks_path_join(results, FX_GENERATED);
	int r = ks_fs_exists(p);
	ks_free(p);
	return r;
}

/* ---- hostile and broken input ---- */

#define FX_XSS "<script>alert(1)</script>"

static const fx_entry fx_hostile_entries[] = {
	{ "sin_kernel", 1.5, KS_REASON_OK, NULL,
	  "```cuda\n// </code></pre><script>alert('code')</script>\n"
	  "extern \"C\" __global__ void sin_kernel(const float *x, float *y, int n) { /* a < b && c > d */ }\n"
	  /* Trojan Source: shown as "if (n < 0) return;" in a comment, compiled as a comment */
	  "/* \xE2\x80\xAE } \xE2\x81\xA6if (n < 0)\xE2\x81\xA9 \xE2\x81\xA6 skip */\n```\n",
	  "<img src=x onerror=alert('output')></pre><script>alert(3)</script> \xE2\x81\xA7rtl\n" },
	{ "matrix_transpose", NAN, KS_REASON_MISMATCH, "case <b>m=1</b>: \"quoted\" & 'single' </td></tr>",
	  NULL, NULL },
};

static const fx_entry fx_utf8_entries[] = {
	{ "l2_norm_bwd", 0.9, KS_REASON_OK, NULL,
	  "```cuda\n// caf\xC3\xA9 \xFF\xFE broken \xE2\x80\xA8 line separator\n"
	  "extern \"C\" __global__ void l2_norm_bwd_kernel() {}\n```\n", NULL },
};

static const fx_team fx_edge[] = {
	{ FX_XSS, "script_alert_1_script", 1, fx_hostile_entries, 2, NULL, NULL, NULL,
	  "1111111111111111111111111111111111111111", "2025-08-24T10:00:00Z", "x", 1756029600, 0, 0, NULL },
	{ "bad\xFF\xFEname \xE5\x85\xA8\xE5\x9B\xBD", "bad_name", 1, fx_utf8_entries, 1, NULL, NULL, NULL,
	  "2222222222222222222222222222222222222222", "2025-08-24T11:00:00Z",
	  "</title><script>alert('subject')</script> \xE2\x80\xA8 \"x\" onmouseover=alert(1) \xC0\xAF overlong",
	  1756033200, 1, 1, NULL },
	{ "javascript:alert(1)", "javascript_alert_1", 1, NULL, 0, "failed", "unreachable",
	  "repository <https://evil.example/>: \"could not resolve host\"", NULL, NULL, NULL, 0, 0, 0, NULL },
	/* a name with a right-to-left override never closed: it must not reorder what follows it */
	{ "evil\xE2\x80\xAE 9.99 :erocs", "evil_rlo", 1, fx_utf8_entries, 1, NULL, NULL, NULL,
	  "4444444444444444444444444444444444444444", "2025-08-24T12:00:00Z", "rlo", 1756036800, 0, 0, NULL },
};

#define FX_NEDGE (sizeof(fx_edge) / sizeof(fx_edge[0]))

/* The submission file a single run was scored from, written beside its result folder, where the
 * exporter looks for it. */
FX void fx_write_submission(const char *results, const fx_team *t)
{
	cJSON *a = cJSON_CreateArray();
	char *p = ks_path_join(results, "reflexion_oneshot_tritonbench_4.json");
	size_t i;
	for (i = 0; i < t->n; i++) {
		const fx_problem *pr = fx_problem_find(t->entries[i].problem);
		cJSON *e = cJSON_CreateObject();
		char *predict = fx_predict(pr, &t->entries[i]);
		cJSON_AddStringToObject(e, "file", pr ? pr->file : t->entries[i].problem);
		cJSON_AddStringToObject(e, "predict", predict);
		cJSON_AddItemToArray(a, e);
		ks_free(predict);
	}
	ks_json_write_file(p, a, 1);
	cJSON_Delete(a);
	ks_free(p);
}

/* A batch of hostile names, code, output and subjects, invalid UTF-8, a minimal score.json with
 * missing fields, and a team the leaderboard lists without a folder. The first team is a single
 * run (score.json without batch.json) whose submission file lies beside it, so its code shows. */
FX void fx_edge_batch(const char *results)
{
	size_t i;
	char *p;
	ks_fs_mkdir_p(results, 0755);
	for (i = 0; i < FX_NEDGE; i++)
		fx_write_team(results, &fx_edge[i], i > 0);
	fx_write_submission(results, &fx_edge[0]);
	fx_write_leaderboard(results, fx_edge, FX_NEDGE);
	p = ks_path_join(results, "minimal");
	ks_fs_mkdir_p(p, 0755);
	ks_free(p);
	p = ks_path_join(results, "minimal/score.json");
	{
		const char *text = "{\"schema\": \"kscore.score/1\", \"team\": \"minimal\", \"mode\": \"gpu\", "
				   "\"summary\": {\"score\": \"not a number\"}, \"kernels\": [{}, {\"problem\": 7, "
				   "\"perf\": [{\"case\": null, \"ms\": \"x\"}], \"kernels\": [{}]}]}\n";
		ks_fs_write_atomic(p, text, strlen(text));
	}
	ks_free(p);
	{
		/* a line of the leaderboard with no folder: listed, never scored */
		char *lp = ks_path_join(results, "leaderboard.json"), *text = NULL;
		size_t n = 0;
		cJSON *lb = NULL, *t;
		ks_fs_read(&text, &n, lp, 1 << 24);
		ks_json_parse(&lb, text, n, 64, lp);
		t = cJSON_CreateObject();
		cJSON_AddNumberToObject(t, "rank", (double)(FX_NEDGE + 1));
		cJSON_AddStringToObject(t, "team", "never scored");
		cJSON_AddStringToObject(t, "folder", "never_scored");
		cJSON_AddStringToObject(t, "status", "not_scored");
		cJSON_AddItemToArray(cJSON_GetObjectItemCaseSensitive(lb, "teams"), t);
		ks_json_write_file(lp, lb, 1);
		cJSON_Delete(lb);
		ks_free(text);
		ks_free(lp);
	}
}

/* ---- helpers of the test binaries (ktest.h included first) ---- */
#ifdef KTEST_H

static char fx_root_buf[4096];

/* The repository root (KSCORE_ROOT, else the working folder). */
FX const char *fx_root(void)
{
	const char *r = getenv("KSCORE_ROOT");
	if (!fx_root_buf[0]) {
		if (r && *r)
			snprintf(fx_root_buf, sizeof(fx_root_buf), "%s", r);
		else if (!getcwd(fx_root_buf, sizeof(fx_root_buf)))
			KT_FAIL("getcwd");
	}
	return fx_root_buf;
}

/* The batch fixture the site tests read: KSCORE_EXPORT_FIXTURE (a batch recorded on a GPU host,
 * say), else the committed one. Caller frees. */
FX char *fx_fixture(void)
{
	const char *f = getenv("KSCORE_EXPORT_FIXTURE");
	if (f && *f)
		return ks_strdup(f);
	return ks_asprintf("%s/web_export/fixtures/batch", fx_root());
}

FX char *fx_bin(void)
{
	const char *b = getenv("KSCORE_BIN");
	return b && *b ? ks_strdup(b) : ks_asprintf("%s/build/test/score", fx_root());
}

/* A path in the test's folder; the result lives until eight more calls. */
FX const char *fx_tmp(const char *rel)
{
	static char ring[8][4608];
	static unsigned next;
	char *p = ring[next++ % 8];
	snprintf(p, sizeof(ring[0]), "%s/%s", kt_tmpdir(), rel);
	return p;
}

/* The text of a file in the test's folder (NULL when absent). Caller frees. */
FX char *fx_read(const char *rel)
{
	char *p = rel[0] == '/' ? ks_strdup(rel) : ks_strdup(fx_tmp(rel)), *text = NULL;
	size_t n = 0;
	if (ks_fs_read(&text, &n, p, (size_t)256 << 20) < 0)
		text = NULL;
	ks_error_clear();
	ks_free(p);
	return text;
}

/* The team names of a leaderboard.json, in rank order. */
FX char **fx_ranked_names(const char *results, size_t *n)
{
	char *p = ks_path_join(results, "leaderboard.json"), *text = NULL, **v;
	cJSON *lb = NULL, *t;
	size_t len = 0;
	if (ks_fs_read(&text, &len, p, 1 << 26) < 0 || ks_json_parse(&lb, text, len, 64, p) < 0)
		KT_FAIL("%s: %s", p, ks_error_msg());
	v = ks_calloc((size_t)cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(lb, "teams")) + 1, sizeof(*v));
	*n = 0;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(lb, "teams"))
		v[(*n)++] = ks_strdup(cJSON_GetObjectItemCaseSensitive(t, "team")->valuestring);
	cJSON_Delete(lb);
	ks_free(text);
	ks_free(p);
	return v;
}

/* Runs a shell command in the test's folder with a git identity and dates of its own; fails the
 * test when it fails. */
FX void fx_sh(const char *fmt, ...)
{
	char cmd[8192], *full;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	full = ks_asprintf("cd '%s' && export HOME='%s' GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=t "
			   "GIT_AUTHOR_EMAIL=t@example.org GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.org "
			   "GIT_AUTHOR_DATE=2025-08-20T10:00:00Z GIT_COMMITTER_DATE=2025-08-20T10:00:00Z && (%s) "
			   ">/dev/null 2>&1", kt_tmpdir(), kt_tmpdir(), cmd);
	if (system(full) != 0)
		KT_FAIL("command failed: %s", cmd);
	ks_free(full);
}

/* A git repository holding the bundled example and a manifest naming it twice (as "Team <One>"),
 * plus a team whose repository does not exist: `score batch teams.json` runs on it. */
FX void fx_batch_repo(void)
{
	const char *m = "{\"schema\": \"kscore.batch/1\", \"deadline\": \"2025-08-24T23:59:59Z\", "
			"\"submission\": \"sub/reflexion_oneshot_tritonbench_<N>.json\", "
			"\"teams\": [{\"name\": \"Team <One>\", \"repo\": \"repo\"}, "
			"{\"name\": \"ghost\", \"repo\": \"nope\"}]}";
	fx_sh("mkdir -p repo/sub && cp '%s/submissions/example/reflexion_oneshot_tritonbench_4.json' repo/sub/ && "
	      "git -c init.defaultBranch=main init -q repo && cd repo && git add -A && "
	      "git commit -q -m 'final <b>submission</b>'", fx_root());
	kt_write("teams.json", m, strlen(m));
}

#endif /* KTEST_H */

#endif
