#include "ktest.h"
#include "judge/metrics.h"
#include "util/mem.h"

static ks_kernel_result mk(size_t pass, const char *problem, int compiled, int call, int exec)
{
	ks_kernel_result r;
	memset(&r, 0, sizeof(r));
	r.pass = pass;
	r.problem = problem ? ks_strdup(problem) : NULL;
	r.compiled = compiled;
	r.call = call;
	r.exec = exec;
	r.ran = 1;
	return r;
}

static void test_pass_at_k_hand_computed(void)
{
	/* n=5, c=2, k=1: 1 - C(3,1)/C(5,1) = 1 - 3/5 = 0.4 */
	KT_NEAR(ks_pass_at_k(5, 2, 1), 0.4, 1e-12);
	/* n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10 = 0.7 */
	KT_NEAR(ks_pass_at_k(5, 2, 2), 0.7, 1e-12);
	/* n=10, c=3, k=5: 1 - C(7,5)/C(10,5) = 1 - 21/252 */
	KT_NEAR(ks_pass_at_k(10, 3, 5), 1.0 - 21.0 / 252.0, 1e-12);
	/* n-c < k: certain */
	KT_NEAR(ks_pass_at_k(4, 2, 3), 1.0, 0);
	KT_NEAR(ks_pass_at_k(4, 0, 3), 0.0, 0);
	KT_NEAR(ks_pass_at_k(4, 4, 1), 1.0, 0);
	/* large n stays finite where binomials would overflow: n=200, c=1, k=1 -> 1/200 */
	KT_NEAR(ks_pass_at_k(200, 1, 1), 0.005, 1e-12);
}

static void test_file_accuracy_counts_problems_once(void)
{
	ks_kernel_result r[5];
	ks_file_metrics m;
	size_t i;
	r[0] = mk(0, "a", 1, 1, 1);
	r[1] = mk(0, "b", 1, 1, 0);
	r[2] = mk(0, "c", 0, 0, 0);
	r[3] = mk(0, "a", 1, 0, 0); /* a later entry of a: only the first counts */
	r[4] = mk(0, NULL, 0, 0, 0); /* names no problem: its own group */
	ks_metrics_file(&m, r, 5);
	KT_EQ_INT(m.entries, 5);
	KT_EQ_INT(m.duplicates, 1);
	KT_EQ_INT(m.problems, 4);
	KT_NEAR(m.call_accuracy, (1 + 1 + 0 + 0) / 4.0, 1e-12);
	KT_NEAR(m.exec_accuracy, 1 / 4.0, 1e-12);
	KT_NEAR(m.compile_accuracy, (1 + 1 + 0 + 0) / 4.0, 1e-12);
	KT_EQ_INT(m.compiled, 2);
	for (i = 0; i < 5; i++)
		ks_kernel_result_clear(&r[i]);
}

static ks_kernel_result timed(size_t pass, size_t index, const char *problem, double speedup)
{
	ks_kernel_result r = mk(pass, problem, 1, 1, 1);
	r.index = index;
	r.timed = 1;
	r.speedup = speedup;
	r.score = speedup;
	r.roofline_fraction = 0.5;
	return r;
}

static void test_duplicates_count_nowhere(void)
{
	ks_kernel_result r[12];
	ks_file_metrics m;
	int ks[1] = { 1 };
	ks_passk pk;
	size_t i;

	/* ten copies of one correct kernel score once, whether or not the loader marked them */
	for (i = 0; i < 10; i++)
		r[i] = timed(0, i, "a", 3.0);
	r[5].reason = KS_REASON_DUPLICATE;
	r[10] = timed(0, 10, "b", 0.5);
	r[11] = timed(0, 11, "b", 4.0); /* a faster later copy does not replace the first */
	ks_metrics_file(&m, r, 12);
	KT_EQ_INT(m.entries, 12);
	KT_EQ_INT(m.duplicates, 10);
	KT_EQ_INT(m.problems, 2);
	KT_NEAR(m.score, 3.5, 1e-12);
	KT_NEAR(m.exec_accuracy, 1.0, 1e-12);
	KT_EQ_INT(m.executed, 2);
	KT_NEAR(m.fast_1, 0.5, 1e-12);
	KT_NEAR(m.fast_2, 0.5, 1e-12);
	KT_NEAR(m.geomean_speedup, sqrt(3.0 * 0.5), 1e-12);
	/* pass@k: one sample per pass; copies within a pass are not samples */
	ks_kernel_result_clear(&r[1]);
	r[1] = timed(0, 1, "a", 0);
	r[1].exec = 0;
	r[1].score = 0;
	ks_metrics_passk(&pk, ks, 1, r, 10);
	KT_EQ_INT(pk.problems, 1);
	KT_NEAR(pk.exec, 1.0, 1e-12);
	for (i = 0; i < 12; i++)
		ks_kernel_result_clear(&r[i]);
	/* several passes: a problem's score is its mean over the passes, so passes do not add up */
	r[0] = timed(0, 0, "a", 3.0);
	r[1] = timed(1, 0, "a", 1.0);
	r[2] = timed(1, 1, "a", 9.0);
	r[3] = timed(1, 2, "b", 2.0);
	ks_metrics_file(&m, r, 4);
	KT_EQ_INT(m.duplicates, 1);
	KT_EQ_INT(m.problems, 2);
	KT_NEAR(m.score, (3.0 + 1.0) / 2 + 2.0, 1e-12);
	r[1].exec = 0;
	ks_metrics_passk(&pk, ks, 1, r, 4);
	KT_EQ_INT(pk.problems, 2);
	KT_NEAR(pk.exec, (0.5 + 1.0) / 2, 1e-12);
	for (i = 0; i < 4; i++)
		ks_kernel_result_clear(&r[i]);
}

