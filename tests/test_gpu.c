/* GPU suite: runs the score binary on kernels that are correct, and on kernels that write nothing,
 * write half, write out of bounds, modify an input, hang, fault or are non-deterministic, and
 * checks each one fails with the right reason while the run goes on. Without a usable GPU every
 * test here reports itself skipped, by name. `make gpu-test` runs this binary on a GPU host. */
#include "gputest.h"
#include "passestest.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "nvtool/nvtool.h"

#include <time.h>

/* Every entry of a fixture array as a pass of its own (kt_fixture_passes): kernels[i] of the result
 * is entry i. Returns the folder. */
static const char *as_passes(const char *fixture)
{
	return kt_fixture_passes(fixture, "passes", NULL, 0);
}

/* Scores the entries of a fixture as passes (as_passes) into r/, with --kernel-timeout
 * kernel_timeout; some entries fail, so the run exits 1. Returns r/score.json (caller deletes). */
static cJSON *score_passes(const char *fixture, int kernel_timeout)
{
	char args[9000];
	snprintf(args, sizeof(args), "--require-gpu --kernel-timeout %d --refs tests/fixtures/problems "
		 "--out '%s/r' '%s'", kernel_timeout, kt_tmpdir(), as_passes(fixture));
	KT_EQ_INT(score(args), 1);
	return load_json("r/score.json");
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
	cJSON *j, *exp;
	const cJSON *ks, *e;
	int wrong = 0;
	need_gpu();
	j = score_passes("tests/fixtures/gpu/adversarial.json", 3);
	ks = cJSON_GetObjectItem(j, "kernels");
	exp = expected_json("tests/fixtures/gpu/adversarial.expected.json");
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
	char *t = NULL;
	cJSON *j, *exp;
	const cJSON *ks, *e;
	int wrong = 0;
	need_gpu();
	j = score_passes("tests/fixtures/gpu/timing_cheats.json", 5);
	ks = cJSON_GetObjectItem(j, "kernels");
	exp = expected_json("tests/fixtures/gpu/timing_cheats.expected.json");
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
			/* honest: correct, timed against the golden, verified and checked, not flagged */
			const cJSON *p0 = cJSON_GetArrayItem(perf, 0);
			if (!exec || sus || !cJSON_IsNumber(sp) || sp->valuedouble <= 0 || !p0 ||
			    cJSON_GetObjectItem(p0, "verified_runs")->valuedouble < 1 ||
			    !cJSON_IsNumber(cJSON_GetObjectItem(p0, "checked_runs")) ||
			    cJSON_GetObjectItem(p0, "checked_runs")->valuedouble < 1 ||
			    cJSON_GetObjectItem(p0, "runs")->valuedouble < 10) {
				fprintf(stderr, "  entry %d (honest): exec %d suspicious %d speedup %s: %s\n", idx, exec,
					sus, cJSON_IsNumber(sp) ? "set" : "missing",
					cJSON_IsString(d) ? d->valuestring : "");
				wrong++;
			}
		} else if (!strcmp(kind, "neutral")) {
			/* skips work only when its outputs hold the answer already: every timed run starts
			 * from poisoned outputs, so it does all the work and times like the honest entry 0 */
			const cJSON *sp0 = cJSON_GetObjectItem(cJSON_GetArrayItem(ks, 0), "speedup");
			if (!exec || sus || !cJSON_IsNumber(sp) || !cJSON_IsNumber(sp0) ||
			    sp->valuedouble > 1.3 * sp0->valuedouble) {
				fprintf(stderr, "  entry %d (gains nothing): exec %d suspicious %d speedup %g (honest "
					"%g): %s\n", idx, exec, sus, cJSON_IsNumber(sp) ? sp->valuedouble : -1,
					cJSON_IsNumber(sp0) ? sp0->valuedouble : -1, cJSON_IsString(d) ? d->valuestring : "");
				wrong++;
			}
		} else if (exec || !cJSON_IsString(d) || !strstr(d->valuestring, "during timing") ||
			   (!strcmp(kind, "content_cache") && !strstr(d->valuestring, "checked after the batch"))) {
			fprintf(stderr, "  entry %d (%s cheat): exec %d: %s\n", idx, kind, exec,
				cJSON_IsString(d) ? d->valuestring : "");
			wrong++;
		}
	}
	KT_ASSERT_MSG(wrong == 0, "%d entries had the wrong verdict", wrong);
	KT_ASSERT(cJSON_IsObject(cJSON_GetObjectItem(j, "ceilings")));
	KT_ASSERT(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "ceilings"), "bandwidth_gbps")->valuedouble > 100);
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

/* Issue 23.1: a kernel that keeps its outputs in device memory, keyed on n and eight sampled input
 * values, and copies them when the key comes back (tests/fixtures/gpu/input_cache.json, entry 1;
 * entry 0 is its honest twin, the same slow kernel without the cache). With the inputs rotating
 * among three unchanged sets (input_change 0, as before the issue) every timed run after the first
 * on a set is a copy: correct, as fast as the golden kernel and no faster than the floor, so it
 * passes unflagged with many times its twin's speedup. With a part of every input redrawn before
 * each run (the default), a run whose sampled values did not change copies a stale answer, and the
 * checks of the timed runs see it. Returns the record of `config` (NULL: the default). The issue
 * saw 3.2 times the speedup on a GEMM made to cache three quarters of its tiles; this one caches
 * all of its output. */
