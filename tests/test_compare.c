#include "ktest.h"
#include "run/compare.h"
#include "run/harness.h"
#include "load/dtype.h"
#include "util/mem.h"

static void test_tolerance_and_first_bad(void)
{
	float want[5] = { 1, 2, 3, 4, 1000 }, got[5] = { 1, 2.000001f, 3.5f, 4, 1000.1f };
	ks_cmp_stats st;
	char *d;
	ks_compare_tensor(&st, KS_DT_F32, got, want, 5, 1e-5, 1e-5, 0);
	KT_EQ_INT(st.bad, 2); /* 3.5 vs 3 and 1000.1 vs 1000 (limit about 0.01) */
	KT_EQ_INT(st.first_bad, 2);
	KT_NEAR(st.got, 3.5, 0);
	KT_NEAR(st.want, 3, 0);
	d = ks_compare_describe(&st, "y", 1e-5, 1e-5);
	KT_CONTAINS(d, "y[2] = 3.5, expected 3");
	KT_CONTAINS(d, "2 of 5 elements wrong");
	ks_free(d);
	ks_compare_tensor(&st, KS_DT_F32, got, want, 5, 1e-5, 0.2, 0);
	KT_EQ_INT(st.bad, 0);
}

static void test_nan_and_inf_must_match_exactly(void)
{
	float want[4] = { NAN, INFINITY, -INFINITY, 1 }, got[4] = { NAN, INFINITY, -INFINITY, 1 };
	ks_cmp_stats st;
	ks_compare_tensor(&st, KS_DT_F32, got, want, 4, 1, 1, 0);
	KT_EQ_INT(st.bad, 0);
	got[0] = 0;
	got[1] = 1e30f;
	got[2] = INFINITY;
	got[3] = NAN;
	ks_compare_tensor(&st, KS_DT_F32, got, want, 4, 1e30, 1e30, 0);
	KT_EQ_INT(st.bad, 4);
}

static void test_poison_counts_as_unwritten(void)
{
	float want[3] = { 1, 2, 3 }, got[3] = { 1, 0, 0 };
	unsigned char pat[8];
	ks_cmp_stats st;
	char *d;
	ks_dtype_poison(KS_DT_F32, 1, pat);
	memcpy(&got[1], pat, 4);
	memcpy(&got[2], pat, 4);
	ks_compare_tensor(&st, KS_DT_F32, got, want, 3, 1e9, 1e9, 1);
	KT_EQ_INT(st.unwritten, 2);
	KT_EQ_INT(st.bad, 2);
	d = ks_compare_describe(&st, "y", 0, 0);
	KT_CONTAINS(d, "2 of 3 elements were never written");
	ks_free(d);
	/* the other variant's pattern is just a NaN that does not match */
	ks_compare_tensor(&st, KS_DT_F32, got, want, 3, 1e9, 1e9, 0);
	KT_EQ_INT(st.unwritten, 0);
	KT_EQ_INT(st.bad, 2);
}

static void test_poison_is_counted_without_a_reference(void)
{
	/* a golden kernel's own output: only the poison pattern counts, NaNs of other payloads not */
	float y[5] = { 1, 2, 3, 4, 5 };
	uint16_t h[4] = { 0x3c00, 0x3c00, 0x3c00, 0x7e00 };
	unsigned char pat[8];
	uint64_t first = 99;
	ks_dtype_poison(KS_DT_F32, 0, pat);
	memcpy(&y[1], pat, 4);
	memcpy(&y[3], pat, 4);
	KT_EQ_INT(ks_compare_count_poison(&first, KS_DT_F32, y, 5, 0), 2);
	KT_EQ_INT(first, 1);
	KT_EQ_INT(ks_compare_count_poison(NULL, KS_DT_F32, y, 5, 1), 0);
	KT_EQ_INT(ks_compare_count_poison(&first, KS_DT_F16, h, 4, 0), 0);
	ks_dtype_poison(KS_DT_F16, 1, pat);
	memcpy(&h[2], pat, 2);
	KT_EQ_INT(ks_compare_count_poison(&first, KS_DT_F16, h, 4, 1), 1);
	KT_EQ_INT(first, 2);
}

