#include "ktest.h"
#include "compiletest.h"
#include "util/buf.h"
#include "lang/cuda/compile.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "util/sandbox.h"

#include <time.h>

extern char **environ;

static const char *good_src =
	"extern \"C\" __global__ void good(float *x) { x[threadIdx.x] = 1.0f; }\n"
	"template <typename T> __global__ void k(T *x) { x[threadIdx.x] = T(2); }\n";

/* Options for a test: the freshly built helper, short limits. Skips where it is not built. */
static ks_compile_options helper_opts(void)
{
	return kt_helper_opts(30, 0);
}

/* The same, for tests that compile: without Landlock the helper refuses untrusted sources. */
static ks_compile_options opts(void)
{
	ks_compile_options o = helper_opts();
	if (!ks_sandbox_available())
		KT_SKIP("Landlock is not available: compiles are refused (see test_no_landlock_*)");
	return o;
}

static void job_init(ks_compile_job *j, const char *src, const char *const *names, size_t n)
{
	memset(j, 0, sizeof(*j));
	j->source = src;
	j->names = names;
	j->nnames = n;
	j->label = "test job";
}

static void compile_one(ks_compile_job *j, const ks_compile_options *o)
{
	if (ks_compile_run(j, 1, o) != 0)
		KT_FAIL("ks_compile_run failed: %s", ks_error_msg());
	KT_ASSERT(j->log != NULL);
}

#define KT_STATUS(j, want)                                                                   \
	KT_ASSERT_MSG((j)->status == (want), "status \"%s\", expected \"%s\"; log: %.1500s",      \
		      ks_compile_status_name((j)->status), ks_compile_status_name(want), (j)->log)

static void test_good_kernel_gives_cubin_and_lowered_names(void)
{
	ks_compile_options o = opts();
	const char *names[] = { "good", "k<float>" };
	ks_compile_job j;
	size_t i;

	job_init(&j, good_src, names, 2);
	compile_one(&j, &o);
	KT_STATUS(&j, KS_COMPILE_OK);
	KT_ASSERT(j.cubin_len > 64);
	KT_ASSERT(memcmp(j.cubin, "\177ELF", 4) == 0);
	KT_EQ_STR(j.lowered[0], "good");
	KT_EQ_STR(j.lowered[1], "_Z1kIfEvPT_");
	KT_EQ_INT(j.cached, 0);
	KT_ASSERT(j.seconds > 0);
	KT_EQ_INT(strlen(j.key), 64);
	for (i = 0; i < 64; i++)
		KT_ASSERT(strchr("0123456789abcdef", j.key[i]));
	ks_compile_job_clear(&j);
}

static void test_kscore_macro_is_defined(void)
{
	ks_compile_options o = opts();
	const char *names[] = { "m" };
	ks_compile_job j;

	job_init(&j, "#if KSCORE != 1\n#error no KSCORE\n#endif\n"
		     "#include <cuda_fp16.h>\n#include <cuda/std/cstdint>\n"
		     "extern \"C\" __global__ void m(__half *x, cuda::std::uint32_t n) "
		     "{ if (threadIdx.x < n) x[0] = __float2half(1.0f); }\n", names, 1);
	compile_one(&j, &o);
	KT_STATUS(&j, KS_COMPILE_OK);
	ks_compile_job_clear(&j);
}

static void test_syntax_error_is_reported(void)
{
	ks_compile_options o = opts();
	const char *names[] = { "bad" };
	ks_compile_job j;

	job_init(&j, "extern \"C\" __global__ void bad(float *x) { x[0] = undefined_thing; }\n",
		 names, 1);
	compile_one(&j, &o);
	KT_STATUS(&j, KS_COMPILE_ERROR);
	KT_CONTAINS(j.log, "submission.cu(1): error");
	KT_CONTAINS(j.log, "undefined_thing");
	KT_ASSERT(j.cubin == NULL && j.lowered == NULL);
	ks_compile_job_clear(&j);
}

static void test_missing_kernel_name(void)
{
	ks_compile_options o = opts();
	const char *names[] = { "good", "no_such_kernel", "k<float>" };
	ks_compile_job j;

	job_init(&j, good_src, names, 3);
	compile_one(&j, &o);
	KT_STATUS(&j, KS_COMPILE_NONAME);
	KT_CONTAINS(j.log, "kernel name \"no_such_kernel\" not found");
	KT_NOT_CONTAINS(j.log, "kernel name \"good\" not found");
	KT_ASSERT(j.cubin == NULL && j.lowered == NULL);
	ks_compile_job_clear(&j);

	/* A template instance that exists but does not compile is an error, not a missing name. */
	{
		const char *tn[] = { "k<void>" };
		job_init(&j, good_src, tn, 1);
		compile_one(&j, &o);
		KT_STATUS(&j, KS_COMPILE_ERROR);
		ks_compile_job_clear(&j);
	}
}