static cJSON *score_input_cache(const char *config, const char *out)
{
	char args[12000], cfg[4400] = "";
	if (config)
		snprintf(cfg, sizeof(cfg), "--config '%s'", kt_write("scoring.json", config, strlen(config)));
	snprintf(args, sizeof(args), "--require-gpu --seed 2323 %s --refs tests/fixtures/gpu/refs --out '%s/%s' '%s'",
		 cfg, kt_tmpdir(), out, as_passes("tests/fixtures/gpu/input_cache.json"));
	score(args);
	snprintf(args, sizeof(args), "%s/score.json", out);
	return load_json(args);
}

static double speedup_of(const cJSON *k)
{
	const cJSON *sp = cJSON_GetObjectItem(k, "speedup");
	return cJSON_IsNumber(sp) ? sp->valuedouble : -1;
}

static void test_gpu_a_cache_of_results_by_input_content_fails_on_redrawn_inputs(void)
{
	cJSON *before, *after;
	const cJSON *honest, *cache;
	need_gpu();
	before = score_input_cache("{\"timing\": {\"input_change\": 0}}", "before");
	honest = cJSON_GetArrayItem(cJSON_GetObjectItem(before, "kernels"), 0);
	cache = cJSON_GetArrayItem(cJSON_GetObjectItem(before, "kernels"), 1);
	fprintf(stderr, "  unchanged inputs: honest speedup %.3f, cache speedup %.3f (exec %d, suspicious %d)\n",
		speedup_of(honest), speedup_of(cache), cJSON_IsTrue(cJSON_GetObjectItem(cache, "exec")),
		cJSON_IsTrue(cJSON_GetObjectItem(cache, "suspicious")));
	KT_ASSERT_MSG(cJSON_IsTrue(cJSON_GetObjectItem(honest, "exec")) && speedup_of(honest) > 0,
		      "the honest twin: %s", cJSON_GetObjectItem(honest, "reason")->valuestring);
	/* what the defence is for: unflagged, and the copies are what was timed */
	KT_ASSERT_MSG(cJSON_IsTrue(cJSON_GetObjectItem(cache, "exec")) &&
			      !cJSON_IsTrue(cJSON_GetObjectItem(cache, "suspicious")),
		      "without the defence the cache was caught already: %s",
		      cJSON_GetObjectItem(cache, "reason")->valuestring);
	KT_ASSERT_MSG(speedup_of(cache) > 3 * speedup_of(honest), "the cache gained only %.3f against %.3f",
		      speedup_of(cache), speedup_of(honest));
	KT_NEAR(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(before, "timing"), "protocol"),
				    "input_change")->valuedouble, 0, 0);

	after = score_input_cache(NULL, "after");
	honest = cJSON_GetArrayItem(cJSON_GetObjectItem(after, "kernels"), 0);
	cache = cJSON_GetArrayItem(cJSON_GetObjectItem(after, "kernels"), 1);
	fprintf(stderr, "  redrawn inputs: honest speedup %.3f; cache: %s: %s\n", speedup_of(honest),
		cJSON_GetObjectItem(cache, "reason")->valuestring,
		cJSON_IsString(cJSON_GetObjectItem(cache, "detail")) ? cJSON_GetObjectItem(cache, "detail")->valuestring
								      : "");
	KT_ASSERT_MSG(cJSON_IsTrue(cJSON_GetObjectItem(honest, "exec")) &&
			      !cJSON_IsTrue(cJSON_GetObjectItem(honest, "suspicious")) && speedup_of(honest) > 0,
		      "the honest twin on redrawn inputs: %s", cJSON_GetObjectItem(honest, "reason")->valuestring);
	KT_ASSERT(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(honest, "perf"), 0), "checked_runs")
			  ->valuedouble >= 4);
	KT_ASSERT_MSG(!cJSON_IsTrue(cJSON_GetObjectItem(cache, "exec")), "the cache passed with speedup %.3f",
		      speedup_of(cache));
	KT_CONTAINS(cJSON_GetObjectItem(cache, "detail")->valuestring, "during timing");
	KT_ASSERT(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(after, "timing"), "protocol"),
				      "input_change")->valuedouble > 0);
	cJSON_Delete(before);
	cJSON_Delete(after);
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
	char args[12000];
	cJSON *j;
	need_gpu();
	snprintf(args, sizeof(args), "--require-gpu --out '%s/r' submissions/example/reflexion_oneshot_tritonbench_4.json",
		 kt_tmpdir());
	KT_EQ_INT(score(args), 1);
	j = load_json("r/score.json");
	check_example_verdicts(j, "");
	KT_NEAR(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "call_accuracy")->valuedouble, 0.9, 1e-9);
	KT_NEAR(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "exec_accuracy")->valuedouble, 0.7, 1e-9);
	cJSON_Delete(j);
}

/* ---- the sanitizer and profile stages (nvtool.h): need compute-sanitizer / ncu on the host */

/* The entries idx[0..n) of tests/fixtures/gpu/nvtools.json as passes in <tmp>/<name>: kernels[i] of
 * the result is then entry idx[i]. */
static void nvtools_subset(const char *name, const int *idx, int n)
{
	kt_fixture_passes("tests/fixtures/gpu/nvtools.json", name, idx, n);
}

static void need_tool(const char *name)
{
	char *p = ks_nvtool_find(name);
	if (!p)
		KT_SKIP("%s", ks_error_msg());
	ks_free(p);
}

static cJSON *sanitize_subset(const char *name, const int *idx, int n, const char *tools)
{
	char args[12000];
	need_gpu();
	need_tool("compute-sanitizer");
	nvtools_subset(name, idx, n);
	snprintf(args, sizeof(args), "--require-gpu --no-timing --sanitize=%s --refs tests/fixtures/problems "
		 "--out '%s/r' '%s/%s'", tools, kt_tmpdir(), kt_tmpdir(), name);
	KT_EQ_INT(score(args), 1);
	return load_json("r/score.json");
}

