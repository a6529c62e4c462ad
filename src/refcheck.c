#include "refcheck.h"
#include "calibrate.h"
#include "compare.h"
#include "compile.h"
#include "config.h"
#include "errors.h"
#include "fsutil.h"
#include "jsonutil.h"
#include "mem.h"
#include "scoreopts.h"
#include "problem.h"
#include "roofline.h"
#include "runner.h"
#include "timing.h"

#include <getopt.h>
#include <stdarg.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIN_PERF_MS 0.1

typedef struct {
	const ks_problem *p;
	int compiled;
	char *fail;              /* first failure, NULL when the problem passes */
	int cases_ok, cases;
	double min_perf_ms;      /* shortest golden perf case */
	double max_roofline;     /* highest fraction of the roofline on a perf case */
	double signal;           /* fraction of output elements that changed with the inputs */
} row;

static void fail(row *r, const char *fmt, ...) KS_PRINTF(2, 3);
static void fail(row *r, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	if (r->fail)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	r->fail = ks_strdup(buf);
}

static const unsigned char *data(const ks_run_result *res, const ks_plan *plan, size_t i)
{
	return res->blob + res->bufs[i].off + plan->guard;
}

static int run_plan(ks_runner *run, ks_run_result *res, const ks_problem *p, const ks_case *c, uint64_t seed,
		    int poison, int no_kernels, ks_plan *plan, row *r)
{
	ks_env env = KS_ENV_INIT;
	ks_fetch_mode fetch[KS_LAUNCH_MAX_SCRATCH + 72];
	size_t i;
	int rc = -1;
	memset(res, 0, sizeof(*res));
	if (ks_problem_env(&env, p, c) < 0 ||
	    ks_plan_build(plan, p, &p->golden_launch, c, &env, seed, poison, NULL) < 0) {
		fail(r, "case %s: %s", c->label, ks_error_msg());
		goto done;
	}
	if (no_kernels)
		plan->nkernels = 0; /* fill only: what the inputs look like before any kernel ran */
	for (i = 0; i < plan->nbufs; i++)
		fetch[i] = plan->bufs[i].scratch ? KS_FETCH_GUARDS : KS_FETCH_FULL;
	ks_runner_golden_plan(run, res, p, plan, fetch);
	if (res->status != KS_RUN_OK) {
		fail(r, "case %s: the golden kernel failed: %s", c->label, res->message ? res->message : "?");
		goto done;
	}
	rc = 0;
done:
	ks_env_free(&env);
	return rc;
}

/* The golden kernel on one correctness case: A (seed 0), B (seed 0, other poison), Z (no kernel),
 * C (seed 1). */
static void check_case(ks_runner *run, const ks_problem *p, size_t ci, uint64_t base, row *r)
{
	const ks_case *c = &p->correctness[ci];
	ks_run_result a, b, z, cc;
	ks_plan pa, pb, pz, pc;
	size_t i;
	uint64_t s0 = ks_seed_derive(base, p->name, 0, ci, 0), s1 = ks_seed_derive(base, p->name, 0, ci, 1);
	uint64_t changed = 0, total = 0;
	int ok = 1;

	memset(&pa, 0, sizeof(pa));
	memset(&pb, 0, sizeof(pb));
	memset(&pz, 0, sizeof(pz));
	memset(&pc, 0, sizeof(pc));
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&z, 0, sizeof(z));
	memset(&cc, 0, sizeof(cc));
	r->cases++;
	if (run_plan(run, &a, p, c, s0, 0, 0, &pa, r) < 0 || run_plan(run, &b, p, c, s0, 1, 0, &pb, r) < 0 ||
	    run_plan(run, &z, p, c, s0, 0, 1, &pz, r) < 0 || run_plan(run, &cc, p, c, s1, 0, 0, &pc, r) < 0)
		goto done;
	for (i = 0; i < pa.nbufs; i++) {
		const ks_plan_buf *bf = &pa.bufs[i];
		const unsigned char *base_a = a.blob + a.bufs[i].off;
		uint64_t g = pa.guard, back = a.bufs[i].total - g - bf->bytes, unwritten, first;
		ks_cmp_stats st;
		if (bf->scratch)
			continue;
		if (ks_compare_guard(base_a, g, 0) >= 0 ||
		    ks_compare_guard(base_a + g + bf->bytes, back, (g + bf->bytes) % 8) >= 0) {
			fail(r, "case %s: the golden kernel writes outside %s", c->label, bf->name);
			ok = 0;
			continue;
		}
		if (bf->role == KS_ROLE_IN) {
			if (memcmp(data(&a, &pa, i), data(&z, &pz, i), bf->bytes)) {
				fail(r, "case %s: the golden kernel modifies its input %s", c->label, bf->name);
				ok = 0;
			}
			continue;
		}
		if ((unwritten = ks_compare_count_poison(&first, bf->dtype, data(&a, &pa, i), bf->count, pa.poison))) {
			fail(r, "case %s: the golden kernel leaves %llu elements of %s unwritten (first at index %llu)",
			     c->label, (unsigned long long)unwritten, bf->name, (unsigned long long)first);
			ok = 0;
			continue;
		}
		if (memcmp(data(&a, &pa, i), data(&b, &pb, i), bf->bytes)) {
			fail(r, "case %s: %s differs between two runs on the same inputs (not deterministic, or "
			     "it reads its output before writing it)", c->label, bf->name);
			ok = 0;
			continue;
		}
		/* signal: how much of the output changes when the inputs change */
		{
			const ks_arg *arg = &p->args[bf->stream];
			ks_compare_tensor(&st, bf->dtype, data(&cc, &pc, i), data(&a, &pa, i), bf->count, arg->atol,
					  arg->rtol, 0);
			changed += st.bad;
			total += bf->count;
		}
	}
	if (ok && total) {
		double frac = (double)changed / (double)total;
		if (ci + 1 == p->ncorrectness || frac > r->signal)
			r->signal = frac > r->signal ? frac : r->signal;
	}
	if (ok)
		r->cases_ok++;