static void fill_random(char *out, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char raw[64];
	int fd = open("/dev/urandom", O_RDONLY);
	size_t i;

	KT_ASSERT(fd >= 0 && n <= sizeof(raw));
	KT_ASSERT(read(fd, raw, n) == (ssize_t)n);
	close(fd);
	for (i = 0; i < n; i++)
		out[i] = hex[raw[i] % 16];
	out[n] = '\0';
}

static int mem_has(const void *hay, size_t n, const char *needle)
{
	size_t k = strlen(needle), i;
	const char *h = hay;
	if (!hay)
		return 0;
	for (i = 0; i + k <= n; i++)
		if (!memcmp(h + i, needle, k))
			return 1;
	return 0;
}

/* The proof that a submission cannot read host files at compile time. The secret must be in this
 * process's initial environment (what /proc/PID/environ shows), so the test re-executes itself
 * once with the secret added. */
static void test_include_cannot_reach_host_files(void)
{
	ks_compile_options o;
	const char *env_secret = getenv("KSCORE_TEST_ENV_SECRET");
	char file_secret[40], *tmpfile, *srcs[5], procpath[64];
	const char *names[] = { "good" };
	ks_compile_job j[5];
	char *environ_text = NULL;
	size_t elen = 0, i;
	int fd;

	if (!env_secret) {
		char secret[40], var[80], **env;
		char *argv[3];
		size_t n = 0;
		fill_random(secret, 32);
		snprintf(var, sizeof(var), "KSCORE_TEST_ENV_SECRET=%s", secret);
		while (environ[n])
			n++;
		env = calloc(n + 2, sizeof(char *));
		memcpy(env, environ, n * sizeof(char *));
		env[n] = var;
		argv[0] = "test_compile";
		argv[1] = (char *)"test_include_cannot_reach_host_files";
		argv[2] = NULL;
		/* Only the outer run's summary line is counted; the inner one goes nowhere. */
		fd = open("/dev/null", O_WRONLY);
		KT_ASSERT(fd >= 0 && dup2(fd, 1) == 1);
		execve("/proc/self/exe", argv, env);
		KT_FAIL("re-exec failed: %s", strerror(errno));
	}
	o = opts();
	o.jobs = 4;

	/* What is there to steal: our environment as the kernel shows it, a private file, passwd. */
	snprintf(procpath, sizeof(procpath), "/proc/%ld/environ", (long)getpid());
	fd = open(procpath, O_RDONLY);
	KT_ASSERT(fd >= 0);
	environ_text = calloc(1, 1 << 20);
	elen = (size_t)read(fd, environ_text, (1 << 20) - 1);
	close(fd);
	KT_ASSERT(mem_has(environ_text, elen, env_secret));
	free(environ_text);
	fill_random(file_secret, 32);
	tmpfile = ks_strdup(kt_write("secret.h", file_secret, 32));
	fd = open("/etc/passwd", O_RDONLY);
	KT_ASSERT(fd >= 0);
	close(fd);

	srcs[0] = ks_asprintf("#include \"/etc/passwd\"\n%s", good_src);
	srcs[1] = ks_asprintf("#include \"/proc/self/environ\"\n%s", good_src);
	srcs[2] = ks_asprintf("#include \"%s\"\n%s", tmpfile, good_src);
	srcs[3] = ks_asprintf("#include \"%s\"\n%s", procpath, good_src);
	/* The helper's own open descriptors (its stdin held the source). */
	srcs[4] = ks_asprintf("#include \"/proc/self/fd/0\"\n#include \"/proc/self/fd/3\"\n%s",
			      good_src);
	for (i = 0; i < 5; i++)
		job_init(&j[i], srcs[i], names, 1);
	KT_ASSERT(ks_compile_run(j, 5, &o) == 0);
	for (i = 0; i < 5; i++) {
		const char *st = ks_compile_status_name(j[i].status);
		/* A file outside the sandbox is a header that is not there (missing_header). */
		KT_ASSERT_MSG(j[i].status == KS_COMPILE_NOHEADER, "include %zu: status %s, log %.500s",
			      i, st, j[i].log);
		KT_CONTAINS(j[i].log, "cannot open source file");
		KT_ASSERT(j[i].cubin == NULL);
		KT_ASSERT(!mem_has(j[i].log, strlen(j[i].log), env_secret));
		KT_ASSERT(!mem_has(j[i].log, strlen(j[i].log), file_secret));
		KT_ASSERT(!mem_has(j[i].log, strlen(j[i].log), "root:x:0:0"));
		KT_ASSERT(!mem_has(st, strlen(st), env_secret));
		KT_ASSERT(!mem_has(j[i].cubin, j[i].cubin_len, env_secret));
		KT_ASSERT(!mem_has(j[i].cubin, j[i].cubin_len, file_secret));
		KT_ASSERT(!mem_has(j[i].cubin, j[i].cubin_len, "root:x:0:0"));
		ks_compile_job_clear(&j[i]);
		ks_free(srcs[i]);
	}
	ks_free(tmpfile);
}