static void test_gpu_sanitizer_fails_a_write_64k_past_the_output_and_passes_clean_kernels(void)
{
	static const int idx[] = { 2, 4, 5, 3 };
	cJSON *j;
	const cJSON *ks, *k, *san;
	double secs = 0;
	int i, n = 0;
	j = sanitize_subset("san", idx, 4, "memcheck,racecheck");
	ks = cJSON_GetObjectItem(j, "kernels");
	/* the 64 KiB overrun passed every check (beyond the guard bands), and memcheck saw it */
	k = cJSON_GetArrayItem(ks, 0);
	KT_ASSERT_MSG(!strcmp(kstr(k, "reason"), "sanitizer"), "the overrun got %s: %s", kstr(k, "reason"),
		      kstr(k, "detail"));
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(k, "call")) && !cJSON_IsTrue(cJSON_GetObjectItem(k, "exec")));
	KT_CONTAINS(kstr(k, "detail"), "memcheck: invalid __global__ write of size 4 bytes");
	KT_CONTAINS(kstr(k, "detail"), "vadd");
	/* the clean kernels pass every tool */
	for (i = 1; i <= 2; i++) {
		const cJSON *t;
		k = cJSON_GetArrayItem(ks, i);
		san = cJSON_GetObjectItem(k, "sanitizer");
		KT_ASSERT_MSG(!strcmp(kstr(k, "reason"), "ok"), "clean kernel %d got %s: %s", i, kstr(k, "reason"),
			      kstr(k, "detail"));
		KT_ASSERT(cJSON_IsObject(san));
		cJSON_ArrayForEach(t, cJSON_GetObjectItem(san, "tools"))
		{
			const cJSON *st = cJSON_GetObjectItem(t, "exit_status");
			KT_ASSERT_MSG(!strcmp(kstr(t, "status"), "clean"), "clean kernel %d: %s %s %s", i, kstr(t, "tool"),
				      kstr(t, "status"), kstr(t, "error"));
			KT_ASSERT_MSG(cJSON_GetObjectItem(t, "api_errors")->valuedouble == 0, "clean kernel %d: %s", i,
				      kstr(t, "tool"));
			/* no error at all, not even the worker's cuFuncGetParamInfo probes (which made
			 * memcheck exit 86 on clean kernels before --report-api-errors no); memcheck's
			 * kept worker is still running after a clean kernel, and has no exit status */
			if (!strcmp(kstr(t, "worker"), "kept"))
				KT_ASSERT_MSG(cJSON_IsNull(st), "clean kernel %d: the kept %s worker has an exit status", i,
					      kstr(t, "tool"));
			else
				KT_ASSERT_MSG(cJSON_IsNumber(st) && st->valuedouble == 0, "clean kernel %d: %s exited %g", i,
					      kstr(t, "tool"), cJSON_IsNumber(st) ? st->valuedouble : -1);
		}
	}
	/* the shared-memory race that happens to give the right answer: racecheck rates its hazards
	 * warnings (warp-synchronous code without __syncwarp), and they fail it */
	k = cJSON_GetArrayItem(ks, 3);
	KT_ASSERT_MSG(!strcmp(kstr(k, "reason"), "sanitizer") && strstr(kstr(k, "detail"), "racecheck: race reported"),
		      "the race got %s: %s", kstr(k, "reason"), kstr(k, "detail"));
	cJSON_ArrayForEach(k, ks)
	{
		const cJSON *t;
		cJSON_ArrayForEach(t, cJSON_GetObjectItem(cJSON_GetObjectItem(k, "sanitizer"), "tools"))
		{
			secs += cJSON_GetObjectItem(t, "seconds")->valuedouble;
			n++;
		}
	}
	fprintf(stderr, "  sanitizer cost: %.2f s per tool run per kernel (%d runs)\n", n ? secs / n : 0, n);
	cJSON_Delete(j);
}

/* Issue 24: memcheck runs in a worker kept by each lane thread across kernels (nvtool/toolrun.h),
 * its context made once. The overrun among five clean kernels: it is caught with its finding, its
 * worker closed, and no clean kernel is charged with it, whichever thread ran what; the two lane
 * threads cut the five clean kernels into at most three runs of kernels between overruns, so
 * some kernel ran in a worker that had run a clean one before it. */
static void test_gpu_sanitizer_keeps_its_memcheck_worker_across_clean_kernels(void)
{
	static const int idx[] = { 4, 5, 2, 4, 5, 4 };
	cJSON *j;
	const cJSON *ks, *k, *t;
	int i, reused = 0;
	j = sanitize_subset("kept", idx, 6, "memcheck");
	ks = cJSON_GetObjectItem(j, "kernels");
	for (i = 0; i < 6; i++) {
		k = cJSON_GetArrayItem(ks, i);
		t = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetObjectItem(k, "sanitizer"), "tools"), 0);
		KT_ASSERT_MSG(t && !strcmp(kstr(t, "worker"), "kept"), "kernel %d: worker %s", i, t ? kstr(t, "worker") : "-");
		fprintf(stderr, "  kernel %d (entry %d): %s, %s, %g kernels before it in its worker, %.2f s\n", i, idx[i],
			kstr(k, "reason"), kstr(t, "status"), cJSON_GetObjectItem(t, "worker_kernels_before")->valuedouble,
			cJSON_GetObjectItem(t, "seconds")->valuedouble);
		if (idx[i] == 2) {
			KT_ASSERT_MSG(!strcmp(kstr(k, "reason"), "sanitizer"), "the overrun got %s: %s", kstr(k, "reason"),
				      kstr(k, "detail"));
			KT_CONTAINS(kstr(k, "detail"), "memcheck: invalid __global__ write of size 4 bytes");
			/* its worker was closed to read it: the tool has exited */
			KT_ASSERT(cJSON_IsNumber(cJSON_GetObjectItem(t, "exit_status")));
			continue;
		}
		KT_ASSERT_MSG(!strcmp(kstr(k, "reason"), "ok"), "clean kernel %d got %s: %s", i, kstr(k, "reason"),
			      kstr(k, "detail"));
		KT_EQ_STR(kstr(t, "status"), "clean");
		KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(t, "exit_status")));
		if (cJSON_GetObjectItem(t, "worker_kernels_before")->valuedouble >= 1)
			reused++;
	}
	KT_ASSERT_MSG(reused >= 1, "no kernel ran in a worker kept from a clean kernel before it");
	cJSON_Delete(j);
}

