/* prepare tests: the CPU stage of a run's entries across several files (NVRTC runs here; no GPU is
 * needed): every entry of every file gets exactly one ready call, with its compiled kernel when it
 * is to run (a Triton answer as it is, for its check to trace) and only after its problem's golden
 * kernel is in the store, or settled with its reason (unknown problem, duplicate, not CUDA); files
 * added while others compile are compiled too; without a GPU everything is compiled only. */
#include "compiletest.h"
#include "session/prepare.h"
#include "load/problem.h"
#include "load/submission.h"
#include "util/mem.h"

#include <pthread.h>
#include <stdint.h>
#include <unistd.h>

#define NSETS 3
#define MAXN 8

typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	ks_golden_store *store;
	int ready[NSETS][MAXN], img[NSETS][MAXN], total;
	int golden_missing;       /* an image came before its golden kernel was stored */
} rec;

static void on_ready(void *ud, void *set_ud, size_t i, const ks_candidate_image *img)
{
	rec *r = ud;
	int s = (int)(intptr_t)set_ud;
	pthread_mutex_lock(&r->mu);
	r->ready[s][i]++;
	r->img[s][i] = img != NULL;
	/* a CUDA kernel comes compiled; a Triton answer comes as it is (its check traces it); both
	 * only once their problem's golden kernel is compiled */
	if (img && ((!img->cubin && img->language != KS_LANG_TRITON) || !img->problem ||
		    !ks_golden_store_has(r->store, img->problem)))
		r->golden_missing = 1;
	r->total++;
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
}

typedef struct {
	ks_submission *sub;
	const ks_entry **e;
	size_t n;
	ks_kernel_result *res;
	ks_prepare_set *set;
} file;

static void file_load(file *f, const char *path)
{
	ks_submission_limits lim = KS_SUBMISSION_LIMITS_INIT;
	size_t i, j;
	memset(f, 0, sizeof(*f));
	KT_EQ_INT(ks_submission_load(&f->sub, path, &lim), 0);
	f->e = ks_calloc(MAXN, sizeof(*f->e));
	for (i = 0; i < f->sub->npasses; i++)
		for (j = 0; j < f->sub->passes[i].nentries && f->n < MAXN; j++)
			f->e[f->n++] = &f->sub->passes[i].entries[j];
	f->res = ks_calloc(f->n + 1, sizeof(*f->res));
}

static void file_free(file *f)
{
	size_t i;
	ks_prepare_set_free(f->set);
	for (i = 0; i < f->n; i++)
		ks_kernel_result_clear(&f->res[i]);
	ks_free(f->res);
	ks_free(f->e);
	ks_submission_free(f->sub);
}

static void wait_total(rec *r, int n)
{
	pthread_mutex_lock(&r->mu);
	while (r->total < n)
		pthread_cond_wait(&r->cv, &r->mu);
	pthread_mutex_unlock(&r->mu);
}

static void setup(rec *r, ks_problem_set **ps, ks_check_options *co, ks_golden_store *store)
{
	memset(r, 0, sizeof(*r));
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	r->store = store;
	KT_EQ_INT(ks_problem_set_load(ps, "tests/fixtures/problems", NULL), 0);
	co->problems = *ps;
	co->compile = kt_helper_opts(120, 1);
}

static void test_every_entry_of_every_file_is_prepared_once(void)
{
	static const char *const paths[NSETS] = { "tests/fixtures/cli/good.json", "tests/fixtures/cli/sub.json",
						  "tests/fixtures/cli/triton.json" };
	ks_check_options co = KS_CHECK_OPTIONS_INIT;
	ks_golden_store *store = ks_golden_store_new();
	ks_problem_set *ps = NULL;
	ks_prepare *q = NULL;
	file f[NSETS];
	rec r;
	size_t s, i;
	int total = 0;

	setup(&r, &ps, &co, store);
	KT_EQ_INT(ks_prepare_new(&q, store, 1, &co, on_ready, &r), 0);
	for (s = 0; s < NSETS; s++)
		file_load(&f[s], paths[s]);
	/* two files at once, the third once the first is done (another wave of compiles) */
	ks_prepare_add(&f[0].set, q, f[0].res, f[0].e, NULL, f[0].n, (void *)(intptr_t)0);
	ks_prepare_add(&f[1].set, q, f[1].res, f[1].e, NULL, f[1].n, (void *)(intptr_t)1);
	wait_total(&r, (int)f[0].n);
	ks_prepare_add(&f[2].set, q, f[2].res, f[2].e, NULL, f[2].n, (void *)(intptr_t)2);
	for (s = 0; s < NSETS; s++)
		total += (int)f[s].n;
	wait_total(&r, total);
	ks_prepare_free(q);
	KT_EQ_INT(r.total, total);
	KT_ASSERT_MSG(!r.golden_missing, "an entry was handed on before its golden kernel was compiled");
	for (s = 0; s < NSETS; s++)
		for (i = 0; i < f[s].n; i++)
			KT_EQ_INT(r.ready[s][i], 1);
	/* good.json: both compiled, handed on with their images */
	for (i = 0; i < f[0].n; i++) {
		KT_EQ_INT(r.img[0][i], 1);
		KT_ASSERT(f[0].res[i].compiled);
		KT_ASSERT(ks_prepare_image(f[0].set, i) != NULL);
	}
	/* sub.json: an unknown problem and duplicates are settled without a GPU, with their reasons */
	KT_EQ_INT(r.img[1][2], 0);
	KT_EQ_INT(f[1].res[2].reason, KS_REASON_UNKNOWN_PROBLEM);
	KT_EQ_INT(f[1].res[3].reason, KS_REASON_DUPLICATE);
	KT_ASSERT(ks_prepare_image(f[1].set, 2) == NULL);
	/* triton.json: a Triton answer is handed on uncompiled, to be traced by its check; the answer
	 * that is Python without a Triton kernel is not run */
	KT_EQ_INT(r.img[2][0], 1);
	KT_EQ_INT(f[2].res[1].reason, KS_REASON_NOT_CUDA);
	for (i = 0; i < f[2].n; i++) {
		if (r.img[2][i]) {
			KT_EQ_INT(ks_prepare_image(f[2].set, i)->language, KS_LANG_TRITON);
			KT_EQ_STR(f[2].res[i].launch_source, "traced");
			KT_ASSERT(!f[2].res[i].compiled);
		} else
			KT_ASSERT(f[2].res[i].reason == KS_REASON_NOT_CUDA || f[2].res[i].reason == KS_REASON_NO_CODE);
	}
	/* each golden kernel once, for the whole run */
	for (i = 0; i < ps->n; i++)
		KT_ASSERT(ks_golden_store_has(store, ps->problems[i]));
	for (s = 0; s < NSETS; s++)
		file_free(&f[s]);
	ks_golden_store_free(store);
	ks_problem_set_free(ps);
}