/* Replaces every occurrence of `name` in log by "NAME". */
static char *without(const char *log, const char *name)
{
	ks_buf b = KS_BUF_INIT((size_t)1 << 24);
	const char *p = log, *q;
	while ((q = strstr(p, name)) != NULL) {
		ks_buf_put(&b, p, (size_t)(q - p));
		ks_buf_puts(&b, "NAME");
		p = q + strlen(name);
	}
	ks_buf_puts(&b, p);
	return ks_buf_take(&b, NULL);
}

/* An include of a host file that exists and one that does not give the same log and status: the
 * log must not tell a submission which files exist (NVRTC appends "Permission denied" for a file
 * the sandbox hides, "Not a directory" below a file, nothing for a missing one). Names of equal
 * length, so that even the caret under the include lines up the same. */
static void test_include_log_does_not_tell_whether_a_host_file_exists(void)
{
	static const char *const pairs[][2] = {
		{ "/etc/passwd", "/etc/pxsswd" },           /* a file the sandbox hides; none */
		{ "/etc/passwd/x", "/etc/pxsswd/x" },       /* below a file; below nothing */
		{ "/etc", "/exc" },                         /* a directory; nothing */
		{ "/proc/self/environ", "/proc/self/envirxn" },
	};
	const size_t n = sizeof(pairs) / sizeof(pairs[0]);
	ks_compile_options o = opts();
	const char *names[] = { "good" };
	ks_compile_job j[2 * 4];
	char *srcs[2 * 4];
	size_t i, k;

	KT_ASSERT(ks_fs_exists("/etc/passwd") && !ks_fs_exists("/etc/pxsswd") && !ks_fs_exists("/exc"));
	for (i = 0; i < n; i++)
		for (k = 0; k < 2; k++) {
			srcs[2 * i + k] = ks_asprintf("#include \"%s\"\n%s", pairs[i][k], good_src);
			job_init(&j[2 * i + k], srcs[2 * i + k], names, 1);
		}
	KT_ASSERT(ks_compile_run(j, 2 * n, &o) == 0);
	for (i = 0; i < n; i++) {
		char *a = without(j[2 * i].log, pairs[i][0]), *b = without(j[2 * i + 1].log, pairs[i][1]);
		KT_EQ_INT(j[2 * i].status, j[2 * i + 1].status);
		KT_EQ_INT(j[2 * i].status, KS_COMPILE_NOHEADER);
		KT_EQ_STR(a, b);
		KT_NOT_CONTAINS(a, "denied");
		ks_free(a);
		ks_free(b);
	}
	for (i = 0; i < 2 * n; i++) {
		ks_compile_job_clear(&j[i]);
		ks_free(srcs[i]);
	}
}

/* __has_include cannot tell either: a file the sandbox hides is as absent as a missing one, while
 * CUDA's headers are there. */
static void test_has_include_does_not_tell_whether_a_host_file_exists(void)
{
	ks_compile_options o = opts();
	const char *names[] = { "good" };
	ks_compile_job j;
	char *src = ks_asprintf("#if __has_include(\"/etc/passwd\") || __has_include(\"/etc/pxsswd\")\n"
				"#error a host file is visible\n#endif\n"
				"#if !__has_include(<cuda_fp16.h>)\n#error CUDA headers are not visible\n"
				"#endif\n%s", good_src);

	job_init(&j, src, names, 1);
	compile_one(&j, &o);
	KT_STATUS(&j, KS_COMPILE_OK);
	ks_compile_job_clear(&j);
	ks_free(src);
}

/* Distinct instantiations each evaluating an exponential constexpr function: the front end works
 * for hours with little memory, and no depth or step limit stops it early. */
static const char *slow_src =
	"__device__ constexpr unsigned long long f(int n, int s)\n"
	"{ return n < 2 ? s : f(n - 1, s) + f(n - 2, s); }\n"
	"template <int Lo, int Hi, bool Leaf = (Hi - Lo == 1)> struct T {\n"
	"	static constexpr unsigned long long v = T<Lo, (Lo + Hi) / 2>::v + "
	"T<(Lo + Hi) / 2, Hi>::v;\n"
	"};\n"
	"template <int Lo, int Hi> struct T<Lo, Hi, true> {\n"
	"	static constexpr unsigned long long v = f(25, Lo);\n"
	"};\n"
	"extern \"C\" __global__ void slow(unsigned long long *x) { x[0] = T<0, (1 << 20)>::v; }\n";