/* Issue 23.2: the sanitizer runs on the first correctness case with several blocks and a partial
 * tail (n=1000 for vadd's default launch: 4 blocks of 256, the last one partial), not on the first
 * case (n=1, one block). Entry 6 of nvtools.json writes 64 KiB past its output only from a partial
 * last block past the first: on n=1 it does not, so the sanitizer missed it there; the clean vadd
 * (entry 4) runs on the same case. */
static void test_gpu_sanitizer_runs_a_case_with_several_blocks_and_a_partial_tail(void)
{
	static const int idx[] = { 6, 4 };
	cJSON *j;
	const cJSON *k, *san;
	int i;
	j = sanitize_subset("tail", idx, 2, "memcheck");
	k = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "kernels"), 0);
	KT_ASSERT_MSG(!strcmp(kstr(k, "reason"), "sanitizer"), "the tail overrun got %s: %s", kstr(k, "reason"),
		      kstr(k, "detail"));
	KT_CONTAINS(kstr(k, "detail"), "memcheck: invalid __global__ write of size 4 bytes");
	for (i = 0; i < 2; i++) {
		k = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "kernels"), i);
		san = cJSON_GetObjectItem(k, "sanitizer");
		KT_EQ_STR(kstr(san, "case"), "n=1000");
		KT_EQ_INT(cJSON_GetObjectItem(san, "case_index")->valueint, 1);
		KT_EQ_STR(kstr(san, "case_choice"), "partial_tail");
	}
	KT_EQ_STR(kstr(k, "reason"), "ok");
	cJSON_Delete(j);
}

static void test_gpu_profile_names_uncoalesced_access_and_register_pressure(void)
{
	static const int idx[] = { 0, 1, 4 };
	char args[12000], path[4400], *t = NULL;
	cJSON *j;
	const cJSON *ks, *p, *d;
	double secs = 0;
	int i, n = 0;
	need_gpu();
	need_tool("ncu");
	nvtools_subset("prof", idx, 3);
	snprintf(args, sizeof(args), "--require-gpu --no-sanitize --profile=all --refs tests/fixtures/problems "
		 "--out '%s/r' '%s/prof'", kt_tmpdir(), kt_tmpdir());
	KT_EQ_INT(score(args), 0);
	j = load_json("r/score.json");
	ks = cJSON_GetObjectItem(j, "kernels");
	for (i = 0; i < 3; i++) {
		char *all = NULL;
		p = cJSON_GetObjectItem(cJSON_GetArrayItem(ks, i), "profile");
		KT_ASSERT_MSG(cJSON_IsObject(p), "kernel %d has no profile", i);
		KT_ASSERT_MSG(cJSON_IsNull(cJSON_GetObjectItem(p, "error")), "kernel %d: %s", i, kstr(p, "error"));
		KT_ASSERT(cJSON_IsObject(cJSON_GetObjectItem(p, "golden")));
		d = cJSON_GetObjectItem(p, "diagnosis");
		all = cJSON_PrintUnformatted(d);
		fprintf(stderr, "  kernel %d: %s\n", i, all);
		if (i == 0)
			KT_ASSERT_MSG(strstr(all, "uncoalesced") != NULL, "no word of coalescing: %s", all);
		if (i == 1)
			KT_ASSERT_MSG(strstr(all, "registers per thread") != NULL, "no word of registers: %s", all);
		if (i == 2)
			KT_ASSERT_MSG(!strstr(all, "uncoalesced") && !strstr(all, "registers per thread"),
				      "the clean kernel is blamed: %s", all);
		free(all);
		secs += cJSON_GetObjectItem(cJSON_GetObjectItem(p, "kernel"), "seconds")->valuedouble;
		n++;
	}
	fprintf(stderr, "  profile cost: %.2f s per profiled kernel (without its golden kernel)\n", secs / n);
	snprintf(path, sizeof(path), "%s/r/exec/performance_analysis.txt", kt_tmpdir());
	KT_EQ_INT(ks_fs_read(&t, NULL, path, 1 << 20), 0);
	KT_CONTAINS(t, "profile (Nsight Compute");
	ks_free(t);
	snprintf(path, sizeof(path), "%s/r/out.json_perf_0.json", kt_tmpdir());
	KT_EQ_INT(ks_fs_read(&t, NULL, path, 1 << 20), 0);
	KT_CONTAINS(t, "\"speed_up\"");
	KT_CONTAINS(t, "\"profiles\"");
	ks_free(t);
	cJSON_Delete(j);
}

