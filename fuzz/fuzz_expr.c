/* fuzz_expr: one expression (shapes, launch geometry, scratch counts, flops and bytes are all
 * written in it) through ks_expr_eval with a few bound names, including the extremes of int64,
 * and through ks_expr_check, the load-time syntax and name check. */
#include "load/expr.h"
#include "fuzz.h"

static const char *const names[] = { "n", "m", "k", "zero", "one", "neg", "big", "small",
				     "sm_count" };
static const int64_t values[] = { 4096, 3, 128, 0, 1, -1, INT64_MAX, INT64_MIN, 132 };
#define NNAMES (sizeof(names) / sizeof(names[0]))

static ks_env env = KS_ENV_INIT;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	size_t i;
	(void)argc;
	(void)argv;
	for (i = 0; i < NNAMES; i++)
		ks_env_set(&env, names[i], values[i]);
	fz_pow_hangs();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text;
	int64_t v = 0, again = 0;
	int rc, crc;

	if (fz_skip_pow(data, size))
		return 0;
	text = fz_cstr(data, size);
	rc = ks_expr_eval(&v, text, &env);
	/* KS_ELIMIT: a cap of expr.h (length, depth, terms) refused it; a refusal like any other */
	FZ_CHECK(rc == 0 || rc == KS_EINVALID || rc == KS_ELIMIT, "eval returned %d", rc);
	fz_check_error(rc);
	crc = ks_expr_check(text, names, NNAMES);
	FZ_CHECK(crc == 0 || crc == KS_EINVALID || crc == KS_ELIMIT, "check returned %d", crc);
	fz_check_error(crc);
	if (rc == 0) {
		/* what evaluates is well-formed and uses known names: load-time checks must agree */
		FZ_CHECK(crc == 0, "\"%s\" evaluates to %lld but fails the check: %s", text,
			 (long long)v, ks_error_msg());
		FZ_CHECK(ks_expr_eval(&again, text, &env) == 0 && again == v,
			 "\"%s\" evaluates to %lld, then %lld", text, (long long)v, (long long)again);
	}
	ks_free(text);
	ks_error_clear();
	return 0;
}