static void test_instantiation_bomb_times_out(void)
{
	ks_compile_options o = opts();
	const char *names[] = { "slow" };
	ks_compile_job j;

	o.timeout_s = 3;
	o.memory_mb = 2048;
	job_init(&j, slow_src, names, 1);
	compile_one(&j, &o);
	KT_STATUS(&j, KS_COMPILE_TIMEOUT);
	KT_ASSERT_MSG(j.seconds >= 2.9 && j.seconds < 6, "took %.2f s", j.seconds);
	KT_CONTAINS(j.log, "wall-clock limit of 3 s");
	ks_compile_job_clear(&j);
}

/* Exponentially many distinct instantiations: memory grows by gigabytes a second. */
static void test_memory_bomb_hits_the_limit(void)
{
	ks_compile_options o = opts();
	const char *names[] = { "big" };
	ks_compile_job j;

	o.memory_mb = 512;
	o.timeout_s = 30;
	job_init(&j, "template <int N, int M> struct B { static constexpr long v = "
		     "B<N - 1, 2 * M>::v + B<N - 1, 2 * M + 1>::v; };\n"
		     "template <int M> struct B<0, M> { static constexpr long v = M; };\n"
		     "extern \"C\" __global__ void big(long *x) { x[0] = B<26, 1>::v; }\n",
		 names, 1);
	compile_one(&j, &o);
	KT_STATUS(&j, KS_COMPILE_LIMIT);
	KT_CONTAINS(j.log, "out of memory");
	ks_compile_job_clear(&j);
}

static char *cache_file(const char *dir, const char *key)
{
	return ks_asprintf("%s/%.2s/%s.kcc", dir, key, key);
}

static void test_cache_hit_and_miss(void)
{
	ks_compile_options o = opts();
	const char *names[] = { "good", "k<float>" };
	ks_compile_job a, b, c, e1, e2;
	char dir[4200], *path;

	snprintf(dir, sizeof(dir), "%s/cache", kt_tmpdir());
	o.cache_dir = dir;
	job_init(&a, good_src, names, 2);
	compile_one(&a, &o);
	KT_STATUS(&a, KS_COMPILE_OK);
	KT_EQ_INT(a.cached, 0);
	path = cache_file(dir, a.key);
	KT_ASSERT_MSG(access(path, R_OK) == 0, "no cache file %s", path);
	ks_free(path);

	job_init(&b, good_src, names, 2);
	compile_one(&b, &o);
	KT_STATUS(&b, KS_COMPILE_OK);
	KT_EQ_INT(b.cached, 1);
	KT_NEAR(b.seconds, 0, 0);
	KT_EQ_STR(b.key, a.key);
	KT_EQ_INT(b.cubin_len, a.cubin_len);
	KT_ASSERT(memcmp(b.cubin, a.cubin, a.cubin_len) == 0);
	KT_EQ_STR(b.lowered[0], "good");
	KT_EQ_STR(b.lowered[1], "_Z1kIfEvPT_");

	/* Another architecture is another key. */
	o.arch = "sm_80";
	job_init(&c, good_src, names, 2);
	compile_one(&c, &o);
	KT_STATUS(&c, KS_COMPILE_OK);
	KT_EQ_INT(c.cached, 0);
	KT_ASSERT(strcmp(c.key, a.key) != 0);
	o.arch = "sm_90a";

	/* Compile errors are deterministic and cached too. */
	job_init(&e1, "__global__ void oops( {", names, 1);
	compile_one(&e1, &o);
	KT_STATUS(&e1, KS_COMPILE_ERROR);
	KT_EQ_INT(e1.cached, 0);
	job_init(&e2, "__global__ void oops( {", names, 1);
	compile_one(&e2, &o);
	KT_STATUS(&e2, KS_COMPILE_ERROR);
	KT_EQ_INT(e2.cached, 1);
	KT_EQ_STR(e2.log, e1.log);

	ks_compile_job_clear(&a);
	ks_compile_job_clear(&b);
	ks_compile_job_clear(&c);
	ks_compile_job_clear(&e1);
	ks_compile_job_clear(&e2);
}

typedef struct {
	ks_compile_job *jobs;
	int calls[5];
	int order[5], norder;
	int final_when_called[5];
} cb_state;