/* Both tool stages with two lanes on one GPU (--devices 0,0), timing on: each lane thread runs the
 * sanitizer after a kernel's checks and ncu after its timing, on the lane's GPU behind its gate,
 * while the other threads check and time; the verdicts are those of one lane, no stage stops, and
 * the profiles come out whole (ncu runs one at a time). */
static void test_gpu_tool_stages_on_two_lanes_keep_their_verdicts(void)
{
	static const int idx[] = { 2, 4, 5, 3, 0 };
	char args[12000], *all;
	cJSON *j;
	const cJSON *ks, *k, *p, *nv;
	int i;
	need_gpu();
	need_tool("compute-sanitizer");
	need_tool("ncu");
	nvtools_subset("lanes", idx, 5);
	snprintf(args, sizeof(args), "--require-gpu --devices 0,0 --sanitize=memcheck,racecheck --profile=all "
		 "--refs tests/fixtures/problems --out '%s/r' '%s/lanes'", kt_tmpdir(), kt_tmpdir());
	KT_EQ_INT(score(args), 1);
	j = load_json("r/score.json");
	ks = cJSON_GetObjectItem(j, "kernels");
	KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(j, "devices")), 2);
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "summary"), "shared_gpu")));
	k = cJSON_GetArrayItem(ks, 0);
	KT_ASSERT_MSG(!strcmp(kstr(k, "reason"), "sanitizer") && strstr(kstr(k, "detail"), "memcheck"),
		      "the overrun got %s: %s", kstr(k, "reason"), kstr(k, "detail"));
	KT_ASSERT(!cJSON_GetObjectItem(k, "profile")); /* never timed, never profiled */
	k = cJSON_GetArrayItem(ks, 3);
	KT_ASSERT_MSG(!strcmp(kstr(k, "reason"), "sanitizer") && strstr(kstr(k, "detail"), "racecheck"),
		      "the race got %s: %s", kstr(k, "reason"), kstr(k, "detail"));
	for (i = 1; i <= 4; i += i == 2 ? 2 : 1) {
		k = cJSON_GetArrayItem(ks, i);
		KT_ASSERT_MSG(!strcmp(kstr(k, "reason"), "ok"), "kernel %d got %s: %s", i, kstr(k, "reason"),
			      kstr(k, "detail"));
		KT_ASSERT_MSG(cJSON_IsNumber(cJSON_GetObjectItem(k, "speedup")), "kernel %d was not timed: %s", i,
			      kstr(k, "timing_error"));
		KT_ASSERT(cJSON_IsObject(cJSON_GetObjectItem(k, "gpu")));
		p = cJSON_GetObjectItem(k, "profile");
		KT_ASSERT_MSG(cJSON_IsObject(p), "kernel %d has no profile", i);
		KT_ASSERT_MSG(cJSON_IsNull(cJSON_GetObjectItem(p, "error")), "kernel %d: %s", i, kstr(p, "error"));
		KT_ASSERT(cJSON_IsObject(cJSON_GetObjectItem(p, "golden")));
	}
	all = cJSON_PrintUnformatted(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetArrayItem(ks, 4), "profile"),
							 "diagnosis"));
	KT_ASSERT_MSG(strstr(all, "uncoalesced") != NULL, "no word of coalescing: %s", all);
	free(all);
	nv = cJSON_GetObjectItem(j, "nvtools");
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(nv, "sanitizer"), "note")));
	KT_ASSERT(cJSON_IsNull(cJSON_GetObjectItem(cJSON_GetObjectItem(nv, "profiler"), "note")));
	KT_NOT_CONTAINS(g_err, "out of the rotation");
	cJSON_Delete(j);
}

static void test_gpu_profile_without_ncu_says_so_and_scores(void)
{
	char args[12000], plain[4400];
	cJSON *j;
	need_gpu();
	snprintf(plain, sizeof(plain), "%s/not-ncu", kt_tmpdir());
	KT_EQ_INT(ks_fs_write_atomic(plain, "x", 1), 0);
	setenv("KSCORE_NCU", plain, 1);
	snprintf(args, sizeof(args), "--require-gpu --profile --refs tests/fixtures/problems --out '%s/r' "
		 "tests/fixtures/cli/good.json", kt_tmpdir());
	KT_EQ_INT(score(args), 0);
	KT_CONTAINS(g_err, "--profile:");
	KT_CONTAINS(g_err, "scored without profiles");
	j = load_json("r/score.json");
	KT_ASSERT(!cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "kernels"), 0), "profile"));
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "nvtools"), "profiler"),
						    "available")));
	KT_ASSERT(cJSON_IsNumber(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "kernels"), 0), "speedup")));
}

/* ---- device printf (issue 11, item 1): the workers' output is theirs, not score's */

/* Writes entries idx[0..n) of a fixture array to <tmp>/<name>.json; returns its path. */
static const char *fixture_part(const char *fixture, const char *name, const int *idx, int n)
{
	static char path[4400];
	char *t = NULL;
	cJSON *all = NULL, *sub = cJSON_CreateArray();
	int i;
	KT_EQ_INT(ks_fs_read(&t, NULL, fixture, 1 << 20), 0);
	KT_EQ_INT(ks_json_parse(&all, t, strlen(t), 16, fixture), 0);
	for (i = 0; i < n; i++)
		cJSON_AddItemToArray(sub, cJSON_Duplicate(cJSON_GetArrayItem(all, idx[i]), 1));
	snprintf(path, sizeof(path), "%s/%s.json", kt_tmpdir(), name);
	KT_EQ_INT(ks_json_write_file(path, sub, 1), 0);
	cJSON_Delete(sub);
	cJSON_Delete(all);
	ks_free(t);
	return path;
}

