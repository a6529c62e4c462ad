/* Tests of check's verdict on one run (ks_check_run), against worker replies recorded here: the
 * blobs a worker sends back, built byte by byte (guard bands, poison, data), so no GPU is needed. */
#include "ktest.h"
#include "judge/metrics.h"
#include "run/check.h"
#include "run/compare.h"
#include "run/harness.h"
#include "util/errors.h"
#include "util/mem.h"

#define N 1000

typedef struct {
	ks_problem_set *set;
	const ks_problem *p;
	ks_env env;
	ks_plan plan;
} fixture;

/* vadd (a, b in; c out) on its 1000-element correctness case, plan resolved. */
static void fixture_init(fixture *f)
{
	const char *root = getenv("KSCORE_ROOT");
	char *refs = ks_asprintf("%s/tests/fixtures/problems", root && *root ? root : ".");
	ks_env e = KS_ENV_INIT;
	memset(f, 0, sizeof(*f));
	f->env = e;
	KT_EQ_INT(ks_problem_set_load(&f->set, refs, NULL), 0);
	f->p = ks_problem_set_find(f->set, "vadd");
	KT_ASSERT(f->p != NULL);
	KT_EQ_INT(ks_problem_env(&f->env, f->p, &f->p->correctness[1]), 0);
	KT_EQ_INT(ks_plan_build(&f->plan, f->p, &f->p->golden_launch, &f->p->correctness[1], &f->env, 7, 0,
				NULL), 0);
	KT_EQ_INT(f->plan.nbufs, 3);
	KT_EQ_INT(f->plan.bufs[2].count, N);
	ks_free(refs);
}

static void fixture_free(fixture *f)
{
	ks_plan_clear(&f->plan);
	ks_env_free(&f->env);
	ks_problem_set_free(f->set);
}

/* A FULL reply for the plan: every buffer guard + data + slack + guard, the guard pattern laid
 * from each buffer's base as the worker does; a[i] = i, b[i] = 2i, c[i] = 3i (or poison). */
static void reply(ks_run_result *res, const ks_plan *plan, int poisoned_c)
{
	uint64_t off = 0, word = KS_GUARD_WORD;
	size_t i, k;
	memset(res, 0, sizeof(*res));
	res->status = KS_RUN_OK;
	res->nbufs = plan->nbufs;
	res->bufs = ks_calloc(plan->nbufs, sizeof(*res->bufs));
	for (i = 0; i < plan->nbufs; i++) {
		res->bufs[i].off = off;
		res->bufs[i].total = 2ull * plan->guard + ((plan->bufs[i].bytes + 255) & ~255ull);
		res->bufs[i].mode = KS_FETCH_FULL;
		off += res->bufs[i].total;
	}
	res->blob_len = off;
	res->blob = ks_malloc(off);
	for (i = 0; i < plan->nbufs; i++) {
		unsigned char *base = res->blob + res->bufs[i].off;
		float *d = (float *)(void *)(base + plan->guard);
		for (k = 0; k < res->bufs[i].total; k += 8)
			memcpy(base + k, &word, 8);
		for (k = 0; k < plan->bufs[i].count; k++) {
			if (i == 2 && poisoned_c) {
				unsigned char pat[8];
				ks_dtype_poison(KS_DT_F32, plan->poison, pat);
				memcpy(&d[k], pat, 4);
			} else {
				d[k] = (float)((i + 1) * k);
			}
		}
	}
}

static float *elem(ks_run_result *res, const ks_plan *plan, size_t buf, size_t k)
{
	return (float *)(void *)(res->blob + res->bufs[buf].off + plan->guard) + k;
}

/* The fixture, a golden reply and a candidate reply that agree. */
typedef struct {
	fixture f;
	ks_run_result g, c;
	char *d;
} scene;

static void scene_init(scene *s)
{
	fixture_init(&s->f);
	reply(&s->g, &s->f.plan, 0);
	reply(&s->c, &s->f.plan, 0);
	s->d = NULL;
}

static void scene_free(scene *s)
{
	ks_free(s->d);
	ks_run_result_clear(&s->g);
	ks_run_result_clear(&s->c);
	fixture_free(&s->f);
}