static void record_done(void *ud, size_t i)
{
	cb_state *st = ud;
	st->calls[i]++;
	st->order[st->norder++] = (int)i;
	/* outputs must be final when the callback comes */
	st->final_when_called[i] = st->jobs[i].log != NULL &&
				   (st->jobs[i].status != KS_COMPILE_OK || st->jobs[i].cubin != NULL);
}

static void test_done_callback_comes_once_per_job_when_it_is_final(void)
{
	ks_compile_options o = opts();
	const char *names[] = { "good" }, *bad_name[] = { "bad\nname" };
	ks_compile_job jobs[5];
	cb_state st;
	char dir[4200];
	size_t i;

	snprintf(dir, sizeof(dir), "%s/cbcache", kt_tmpdir());
	o.cache_dir = dir;
	memset(&st, 0, sizeof(st));
	st.jobs = jobs;
	job_init(&jobs[0], good_src, names, 1);                   /* compiled */
	job_init(&jobs[1], "__global__ void oops( {", names, 1); /* compile error */
	job_init(&jobs[2], good_src, names, 1);                   /* duplicate of 0 */
	job_init(&jobs[3], good_src, bad_name, 1);                /* refused before running */
	job_init(&jobs[4], NULL, names, 1);                       /* no source */
	KT_ASSERT(ks_compile_run_cb(jobs, 5, &o, record_done, &st) == 0);
	for (i = 0; i < 5; i++) {
		KT_EQ_INT(st.calls[i], 1);
		KT_ASSERT_MSG(st.final_when_called[i], "job %zu was not final when reported", i);
	}
	KT_EQ_INT(st.norder, 5);
	/* refused jobs are reported at once, before any helper finishes */
	KT_EQ_INT(st.order[0], 3);
	KT_EQ_INT(st.order[1], 4);
	KT_STATUS(&jobs[0], KS_COMPILE_OK);
	KT_STATUS(&jobs[1], KS_COMPILE_ERROR);
	KT_STATUS(&jobs[2], KS_COMPILE_OK);
	KT_EQ_INT(jobs[2].cubin_len, jobs[0].cubin_len);
	for (i = 0; i < 5; i++)
		ks_compile_job_clear(&jobs[i]);

	/* a second run is served from the cache: every callback comes before any helper runs */
	memset(&st, 0, sizeof(st));
	st.jobs = jobs;
	job_init(&jobs[0], good_src, names, 1);
	job_init(&jobs[1], "__global__ void oops( {", names, 1);
	KT_ASSERT(ks_compile_run_cb(jobs, 2, &o, record_done, &st) == 0);
	KT_EQ_INT(st.calls[0], 1);
	KT_EQ_INT(st.calls[1], 1);
	KT_EQ_INT(jobs[0].cached, 1);
	KT_EQ_INT(jobs[1].cached, 1);
	ks_compile_job_clear(&jobs[0]);
	ks_compile_job_clear(&jobs[1]);
}

static void test_corrupt_cache_file_is_recompiled(void)
{
	ks_compile_options o = opts();
	const char *names[] = { "good" };
	ks_compile_job a, b;
	char dir[4200], *path;
	struct stat st;
	FILE *f;
	int fd, pass;

	snprintf(dir, sizeof(dir), "%s/cache", kt_tmpdir());
	o.cache_dir = dir;
	job_init(&a, good_src, names, 1);
	compile_one(&a, &o);
	KT_STATUS(&a, KS_COMPILE_OK);
	path = cache_file(dir, a.key);
	KT_ASSERT(stat(path, &st) == 0 && st.st_size > 200);

	for (pass = 0; pass < 3; pass++) {
		if (pass == 0) {
			/* truncated */
			KT_ASSERT(truncate(path, st.st_size / 2) == 0);
		} else if (pass == 1) {
			/* one byte flipped inside the CUBIN */
			unsigned char ch;
			fd = open(path, O_RDWR);
			KT_ASSERT(fd >= 0);
			KT_ASSERT(pread(fd, &ch, 1, st.st_size - 100) == 1);
			ch ^= 0x40;
			KT_ASSERT(pwrite(fd, &ch, 1, st.st_size - 100) == 1);
			close(fd);
		} else {
			/* garbage */
			f = fopen(path, "wb");
			KT_ASSERT(f);
			fputs("KSCC not really a cache file", f);
			fclose(f);
		}
		job_init(&b, good_src, names, 1);
		compile_one(&b, &o);
		KT_STATUS(&b, KS_COMPILE_OK);
		KT_EQ_INT(b.cached, 0);
		KT_EQ_INT(b.cubin_len, a.cubin_len);
		KT_ASSERT(memcmp(b.cubin, a.cubin, a.cubin_len) == 0);
		ks_compile_job_clear(&b);
		KT_ASSERT(stat(path, &st) == 0);
	}
	/* The recompile rewrote it: the next one is a hit. */
	job_init(&b, good_src, names, 1);
	compile_one(&b, &o);
	KT_EQ_INT(b.cached, 1);
	ks_compile_job_clear(&b);
	ks_compile_job_clear(&a);
	ks_free(path);
}

