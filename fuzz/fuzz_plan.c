/* fuzz_plan: launch-plan building over the real problem specs (reference_tests/ and the test
 * fixtures). The first input byte picks a problem; the rest is either a launch plan in JSON (an
 * entry's "launch" field) or kernel code whose kscore-launch comment holds one. The plan goes
 * through what the checking stage does with it (parse, check against the problem, build for every
 * correctness and performance case), and each built plan through its trip to a GPU worker. */
#include "fuzz.h"
#include "load/extract.h"
#include "load/problem.h"

#include <ctype.h>

static ks_problem_set *sets[2];
static const ks_problem **problems;
static size_t nproblems;

static void add_set(size_t k, const char *rel)
{
	char *root = ks_asprintf("%s/%s", fz_root(), rel);
	size_t i;
	if (ks_problem_set_load(&sets[k], root, NULL) < 0) {
		fprintf(stderr, "fuzz_plan: %s: %s\n", root, ks_error_msg());
		exit(1);
	}
	problems = ks_realloc(problems, (nproblems + sets[k]->n) * sizeof(*problems));
	for (i = 0; i < sets[k]->n; i++)
		problems[nproblems++] = sets[k]->problems[i];
	ks_free(root);
}

/* seeds.py numbers the problems the same way: reference_tests/ in suite and name order, then the
 * fixtures */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	add_set(0, "reference_tests");
	add_set(1, "tests/fixtures/problems");
	fz_pow_hangs();
	if (!nproblems) {
		fprintf(stderr, "fuzz_plan: no problems found (run from the repository root or set "
			"KSCORE_ROOT)\n");
		exit(1);
	}
	return 0;
}

static void build_all(const ks_problem *p, const ks_launch *l)
{
	size_t k, ci;
	for (k = 0; k < 2; k++) {
		const ks_case *cases = k ? p->perf : p->correctness;
		size_t n = k ? p->nperf : p->ncorrectness;
		for (ci = 0; ci < n; ci++) {
			ks_env env = KS_ENV_INIT;
			int rc = ks_problem_env(&env, p, &cases[ci]);
			FZ_CHECK(rc == 0, "problem %s: a validated case fails: %s", p->name, ks_error_msg());
			fz_build_and_check_plan(p, l, &cases[ci], &env, (int)(ci & 1));
			ks_env_free(&env);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const ks_problem *p;
	char *text, *json = NULL;
	const char *s;
	ks_launch l;
	int rc;

	if (size < 1 || fz_skip_pow(data, size))
		return 0;
	p = problems[data[0] % nproblems];
	text = fz_cstr(data + 1, size - 1);
	for (s = text; isspace((unsigned char)*s); s++)
		;
	if (*s == '{')
		rc = ks_launch_parse_text(&l, text, "entry 0 launch plan");
	else if ((json = ks_extract_launch_comment(text)) != NULL)
		rc = ks_launch_parse_text(&l, json, "entry 0 launch plan");
	else {
		ks_launch_copy(&l, &p->launch);
		rc = 0;
	}
	fz_check_error(rc);
	if (rc == 0) {
		fz_check_launch_roundtrip(&l);
		rc = ks_problem_check_launch(p, &l, "entry 0 launch plan");
		fz_check_error(rc);
		if (rc == 0)
			build_all(p, &l);
		ks_launch_clear(&l);
	}
	ks_free(json);
	ks_free(text);
	ks_error_clear();
	return 0;
}
