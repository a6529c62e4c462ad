/* fuzz_problem: a problem.json through the problem-spec loader and its validation (names,
 * expressions, launch plans, cases, sizes), then, for a spec that loads, what `score check-refs`
 * and the scorer do with it: the environment of every case and the golden and default plans built
 * for it. The loader reads a folder, so the input is written to problem.json in a private folder
 * under $TMPDIR (with a golden.cu and an instruction.md) before each run. */
#include "fuzz.h"
#include "load/problem.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp[4096], dir[4200];
static const char *const fixed[] = { "golden.cu", "instruction.md" };
/* the loader's limit on one case's tensors (src/load/problem.c) */
static const uint64_t max_case_bytes = 8ull << 30;
/* known bug (issue 9, item 7): a tensor of 2^62 elements wraps its byte count and loads */
static int sizes_wrap;

static void put(const char *name, const void *data, size_t size)
{
	char path[4400];
	int fd;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd) < 0) {
		perror(path);
		abort();
	}
}

static void cleanup(void)
{
	char path[4400];
	size_t i;
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, fixed[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/problem.json", dir);
	unlink(path);
	rmdir(dir);
	rmdir(tmp);
}

static void probe_sizes(void)
{
	static const char spec[] =
		"{\"name\": \"vadd\", \"dims\": [\"n\"],"
		" \"args\": [{\"name\": \"a\", \"type\": \"f32*\", \"role\": \"in\", \"shape\": [\"n\"]},"
		" {\"name\": \"c\", \"type\": \"f32*\", \"role\": \"out\", \"shape\": [\"n\"]}],"
		" \"launch\": {\"kernel\": \"vadd\", \"grid\": [1], \"block\": [1]},"
		" \"flops\": \"n\", \"bytes\": \"n\", \"tolerance\": {\"atol\": 1e-06, \"rtol\": 1e-06},"
		" \"cases\": {\"correctness\": [{\"n\": \"1 << 62\"}], \"perf\": [{\"n\": \"1 << 62\"}]}}";
	ks_problem *p = NULL;

	if (fz_strict())
		return;
	put("problem.json", spec, sizeof(spec) - 1);
	sizes_wrap = ks_problem_load(&p, dir, "fuzz") == 0;
	if (sizes_wrap)
		fprintf(stderr, "fuzz: known bug: a spec with a tensor of 2^62 elements loads (issue 9, "
			"item 7); cases whose sizes overflow are not checked further\n");
	ks_problem_free(p);
	ks_error_clear();
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char golden[] = "extern \"C\" __global__ void vadd(const float *a, const float *b, "
				     "float *c, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; "
				     "if (i < n) c[i] = a[i] + b[i]; }\n";
	const char *t = getenv("TMPDIR");
	(void)argc;
	(void)argv;
	snprintf(tmp, sizeof(tmp), "%s/kscore-fuzz-problem-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(tmp)) {
		perror(tmp);
		exit(1);
	}
	snprintf(dir, sizeof(dir), "%s/vadd", tmp);
	if (mkdir(dir, 0700) < 0) {
		perror(dir);
		exit(1);
	}
	put(fixed[0], golden, sizeof(golden) - 1);
	put(fixed[1], "Add two vectors.\n", 17);
	atexit(cleanup);
	fz_pow_hangs();
	probe_sizes();
	return 0;
}

/* Whether case c's tensors need more bytes than a spec may ask for (or their count overflows).
 * Every shape of a loaded spec must evaluate. */
static int case_too_big(const ks_problem *p, const ks_case *c, const ks_env *env)
{
	uint64_t total = 0, bytes, cnt;
	size_t ai;
	int over = 0;

	for (ai = 0; ai < p->nargs; ai++) {
		if (p->args[ai].role == KS_ROLE_SCALAR)
			continue;
		FZ_CHECK(ks_problem_arg_count(&cnt, p, &p->args[ai], env) == 0,
			 "case %s: a validated shape fails: %s", c->label, ks_error_msg());
		over |= __builtin_mul_overflow(cnt, (uint64_t)ks_dtype_size(p->args[ai].dtype), &bytes) ||
			__builtin_add_overflow(total, bytes, &total);
	}
	return over || total > max_case_bytes;
}

static void build_all(const ks_problem *p)
{
	size_t k, ci, li;
	for (k = 0; k < 2; k++) {
		const ks_case *cases = k ? p->perf : p->correctness;
		size_t n = k ? p->nperf : p->ncorrectness;
		for (ci = 0; ci < n; ci++) {
			ks_env env = KS_ENV_INIT;
			int rc = ks_problem_env(&env, p, &cases[ci]), big;
			FZ_CHECK(rc == 0, "a validated case fails: %s", ks_error_msg());
			big = case_too_big(p, &cases[ci], &env);
			FZ_CHECK(!big || sizes_wrap, "case %s: the tensors need more than %llu bytes, yet "
				 "the spec loads", cases[ci].label, (unsigned long long)max_case_bytes);
			for (li = 0; li < 2 && !big; li++)
				fz_build_and_check_plan(p, li ? &p->launch : &p->golden_launch, &cases[ci],
							&env, 0);
			ks_env_free(&env);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ks_problem *p = NULL;
	int rc;

	if (fz_skip_pow(data, size))
		return 0;
	put("problem.json", data, size);
	rc = ks_problem_load(&p, dir, "fuzz");
	fz_check_error(rc);
	if (rc == 0) {
		FZ_CHECK(p && !strcmp(p->name, "vadd"), "the problem is named %s", p ? p->name : "-");
		FZ_CHECK(strlen(p->sha256) == 64, "sha256 \"%s\"", p->sha256);
		FZ_CHECK(p->golden_launch.nkernels >= 1, "a golden plan without kernels");
		fz_check_launch_roundtrip(&p->golden_launch);
		fz_check_launch_roundtrip(&p->launch);
		build_all(p);
		ks_problem_free(p);
	} else {
		FZ_CHECK(!p, "a failed load returned a problem");
	}
	ks_error_clear();
	return 0;
}
