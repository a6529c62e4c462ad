/* Checks shared by the fuzz targets (fuzz.h). */
#include "fuzz.h"
#include "load/expr.h"
#include "util/jsonutil.h"

#include <cJSON.h>
#include <time.h>

int fz_strict(void)
{
	const char *s = getenv("KSCORE_FUZZ_STRICT");
	return s && *s && strcmp(s, "0");
}

int fz_pow_hangs(void)
{
	static int known = -1;
	struct timespec a, b;
	int64_t v;
	double ms;

	if (known >= 0)
		return known;
	if (fz_strict())
		return known = 0;
	/* a million multiplications take tens of milliseconds; raising by squaring, microseconds */
	clock_gettime(CLOCK_MONOTONIC, &a);
	ks_expr_eval(&v, "1 ** 1000000", NULL);
	clock_gettime(CLOCK_MONOTONIC, &b);
	ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
	known = ms > 5;
	if (known)
		fprintf(stderr, "fuzz: known bug: \"1 ** 1000000\" takes %.0f ms (issue 9, item 2); "
			"inputs holding \"**\" are skipped\n", ms);
	ks_error_clear();
	return known;
}

int fz_skip_pow(const uint8_t *data, size_t size)
{
	return fz_pow_hangs() && memmem(data, size, "**", 2) != NULL;
}

/* j printed unformatted, as a string to ks_free; j is deleted. `what` names it if it cannot print. */
static char *json_text(cJSON *j, const char *what)
{
	char *s = cJSON_PrintUnformatted(j), *t;
	FZ_CHECK(s != NULL, "cannot print %s", what);
	t = ks_strdup(s);
	cJSON_free(s);
	cJSON_Delete(j);
	return t;
}

static char *launch_text(const ks_launch *l)
{
	return json_text(ks_launch_to_json(l), "a launch plan");
}

void fz_check_launch_roundtrip(const ks_launch *l)
{
	char *a = launch_text(l), *b, *c;
	ks_launch back, copy;
	int rc;

	rc = ks_launch_parse_text(&back, a, "round trip");
	FZ_CHECK(rc == 0, "the plan %s does not read back: %s", a, ks_error_msg());
	b = launch_text(&back);
	FZ_CHECK(!strcmp(a, b), "the plan %s reads back as %s", a, b);
	ks_launch_copy(&copy, l);
	c = launch_text(&copy);
	FZ_CHECK(!strcmp(a, c), "the plan %s copies as %s", a, c);
	ks_launch_clear(&back);
	ks_launch_clear(&copy);
	ks_free(a);
	ks_free(b);
	ks_free(c);
}

static char *plan_text(const ks_plan *p)
{
	return json_text(ks_plan_to_json(p), "a plan");
}

void fz_check_plan(const ks_plan *plan, const ks_launch *l)
{
	char **names = NULL, *a, *b;
	size_t nnames = 0, i, j;
	ks_plan back;
	cJSON *json = NULL;
	int rc;

	ks_plan_kernel_names(&names, &nnames, l);
	FZ_CHECK(plan->nkernels == l->nkernels, "%zu kernels for %zu launches", plan->nkernels,
		 l->nkernels);
	for (i = 0; i < plan->nbufs; i++) {
		const ks_plan_buf *bf = &plan->bufs[i];
		uint64_t bytes;
		FZ_CHECK(bf->name && *bf->name, "buffer %zu has no name", i);
		FZ_CHECK(!__builtin_mul_overflow(bf->count, (uint64_t)ks_dtype_size(bf->dtype), &bytes) &&
			 bytes == bf->bytes, "buffer %s: %llu elements of %zu bytes are not %llu bytes",
			 bf->name, (unsigned long long)bf->count, ks_dtype_size(bf->dtype),
			 (unsigned long long)bf->bytes);
	}
	for (i = 0; i < plan->nkernels; i++) {
		const ks_plan_kernel *k = &plan->kernels[i];
		uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
		FZ_CHECK(k->func < nnames && !strcmp(names[k->func], k->name),
			 "kernel %zu (%s) has function index %u", i, k->name, k->func);
		FZ_CHECK(threads >= 1 && threads <= 1024, "kernel %s: %llu threads per block", k->name,
			 (unsigned long long)threads);
		for (j = 0; j < k->nparams; j++)
			FZ_CHECK(k->params[j].kind != KS_PARAM_BUF || k->params[j].buf < plan->nbufs,
				 "kernel %s, parameter %zu: buffer %u of %zu", k->name, j,
				 k->params[j].buf, plan->nbufs);
	}
	/* the scoring process sends the plan to a worker as JSON text */
	a = plan_text(plan);
	rc = ks_json_parse(&json, a, strlen(a), 16, "plan");
	FZ_CHECK(rc == 0, "a plan does not parse as JSON: %s", ks_error_msg());
	rc = ks_plan_from_json(&back, json);
	FZ_CHECK(rc == 0, "the worker rejects the plan %s: %s", a, ks_error_msg());
	b = plan_text(&back);
	FZ_CHECK(!strcmp(a, b), "the plan %s reaches the worker as %s", a, b);
	cJSON_Delete(json);
	ks_plan_clear(&back);
	ks_free(a);
	ks_free(b);
	ks_free_strv(names, nnames);
}

void fz_build_and_check_plan(const ks_problem *p, const ks_launch *l, const ks_case *c,
			     const ks_env *env, int variant)
{
	ks_plan plan;
	int rc = ks_plan_build(&plan, p, l, c, env, 7, variant, NULL);
	fz_check_error(rc);
	if (rc == 0) {
		fz_check_plan(&plan, l);
		ks_plan_clear(&plan);
	}
}