static ks_reason verdict(char **detail, const ks_run_result *cand, const ks_run_result *gold,
			 const fixture *f)
{
	ks_golden_run g;
	memset(&g, 0, sizeof(g));
	g.plan = f->plan;
	g.res = *gold;
	*detail = NULL;
	return ks_check_run(detail, cand, &f->plan, NULL, &g, f->p);
}

/* The scene's verdict; its detail stays in s->d (the previous one is freed). */
static ks_reason judge(scene *s)
{
	ks_free(s->d);
	return verdict(&s->d, &s->c, &s->g, &s->f);
}

static void test_an_identical_run_passes(void)
{
	scene s;
	scene_init(&s);
	KT_EQ_INT(judge(&s), KS_REASON_OK);
	/* NaN where the golden output has NaN is right; a number there is not */
	*elem(&s.g, &s.f.plan, 2, 9) = NAN;
	*elem(&s.c, &s.f.plan, 2, 9) = NAN;
	KT_EQ_INT(judge(&s), KS_REASON_OK);
	*elem(&s.c, &s.f.plan, 2, 9) = 27;
	KT_EQ_INT(judge(&s), KS_REASON_MISMATCH);
	KT_CONTAINS(s.d, "c[9]");
	scene_free(&s);
}

static void test_wrong_and_unwritten_outputs(void)
{
	scene s;
	scene_init(&s);
	*elem(&s.c, &s.f.plan, 2, 5) += 1.0f; /* tolerance 1e-6 */
	KT_EQ_INT(judge(&s), KS_REASON_MISMATCH);
	KT_CONTAINS(s.d, "c[5] = 16, expected 15");
	KT_CONTAINS(s.d, "1 of 1000 elements wrong");
	ks_run_result_clear(&s.c);
	reply(&s.c, &s.f.plan, 1);
	KT_EQ_INT(judge(&s), KS_REASON_UNWRITTEN);
	KT_CONTAINS(s.d, "never written");
	scene_free(&s);
}

static void test_writes_outside_a_buffer(void)
{
	scene s;
	scene_init(&s);
	/* one byte past c's data */
	s.c.blob[s.c.bufs[2].off + s.f.plan.guard + s.f.plan.bufs[2].bytes] ^= 0xff;
	KT_EQ_INT(judge(&s), KS_REASON_OOB_WRITE);
	KT_CONTAINS(s.d, "wrote past the end of c (4000 bytes): at byte 0 after it");
	ks_run_result_clear(&s.c);
	/* the last byte before a's data */
	reply(&s.c, &s.f.plan, 0);
	s.c.blob[s.c.bufs[0].off + s.f.plan.guard - 1] ^= 0x01;
	KT_EQ_INT(judge(&s), KS_REASON_OOB_WRITE);
	KT_CONTAINS(s.d, "wrote before a: 1 bytes before its start");
	scene_free(&s);
}

static void test_modified_inputs(void)
{
	scene s;
	scene_init(&s);
	*elem(&s.c, &s.f.plan, 0, 17) = -1;
	KT_EQ_INT(judge(&s), KS_REASON_INPUT_MODIFIED);
	KT_CONTAINS(s.d, "input a was modified: a[17] is -1, was 17");
	ks_run_result_clear(&s.c);
	/* perf sizes: inputs come back as checksums only */
	reply(&s.c, &s.f.plan, 0);
	s.c.bufs[1].mode = s.g.bufs[1].mode = KS_FETCH_CHECKSUM;
	s.c.bufs[1].has_checksum = s.g.bufs[1].has_checksum = 1;
	s.c.bufs[1].checksum = s.g.bufs[1].checksum = 0x1234;
	KT_EQ_INT(judge(&s), KS_REASON_OK);
	s.c.bufs[1].checksum = 0x1235;
	KT_EQ_INT(judge(&s), KS_REASON_INPUT_MODIFIED);
	KT_CONTAINS(s.d, "input b was modified (its checksum changed)");
	scene_free(&s);
}

static void test_failed_runs_are_charged_by_kind(void)
{
	ks_run_result r;
	memset(&r, 0, sizeof(r));
	r.status = KS_RUN_FAULT;
	KT_EQ_INT(ks_check_run_failure(&r), KS_REASON_FAULT);
	r.status = KS_RUN_TIMEOUT;
	KT_EQ_INT(ks_check_run_failure(&r), KS_REASON_TIMEOUT);
	r.status = KS_RUN_CRASH;
	KT_EQ_INT(ks_check_run_failure(&r), KS_REASON_CRASH);
	r.status = KS_RUN_ERROR;
	KT_EQ_INT(ks_check_run_failure(&r), KS_REASON_LAUNCH_ERROR);
}