done:
	ks_run_result_clear(&a);
	ks_run_result_clear(&b);
	ks_run_result_clear(&z);
	ks_run_result_clear(&cc);
	ks_plan_clear(&pa);
	ks_plan_clear(&pb);
	ks_plan_clear(&pz);
	ks_plan_clear(&pc);
}

static void check_perf(ks_runner *run, const ks_problem *p, uint64_t base, const ks_ceilings *ceil,
		       const ks_config *cfg, row *r)
{
	size_t ci;
	r->min_perf_ms = INFINITY;
	for (ci = 0; ci < p->nperf; ci++) {
		const ks_case *c = &p->perf[ci];
		ks_env env = KS_ENV_INIT;
		ks_plan plan;
		ks_run_result res;
		uint64_t seeds[2] = { ks_seed_derive(base, p->name, 1, ci, 100), ks_seed_derive(base, p->name, 1, ci, 101) };
		int sets[24], i, module = -1;
		double ms[24], floor_ms = 0;
		int64_t v;
		ks_stats st;
		ks_worker *w;

		memset(&res, 0, sizeof(res));
		memset(&plan, 0, sizeof(plan));
		if (ks_problem_env(&env, p, c) < 0 || ks_plan_build(&plan, p, &p->golden_launch, c, &env, seeds[0], 0,
								     NULL) < 0) {
			fail(r, "perf case %s: %s", c->label, ks_error_msg());
			ks_env_free(&env);
			return;
		}
		w = ks_runner_golden_worker(run, p, &module);
		if (!w) {
			fail(r, "%s", ks_error_msg());
			goto next;
		}
		ks_worker_time_start(w, &res, module, &plan, seeds, 2, 128ull << 20, 120);
		if (res.status == KS_RUN_OK) {
			ks_run_result_clear(&res);
			for (i = 0; i < 24; i++)
				sets[i] = i % 2;
			ks_worker_time_run(w, &res, sets, 24, ms, 120);
		}
		if (res.status != KS_RUN_OK) {
			fail(r, "perf case %s: the golden kernel failed: %s", c->label, res.message ? res.message : "?");
			goto next;
		}
		ks_worker_time_end(w);
		ks_stats_compute(&st, ms + 4, 20); /* the first 4 are warm-up */
		if (st.median < r->min_perf_ms)
			r->min_perf_ms = st.median;
		if (st.median < MIN_PERF_MS)
			fail(r, "perf case %s: the golden kernel takes %.4f ms, under %.1f ms: too short to time "
			     "well", c->label, st.median, MIN_PERF_MS);
		if (ceil) {
			double bytes = 0, flops = 0;
			if (ks_expr_eval(&v, p->bytes, &env) == 0)
				bytes = (double)v;
			if (p->flops && ks_expr_eval(&v, p->flops, &env) == 0)
				flops = (double)v;
			floor_ms = ks_roofline_floor_ms(bytes, flops, ceil->bandwidth_gbps, ks_ceilings_peak(ceil, p->peak));
			if (floor_ms / st.median > r->max_roofline)
				r->max_roofline = floor_ms / st.median;
			if (st.median < floor_ms * (1 - cfg->roofline_margin))
				fail(r, "perf case %s: the golden kernel (%.4f ms) beats the roofline floor (%.4f ms): the "
				     "spec's bytes or flops are too high", c->label, st.median, floor_ms);
		}
	next:
		ks_run_result_clear(&res);
		ks_plan_clear(&plan);
		ks_env_free(&env);
	}
}