static void test_jobs_run_in_parallel(void)
{
	enum { N = 6 };
	ks_compile_options o = opts();
	char srcs[N][200], names_s[N][32];
	const char *names[N][1];
	ks_compile_job j[N];
	int i;

	o.jobs = 3;
	for (i = 0; i < N; i++) {
		snprintf(names_s[i], sizeof(names_s[i]), "kern%d", i);
		snprintf(srcs[i], sizeof(srcs[i]),
			 "extern \"C\" __global__ void kern%d(int *x) { x[threadIdx.x] = %d; }\n", i,
			 i);
		names[i][0] = names_s[i];
		job_init(&j[i], srcs[i], names[i], 1);
	}
	/* The same job twice in a batch is compiled once. */
	job_init(&j[N - 1], srcs[0], names[0], 1);
	KT_ASSERT(ks_compile_run(j, N, &o) == 0);
	for (i = 0; i < N; i++) {
		KT_STATUS(&j[i], KS_COMPILE_OK);
		KT_EQ_STR(j[i].lowered[0], names[i == N - 1 ? 0 : i][0]);
		KT_ASSERT(memcmp(j[i].cubin, "\177ELF", 4) == 0);
	}
	KT_EQ_INT(j[N - 1].cached, 1);
	KT_EQ_INT(j[N - 1].cubin_len, j[0].cubin_len);
	for (i = 0; i < N; i++)
		ks_compile_job_clear(&j[i]);
}

static void test_virtual_arch_is_rejected(void)
{
	ks_compile_options o = helper_opts();
	const char *names[] = { "good" };
	ks_compile_job j;
	const char *argv[] = { g_helper, "--arch", "compute_90", "--max-log", "1000",
			       "--max-source", "1000", NULL };
	ks_spawn_options so;
	ks_spawn_result sr;
	ks_compile_reply r;

	o.arch = "compute_90";
	job_init(&j, good_src, names, 1);
	KT_EQ_INT(ks_compile_run(&j, 1, &o), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "virtual");
	KT_STATUS(&j, KS_COMPILE_ERROR);
	KT_CONTAINS(j.log, "compute_90");
	ks_compile_job_clear(&j);

	KT_ASSERT(ks_compile_check_arch("sm_90a") == 0);
	KT_ASSERT(ks_compile_check_arch("sm_100f") == 0);
	KT_ASSERT(ks_compile_check_arch("lto_90") < 0);
	KT_ASSERT(ks_compile_check_arch("sm_90 --foo") < 0);
	KT_ASSERT(ks_compile_check_arch("") < 0);

	/* The helper refuses on its own too. */
	memset(&so, 0, sizeof(so));
	so.argv = argv;
	so.stdin_data = good_src;
	so.stdin_len = strlen(good_src);
	so.max_stdout = so.max_stderr = 1 << 16;
	so.timeout_s = 30;
	KT_ASSERT(ks_spawn_run(&sr, &so) == 0);
	KT_EQ_INT(sr.exit_code, 0);
	KT_ASSERT(ks_compile_reply_decode(&r, sr.out, sr.out_len, 1000, 0) == 0);
	KT_EQ_INT(r.status, KS_COMPILE_ERROR);
	KT_CONTAINS(r.log, "virtual");
	ks_compile_reply_clear(&r);
	ks_spawn_result_clear(&sr);
}

static void test_oversize_source_is_refused_unrun(void)
{
	ks_compile_options o = helper_opts();
	const char *names[] = { "good" };
	ks_compile_job j;
	size_t n = 5000;
	char *big = malloc(n + 1);

	memset(big, ' ', n);
	big[n] = '\0';
	o.max_source = 4096;
	job_init(&j, big, names, 1);
	compile_one(&j, &o);
	KT_STATUS(&j, KS_COMPILE_LIMIT);
	KT_CONTAINS(j.log, "5000 bytes");
	KT_NEAR(j.seconds, 0, 0);
	ks_compile_job_clear(&j);
	free(big);
}