static void test_large_buffers_take_the_word_compare_path(void)
{
	/* identical elements are skipped by a word compare; differing ones are judged one by one */
	enum { N = 100000 };
	uint16_t *g = ks_calloc(N, 2), *w = ks_calloc(N, 2);
	ks_cmp_stats st;
	size_t i;
	for (i = 0; i < N; i++)
		g[i] = w[i] = 0x3c00; /* 1.0 */
	g[777] = 0x3c01;              /* 1.0 + 2^-10: inside rtol 1e-2 */
	g[N - 1] = 0x4000;            /* 2.0: outside */
	ks_compare_tensor(&st, KS_DT_F16, g, w, N, 0, 1e-2, 0);
	KT_EQ_INT(st.bad, 1);
	KT_EQ_INT(st.first_bad, N - 1);
	KT_ASSERT(st.max_abs_err > 0.0009 && st.max_abs_err <= 1.0);
	ks_free(g);
	ks_free(w);
}

static void test_integers_are_exact_and_half_types_convert(void)
{
	int32_t w[3] = { 5, -7, 100 }, g[3] = { 5, -6, 100 };
	uint16_t hw[2], hg[2];
	ks_cmp_stats st;
	ks_compare_tensor(&st, KS_DT_I32, g, w, 3, 10, 10, 0);
	KT_EQ_INT(st.bad, 1);
	KT_EQ_INT(st.first_bad, 1);
	hw[0] = ks_float_to_half(1.0f);
	hw[1] = ks_float_to_half(2.0f);
	hg[0] = ks_float_to_half(1.0f);
	hg[1] = ks_float_to_half(2.002f);
	ks_compare_tensor(&st, KS_DT_F16, hg, hw, 2, 0, 1e-2, 0);
	KT_EQ_INT(st.bad, 0);
	ks_compare_tensor(&st, KS_DT_F16, hg, hw, 2, 0, 1e-4, 0);
	KT_EQ_INT(st.bad, 1);
}

static void test_guard_bands(void)
{
	unsigned char band[40];
	uint64_t w = KS_GUARD_WORD;
	int i;
	for (i = 0; i < 40; i++)
		band[i] = (unsigned char)(w >> (8 * ((i + 3) % 8)));
	KT_EQ_INT(ks_compare_guard(band, 40, 3), -1);
	KT_ASSERT(ks_compare_guard(band, 40, 0) >= 0); /* wrong phase is caught */
	band[17] ^= 1;
	KT_EQ_INT(ks_compare_guard(band, 40, 3), 17);
}

static void test_dtype_conversions(void)
{
	ks_dtype t;
	unsigned char pat[8];
	float f;
	KT_NEAR(ks_half_to_float(ks_float_to_half(0.333333f)), 0.333333, 1e-3);
	KT_NEAR(ks_half_to_float(ks_float_to_half(65504.0f)), 65504.0, 0);
	KT_ASSERT(isinf(ks_half_to_float(ks_float_to_half(1e6f))));
	KT_NEAR(ks_half_to_float(ks_float_to_half(1e-7f)), 1.19209e-7, 1e-9); /* subnormal */
	KT_NEAR(ks_bf16_to_float(ks_float_to_bf16(3.14159f)), 3.140625, 0);
	KT_EQ_INT(ks_dtype_parse(&t, "bfloat16"), 0);
	KT_EQ_INT(t, KS_DT_BF16);
	KT_EQ_INT(ks_dtype_parse(&t, "int"), 0);
	KT_EQ_INT(t, KS_DT_I32);
	KT_ASSERT(ks_dtype_parse(&t, "f8") < 0);
	ks_dtype_poison(KS_DT_F32, 0, pat);
	memcpy(&f, pat, 4);
	KT_ASSERT(isnan(f));
	ks_dtype_poison(KS_DT_F16, 0, pat);
	KT_ASSERT(isnan(ks_half_to_float((uint16_t)(pat[0] | pat[1] << 8))));
	ks_dtype_poison(KS_DT_BF16, 1, pat);
	KT_ASSERT(isnan(ks_bf16_to_float((uint16_t)(pat[0] | pat[1] << 8))));
}

static const kt_test tests[] = {
	KT(test_tolerance_and_first_bad), KT(test_nan_and_inf_must_match_exactly),
	KT(test_poison_counts_as_unwritten), KT(test_poison_is_counted_without_a_reference),
	KT(test_large_buffers_take_the_word_compare_path), KT(test_integers_are_exact_and_half_types_convert),
	KT(test_guard_bands), KT(test_dtype_conversions), { 0 }
};
KT_MAIN("compare", tests)