static void test_compile_only_has_no_call_accuracy(void)
{
	ks_kernel_result r = mk(0, "a", 1, 0, 0);
	ks_file_metrics m;
	r.ran = 0;
	ks_metrics_file(&m, &r, 1);
	KT_ASSERT(isnan(m.call_accuracy));
	KT_NEAR(m.compile_accuracy, 1, 0);
	ks_kernel_result_clear(&r);
}

static void test_passk_over_passes(void)
{
	/* problem a: 3 samples, 1 correct; problem b: 3 samples, 3 correct; problem c: 1 sample */
	ks_kernel_result r[7];
	int ks[3] = { 1, 2, 3 };
	ks_passk pk[3];
	size_t i;
	r[0] = mk(0, "a", 1, 1, 1);
	r[1] = mk(1, "a", 1, 1, 0);
	r[2] = mk(2, "a", 1, 0, 0);
	r[3] = mk(0, "b", 1, 1, 1);
	r[4] = mk(1, "b", 1, 1, 1);
	r[5] = mk(2, "b", 1, 1, 1);
	r[6] = mk(0, "c", 1, 1, 1);
	ks_metrics_passk(pk, ks, 3, r, 7);
	KT_ASSERT(pk[0].valid);
	KT_EQ_INT(pk[0].problems, 3);
	KT_NEAR(pk[0].exec, (1.0 / 3 + 1 + 1) / 3, 1e-12);
	KT_NEAR(pk[0].call, (2.0 / 3 + 1 + 1) / 3, 1e-12);
	KT_EQ_INT(pk[1].problems, 2); /* c has one sample: left out */
	KT_EQ_INT(pk[1].skipped, 1);
	KT_NEAR(pk[1].exec, ((1 - 1.0 / 3) + 1) / 2, 1e-12); /* a: 1 - C(2,2)/C(3,2) = 2/3 */
	KT_NEAR(pk[2].exec, (1 + 1) / 2.0, 1e-12);
	for (i = 0; i < 7; i++)
		ks_kernel_result_clear(&r[i]);
	{
		ks_kernel_result one = mk(0, "a", 1, 1, 1);
		int k5 = 5;
		ks_metrics_passk(pk, &k5, 1, &one, 1);
		KT_ASSERT(!pk[0].valid);
		KT_EQ_INT(pk[0].skipped, 1);
		ks_kernel_result_clear(&one);
	}
}

/* The lines under a file's table say what the run did: a GPU run with --no-timing (as with
 * --sanitize --no-timing) ran and checked its kernels, so it is no "compile-only" run. */
static void test_summary_lines_say_what_ran(void)
{
	ks_kernel_result r[2] = { mk(0, "a", 1, 1, 1), mk(0, "b", 1, 1, 0) };
	ks_file_metrics m;
	ks_buf b = KS_BUF_INIT(4096);

	ks_metrics_file(&m, r, 2);
	ks_metrics_summary_lines(&b, &m, 2, 1, 0);
	KT_CONTAINS(b.ptr, "Call Accuracy: 1  Exec Accuracy: 0.5  (2 kernels)\n");
	KT_CONTAINS(b.ptr, "Score: none (--no-timing: kernels were run and checked, not timed)");
	KT_NOT_CONTAINS(b.ptr, "compile-only");
	KT_NOT_CONTAINS(b.ptr, "nothing was run");
	ks_buf_reset(&b);
	ks_metrics_summary_lines(&b, &m, 2, 1, 1);  /* timing on, but no kernel was timed */
	KT_CONTAINS(b.ptr, "Score: 0 (no kernel was timed)");
	KT_NOT_CONTAINS(b.ptr, "nothing was run");
	ks_buf_reset(&b);
	r[0].timed = 1;
	r[0].speedup = r[0].score = 1.5;
	ks_metrics_file(&m, r, 2);
	ks_metrics_summary_lines(&b, &m, 2, 1, 1);
	KT_CONTAINS(b.ptr, "Score: 1.5000 (sum of speedups)");
	ks_buf_reset(&b);
	r[0].ran = r[1].ran = 0;
	ks_metrics_file(&m, r, 2);
	ks_metrics_summary_lines(&b, &m, 2, 0, 1);
	KT_EQ_STR(b.ptr, "Compile Accuracy: 1  (2 kernels; compile-only: nothing was run)\n");
	ks_buf_free(&b);
	ks_kernel_result_clear(&r[0]);
	ks_kernel_result_clear(&r[1]);
}

static const kt_test tests[] = {
	KT(test_summary_lines_say_what_ran),
	KT(test_pass_at_k_hand_computed), KT(test_file_accuracy_counts_problems_once),
	KT(test_compile_only_has_no_call_accuracy), KT(test_passk_over_passes),
	KT(test_duplicates_count_nowhere), { 0 }
};
KT_MAIN("metrics", tests)
