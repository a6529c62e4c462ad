#include "ktest.h"
#include "load/expr.h"
#include "util/errors.h"
#include "util/mem.h"

static int64_t ev(const char *s)
{
	ks_env env = KS_ENV_INIT;
	int64_t v = -999;
	ks_env_set(&env, "n", 1000);
	ks_env_set(&env, "m", 7);
	if (ks_expr_eval(&v, s, &env) < 0)
		KT_FAIL("eval \"%s\" failed: %s", s, ks_error_msg());
	ks_env_free(&env);
	return v;
}

static const char *err(const char *s)
{
	ks_env env = KS_ENV_INIT;
	int64_t v;
	ks_env_set(&env, "n", 1000);
	if (ks_expr_eval(&v, s, &env) == 0)
		KT_FAIL("eval \"%s\" should fail, gave %lld", s, (long long)v);
	ks_env_free(&env);
	return ks_error_msg();
}

static void test_arithmetic_and_precedence(void)
{
	KT_EQ_INT(ev("1 + 2 * 3"), 7);
	KT_EQ_INT(ev("(1 + 2) * 3"), 9);
	KT_EQ_INT(ev("10 - 4 - 3"), 3);
	KT_EQ_INT(ev("100 / 7 / 2"), 7);
	KT_EQ_INT(ev("-7 / 2"), -3);
	KT_EQ_INT(ev("-7 % 3"), -1);
	KT_EQ_INT(ev("2 ** 10"), 1024);
	KT_EQ_INT(ev("-2 ** 2"), -4);
	KT_EQ_INT(ev("1 << 20"), 1048576);
	KT_EQ_INT(ev("1 << 2 + 1"), 8);
	/* mixed operators of one level fold left to right */
	KT_EQ_INT(ev("7 % 4 * 3"), 9);
	KT_EQ_INT(ev("12 / 4 % 2"), 1);
	KT_EQ_INT(ev("10 - 2 + 3"), 11);
	KT_EQ_INT(ev("1 << 3 >> 1"), 4);
	KT_EQ_INT(ev("64 >> 2 << 1"), 32);
	KT_EQ_INT(ev("0x10 + 0xff"), 271);
	KT_EQ_INT(ev("2*n*m"), 14000);
}

static void test_functions(void)
{
	KT_EQ_INT(ev("cdiv(n, 256)"), 4);
	KT_EQ_INT(ev("cdiv(1024, 256)"), 4);
	KT_EQ_INT(ev("cdiv(0, 256)"), 0);
	KT_EQ_INT(ev("align(n, 256)"), 1024);
	KT_EQ_INT(ev("min(n, 5, m)"), 5);
	KT_EQ_INT(ev("max(n, 5, m)"), 1000);
	KT_EQ_INT(ev("abs(3 - n)"), 997);
	KT_EQ_INT(ev("log2(n)"), 9);
	KT_EQ_INT(ev("log2(1024)"), 10);
	KT_EQ_INT(ev("min(cdiv(n, 32), 65535) * 32"), 1024);
}

static void test_errors_name_the_problem(void)
{
	KT_CONTAINS(err("n / 0"), "division by zero");
	KT_CONTAINS(err("n / (n - 1000)"), "division by zero");
	KT_CONTAINS(err("k * 2"), "unknown name \"k\"");
	KT_CONTAINS(err("1 +"), "unexpected end");
	KT_CONTAINS(err("(1 + 2"), "expected ')'");
	KT_CONTAINS(err("1 2"), "unexpected text");
	KT_CONTAINS(err("9223372036854775807 + 1"), "overflow");
	KT_CONTAINS(err("4611686018427387904 * 2"), "overflow");
	KT_CONTAINS(err("1 << 63"), "shift out of range");
	KT_CONTAINS(err("99999999999999999999"), "too large");
	KT_CONTAINS(err("foo(1)"), "unknown function");
	KT_CONTAINS(err("cdiv(1)"), "2 arguments");
	KT_CONTAINS(err("cdiv(n, 0)"), "positive divisor");
	KT_CONTAINS(err("log2(0)"), "positive");
	KT_CONTAINS(err("2 ** -1"), "negative exponent");
	KT_CONTAINS(err("1.5"), "bad number");
	KT_CONTAINS(err(""), "unexpected end");
	KT_CONTAINS(err("n $ 2"), "column 3");
}