/* score --json's stdout must be its JSON document and nothing else; returns its exit_status. */
static int json_exit_status(const char *out)
{
	cJSON *j = NULL;
	int st;
	KT_ASSERT_MSG(ks_json_parse(&j, out, strlen(out), 64, "score --json output") == 0,
		      "score --json printed something that is not its JSON document: %s (it is: \"%.300s\")",
		      ks_error_msg(), out);
	KT_ASSERT(cJSON_IsNumber(cJSON_GetObjectItem(j, "exit_status")));
	st = (int)cJSON_GetObjectItem(j, "exit_status")->valuedouble;
	cJSON_Delete(j);
	return st;
}

static void test_gpu_device_printf_is_captured_and_a_debug_print_scores_correct(void)
{
	static const int idx[] = { 0 };
	const char *sub;
	char args[9000], *out, *t = NULL, path[4400];
	const cJSON *k, *dout;
	cJSON *j;
	need_gpu();
	sub = fixture_part("tests/fixtures/gpu/device_printf.json", "printf", idx, 1);
	snprintf(args, sizeof(args), "--require-gpu --json --refs tests/fixtures/problems --out '%s/r' '%s'", kt_tmpdir(),
		 sub);
	out = score_stdout(args, 1);
	KT_EQ_INT(json_exit_status(out), 0); /* correct, and the --json document is intact */
	KT_NOT_CONTAINS(out, "debug");
	ks_free(out);
	j = load_json("r/score.json");
	k = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "kernels"), 0);
	KT_EQ_STR(cJSON_GetObjectItem(k, "reason")->valuestring, "ok");
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(k, "exec")));
	dout = cJSON_GetObjectItem(k, "device_output");
	KT_ASSERT(cJSON_IsObject(dout));
	KT_CONTAINS(cJSON_GetObjectItem(dout, "text")->valuestring, "{\"debug\": \"vadd\", \"n\": 4194304}");
	KT_CONTAINS(cJSON_GetObjectItem(dout, "text")->valuestring, "tab\there \\x1b[31mred\xef\xbf\xbd\n");
	KT_NOT_CONTAINS(cJSON_GetObjectItem(dout, "text")->valuestring, "\x1b");
	KT_ASSERT(cJSON_GetObjectItem(dout, "bytes")->valuedouble > 0);
	cJSON_Delete(j);
	j = load_json("r/out.json_results_0.json");
	KT_CONTAINS(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "stdout")->valuestring, "{\"debug\": \"vadd\"");
	cJSON_Delete(j);
	snprintf(path, sizeof(path), "%s/r/exec/performance_analysis.txt", kt_tmpdir());
	KT_EQ_INT(ks_fs_read(&t, NULL, path, 1 << 20), 0);
	KT_CONTAINS(t, "device output: ");
	KT_CONTAINS(t, "   | {\"debug\": \"vadd\"");
	KT_NOT_CONTAINS(t, "\x1b");
	ks_free(t);
	/* stdout a file: the worker used to inherit it under a zero file-size limit and die */
	snprintf(args, sizeof(args), "--require-gpu --refs tests/fixtures/problems --out '%s/r2' '%s'", kt_tmpdir(), sub);
	out = score_stdout(args, 0);
	KT_NOT_CONTAINS(out, "debug");
	ks_free(out);
	j = load_json("r2/score.json");
	k = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "kernels"), 0);
	KT_ASSERT_MSG(cJSON_IsTrue(cJSON_GetObjectItem(k, "exec")), "with stdout a file: %s: %s",
		      cJSON_GetObjectItem(k, "reason")->valuestring,
		      cJSON_IsString(cJSON_GetObjectItem(k, "detail")) ? cJSON_GetObjectItem(k, "detail")->valuestring : "");
	cJSON_Delete(j);
}

static void test_gpu_a_printf_flood_costs_bounded_time_and_memory(void)
{
	static const int idx[] = { 1 };
	const char *sub;
	char args[9000], *out;
	const cJSON *k, *dout;
	struct timespec a, b;
	double secs;
	cJSON *j;
	need_gpu();
	sub = fixture_part("tests/fixtures/gpu/device_printf.json", "flood", idx, 1);
	/* checks only: at the perf size (4096 blocks of 256 threads, each printing) every launch takes
	 * seconds, so timing it ends in a `timeout`, which is the right verdict there; the checks'
	 * small cases print megabytes all the same */
	snprintf(args, sizeof(args), "--require-gpu --no-timing --json --refs tests/fixtures/problems --out '%s/r' '%s'",
		 kt_tmpdir(), sub);
	clock_gettime(CLOCK_MONOTONIC, &a);
	out = score_stdout(args, 1);
	clock_gettime(CLOCK_MONOTONIC, &b);
	secs = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
	fprintf(stderr, "  printf flood: %.1f s\n", secs);
	KT_EQ_INT(json_exit_status(out), 0);
	KT_NOT_CONTAINS(out, "says hello");
	ks_free(out);
	KT_ASSERT_MSG(secs < 300, "scoring a printf flood took %.0f s", secs);
	j = load_json("r/score.json");
	k = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "kernels"), 0);
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(k, "exec")));
	dout = cJSON_GetObjectItem(k, "device_output");
	KT_ASSERT(cJSON_IsObject(dout));
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(dout, "truncated")));
	fprintf(stderr, "  printf flood: %.0f bytes printed\n", cJSON_GetObjectItem(dout, "bytes")->valuedouble);
	KT_ASSERT(cJSON_GetObjectItem(dout, "bytes")->valuedouble > 1e6);
	KT_ASSERT(strlen(cJSON_GetObjectItem(dout, "text")->valuestring) <= 4096);
	KT_CONTAINS(cJSON_GetObjectItem(dout, "text")->valuestring, "says hello");
	cJSON_Delete(j);
}