static void test_without_a_gpu_entries_are_compiled_only(void)
{
	ks_check_options co = KS_CHECK_OPTIONS_INIT;
	ks_problem_set *ps = NULL;
	ks_prepare *q = NULL;
	file f;
	rec r;
	size_t i;

	setup(&r, &ps, &co, NULL);
	KT_EQ_INT(ks_prepare_new(&q, NULL, 0, &co, on_ready, &r), 0);
	file_load(&f, "tests/fixtures/cli/good.json");
	ks_prepare_add(&f.set, q, f.res, f.e, NULL, f.n, (void *)(intptr_t)0);
	wait_total(&r, (int)f.n);
	ks_prepare_free(q);
	for (i = 0; i < f.n; i++) {
		KT_EQ_INT(r.ready[0][i], 1);
		KT_EQ_INT(r.img[0][i], 0);
		KT_ASSERT(f.res[i].compiled);
		KT_EQ_INT(f.res[i].reason, KS_REASON_NOT_RUN);
		KT_CONTAINS(f.res[i].detail, "not run (no GPU)");
	}
	file_free(&f);
	ks_problem_set_free(ps);
}

/* A held queue takes nothing: every file of a command line goes into one wave (cmd_score.c).
 * sub.json's unknown problem and duplicates are settled as soon as a wave takes the file, within
 * milliseconds when the queue is not held. Freeing a held queue still prepares what is in it. */
static void test_a_held_queue_waits_then_takes_everything_at_once(void)
{
	ks_check_options co = KS_CHECK_OPTIONS_INIT;
	ks_golden_store *store = ks_golden_store_new();
	ks_problem_set *ps = NULL;
	ks_prepare *q = NULL;
	file f[2];
	rec r;
	int seen;

	setup(&r, &ps, &co, store);
	KT_EQ_INT(ks_prepare_new(&q, store, 1, &co, on_ready, &r), 0);
	file_load(&f[0], "tests/fixtures/cli/sub.json");
	file_load(&f[1], "tests/fixtures/cli/good.json");
	ks_prepare_hold(q, 1);
	ks_prepare_add(&f[0].set, q, f[0].res, f[0].e, NULL, f[0].n, (void *)(intptr_t)0);
	usleep(300 * 1000);
	pthread_mutex_lock(&r.mu);
	seen = r.total;
	pthread_mutex_unlock(&r.mu);
	KT_EQ_INT(seen, 0);
	ks_prepare_add(&f[1].set, q, f[1].res, f[1].e, NULL, f[1].n, (void *)(intptr_t)1);
	ks_prepare_hold(q, 0);
	wait_total(&r, (int)(f[0].n + f[1].n));
	KT_EQ_INT(f[0].res[2].reason, KS_REASON_UNKNOWN_PROBLEM);
	KT_ASSERT(f[1].res[0].compiled);
	ks_prepare_free(q);
	file_free(&f[0]);
	file_free(&f[1]);
	ks_golden_store_free(store);
	ks_problem_set_free(ps);
	/* held to the end: freeing the queue prepares what it holds */
	store = ks_golden_store_new();
	setup(&r, &ps, &co, store);
	KT_EQ_INT(ks_prepare_new(&q, store, 1, &co, on_ready, &r), 0);
	file_load(&f[0], "tests/fixtures/cli/sub.json");
	ks_prepare_hold(q, 1);
	ks_prepare_add(&f[0].set, q, f[0].res, f[0].e, NULL, f[0].n, (void *)(intptr_t)0);
	ks_prepare_free(q);
	KT_EQ_INT(r.total, (int)f[0].n);
	file_free(&f[0]);
	ks_golden_store_free(store);
	ks_problem_set_free(ps);
}

static const kt_test tests[] = {
	KT(test_a_held_queue_waits_then_takes_everything_at_once),
	KT(test_every_entry_of_every_file_is_prepared_once),
	KT(test_without_a_gpu_entries_are_compiled_only),
	{ NULL, NULL }
};

KT_MAIN("prepare", tests)