/* An entry whose GPU failed during its checks is checked again on another lane (--devices): what
 * the lost run recorded goes, the sanitizer's record and what the kernel printed included (it
 * prints again where it runs next), and what came before the GPU (compile) stays. */
static void test_a_reset_entry_keeps_only_what_came_before_the_gpu(void)
{
	ks_kernel_result r;
	memset(&r, 0, sizeof(r));
	r.compiled = r.ran = r.call = 1;
	r.compile_s = 1.5;
	r.device_output = ks_strdup("hello from the lost GPU\n");
	r.device_output_bytes = r.device_output_raw = 24;
	r.sanitizer = cJSON_CreateObject();
	ks_kernel_result_fail(&r, KS_REASON_FAULT, "the worker died");
	ks_check_reset(&r);
	KT_EQ_INT(r.reason, KS_REASON_OK);
	KT_ASSERT(r.detail == NULL && !r.ran && !r.call && !r.exec);
	KT_ASSERT(r.device_output == NULL);
	KT_EQ_INT(r.device_output_bytes, 0);
	KT_EQ_INT(r.device_output_raw, 0);
	KT_ASSERT(r.sanitizer == NULL);
	KT_ASSERT(r.compiled);
	KT_NEAR(r.compile_s, 1.5, 1e-12);
	ks_kernel_result_clear(&r);
}

/* A failed extended case stays in its case result: the kernel keeps reason OK (so exec, accuracy
 * and the score do not move), while a scored case's failure is the kernel's, named by case and
 * seed. */
static void test_an_extended_failure_is_not_the_kernels(void)
{
	ks_kernel_result r;
	ks_case_result cr, sc;
	ks_file_metrics m;
	memset(&r, 0, sizeof(r));
	r.problem = ks_strdup("l2_norm");
	r.compiled = r.ran = r.call = r.exec = 1;
	r.extended = r.extended_run = 2;
	r.extended_passed = 1;
	memset(&cr, 0, sizeof(cr));
	cr.extended = 1;
	cr.seed_index = 1;
	ks_check_case_outcome(&r, &cr, KS_REASON_MISMATCH, ks_strdup("y[3] is 1, expected 2"), "N=20000");
	KT_ASSERT(!cr.passed);
	KT_EQ_INT(cr.reason, KS_REASON_MISMATCH);
	KT_EQ_STR(cr.detail, "y[3] is 1, expected 2");
	KT_EQ_INT(r.reason, KS_REASON_OK);
	KT_ASSERT(r.detail == NULL);
	ks_metrics_file(&m, &r, 1);
	KT_NEAR(m.exec_accuracy, 1.0, 0);
	KT_NEAR(m.call_accuracy, 1.0, 0);
	ks_free(cr.detail);
	/* a scored case's failure is the kernel's */
	memset(&sc, 0, sizeof(sc));
	sc.seed_index = -1; /* the re-run: said as seed 0 */
	ks_check_case_outcome(&r, &sc, KS_REASON_FAULT, NULL, "N=4");
	KT_EQ_INT(r.reason, KS_REASON_FAULT);
	KT_EQ_STR(r.detail, "case N=4, seed 0: fault");
	KT_EQ_STR(sc.detail, "fault");
	ks_free(sc.detail);
	/* passing runs keep nothing */
	memset(&sc, 0, sizeof(sc));
	ks_check_case_outcome(&r, &sc, KS_REASON_OK, ks_strdup("unused"), "N=4");
	KT_ASSERT(sc.passed && sc.detail == NULL);
	ks_kernel_result_clear(&r);
}

static const kt_test tests[] = {
	KT(test_an_identical_run_passes),
	KT(test_wrong_and_unwritten_outputs),
	KT(test_writes_outside_a_buffer),
	KT(test_modified_inputs),
	KT(test_failed_runs_are_charged_by_kind),
	KT(test_a_reset_entry_keeps_only_what_came_before_the_gpu),
	KT(test_an_extended_failure_is_not_the_kernels),
	{ NULL, NULL }
};

KT_MAIN("check", tests)
