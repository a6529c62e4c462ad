/* Tests of pattern: the submission path patterns of `score batch`. */
#include "ktest.h"
#include "batch/pattern.h"
#include "util/errors.h"
#include "util/mem.h"

static void test_syntax(void)
{
	KT_EQ_INT(ks_pattern_check("a/b/reflexion_<N>.json"), 0);
	KT_EQ_INT(ks_pattern_check("*/x_<N>.json"), 0);
	KT_EQ_INT(ks_pattern_check("plain/path.json"), 0);
	KT_EQ_INT(ks_pattern_check(""), KS_EINVALID);
	KT_EQ_INT(ks_pattern_check(NULL), KS_EINVALID);
	KT_EQ_INT(ks_pattern_check("/abs.json"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "/abs.json");
	KT_EQ_INT(ks_pattern_check("a/../b.json"), KS_EINVALID);
	KT_EQ_INT(ks_pattern_check("./b.json"), KS_EINVALID);
	KT_EQ_INT(ks_pattern_check("a//b.json"), KS_EINVALID);
	KT_EQ_INT(ks_pattern_check("a/b.json/"), 0); /* a trailing '/' ends the last component */
	KT_EQ_INT(ks_pattern_check("d<N>/x.json"), KS_EINVALID);
	KT_EQ_INT(ks_pattern_check("x_<N>_<N>.json"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "<N>");
	KT_EQ_INT(ks_pattern_check("********.json"), 0);
	KT_EQ_INT(ks_pattern_check("*********.json"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "more than 8");
}

static void test_wildcards(void)
{
	KT_ASSERT(ks_pattern_has_wildcard("a/*.json"));
	KT_ASSERT(ks_pattern_has_wildcard("r_<N>.json"));
	KT_ASSERT(!ks_pattern_has_wildcard("a/r_N.json"));
	KT_ASSERT(!ks_pattern_has_wildcard("a/<N.json"));
}

static void test_matching(void)
{
	const char *num;
	size_t nd;
	KT_ASSERT(ks_pattern_match(&num, &nd, "reflexion_oneshot_tritonbench_<N>.json",
				   "reflexion_oneshot_tritonbench_10.json"));
	KT_EQ_INT(nd, 2);
	KT_ASSERT(!strncmp(num, "10", 2));
	KT_ASSERT(!ks_pattern_match(&num, &nd, "r_<N>.json", "r_.json"));
	KT_ASSERT(!ks_pattern_match(&num, &nd, "r_<N>.json", "r_1a.json"));
	KT_ASSERT(!ks_pattern_match(&num, &nd, "r_<N>.json", "r_1.json.bak"));
	KT_ASSERT(ks_pattern_match(&num, &nd, "*.json", "x.json"));
	KT_ASSERT(num == NULL);
	KT_EQ_INT(nd, 0);
	KT_ASSERT(ks_pattern_match(&num, &nd, "*", ""));
	KT_ASSERT(ks_pattern_match(&num, &nd, "a*b*c", "aXbYbZc"));
	KT_ASSERT(!ks_pattern_match(&num, &nd, "a*b*c", "aXbYbZ"));
	KT_ASSERT(ks_pattern_match(&num, &nd, "exact.json", "exact.json"));
	KT_ASSERT(!ks_pattern_match(&num, &nd, "exact.json", "exact.jsonx"));
	/* '*' before <N> still leaves the whole number to <N>: "v7_12" -> 12 */
	KT_ASSERT(ks_pattern_match(&num, &nd, "*_<N>.json", "v7_12.json"));
	KT_EQ_INT(nd, 2);
	KT_ASSERT(!strncmp(num, "12", 2));
	/* a hostile name cannot make matching slow: it gives up and does not match */
	{
		char name[1001];
		memset(name, '_', 1000);
		name[1000] = 0;
		KT_ASSERT(!ks_pattern_match(&num, &nd, "*_*_*_*_<N>.json", name));
	}
}

/* Braces expand in the order written, across components, nested, with an empty alternative. */
static void test_alternatives_and_globstar(void)
{
	char **v = NULL;
	size_t n = 0;
	KT_EQ_INT(ks_pattern_expand(&v, &n, "{,submit/,src/**/}reflexion_oneshot_tritonbench_<N>.json"), 0);
	KT_EQ_INT(n, 3);
	KT_EQ_STR(v[0], "reflexion_oneshot_tritonbench_<N>.json");
	KT_EQ_STR(v[1], "submit/reflexion_oneshot_tritonbench_<N>.json");
	KT_EQ_STR(v[2], "src/**/reflexion_oneshot_tritonbench_<N>.json");
	ks_free_strv(v, n);
	KT_EQ_INT(ks_pattern_expand(&v, &n, "a/{b,{c,d}e}/x.{json,jsonl}"), 0);
	KT_EQ_INT(n, 6);
	KT_EQ_STR(v[0], "a/b/x.json");
	KT_EQ_STR(v[1], "a/b/x.jsonl");
	KT_EQ_STR(v[2], "a/ce/x.json");
	KT_EQ_STR(v[5], "a/de/x.jsonl");
	ks_free_strv(v, n);
	KT_EQ_INT(ks_pattern_expand(&v, &n, "plain.json"), 0);
	KT_EQ_INT(n, 1);
	ks_free_strv(v, n);
	KT_EQ_INT(ks_pattern_check("**/x_<N>.json"), 0);
	KT_EQ_INT(ks_pattern_check("src/**/**/x.json"), 0);
	KT_ASSERT(ks_pattern_has_wildcard("{a,b}.json"));
	KT_ASSERT(ks_pattern_is_globstar("**"));
	KT_ASSERT(!ks_pattern_is_globstar("a**"));
	/* refusals name the pattern and the reason */
	KT_EQ_INT(ks_pattern_check("a{b.json"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "without its '}'");
	KT_EQ_INT(ks_pattern_check("ab}.json"), KS_EINVALID);
	KT_EQ_INT(ks_pattern_check("a{}.json"), KS_EINVALID);
	KT_EQ_INT(ks_pattern_check("{,}"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "empty alternative");
	KT_EQ_INT(ks_pattern_check("src/a**/x.json"), 0); /* inside a component, ** is * */
	KT_EQ_INT(ks_pattern_check("src/**"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "file name");
	KT_EQ_INT(ks_pattern_check("{a,../b}.json"), KS_EINVALID);
	KT_EQ_INT(ks_pattern_check("{a/<N>,b}/x.json"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "<N>");
	KT_EQ_INT(ks_pattern_check("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}.json"), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "alternatives");
}

static void test_numbers_compare_as_integers(void)
{
	KT_EQ_INT(ks_pattern_cmp_number("10", 2, "9", 1), 1);
	KT_EQ_INT(ks_pattern_cmp_number("9", 1, "10", 2), -1);
	KT_EQ_INT(ks_pattern_cmp_number("007", 3, "7", 1), 0);
	KT_EQ_INT(ks_pattern_cmp_number("0", 1, "000", 3), 0);
	KT_EQ_INT(ks_pattern_cmp_number("123456789012345678901234567890", 30,
					"123456789012345678901234567891", 30),
		  -1);
}

static const kt_test tests[] = {
	KT(test_syntax),
	KT(test_wildcards),
	KT(test_matching),
	KT(test_alternatives_and_globstar),
	KT(test_numbers_compare_as_integers),
	{ NULL, NULL }
};

KT_MAIN("pattern", tests)