/* seconds.timed_busy brackets each timed batch on the GPU: it holds the runs' own event times
 * and, since every run is preceded by an L2 flush, strictly more; it cannot exceed the stage's
 * wall time. */
static void test_gpu_timed_busy_holds_the_timed_runs_and_their_flushes(void)
{
	char args[4400];
	const cJSON *k;
	cJSON *j;
	int timed = 0;
	need_gpu();
	snprintf(args, sizeof(args), "--require-gpu --refs tests/fixtures/problems --out '%s/r' "
		 "tests/fixtures/cli/good.json", kt_tmpdir());
	KT_EQ_INT(score(args), 0);
	j = load_json("r/score.json");
	cJSON_ArrayForEach(k, cJSON_GetObjectItem(j, "kernels"))
	{
		const cJSON *s = cJSON_GetObjectItem(k, "seconds");
		double gpu = cJSON_GetObjectItem(s, "timed_gpu")->valuedouble,
		       busy = cJSON_GetObjectItem(s, "timed_busy")->valuedouble,
		       wall = cJSON_GetObjectItem(s, "timing")->valuedouble;
		if (!(gpu > 0))
			continue;
		timed++;
		fprintf(stderr, "  timed GPU %.4f s, busy %.4f s, timing wall %.4f s\n", gpu, busy, wall);
		KT_ASSERT(busy > gpu);
		KT_ASSERT(busy <= wall);
	}
	KT_ASSERT(timed > 0);
	cJSON_Delete(j);
}

/* A GPU run that checks and does not time (--no-timing, alone or with --sanitize) says so under
 * its table: its kernels ran, so it is no compile-only run. */
static void test_gpu_no_timing_summary_says_the_kernels_ran(void)
{
	char args[4400], *out;
	need_gpu();
	snprintf(args, sizeof(args), "--require-gpu --no-timing --refs tests/fixtures/problems --out '%s/r' "
		 "tests/fixtures/cli/good.json", kt_tmpdir());
	out = score_stdout(args, 0);
	KT_CONTAINS(out, "Call Accuracy: 1  Exec Accuracy: 1  (2 kernels)");
	KT_CONTAINS(out, "Score: none (--no-timing: kernels were run and checked, not timed)");
	KT_NOT_CONTAINS(out, "nothing was run");
	ks_free(out);
}

/* The harness's random inputs have the statistics their distributions must give (f16, f32 and bf16
 * normals and uniforms drawn in single precision, f64 and integers in double): the golden kernel of
 * fill_stats writes ok[j] = 1 only when input j passes its bounds, and the candidate writes 1
 * everywhere, so it passes only where every input is drawn right, on every seed of the
 * correctness case and on the redrawn inputs of its checked timed runs. The control,
 * fill_stats_shifted, declares x with mean 0.05 and must fail on ok[0]: the check can fail. */
static void test_gpu_random_inputs_have_their_distributions(void)
{
	char args[4400];
	cJSON *j, *ks, *k;
	need_gpu();
	snprintf(args, sizeof(args), "--require-gpu --seed 4242 --refs tests/fixtures/gpu/fillrefs --out '%s/r' "
		 "tests/fixtures/gpu/fills.json", kt_tmpdir());
	KT_EQ_INT(score(args), 1);
	j = load_json("r/score.json");
	ks = cJSON_GetObjectItem(j, "kernels");
	KT_EQ_INT(cJSON_GetArraySize(ks), 2);
	k = cJSON_GetArrayItem(ks, 0);
	KT_EQ_STR(cJSON_GetObjectItem(k, "problem")->valuestring, "fill_stats");
	if (!cJSON_IsTrue(cJSON_GetObjectItem(k, "exec")))
		KT_FAIL("fill_stats failed: %s (%s)", cJSON_GetObjectItem(k, "reason")->valuestring,
			cJSON_IsString(cJSON_GetObjectItem(k, "detail")) ? cJSON_GetObjectItem(k, "detail")->valuestring
									 : "-");
	/* its timed runs were checked against the golden kernel on redrawn inputs */
	KT_ASSERT(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(k, "perf"), 0), "checked_runs")
			  ->valuedouble >= 1);
	k = cJSON_GetArrayItem(ks, 1);
	KT_EQ_STR(cJSON_GetObjectItem(k, "problem")->valuestring, "fill_stats_shifted");
	KT_ASSERT(!cJSON_IsTrue(cJSON_GetObjectItem(k, "exec")));
	KT_EQ_STR(cJSON_GetObjectItem(k, "reason")->valuestring, "mismatch");
	cJSON_Delete(j);
}

/* Extended cases run and are reported, and never count: a kernel that is right inside the domain
 * (n <= 4097) and wrong beyond it keeps exec, its score and the file's accuracy, and its record says
 * "extended: 0 of 1". */