static void test_log_is_capped(void)
{
	ks_compile_options o = opts();
	const char *names[] = { "e" };
	ks_compile_job j;
	char src[8192];
	size_t n = 0;
	int i;

	for (i = 0; i < 40; i++)
		n += (size_t)snprintf(src + n, sizeof(src) - n, "int bad%d = undefined%d;\n", i, i);
	o.max_log = 300;
	job_init(&j, src, names, 1);
	compile_one(&j, &o);
	KT_STATUS(&j, KS_COMPILE_ERROR);
	KT_ASSERT_MSG(strlen(j.log) <= 300 + KS_COMPILE_LOG_SLACK, "log is %zu bytes",
		      strlen(j.log));
	KT_CONTAINS(j.log, "[log truncated at 300 bytes]");
	ks_compile_job_clear(&j);
}

static void test_nvrtc_version(void)
{
	ks_compile_options o = helper_opts();
	char *v = ks_compile_nvrtc_version(&o);
	KT_ASSERT(v != NULL);
	KT_ASSERT(strchr(v, '.') != NULL);
	KT_ASSERT(strspn(v, "0123456789.") == strlen(v));
	ks_free(v);

	o.helper = "/nonexistent/kscore-compile";
	KT_ASSERT(ks_compile_nvrtc_version(&o) == NULL);
}

static void test_missing_helper_fails_the_batch(void)
{
	ks_compile_options o = helper_opts();
	const char *names[] = { "good" };
	ks_compile_job j;

	o.helper = "/nonexistent/kscore-compile";
	job_init(&j, good_src, names, 1);
	KT_ASSERT(ks_compile_run(&j, 1, &o) < 0);
	KT_STATUS(&j, KS_COMPILE_CRASH);
	KT_CONTAINS(j.log, "/nonexistent/kscore-compile");
	ks_compile_job_clear(&j);
}

/* A helper that dies mid-compile still reports, through its signal handler, in the protocol. */
static void test_helper_crash_is_reported(void)
{
	ks_compile_options o = helper_opts();
	/* A background job's stdin is /dev/null unless given explicitly, hence fd 3. */
	const char *argv[] = { "/bin/sh", "-c",
			       "exec 3<&0; \"$0\" \"$@\" <&3 & pid=$!; sleep 1; kill -SEGV $pid; "
			       "wait $pid",
			       g_helper, "--arch", "sm_90a", "--max-log", "1000", "--max-source",
			       "100000", "--include", NULL, NULL };
	const char *const env[] = { "PATH=/usr/bin:/bin", NULL };
	char incdir[4200];
	ks_spawn_options so;
	ks_spawn_result sr;
	ks_compile_reply r;

	(void)o;
	snprintf(incdir, sizeof(incdir), "%s/include", KS_CUDA_HOME);
	argv[11] = incdir;
	memset(&so, 0, sizeof(so));
	so.argv = argv;
	so.envp = env;
	so.stdin_data = slow_src;
	so.stdin_len = strlen(slow_src);
	so.max_stdout = so.max_stderr = 1 << 16;
	so.timeout_s = 30;
	KT_ASSERT(ks_spawn_run(&sr, &so) == 0);
	KT_ASSERT_MSG(sr.exited && sr.exit_code == 70, "exit %d signal %d: %s", sr.exit_code,
		      sr.signal, sr.err);
	KT_ASSERT_MSG(ks_compile_reply_decode(&r, sr.out, sr.out_len, 1000, 0) == 0, "%s",
		      ks_error_msg());
	KT_EQ_INT(r.status, KS_COMPILE_CRASH);
	KT_CONTAINS(r.log, "died by signal 11");
	ks_compile_reply_clear(&r);
	ks_spawn_result_clear(&sr);
}

/* Where the kernel has no Landlock, untrusted compiles are refused unless explicitly allowed. */
static void test_no_landlock_refuses_unless_allowed(void)
{
	ks_compile_options o = helper_opts();
	const char *names[] = { "good" };
	ks_compile_job j;

	if (ks_sandbox_available())
		KT_SKIP("Landlock is available here; the refusal path needs a kernel without it");
	job_init(&j, good_src, names, 1);
	compile_one(&j, &o);
	KT_STATUS(&j, KS_COMPILE_SANDBOX);
	KT_CONTAINS(j.log, "Landlock");
	ks_compile_job_clear(&j);

	o.allow_unsandboxed = 1;
	job_init(&j, good_src, names, 1);
	compile_one(&j, &o);
	KT_STATUS(&j, KS_COMPILE_OK);
	ks_compile_job_clear(&j);
}

