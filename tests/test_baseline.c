/* Tests of baseline: the stored golden times of `score baseline`, and when they may be used. */
#include "ktest.h"
#include "time/baseline.h"
#include "util/errors.h"
#include "util/mem.h"

/* A problem as the store sees it: name, sha256 and perf cases. */
static void problem(ks_problem *p, const char *name, char sha, size_t nperf)
{
	memset(p, 0, sizeof(*p));
	p->name = (char *)name;
	memset(p->sha256, sha, 64);
	p->nperf = nperf;
}

static const char *store(void)
{
	static const char text[] =
		"{\"schema\": \"kscore.baseline/1\", \"scorer\": \"0.1.0\", \"device\": \"NVIDIA H100\",\n"
		" \"uuid\": \"GPU-1\", \"driver_version\": 13000, \"measured_at\": \"2026-01-01T00:00:00Z\",\n"
		" \"problems\": [\n"
		"  {\"problem\": \"vadd\", \"sha256\": "
		"\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\",\n"
		"   \"cases\": [{\"case\": \"n=4096\", \"ms\": 0.5, \"mean\": 0.51, \"min\": 0.49, \"max\": 0.6,\n"
		"               \"stdev\": 0.01, \"rel_error\": 0.002, \"runs\": 40},\n"
		"              {\"case\": \"n=8192\", \"ms\": 0, \"runs\": 0}]},\n"
		"  {\"sha256\": \"no name: skipped\"}]}\n";
	return kt_write("b.json", text, sizeof(text) - 1);
}

static void test_a_stored_time_is_found_for_the_same_spec_only(void)
{
	ks_baseline *b = NULL;
	ks_problem p;
	const ks_stats *st;

	KT_EQ_INT(ks_baseline_load(&b, store()), 0);
	problem(&p, "vadd", 'a', 2);
	st = ks_baseline_find(b, &p, 0);
	KT_ASSERT(st != NULL);
	KT_NEAR(st->median, 0.5, 0);
	KT_NEAR(st->mean, 0.51, 0);
	KT_NEAR(st->stdev, 0.01, 0);
	KT_EQ_INT(st->n, 40);
	KT_ASSERT(ks_baseline_find(b, &p, 1) == NULL); /* a case that failed when stored */
	KT_ASSERT(ks_baseline_find(b, &p, 2) == NULL);
	problem(&p, "vadd", 'b', 2);
	KT_ASSERT(ks_baseline_find(b, &p, 0) == NULL); /* the spec changed */
	problem(&p, "vadd", 'a', 3);
	KT_ASSERT(ks_baseline_find(b, &p, 0) == NULL); /* a perf case was added */
	problem(&p, "rowsum", 'a', 2);
	KT_ASSERT(ks_baseline_find(b, &p, 0) == NULL);
	KT_ASSERT(ks_baseline_find(NULL, &p, 0) == NULL);
	KT_CONTAINS(ks_baseline_describe(b), "measured 2026-01-01T00:00:00Z on NVIDIA H100");
	ks_baseline_free(b);
}

static void test_only_on_the_device_and_driver_it_was_measured_on(void)
{
	ks_baseline *b = NULL;
	ks_device_info d;
	char *path;
	KT_EQ_INT(ks_baseline_load(&b, store()), 0);
	memset(&d, 0, sizeof(d));
	snprintf(d.uuid, sizeof(d.uuid), "GPU-1");
	d.driver_version = 13000;
	KT_ASSERT(ks_baseline_matches(b, &d));
	d.driver_version = 13010;
	KT_ASSERT(!ks_baseline_matches(b, &d));
	d.driver_version = 13000;
	snprintf(d.uuid, sizeof(d.uuid), "GPU-2");
	KT_ASSERT(!ks_baseline_matches(b, &d));
	KT_ASSERT(!ks_baseline_matches(NULL, &d));
	path = ks_baseline_default_path("/cache", &d);
	KT_EQ_STR(path, "/cache/baselines/GPU-2-13000.json");
	ks_free(path);
	d.uuid[0] = '\0';
	path = ks_baseline_default_path("/cache", &d);
	KT_EQ_STR(path, "/cache/baselines/unknown-13000.json");
	ks_free(path);
	ks_baseline_free(b);
}

static void test_bad_files_are_refused(void)
{
	ks_baseline *b = NULL;
	const char *p = kt_write("x.json", "{\"schema\": \"kscore.ceilings/2\"}", 31);
	KT_EQ_INT(ks_baseline_load(&b, p), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "not a kscore.baseline/1 file");
	KT_ASSERT(b == NULL);
	p = kt_write("y.json", "{\"schema\": ", 11);
	KT_ASSERT(ks_baseline_load(&b, p) < 0);
	KT_ASSERT(ks_baseline_load(&b, "/nonexistent/baseline.json") < 0);
	ks_baseline_free(NULL);
}

/* The command's exit codes that need no GPU. */
static void test_command_without_problems(void)
{
	const char *bin = getenv("KSCORE_BIN");
	char *cmd;
	if (!bin)
		KT_SKIP("KSCORE_BIN is not set (run through tests/run.sh)");
	cmd = ks_asprintf("'%s' baseline --help >/dev/null", bin);
	KT_EQ_INT(WEXITSTATUS(system(cmd)), 0);
	ks_free(cmd);
	cmd = ks_asprintf("'%s' baseline --refs '%s' 2>'%s/err'", bin, kt_tmpdir(), kt_tmpdir());
	KT_EQ_INT(WEXITSTATUS(system(cmd)), 65); /* a folder without problems */
	ks_free(cmd);
	cmd = ks_asprintf("'%s' baseline --bogus 2>/dev/null", bin);
	KT_EQ_INT(WEXITSTATUS(system(cmd)), 64);
	ks_free(cmd);
}

static const kt_test tests[] = {
	KT(test_a_stored_time_is_found_for_the_same_spec_only),
	KT(test_only_on_the_device_and_driver_it_was_measured_on),
	KT(test_bad_files_are_refused),
	KT(test_command_without_problems),
	{ NULL, NULL }
};

KT_MAIN("baseline", tests)