static void test_depth_and_length_limits(void)
{
	char deep[400];
	ks_env env = KS_ENV_INIT;
	int64_t v;
	int i;
	for (i = 0; i < 150; i++)
		deep[i] = '(';
	deep[150] = '1';
	for (i = 151; i < 301; i++)
		deep[i] = ')';
	deep[301] = '\0';
	KT_ASSERT(ks_expr_eval(&v, deep, &env) < 0);
	KT_CONTAINS(ks_error_msg(), "nested too deeply");
}

/* A power costs the same whatever its exponent: 1 ** (2^63 - 1) used to loop 2^63 times. A hang
 * here is caught by ktest's per-test time limit; the test itself checks the values. */
static void test_power_is_exact_and_bounded(void)
{
	KT_EQ_INT(ev("1 ** 9223372036854775807"), 1);
	KT_EQ_INT(ev("1 ** 1000000000"), 1);
	KT_EQ_INT(ev("0 ** 9223372036854775807"), 0);
	KT_EQ_INT(ev("0 ** 0"), 1);
	KT_EQ_INT(ev("n ** 0"), 1);
	KT_EQ_INT(ev("(-1) ** 9223372036854775807"), -1);
	KT_EQ_INT(ev("(-1) ** 9223372036854775806"), 1);
	KT_EQ_INT(ev("(0 - 1) ** 1000000001"), -1);
	KT_EQ_INT(ev("2 ** 62"), 4611686018427387904LL);
	KT_EQ_INT(ev("(-2) ** 63"), INT64_MIN);
	KT_EQ_INT(ev("3 ** 39"), 4052555153018976267LL);
	KT_EQ_INT(ev("2 ** 3 ** 2"), 512); /* right-associative */
	KT_CONTAINS(err("2 ** 63"), "overflow");
	KT_CONTAINS(err("3 ** 40"), "overflow");
	KT_CONTAINS(err("2 ** 9223372036854775807"), "overflow");
	KT_CONTAINS(err("(-2) ** 9223372036854775807"), "overflow");
	KT_CONTAINS(err("n ** n"), "overflow");
	KT_CONTAINS(err("1 ** -1"), "negative exponent");
}

/* Huge or deep expressions are refused before they cost anything. */
static void test_size_limits(void)
{
	ks_env env = KS_ENV_INIT;
	char *s = ks_calloc(KS_EXPR_MAX_LEN + 8, 1);
	int64_t v;
	size_t i;
	/* 1+1+...+1 within the length cap but over the node cap */
	for (i = 0; i + 2 < KS_EXPR_MAX_LEN; i += 2)
		memcpy(s + i, "1+", 2);
	s[i] = '1';
	KT_ASSERT(ks_expr_eval(&v, s, &env) < 0);
	KT_CONTAINS(ks_error_msg(), "too many terms");
	KT_ASSERT(ks_expr_check(s, NULL, 0) < 0);
	KT_CONTAINS(ks_error_msg(), "too many terms");
	/* one character over the length cap */
	memset(s, ' ', KS_EXPR_MAX_LEN + 1);
	s[0] = '1';
	s[KS_EXPR_MAX_LEN + 1] = '\0';
	KT_ASSERT(ks_expr_eval(&v, s, &env) < 0);
	KT_CONTAINS(ks_error_msg(), "longer than");
	/* exactly at the cap is fine */
	s[KS_EXPR_MAX_LEN] = '\0';
	KT_EQ_INT(ks_expr_eval(&v, s, &env), 0);
	KT_EQ_INT(v, 1);
	/* a chain of powers nests through the exponent */
	s[0] = '\0';
	for (i = 0; i < 100; i++)
		strcat(s, "1**");
	strcat(s, "1");
	KT_ASSERT(ks_expr_eval(&v, s, &env) < 0);
	KT_CONTAINS(ks_error_msg(), "nested too deeply");
	/* so do unary signs and calls */
	s[0] = '\0';
	for (i = 0; i < 100; i++)
		strcat(s, "-");
	strcat(s, "1");
	KT_ASSERT(ks_expr_eval(&v, s, &env) < 0);
	KT_CONTAINS(ks_error_msg(), "nested too deeply");
	s[0] = '\0';
	for (i = 0; i < 100; i++)
		strcat(s, "abs(");
	strcat(s, "1");
	for (i = 0; i < 100; i++)
		strcat(s, ")");
	KT_ASSERT(ks_expr_eval(&v, s, &env) < 0);
	KT_CONTAINS(ks_error_msg(), "nested too deeply");
	/* a call with no argument does not read one */
	KT_ASSERT(ks_expr_eval(&v, "log2()", &env) < 0);
	KT_CONTAINS(ks_error_msg(), "log2 takes 1 argument");
	ks_free(s);
	ks_env_free(&env);
}