int ks_refcheck_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "refs", required_argument, 0, 'r' },   { "suite", required_argument, 0, 's' },
		{ "compile-only", no_argument, 0, 'c' }, { "json", required_argument, 0, 'j' },
		{ "device", required_argument, 0, 'd' }, { "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	char *refs = NULL;
	const char *given = NULL, *suite = NULL, *json = NULL;
	ks_compile_options co = KS_COMPILE_OPTIONS_INIT;
	ks_runner_options ro = KS_RUNNER_OPTIONS_INIT;
	ks_config cfg = KS_CONFIG_INIT;
	ks_problem_set *set = NULL;
	ks_runner *run = NULL;
	ks_ceilings ceil;
	ks_compile_status *status = NULL;
	char **logs = NULL, *cache = NULL, *cfgpath = NULL;
	size_t i, nfail = 0;
	row *rows = NULL;
	cJSON *out = NULL;
	int opt, compile_only = 0, device = 0, have_ceil = 0, rc = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "r:h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			given = optarg;
			break;
		case 's':
			suite = optarg;
			break;
		case 'c':
			compile_only = 1;
			break;
		case 'j':
			json = optarg;
			break;
		case 'd':
			device = atoi(optarg);
			break;
		case 'h':
			printf("Usage: score check-refs [--refs DIR] [--suite NAME] [--compile-only] [--json FILE]\n"
			       "Validates every reference problem: the spec loads; the golden kernel compiles;\n"
			       "on a GPU it passes its own correctness cases (runs, stays inside its buffers,\n"
			       "writes every output, leaves inputs alone, repeats bit for bit), its outputs\n"
			       "change with its inputs, each perf case takes at least %.1f ms, and no perf\n"
			       "case beats the measured roofline. Prints a table (and JSON with --json).\n"
			       "Exit status: 0 all pass, 1 some fail, 65 no problem loads, 69 no GPU.\n",
			       MIN_PERF_MS);
			return 0;
		default:
			return 64;
		}
	}
	refs = ks_scoreopts_find_refs(given);
	if (!refs) {
		fprintf(stderr, "score: no reference_tests folder found (use --refs)\n");
		return 65;
	}
	if (ks_problem_set_load(&set, refs, suite) < 0) {
		fprintf(stderr, "score check-refs: %s\n", ks_error_msg());
		ks_free(refs);
		return 65;
	}
	cache = ks_scoreopts_default_cache();
	if (cache)
		ks_fs_mkdir_p(cache, 0755);
	co.cache_dir = cache;
	cfgpath = ks_config_find(refs);
	if (cfgpath && ks_config_load(&cfg, cfgpath) < 0)
		fprintf(stderr, "score check-refs: warning: %s\n", ks_error_msg());
	if (!compile_only) {
		ro.device = device;
		ro.compile = co;
		ro.golden_only = 1;
		if (ks_runner_start(&run, &ro) < 0) {
			fprintf(stderr, "score check-refs: no usable GPU: %s (use --compile-only)\n", ks_error_msg());
			rc = 69;
			goto done;
		}
		co.arch = ks_runner_arch(run);
		ks_problem_set_sm_count(set, ks_runner_device(run)->sm_count);
		{
			char *exe = ks_find_helper("kscore-worker");
			have_ceil = exe && ks_ceilings_get(&ceil, cache, exe, device, ks_runner_device(run), &co, 0) == 0;
			ks_free(exe);
		}
	}
	rows = ks_calloc(set->n + 1, sizeof(*rows));
	status = ks_calloc(set->n + 1, sizeof(*status));
	logs = ks_calloc(set->n + 1, sizeof(char *));
	for (i = 0; i < set->n; i++)
		rows[i].p = set->problems[i];
	co.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ks_runner_compile_goldens(run, set, &co, status, logs) < 0) {
		fprintf(stderr, "score check-refs: %s\n", ks_error_msg());
		rc = 70;
		goto done;
	}
	for (i = 0; i < set->n; i++) {
		row *r = &rows[i];
		size_t ci;
		if (status[i] != KS_COMPILE_OK) {
			fail(r, "golden.cu does not compile (%s): %.300s", ks_compile_status_name(status[i]), logs[i]);
			continue;
		}
		r->compiled = 1;
		if (!run)
			continue;
		if (isatty(2))
			fprintf(stderr, "\r\033[Kcheck-refs: [%zu/%zu] %s", i, set->n, r->p->name);
		for (ci = 0; ci < r->p->ncorrectness && !r->fail; ci++)
			check_case(run, r->p, ci, 0x6b73636f7265ull, r);
		if (!r->fail && r->signal < 0.01)
			fail(r, "outputs carry no signal: only %.2f%% of output elements change when the inputs do",
			     100 * r->signal);
		if (!r->fail)
			check_perf(run, r->p, 0x6b73636f7265ull, have_ceil ? &ceil : NULL, &cfg, r);
	}
	if (isatty(2))
		fprintf(stderr, "\r\033[K");
	out = cJSON_CreateArray();
	printf("%-10s %-28s %-7s %-8s %-7s %10s %7s  %s\n", "suite", "problem", "compile", "cases", "signal",
	       "min perf ms", "roof%", "verdict");
	for (i = 0; i < set->nerrors; i++) {
		printf("%-10s %-28s %s\n", "?", "(spec)", set->errors[i]);
		nfail++;
	}
	for (i = 0; i < set->n; i++) {
		row *r = &rows[i];
		cJSON *o = cJSON_CreateObject();
		char cases[32] = "-", sig[16] = "-", perf[16] = "-", roof[16] = "-";
		if (run && r->compiled) {
			snprintf(cases, sizeof(cases), "%d/%d", r->cases_ok, r->cases);
			snprintf(sig, sizeof(sig), "%.0f%%", 100 * r->signal);
			if (isfinite(r->min_perf_ms) && r->min_perf_ms > 0)
				snprintf(perf, sizeof(perf), "%.4f", r->min_perf_ms);
			if (r->max_roofline > 0)
				snprintf(roof, sizeof(roof), "%.0f", 100 * r->max_roofline);
		}
		printf("%-10s %-28s %-7s %-8s %-7s %10s %7s  %s\n", r->p->suite, r->p->name, r->compiled ? "ok" : "FAIL",
		       cases, sig, perf, roof, r->fail ? r->fail : (run ? "PASS" : "compiles (not run)"));
		nfail += r->fail != NULL;
		cJSON_AddStringToObject(o, "suite", r->p->suite);
		cJSON_AddStringToObject(o, "problem", r->p->name);
		cJSON_AddBoolToObject(o, "compiled", r->compiled);
		cJSON_AddBoolToObject(o, "ran", run != NULL);
		cJSON_AddNumberToObject(o, "cases_ok", r->cases_ok);
		cJSON_AddNumberToObject(o, "cases", r->cases);
		ks_json_add_num(o, "signal", r->signal);
		ks_json_add_num(o, "min_perf_ms", isfinite(r->min_perf_ms) ? r->min_perf_ms : NAN);
		ks_json_add_num(o, "max_roofline_fraction", r->max_roofline);
		if (r->fail)
			cJSON_AddStringToObject(o, "failure", r->fail);
		else
			cJSON_AddNullToObject(o, "failure");
		cJSON_AddItemToArray(out, o);
	}
	printf("%zu problems, %zu passed, %zu failed%s\n", set->n + set->nerrors, set->n + set->nerrors - nfail,
	       nfail, run ? "" : " (compile-only: nothing was run)");
	if (json && ks_json_write_file(json, out, 1) < 0)
		fprintf(stderr, "score check-refs: %s\n", ks_error_msg());
	rc = nfail ? 1 : 0;
done:
	for (i = 0; set && rows && i < set->n; i++)
		ks_free(rows[i].fail);
	if (logs)
		ks_free_strv(logs, set->n);
	cJSON_Delete(out);
	ks_free(rows);
	ks_free(status);
	ks_free(cache);
	ks_free(cfgpath);
	ks_runner_free(run);
	ks_problem_set_free(set);
	ks_free(refs);
	return rc;
}
