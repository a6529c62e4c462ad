/* Tests of the domain section (load/domain.h): parsing, which rule a case breaks, the values a
 * message shows. Loading a spec whose scored case lies outside is test_problem's. */
#include "ktest.h"
#include "load/domain.h"
#include "util/errors.h"
#include "util/buf.h"
#include "util/mem.h"

static const char *const names[] = { "sm_count", "N", "M", "seqlen", "seqlen_ro", "seqlen_offset" };

static int parse(ks_domain *d, const char *text)
{
	cJSON *j = cJSON_Parse(text);
	int rc;
	KT_ASSERT(j != NULL);
	rc = ks_domain_parse(d, j, names, sizeof(names) / sizeof(names[0]));
	cJSON_Delete(j);
	return rc;
}

static void test_rules_parse_and_say_which_breaks(void)
{
	ks_domain d;
	ks_env env = KS_ENV_INIT;
	int broken = 99;
	char *vals;
	KT_EQ_INT(parse(&d, "[{\"rule\": \"N * 4 < 65536\", \"message\": \"rows under 64 KiB\"},"
			    " {\"rule\": \"is_pow2(M)\", \"message\": \"one block\"},"
			    " {\"rule\": \"seqlen_offset + seqlen <= seqlen_ro\", \"message\": \"table\"}]"), 0);
	KT_EQ_INT(d.n, 3);
	KT_EQ_STR(d.rules[1].rule, "is_pow2(M)");
	KT_EQ_STR(d.rules[0].message, "rows under 64 KiB");
	ks_env_set(&env, "N", 16383);
	ks_env_set(&env, "M", 64);
	ks_env_set(&env, "seqlen", 100);
	ks_env_set(&env, "seqlen_ro", 200);
	ks_env_set(&env, "seqlen_offset", 100);
	KT_EQ_INT(ks_domain_first_broken(&broken, &d, &env), 0);
	KT_EQ_INT(broken, -1);
	ks_env_set(&env, "N", 16384);
	KT_EQ_INT(ks_domain_first_broken(&broken, &d, &env), 0);
	KT_EQ_INT(broken, 0);
	ks_env_set(&env, "N", 1);
	ks_env_set(&env, "M", 48);
	KT_EQ_INT(ks_domain_first_broken(&broken, &d, &env), 0);
	KT_EQ_INT(broken, 1);
	ks_env_set(&env, "M", 32);
	ks_env_set(&env, "seqlen_offset", 101);
	KT_EQ_INT(ks_domain_first_broken(&broken, &d, &env), 0);
	KT_EQ_INT(broken, 2);
	/* the values a message shows: the names the rule uses as whole words, not "seqlen" of
	 * "seqlen_ro" twice */
	vals = ks_domain_values(&d.rules[2], &env);
	KT_EQ_STR(vals, "seqlen=100 seqlen_ro=200 seqlen_offset=101");
	ks_free(vals);
	vals = ks_domain_values(&d.rules[1], &env);
	KT_EQ_STR(vals, "M=32");
	ks_free(vals);
	ks_env_free(&env);
	ks_domain_clear(&d);
	KT_EQ_INT(d.n, 0);
}

static void test_a_rule_that_does_not_evaluate_is_an_error(void)
{
	ks_domain d;
	ks_env env = KS_ENV_INIT;
	int broken = 7;
	KT_EQ_INT(parse(&d, "[{\"rule\": \"65536 / N > 4\", \"message\": \"m\"}]"), 0);
	ks_env_set(&env, "N", 0);
	KT_ASSERT(ks_domain_first_broken(&broken, &d, &env) < 0);
	KT_CONTAINS(ks_error_msg(), "domain rule 0");
	KT_CONTAINS(ks_error_msg(), "division by zero");
	KT_EQ_INT(broken, 7);
	ks_env_free(&env);
	ks_domain_clear(&d);
}

static void test_bad_sections_are_refused(void)
{
	static const struct {
		const char *text, *want;
	} bad[] = {
		{ "{}", "must be a list" },
		{ "[1]", "domain[0] must be an object" },
		{ "[{\"rule\": \"N < 4\"}]", "domain[0]" },
		{ "[{\"message\": \"m\"}]", "domain[0]" },
		{ "[{\"rule\": \"N < 4\", \"message\": \"\"}]", "1 to 512 bytes" },
		{ "[{\"rule\": \"K < 4\", \"message\": \"m\"}]", "unknown name \"K\"" },
		{ "[{\"rule\": \"N < 4 < 5\", \"message\": \"m\"}]", "do not chain" },
		{ "[{\"rule\": \"N < 4\", \"message\": \"m\", \"why\": 1}]", "unknown key \"why\"" },
		{ "[{\"rule\": \"N < 4\", \"message\": \"m\"}, {\"rule\": \"N +\", \"message\": \"m\"}]",
		  "domain[1]" },
	};
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ks_domain d;
		KT_ASSERT(parse(&d, bad[i].text) < 0);
		KT_CONTAINS(ks_error_msg(), bad[i].want);
		KT_EQ_INT(d.n, 0);
		KT_ASSERT(d.rules == NULL);
	}
	{
		/* 33 rules: over the cap */
		ks_buf b = KS_BUF_INIT(1 << 16);
		ks_domain d;
		ks_buf_puts(&b, "[");
		for (i = 0; i < KS_DOMAIN_MAX_RULES + 1; i++)
			ks_buf_printf(&b, "%s{\"rule\": \"N > 0\", \"message\": \"m\"}", i ? "," : "");
		ks_buf_puts(&b, "]");
		KT_ASSERT(parse(&d, b.ptr) < 0);
		KT_CONTAINS(ks_error_msg(), "at most 32 rules");
		ks_buf_free(&b);
	}
}

static const kt_test tests[] = {
	KT(test_rules_parse_and_say_which_breaks), KT(test_a_rule_that_does_not_evaluate_is_an_error),
	KT(test_bad_sections_are_refused), { 0 }
};
KT_MAIN("domain", tests)