static void test_check_mode(void)
{
	const char *names[] = { "rows", "cols" };
	KT_EQ_INT(ks_expr_check("cdiv(rows * cols, 256)", names, 2), 0);
	/* check mode never divides, so a formula that is fine for real values passes */
	KT_EQ_INT(ks_expr_check("rows / (cols - 1)", names, 2), 0);
	KT_ASSERT(ks_expr_check("rows * k", names, 2) < 0);
	KT_CONTAINS(ks_error_msg(), "unknown name \"k\"");
	KT_ASSERT(ks_expr_check("rows +", names, 2) < 0);
}

/* Domain rules (load/domain.h) are comparisons: 1 or 0, loosest of all, not chained. */
static void test_comparisons_and_is_pow2(void)
{
	KT_EQ_INT(ev("n * 4 <= 4000"), 1);
	KT_EQ_INT(ev("n * 4 <= 3999"), 0);
	KT_EQ_INT(ev("n < 1000"), 0);
	KT_EQ_INT(ev("n > 999"), 1);
	KT_EQ_INT(ev("n >= 1001"), 0);
	KT_EQ_INT(ev("n == 1000"), 1);
	KT_EQ_INT(ev("n != 1000"), 0);
	KT_EQ_INT(ev("m + 1 << 1 == 16"), 1); /* shifts bind tighter */
	KT_EQ_INT(ev("(n < 5) + (m < 8)"), 1);
	KT_EQ_INT(ev("1 << 3 < 9"), 1);
	KT_EQ_INT(ev("16 >> 2 > 3"), 1);
	KT_EQ_INT(ev("is_pow2(1)"), 1);
	KT_EQ_INT(ev("is_pow2(1024)"), 1);
	KT_EQ_INT(ev("is_pow2(n)"), 0);
	KT_EQ_INT(ev("is_pow2(0)"), 0);
	KT_EQ_INT(ev("is_pow2(-8)"), 0);
	KT_EQ_INT(ev("is_pow2(1 << 62)"), 1);
	KT_EQ_INT(ev("is_pow2(-9223372036854775807 - 1)"), 0);
	KT_CONTAINS(err("1 < 2 < 3"), "do not chain");
	KT_CONTAINS(err("1 <= "), "unexpected end");
	KT_CONTAINS(err("1 = 1"), "unexpected text");
	KT_CONTAINS(err("is_pow2(1, 2)"), "is_pow2 takes 1 argument");
	KT_EQ_INT(ks_expr_check("is_pow2(n) == 1", (const char *[]){ "n" }, 1), 0);
}

static void test_env_replace(void)
{
	ks_env env = KS_ENV_INIT;
	int64_t v = 0;
	ks_env_set(&env, "a", 1);
	ks_env_set(&env, "a", 5);
	KT_EQ_INT(env.n, 1);
	KT_ASSERT(ks_env_get(&env, "a", &v));
	KT_EQ_INT(v, 5);
	KT_ASSERT(!ks_env_get(&env, "b", &v));
	ks_env_free(&env);
}

static const kt_test tests[] = {
	KT(test_arithmetic_and_precedence), KT(test_functions), KT(test_errors_name_the_problem),
	KT(test_depth_and_length_limits), KT(test_power_is_exact_and_bounded), KT(test_size_limits),
	KT(test_check_mode), KT(test_comparisons_and_is_pow2), KT(test_env_replace), { 0 }
};
KT_MAIN("expr", tests)
