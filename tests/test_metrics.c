#include "ktest.h"
#include "metrics.h"
#include "mem.h"

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
	r[3] = mk(0, "a", 1, 0, 0); /* duplicate entry of a: a counts 0.5 */
	r[4] = mk(0, NULL, 0, 0, 0); /* names no problem: its own group */
	ks_metrics_file(&m, r, 5);
	KT_EQ_INT(m.entries, 5);
	KT_EQ_INT(m.problems, 4);
	KT_NEAR(m.call_accuracy, (0.5 + 1 + 0 + 0) / 4.0, 1e-12);
	KT_NEAR(m.exec_accuracy, 0.5 / 4.0, 1e-12);
	KT_NEAR(m.compile_accuracy, (1 + 1 + 0 + 0) / 4.0, 1e-12);
	for (i = 0; i < 5; i++)
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

static const kt_test tests[] = {
	KT(test_pass_at_k_hand_computed), KT(test_file_accuracy_counts_problems_once),
	KT(test_compile_only_has_no_call_accuracy), KT(test_passk_over_passes), { 0 }
};
KT_MAIN("metrics", tests)