/* A frame and every way of breaking it: each broken one must be refused. */
static void test_reply_decoding_is_strict(void)
{
	ks_compile_reply in, out;
	char cubin[64] = "\177ELF", *frame, *copy;
	char *lowered[] = { "good", "_Z1kIfEvPT_" };
	size_t len, cut;

	memset(&in, 0, sizeof(in));
	in.status = KS_COMPILE_OK;
	in.log = "warning: fine";
	in.log_len = strlen(in.log);
	in.cubin = cubin;
	in.cubin_len = sizeof(cubin);
	in.lowered = lowered;
	in.nlowered = 2;
	KT_ASSERT(ks_compile_reply_encode(&frame, &len, &in) == 0);

	KT_ASSERT(ks_compile_reply_decode(&out, frame, len, 100, 2) == 0);
	KT_EQ_INT(out.status, KS_COMPILE_OK);
	KT_EQ_STR(out.log, "warning: fine");
	KT_EQ_INT(out.cubin_len, sizeof(cubin));
	KT_EQ_STR(out.lowered[1], "_Z1kIfEvPT_");
	ks_compile_reply_clear(&out);

	for (cut = 0; cut < len; cut++) {
		KT_ASSERT_MSG(ks_compile_reply_decode(&out, frame, cut, 100, 2) < 0,
			      "a frame cut at %zu of %zu bytes was accepted", cut, len);
		ks_compile_reply_clear(&out);
	}
	copy = malloc(len + 1);
	memcpy(copy, frame, len);
	copy[len] = 'x';
	KT_ASSERT(ks_compile_reply_decode(&out, copy, len + 1, 100, 2) < 0);
	ks_compile_reply_clear(&out);
	/* wrong name count, log over its cap, unknown status, NUL in the log, no ELF */
	KT_ASSERT(ks_compile_reply_decode(&out, frame, len, 100, 1) < 0);
	ks_compile_reply_clear(&out);
	KT_ASSERT(ks_compile_reply_decode(&out, frame, len, 0, 2) == 0); /* within the slack */
	ks_compile_reply_clear(&out);
	memcpy(copy, frame, len);
	copy[8] = 99;
	KT_ASSERT(ks_compile_reply_decode(&out, copy, len, 100, 2) < 0);
	KT_CONTAINS(ks_error_msg(), "unknown status");
	ks_compile_reply_clear(&out);
	memcpy(copy, frame, len);
	copy[16 + 3] = '\0';
	KT_ASSERT(ks_compile_reply_decode(&out, copy, len, 100, 2) < 0);
	ks_compile_reply_clear(&out);
	memcpy(copy, frame, len);
	copy[16 + in.log_len + 4] = 'X';
	KT_ASSERT(ks_compile_reply_decode(&out, copy, len, 100, 2) < 0);
	KT_CONTAINS(ks_error_msg(), "ELF");
	ks_compile_reply_clear(&out);
	free(copy);
	ks_free(frame);

	{
		char big[200];
		memset(big, 'a', sizeof(big) - 1);
		big[sizeof(big) - 1] = '\0';
		in.status = KS_COMPILE_ERROR;
		in.log = big;
		in.log_len = strlen(big);
		in.cubin = NULL;
		in.cubin_len = 0;
		in.nlowered = 0;
		KT_ASSERT(ks_compile_reply_encode(&frame, &len, &in) == 0);
		KT_ASSERT(ks_compile_reply_decode(&out, frame, len, 100, 2) < 0);
		KT_CONTAINS(ks_error_msg(), "over the limit");
		ks_compile_reply_clear(&out);
		KT_ASSERT(ks_compile_reply_decode(&out, frame, len, 1000, 2) == 0);
		KT_EQ_INT(out.status, KS_COMPILE_ERROR);
		KT_EQ_INT(out.nlowered, 0);
		ks_compile_reply_clear(&out);
		ks_free(frame);
	}
}

static const kt_test tests[] = {
	KT(test_reply_decoding_is_strict),
	KT(test_nvrtc_version),
	KT(test_good_kernel_gives_cubin_and_lowered_names),
	KT(test_kscore_macro_is_defined),
	KT(test_syntax_error_is_reported),
	KT(test_missing_kernel_name),
	KT(test_include_cannot_reach_host_files),
	KT(test_include_log_does_not_tell_whether_a_host_file_exists),
	KT(test_has_include_does_not_tell_whether_a_host_file_exists),
	KT(test_instantiation_bomb_times_out),
	KT(test_memory_bomb_hits_the_limit),
	KT(test_cache_hit_and_miss),
	KT(test_corrupt_cache_file_is_recompiled),
	KT(test_done_callback_comes_once_per_job_when_it_is_final),
	KT(test_jobs_run_in_parallel),
	KT(test_virtual_arch_is_rejected),
	KT(test_oversize_source_is_refused_unrun),
	KT(test_log_is_capped),
	KT(test_missing_helper_fails_the_batch),
	KT(test_helper_crash_is_reported),
	KT(test_no_landlock_refuses_unless_allowed),
	{ NULL, NULL }
};

KT_MAIN("compile", tests)