static void test_gpu_an_extended_case_is_reported_and_never_counted(void)
{
	static const char spec[] =
		"{\"name\": \"vext\", \"dims\": [\"n\"], \"args\": [{\"name\": \"a\", \"type\": \"f32*\", \"role\": \"in\", "
		"\"shape\": [\"n\"]}, {\"name\": \"b\", \"type\": \"f32*\", \"role\": \"in\", \"shape\": [\"n\"]}, "
		"{\"name\": \"c\", \"type\": \"f32*\", \"role\": \"out\", \"shape\": [\"n\"]}, {\"name\": \"n\", \"type\": "
		"\"i32\", \"value\": \"n\"}], \"launch\": {\"kernel\": \"vadd\", \"grid\": [\"cdiv(n, 256)\"], \"block\": "
		"[256]}, \"tolerance\": {\"atol\": 1e-6, \"rtol\": 1e-6}, \"bytes\": \"12 * n\", \"domain\": [{\"rule\": "
		"\"n <= 1 << 23\", \"message\": \"the reference's rows\"}], \"cases\": {\"correctness\": [{\"n\": 1}, "
		"{\"n\": 4097}, {\"n\": 16777216, \"extended\": true, \"label\": \"beyond\"}], \"perf\": [{\"n\": \"1 << 23\"}]}}";
	static const char sub[] =
		"[{\"file\": \"vext.cu\", \"predict\": \"extern \\\"C\\\" __global__ void vadd(const float *a, const float *b, "
		"float *c, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = i < (1 << 23) ? "
		"a[i] + b[i] : 0.0f; }\"}]";
	static const char golden[] = "extern \"C\" __global__ void vadd(const float *a, const float *b, float *c, "
				     "int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) c[i] = a[i] + b[i]; }\n";
	char dir[4400], path[4500], args[16384], *t = NULL;
	const cJSON *k, *e;
	cJSON *j;
	need_gpu();
	snprintf(dir, sizeof(dir), "%s/refs/demo/vext", kt_tmpdir());
	KT_EQ_INT(ks_fs_mkdir_p(dir, 0755), 0);
	snprintf(path, sizeof(path), "%s/problem.json", dir);
	KT_EQ_INT(ks_fs_write_atomic(path, spec, strlen(spec)), 0);
	snprintf(path, sizeof(path), "%s/golden.cu", dir);
	KT_EQ_INT(ks_fs_write_atomic(path, golden, strlen(golden)), 0);
	snprintf(path, sizeof(path), "%s/instruction.md", dir);
	KT_EQ_INT(ks_fs_write_atomic(path, "c = a + b\n", 10), 0);
	snprintf(path, sizeof(path), "%s/sub.json", kt_tmpdir());
	KT_EQ_INT(ks_fs_write_atomic(path, sub, strlen(sub)), 0);
	snprintf(args, sizeof(args), "--require-gpu --refs '%s/refs' --out '%s/r' '%s'", kt_tmpdir(), kt_tmpdir(), path);
	KT_EQ_INT(score(args), 0);
	j = load_json("r/score.json");
	k = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "kernels"), 0);
	KT_EQ_STR(kstr(k, "reason"), "ok");
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(k, "exec")));
	KT_ASSERT(cJSON_GetObjectItem(k, "score")->valuedouble > 0);
	e = cJSON_GetObjectItem(k, "extended");
	KT_EQ_INT(cJSON_GetObjectItem(e, "cases")->valueint, 1);
	KT_EQ_INT(cJSON_GetObjectItem(e, "run")->valueint, 1);
	KT_EQ_INT(cJSON_GetObjectItem(e, "passed")->valueint, 0);
	KT_EQ_STR(kstr(e, "text"), "extended: 0 of 1");
	cJSON_Delete(j);
	j = load_json("r/out.json_results_0.json");
	KT_EQ_INT(cJSON_GetObjectItem(cJSON_GetArrayItem(j, 0), "exec_status")->valueint, 1);
	cJSON_Delete(j);
	snprintf(path, sizeof(path), "%s/r/exec/performance_analysis.txt", kt_tmpdir());
	KT_EQ_INT(ks_fs_read(&t, NULL, path, 1 << 20), 0);
	KT_CONTAINS(t, "extended: 0 of 1 (beyond the problem's domain: not counted)");
	KT_CONTAINS(t, "case beyond: mismatch");
	ks_free(t);
	snprintf(path, sizeof(path), "%s/r/out.jsonpassk.txt", kt_tmpdir());
	KT_EQ_INT(ks_fs_read(&t, NULL, path, 1 << 20), 0);
	KT_CONTAINS(t, "Exec Accuracy: 100.0");
	ks_free(t);
}

static const kt_test tests[] = {
	KT(test_gpu_random_inputs_have_their_distributions),
	KT(test_gpu_no_timing_summary_says_the_kernels_ran),
	KT(test_gpu_bundled_example_gets_its_expected_verdicts),
	KT(test_gpu_stored_baseline_replaces_live_golden_timing),
	KT(test_gpu_timing_catches_planted_cheats_and_spares_honest_kernels),
	KT(test_gpu_a_cache_of_results_by_input_content_fails_on_redrawn_inputs),
	KT(test_gpu_correct_kernels_pass), KT(test_gpu_adversarial_kernels_fail_with_their_reason_in_one_run),
	KT(test_gpu_same_seed_same_verdicts),
	KT(test_gpu_sanitizer_fails_a_write_64k_past_the_output_and_passes_clean_kernels),
	KT(test_gpu_sanitizer_keeps_its_memcheck_worker_across_clean_kernels),
	KT(test_gpu_sanitizer_runs_a_case_with_several_blocks_and_a_partial_tail),
	KT(test_gpu_profile_names_uncoalesced_access_and_register_pressure),
	KT(test_gpu_profile_without_ncu_says_so_and_scores),
	KT(test_gpu_tool_stages_on_two_lanes_keep_their_verdicts),
	KT(test_gpu_device_printf_is_captured_and_a_debug_print_scores_correct),
	KT(test_gpu_a_printf_flood_costs_bounded_time_and_memory),
	KT(test_gpu_timed_busy_holds_the_timed_runs_and_their_flushes),
	KT(test_gpu_an_extended_case_is_reported_and_never_counted), { 0 }
};
KT_MAIN("gpu", tests)
