/* kscore's compatibility headers: the module's pure functions, and what the headers make compile.
 * Every class of source that nvcc compiles and NVRTC alone does not is compiled twice: with
 * no_compat (NVRTC alone, as kscore compiled before) it must fail, with the headers it must
 * compile. The compiles need the helper and Landlock and are skipped without them. */
#include "ktest.h"
#include "compiletest.h"
#include "lang/cuda/compat.h"
#include "lang/cuda/compile.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"
#include "util/sandbox.h"

#include <dirent.h>
#include <sys/stat.h>

static ks_compile_options helper_opts(void)
{
	return kt_helper_opts(60, 1);
}

static const char *repo_root(void)
{
	const char *r = getenv("KSCORE_ROOT");
	if (!r)
		KT_SKIP("KSCORE_ROOT is not set (run through tests/run.sh)");
	return r;
}

/* Compiles n sources (each defining kernel `k`) at once; returns the jobs (caller frees). */
static ks_compile_job *compile_all(const char *const *srcs, size_t n, int no_compat)
{
	static const char *names[] = { "k" };
	ks_compile_options o = helper_opts();
	ks_compile_job *j = ks_calloc(n, sizeof(*j));
	size_t i;

	o.no_compat = no_compat;
	for (i = 0; i < n; i++) {
		j[i].source = srcs[i];
		j[i].names = names;
		j[i].nnames = 1;
		j[i].label = "compat test";
	}
	if (ks_compile_run(j, n, &o) != 0)
		KT_FAIL("ks_compile_run failed: %s", ks_error_msg());
	return j;
}

static void free_jobs(ks_compile_job *j, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
		ks_compile_job_clear(&j[i]);
	ks_free(j);
}

/* Each source fails under NVRTC alone and compiles with kscore's headers. */
static void fails_before_compiles_after(const char *const *srcs, size_t n)
{
	ks_compile_job *before = compile_all(srcs, n, 1), *after = compile_all(srcs, n, 0);
	size_t i;

	for (i = 0; i < n; i++) {
		KT_ASSERT_MSG(before[i].status != KS_COMPILE_OK,
			      "source %zu compiles without the compatibility headers:\n%s", i, srcs[i]);
		KT_ASSERT_MSG(after[i].status == KS_COMPILE_OK, "source %zu: %s with the compatibility "
			      "headers:\n%s\nlog: %.2000s", i, ks_compile_status_name(after[i].status),
			      srcs[i], after[i].log);
	}
	free_jobs(before, n);
	free_jobs(after, n);
}

/* ---- the module's functions ---- */

static void test_normalise_log_hides_why_a_file_cannot_be_opened(void)
{
	const char *log =
		"submission.cu(1): catastrophic error: cannot open source file \"/etc/passwd\": "
		"Permission denied\n"
		"  #include \"/etc/passwd\": Permission denied\n"
		"x.h(2): catastrophic error: cannot open source file \"/a/b\": Not a directory\n"
		"submission.cu(3): catastrophic error: cannot open source file \"gone.h\"\n"
		"submission.cu(4): error: something else: Permission denied";
	char *n = ks_compat_normalise_log(log);

	KT_EQ_STR(n, "submission.cu(1): catastrophic error: cannot open source file \"/etc/passwd\"\n"
		     "  #include \"/etc/passwd\": Permission denied\n"
		     "x.h(2): catastrophic error: cannot open source file \"/a/b\"\n"
		     "submission.cu(3): catastrophic error: cannot open source file \"gone.h\"\n"
		     "submission.cu(4): error: something else: Permission denied");
	ks_free(n);
	n = ks_compat_normalise_log("");
	KT_EQ_STR(n, "");
	ks_free(n);
}

static void test_hide_paths_writes_folders_as_names(void)
{
	const char *dirs[] = { "/opt/ks/compat/include", "/usr/cuda/include", "/usr/cuda/include/cccl", "/" };
	const char *names[] = { "<kscore-compat>", "<cuda>/include", "<cuda>/include/cccl", "<root>" };
	char *h = ks_compat_hide_paths("/opt/ks/compat/include/vector(9): error: x\n"
				       "  detected at line 2 of /usr/cuda/include/cccl/cuda/std/x.h\n"
				       "/usr/cuda/include/cuda_fp16.h(557): error: y\n"
				       "/usr/cuda/include2/z.h(1): /opt/ks/compat/include\n",
				       dirs, names, 4);

	KT_EQ_STR(h, "<kscore-compat>/vector(9): error: x\n"
		     "  detected at line 2 of <cuda>/include/cccl/cuda/std/x.h\n"
		     "<cuda>/include/cuda_fp16.h(557): error: y\n"
		     "/usr/cuda/include2/z.h(1): <kscore-compat>\n");
	ks_free(h);
	h = ks_compat_hide_paths(NULL, dirs, names, 4);
	KT_EQ_STR(h, "");
	ks_free(h);
}

static void test_missing_header_is_found_in_the_log(void)
{
	char *name, *where;

	KT_EQ_INT(ks_compat_missing_header(&name, &where, "a\n  #include \"x\"\n"), 0);
	KT_ASSERT(name == NULL && where == NULL);
	KT_EQ_INT(ks_compat_missing_header(&name, &where,
					   "warning: w\n/usr/include/cuda.h(56): catastrophic error: "
					   "cannot open source file \"stdlib.h\"\n  #include <stdlib.h>\n"),
		  1);
	KT_EQ_STR(name, "stdlib.h");
	KT_EQ_STR(where, "/usr/include/cuda.h line 56");
	ks_free(name);
	ks_free(where);
	/* An indented (echoed) line is the submission's text, never a diagnostic. */
	KT_EQ_INT(ks_compat_missing_header(&name, &where, "  x(1): cannot open source file \"a\"\n"),
		  0);
}

static void test_header_advice_says_what_to_include(void)
{
	const char *cuda[] = { KS_CUDA_HOME "/include", KS_CUDA_HOME "/include/cccl" };
	char *a, *b;

	a = ks_compat_header_advice("torch/csrc/api/include/torch/nn.h", cuda, 2);
	KT_CONTAINS(a, "raw device pointers");
	ks_free(a);
	a = ks_compat_header_advice("cutlass/gemm/device/gemm.h", cuda, 2);
	KT_CONTAINS(a, "<mma.h>");
	ks_free(a);
	a = ks_compat_header_advice("regex", cuda, 2);
	KT_CONTAINS(a, "host C++ library header");
	ks_free(a);
	if (ks_fs_exists(KS_CUDA_HOME "/include/cccl/cuda/std/variant")) {
		a = ks_compat_header_advice("variant", cuda, 2);
		KT_CONTAINS(a, "<cuda/std/variant>");
		ks_free(a);
	}
	/* A path out of the include directories: the same words whether the file exists or not. */
	a = ks_compat_header_advice("/etc/passwd", cuda, 2);
	b = ks_compat_header_advice("/etc/no-such-file-here", cuda, 2);
	KT_EQ_STR(a, b);
	KT_CONTAINS(a, "one file");
	ks_free(a);
	ks_free(b);
	a = ks_compat_header_advice("../../../etc/passwd", cuda, 2);
	KT_CONTAINS(a, "one file");
	ks_free(a);
}

/* Every file of the set that says it is a stand-in is one for ks_compat_is_stand_in, and no other. */
static void check_dir(const char *root, const char *rel, int *count)
{
	char *dir = rel ? ks_path_join(root, rel) : ks_strdup(root);
	DIR *d = opendir(dir);
	struct dirent *e;

	KT_ASSERT_MSG(d != NULL, "cannot open %s", dir);
	while ((e = readdir(d)) != NULL) {
		char *sub, *full, *text = NULL, *nl;
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		sub = rel ? ks_path_join(rel, e->d_name) : ks_strdup(e->d_name);
		full = ks_path_join(root, sub);
		KT_ASSERT(stat(full, &st) == 0);
		if (S_ISDIR(st.st_mode)) {
			if (strcmp(sub, "kscore"))
				check_dir(root, sub, count);
		} else {
			KT_EQ_INT(ks_fs_read(&text, NULL, full, 1 << 20), 0);
			if ((nl = strchr(text, '\n')) != NULL)
				*nl = '\0';
			KT_ASSERT_MSG(!!strstr(text, "stand-in") == ks_compat_is_stand_in(sub),
				      "%s: first line \"%s\", ks_compat_is_stand_in says %d", sub, text,
				      ks_compat_is_stand_in(sub));
			(*count)++;
			ks_free(text);
		}
		ks_free(sub);
		ks_free(full);
	}
	closedir(d);
	ks_free(dir);
}

static void test_stand_ins_are_the_files_that_say_so(void)
{
	char *dir = ks_path_join(repo_root(), "compat/include");
	int count = 0;

	check_dir(dir, NULL, &count);
	KT_ASSERT(count > 50);
	KT_ASSERT(ks_compat_is_stand_in("vector") && ks_compat_is_stand_in("torch/extension.h"));
	KT_ASSERT(ks_compat_is_stand_in("thrust/sort.h") && !ks_compat_is_stand_in("thrust/complex.h"));
	KT_ASSERT(!ks_compat_is_stand_in("cmath") && !ks_compat_is_stand_in("cub/cub.cuh"));
	ks_free(dir);
}

static void test_fingerprint_covers_names_and_contents(void)
{
	char a[65], b[65], c[65], *dir = ks_path_join(kt_tmpdir(), "set"), *sub, *p;

	sub = ks_path_join(dir, "kscore");
	KT_EQ_INT(ks_fs_mkdir_p(sub, 0755), 0);
	p = ks_path_join(sub, "prelude.h");
	KT_EQ_INT(ks_fs_write_atomic(p, "x", 1), 0);
	KT_EQ_INT(ks_compat_hash(a, dir), 0);
	KT_EQ_INT(ks_compat_hash(b, dir), 0);
	KT_EQ_STR(a, b);
	KT_EQ_INT(ks_fs_write_atomic(p, "y", 1), 0);
	KT_EQ_INT(ks_compat_hash(b, dir), 0);
	KT_ASSERT(strcmp(a, b) != 0);
	ks_free(p);
	p = ks_path_join(dir, "cmath");
	KT_EQ_INT(ks_fs_write_atomic(p, "", 0), 0);
	KT_EQ_INT(ks_compat_hash(c, dir), 0);
	KT_ASSERT(strcmp(b, c) != 0);
	KT_ASSERT(ks_compat_hash(c, "/no/such/dir") < 0);
	ks_free(p);
	ks_free(sub);
	ks_free(dir);
}

/* submissions/build.py writes the example's instructions with a copy of the prompt note. */
static void test_prompt_note_matches_the_example_builder(void)
{
	char *path = ks_path_join(repo_root(), "submissions/build.py"), *text = NULL, *p, *end;
	ks_buf note = KS_BUF_INIT(1 << 16);

	KT_EQ_INT(ks_fs_read(&text, NULL, path, 1 << 20), 0);
	p = strstr(text, "INCLUDES_NOTE = (");
	KT_ASSERT(p != NULL);
	end = strstr(p, ")\n");
	KT_ASSERT(end != NULL);
	/* The concatenated string literals of the Python tuple. */
	for (; p < end; p++) {
		char *q;
		if (*p != '"')
			continue;
		q = strchr(p + 1, '"');
		KT_ASSERT(q != NULL && q < end);
		ks_buf_put(&note, p + 1, (size_t)(q - p - 1));
		p = q;
	}
	KT_EQ_STR(note.ptr, KS_COMPAT_PROMPT_NOTE);
	ks_buf_free(&note);
	ks_free(text);
	ks_free(path);
	/* And the example itself carries it. */
	path = ks_path_join(repo_root(), "submissions/example/reflexion_oneshot_tritonbench_4.json");
	KT_EQ_INT(ks_fs_read(&text, NULL, path, 1 << 24), 0);
	KT_CONTAINS(text, "Includes: the file is compiled as device code only, with NVRTC.");
	ks_free(text);
	ks_free(path);
}

static void test_notes_explain_a_failed_compile(void)
{
	ks_buf b = KS_BUF_INIT(1 << 16);

	ks_compat_notes(&b, "#include <cuda_fp16.h>\n  #  include <vector>\n#include \"iostream\"\n"
			    "#include <vector>\n__global__ void k(at::Tensor t) {}\n",
			"submission.cu(5): error: x\n");
	KT_CONTAINS(b.ptr, "host-only headers included: <vector>, <iostream>.");
	KT_NOT_CONTAINS(b.ptr, "cuda_fp16");
	KT_CONTAINS(b.ptr, "names PyTorch");
	KT_NOT_CONTAINS(b.ptr, "__host__");
	KT_NOT_CONTAINS(b.ptr, "error");
	ks_buf_reset(&b);
	ks_compat_notes(&b, "int data::x; // a namespace that merely ends in at\n",
			"submission.cu(1): error: A function explicitly marked as a __host__ function "
			"is not allowed in JIT mode\n");
	KT_NOT_CONTAINS(b.ptr, "PyTorch");
	KT_CONTAINS(b.ptr, "-default-device");
	ks_buf_free(&b);
}

/* ---- what compiles now ---- */

static void test_cuda_h_compiles(void)
{
	const char *srcs[] = {
		"#include <cuda.h>\n#include <cuda_runtime.h>\n"
		"__global__ void k(CUdeviceptr p, int n) {\n"
		"  float *x = (float *)p; if (threadIdx.x < n) x[threadIdx.x] = CUDA_VERSION; }\n",
		"#include \"cuda.h\"\n#include <cuda_fp16.h>\n"
		"extern \"C\" __global__ void k(__half *x) { x[0] = __float2half(1.f); }\n",
	};
	fails_before_compiles_after(srcs, 2);
}

static void test_device_usable_standard_headers_compile(void)
{
	const char *srcs[] = {
		"#include <math.h>\n__global__ void k(float *x) { x[0] = sqrtf(x[1]) + M_PI; }\n",
		"#include <cmath>\n__global__ void k(float *x) { x[0] = std::exp(x[1]) + std::sqrt(x[2]) "
		"+ std::abs(x[3]) + std::isnan(x[4]) + std::fmax(x[5], 1.f); }\n",
		"#include <stdio.h>\n__global__ void k(float *x) { printf(\"%f\\n\", x[0]); }\n",
		"#include <cstdio>\n__global__ void k(float *x) { std::printf(\"%f\\n\", x[0]); }\n",
		"#include <limits>\n__global__ void k(float *x) { x[0] = "
		"std::numeric_limits<float>::max() + std::numeric_limits<int>::min() + "
		"std::numeric_limits<double>::infinity(); }\n",
		"#include <algorithm>\n__global__ void k(float *x) { float a[3] = {x[0], x[1], x[2]};\n"
		"  std::swap(a[0], a[1]); x[0] = std::max(a[0], a[1]) + std::clamp(a[2], 0.f, 1.f) +\n"
		"  *std::max_element(a, a + 3) + std::min({a[0], a[1], a[2]}); }\n",
		/* the list forms' values, checked by the compiler */
		"#include <algorithm>\nstruct G { __host__ __device__ constexpr bool operator()(int a, int b) const "
		"{ return a > b; } };\n"
		"static_assert(std::min({3, 1, 2, 1}) == 1 && std::max({3, 5, 2, 5}) == 5, \"min/max\");\n"
		"static_assert(std::min({3, 1, 2}, G()) == 3 && std::max({3, 1, 2}, G()) == 1, \"comp\");\n"
		"__global__ void k(int *x) { x[0] = std::min({x[1], x[2]}) + std::max({x[1], x[2]}, G()); }\n",
		"#include <float.h>\n__global__ void k(float *x) { x[0] = FLT_MAX + DBL_EPSILON; }\n",
		"#include <cfloat>\n__global__ void k(float *x) { x[0] = -FLT_MAX; }\n",
		"#include <cstdint>\n__global__ void k(std::int64_t *x, uint8_t *y) { x[0] = INT64_MAX; "
		"y[0] = UINT8_MAX; }\n",
		"#include <stdint.h>\n__global__ void k(uint32_t *x) { x[0] = UINT32_MAX; }\n",
		"#include <atomic>\n__global__ void k(std::atomic<int> *f) { "
		"f->store(1, std::memory_order_relaxed); }\n",
		"#include <climits>\n#include <cassert>\n__global__ void k(int *x) { assert(x); x[0] = "
		"INT_MAX; }\n",
		"#include <type_traits>\n#include <utility>\n#include <array>\n#include <tuple>\n"
		"template <class T> T f(T *x) { static_assert(std::is_same_v<T, float>);\n"
		"  std::array<T, 2> a = {x[0], x[1]}; auto p = std::make_pair(a[0], a[1]);\n"
		"  return p.second + std::get<0>(std::make_tuple(a[1])); }\n"
		"__global__ void k(float *x) { x[0] = f(x); }\n",
	};
	fails_before_compiles_after(srcs, sizeof(srcs) / sizeof(srcs[0]));
}

static void test_unused_host_only_headers_compile(void)
{
	const char *srcs[] = {
		"#include <vector>\n#include <iostream>\n__global__ void k(float *x) { x[0] = 1; }\n",
		"#include <string>\n#include <memory>\n#include <map>\n#include <stdexcept>\n"
		"#include <chrono>\n#include <random>\n#include <sstream>\n#include <functional>\n"
		"__global__ void k(float *x) { x[0] = 1; }\n",
	};
	fails_before_compiles_after(srcs, 2);
}

static void test_names_nvcc_brings_implicitly_need_no_include(void)
{
	const char *srcs[] = {
		"__global__ void k(int64_t *x, uint32_t n) { x[0] = n; }\n",
		"__global__ void k(float *x) { x[0] = -INFINITY; x[1] = NAN; }\n",
		"__global__ void k(float *x) { x[0] = FLT_MAX + FLT_EPSILON; }\n",
		"__global__ void k(float *x) { x[0] = M_PI * M_SQRT2; }\n",
		"__global__ void k(float *x) { x[0] = std::numeric_limits<float>::lowest(); }\n",
		"__global__ void k(float *x) { x[0] = std::max(x[1], x[2]) + std::sqrt(x[3]); }\n",
		"__global__ void k(unsigned *x) { x[0] = UINT_MAX; x[1] = INT_MAX; }\n",
	};
	fails_before_compiles_after(srcs, sizeof(srcs) / sizeof(srcs[0]));
}

static void test_functions_without_device_are_device_functions(void)
{
	const char *srcs[] = {
		"inline float sq(float v) { return v * v; }\n"
		"__global__ void k(float *x) { x[0] = sq(x[1]); }\n",
		"constexpr int cdiv(int a, int b) { return (a + b - 1) / b; }\n"
		"__global__ void k(int *x) { x[0] = cdiv(x[1], 32); }\n",
		"struct V { float a, b; float dot(const V &o) const { return a * o.a + b * o.b; } };\n"
		"__global__ void k(const V *v, float *x) { x[0] = v[0].dot(v[1]); }\n",
	};
	fails_before_compiles_after(srcs, sizeof(srcs) / sizeof(srcs[0]));
}

static void test_host_library_headers_compile(void)
{
	const char *srcs[] = {
		"#include <cublas_v2.h>\n__global__ void k(float *x) { x[0] = CUBLAS_OP_T; }\n",
		"#include <cuda.h>\n#include <cufft.h>\n"
		"__global__ void k(cufftComplex *c, float *x) { x[0] = c[0].x; }\n",
		"#include <cublasLt.h>\n#include <cuda_profiler_api.h>\n"
		"__global__ void k(float *x) { x[0] = 1; }\n",
	};
	fails_before_compiles_after(srcs, sizeof(srcs) / sizeof(srcs[0]));
}

static void test_cub_and_thrust_compile(void)
{
	const char *srcs[] = {
		"#include <cub/cub.cuh>\n__global__ void k(float *x) {\n"
		"  using R = cub::BlockReduce<float, 128>; __shared__ typename R::TempStorage t;\n"
		"  float s = R(t).Sum(x[threadIdx.x]); if (threadIdx.x == 0) x[0] = s; }\n",
		"#include <thrust/complex.h>\n#include <thrust/device_vector.h>\n#include <thrust/sort.h>\n"
		"__global__ void k(thrust::complex<float> *z, float *x) { x[0] = thrust::abs(z[0] * z[1]); }\n",
	};
	fails_before_compiles_after(srcs, 2);
}

static void test_torch_includes_compile_and_torch_types_fail_clearly(void)
{
	const char *ok[] = {
		"#include <torch/extension.h>\n#include <ATen/cuda/CUDAContext.h>\n"
		"#include <c10/cuda/CUDAGuard.h>\n#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x)\n"
		"__global__ void k(float *x, int64_t n) { if (threadIdx.x < n) x[threadIdx.x] = 0; }\n",
	};
	const char *bad[] = {
		"#include <torch/extension.h>\n__global__ void k(at::Tensor t, float *x) { x[0] = 1; }\n",
		"#include <torch/extension.h>\n__global__ void k(float *x) { at::Half h; x[0] = h; }\n",
		("#include <torch/extension.h>\n__global__ void k("
		 "torch::PackedTensorAccessor32<float, 2, torch::RestrictPtrTraits> a) { a[0][0] = 1; }\n"),
		"#include <torch/extension.h>\n__global__ void k(float *x) { x[0] = torch::zeros({1}); }\n",
	};
	ks_compile_job *j;
	size_t i;

	fails_before_compiles_after(ok, 1);
	j = compile_all(bad, 4, 0);
	for (i = 0; i < 4; i++) {
		KT_ASSERT_MSG(j[i].status == KS_COMPILE_ERROR, "%zu: %s", i,
			      ks_compile_status_name(j[i].status));
		KT_CONTAINS(j[i].log, "note: the source names PyTorch");
		if (i < 3)
			KT_CONTAINS(j[i].log, "is PyTorch's and host-only");
	}
	free_jobs(j, 4);
}

/* kscore never compiles less than NVRTC alone: a source whose own definitions conflict with the
 * prelude (glibc's int64_t is long; kscore's, libcu++'s, long long) compiles without the headers. */
static void test_source_conflicting_with_the_headers_compiles_without_them(void)
{
	const char *srcs[] = {
		"typedef long int64_t;\n__global__ void k(int64_t *x) { x[0] = 1; }\n",
		"typedef char int8_t;\nnamespace std { template <class T> struct numeric_limits {}; }\n"
		"__global__ void k(int8_t *x) { x[0] = 1; }\n",
	};
	ks_compile_job *j = compile_all(srcs, 2, 0);
	size_t i;

	for (i = 0; i < 2; i++) {
		KT_ASSERT_MSG(j[i].status == KS_COMPILE_OK, "%zu: %s: %.1000s", i,
			      ks_compile_status_name(j[i].status), j[i].log);
		KT_CONTAINS(j[i].log, "note: compiled without kscore's compatibility headers");
	}
	free_jobs(j, 2);
}

/* The negative cases: a host-only name used in device code fails, and the log says why. */
static void test_host_only_use_fails_with_kscores_message(void)
{
	const char *srcs[] = {
		"#include <vector>\n__global__ void k(float *x) { std::vector<float> v(4); x[0] = v[0]; }\n",
		"#include <iostream>\n__global__ void k(float *x) { std::cout << x[0] << std::endl; }\n",
		"#include <thrust/reduce.h>\n__global__ void k(float *x) { "
		"x[0] = thrust::reduce(thrust::seq, x, x + 4); }\n",
		"#include <cub/cub.cuh>\n__global__ void k(float *x) { "
		"cub::DeviceReduce::Sum(nullptr, 0, x, x, 4); }\n",
		"#include <cublas_v2.h>\n__global__ void k(cublasHandle_t h, float *x) { "
		"cublasSscal(h, 1, x, x, 1); }\n",
	};
	const char *want[] = { "std::vector (<vector>) is host-only", "std::cout (<iostream>) is host-only",
			       "thrust's algorithms", "CUB's device-wide algorithms", "\"cublasSscal\"" };
	ks_compile_job *j = compile_all(srcs, 5, 0);
	size_t i;

	for (i = 0; i < 5; i++) {
		KT_ASSERT_MSG(j[i].status == KS_COMPILE_ERROR, "%zu: %s", i,
			      ks_compile_status_name(j[i].status));
		KT_CONTAINS(j[i].log, want[i]);
	}
	KT_CONTAINS(j[0].log, "note: host-only headers included: <vector>.");
	KT_CONTAINS(j[4].log, "note: host-only headers included: <cublas_v2.h>.");
	free_jobs(j, 5);
}

/* Under -default-device an unmarked function is a device function; one marked __host__ is what
 * a host function is now, and NVRTC refuses it with kscore's note. One that uses a host-only name
 * fails with that name's message. */
static void test_host_function_called_from_a_kernel_fails_clearly(void)
{
	const char *srcs[] = {
		"__host__ float twice(float v) { return 2 * v; }\n"
		"__global__ void k(float *x) { x[0] = twice(x[1]); }\n",
		"#include <iostream>\nvoid show(float v) { std::cout << v; }\n"
		"__global__ void k(float *x) { show(x[0]); }\n",
	};
	ks_compile_job *j = compile_all(srcs, 2, 0);

	KT_EQ_INT(j[0].status, KS_COMPILE_ERROR);
	KT_CONTAINS(j[0].log, "explicitly marked as a __host__ function");
	KT_CONTAINS(j[0].log, "note: NVRTC compiles device code only");
	KT_EQ_INT(j[1].status, KS_COMPILE_ERROR);
	KT_CONTAINS(j[1].log, "std::cout (<iostream>) is host-only");
	free_jobs(j, 2);
}

static void test_missing_header_names_it_and_what_to_include(void)
{
	const char *srcs[] = {
		("#include <cuda_fp16.h>\n#include <cutlass/gemm/device/gemm.h>\n"
		 "__global__ void k(float *x) { x[0] = 1; }\n"),
		"#include <regex>\n__global__ void k(float *x) { x[0] = 1; }\n",
		"#include <helper_cuda.h>\n__global__ void k(float *x) { x[0] = 1; }\n",
	};
	ks_compile_job *j = compile_all(srcs, 3, 0);

	KT_EQ_INT(j[0].status, KS_COMPILE_NOHEADER);
	KT_ASSERT_MSG(!strncmp(j[0].log, "missing header \"cutlass/gemm/device/gemm.h\" (included from "
			       "submission.cu line 2): CUTLASS", 84), "log: %.500s", j[0].log);
	KT_EQ_STR(ks_compile_status_name(j[0].status), "missing header");
	KT_EQ_INT(j[1].status, KS_COMPILE_NOHEADER);
	KT_CONTAINS(j[1].log, "<regex> is a host C++ library header");
	KT_EQ_INT(j[2].status, KS_COMPILE_NOHEADER);
	KT_CONTAINS(j[2].log, "missing header \"helper_cuda.h\"");
	free_jobs(j, 3);
}

/* An error inside kscore's headers or CUDA's names the header by its folder's name, never by the
 * path of this host's installation. */
static void test_log_names_header_folders_not_host_paths(void)
{
	const char *srcs[] = {
		"#include <vector>\n__global__ void k(float *x) { std::vector<float> v(4); x[0] = v[0]; }\n",
		"#define y 1\n#include <cuda_fp16.h>\n__global__ void k(float *x) { x[0] = 1; }\n",
		"#define y 1\n#include <cuda/std/cmath>\n__global__ void k(float *x) { x[0] = 1; }\n",
	};
	char *cp = ks_path_join(repo_root(), "compat/include"), *compat = realpath(cp, NULL);
	char *cuda = realpath(KS_CUDA_HOME "/include", NULL);
	ks_compile_job *j = compile_all(srcs, 3, 0);
	size_t i;

	ks_free(cp);

	KT_ASSERT(compat && cuda);
	KT_EQ_INT(j[0].status, KS_COMPILE_ERROR);
	KT_CONTAINS(j[0].log, "\n<kscore-compat>/vector(");
	KT_CONTAINS(j[1].log, "<cuda>/include/cuda_fp16.h(");
	KT_CONTAINS(j[2].log, "<cuda>/include/");
	for (i = 0; i < 3; i++) {
		KT_NOT_CONTAINS(j[i].log, compat);
		KT_NOT_CONTAINS(j[i].log, cuda);
	}
	free_jobs(j, 3);
	free(compat);
	free(cuda);
}

/* The last gaps against nvcc found on real sources: pow(float, double) (the host <cmath> promotes
 * mixed arguments to double), fmax(int, int) (a constexpr host template nvcc's device code may call
 * under --expt-relaxed-constexpr, which PyTorch's extension build passes) and `extern __shared__
 * inline` in a kernel (nvcc warns and ignores the inline). Each failed with the headers too before
 * kscore's <cmath> gained the promotion and the helper the fix-up. */
static void test_mixed_math_arguments_compile(void)
{
	const char *srcs[] = {
		"__global__ void k(float *x) { x[0] = pow(x[1], 2.0); }\n",
		"#include <cmath>\n__global__ void k(float *x, double d) { x[0] = std::pow(x[1], d) + pow(2, 3) + "
		"atan2(x[2], 1.0) + std::fmod(x[3], 2.0); }\n",
		"__global__ void k(int *x) { x[0] = fmax(x[1], x[2]); x[3] = fmin(x[4], 0u); }\n",
		/* the promotions nvcc's host <cmath> makes, and the float overloads that stay float */
		"#include <cmath>\ntemplate <class A, class B> struct same { static constexpr bool v = false; };\n"
		"template <class A> struct same<A, A> { static constexpr bool v = true; };\n"
		"static_assert(same<decltype(pow(1.f, 2.0)), double>::v, \"pow(float, double)\");\n"
		"static_assert(same<decltype(std::pow(1.f, 2.0)), double>::v, \"std::pow(float, double)\");\n"
		"static_assert(same<decltype(fmax(1, 2)), double>::v, \"fmax(int, int)\");\n"
		"static_assert(same<decltype(pow(1.0, 2.f)), double>::v, \"pow(double, float)\");\n"
		"static_assert(same<decltype(fmax(1.f, 2)), float>::v, \"fmax(float, int) stays float\");\n"
		"static_assert(same<decltype(pow(1.f, 2)), float>::v, \"pow(float, int) stays float\");\n"
		"static_assert(same<decltype(pow(1.f, 2.f)), float>::v, \"pow(float, float) stays float\");\n"
		"__global__ void k(float *x) { x[0] = pow(x[1], 0.5); }\n",
	};
	const char *still[] = {
		/* libcu++'s own promotion wins over kscore's, as it does over nothing under NVRTC alone */
		"#include <cuda/std/cmath>\n__global__ void k(float *x) { x[0] = cuda::std::pow(x[1], 2.0); }\n",
	};
	ks_compile_job *j;

	fails_before_compiles_after(srcs, sizeof(srcs) / sizeof(srcs[0]));
	j = compile_all(still, 1, 0);
	KT_ASSERT_MSG(j[0].status == KS_COMPILE_OK, "%.2000s", j[0].log);
	free_jobs(j, 1);
}

static void test_inline_shared_array_in_a_kernel_compiles(void)
{
	const char *srcs[] = {
		"__global__ void k(float *x) { extern __shared__ inline float s[]; s[threadIdx.x] = x[0];\n"
		"  __syncthreads(); x[1] = s[0]; }\n",
		"template <int B> __device__ void body(float *x) {\n  extern __shared__ __inline__ float t[];\n"
		"  t[threadIdx.x % B] = x[0]; __syncthreads(); x[1] = t[0]; }\n"
		"__global__ void k(float *x) { body<128>(x); }\n",
	};
	const char *bad[] = {
		/* at namespace scope nvcc refuses it too ("extern inline variable ... not defined") */
		"extern __shared__ inline float s[];\n__global__ void k(float *x) { s[threadIdx.x] = x[0];\n"
		"  __syncthreads(); x[1] = s[0]; }\n",
	};
	ks_compile_job *j;

	fails_before_compiles_after(srcs, 2);
	j = compile_all(srcs, 2, 0);
	KT_CONTAINS(j[0].log, "note: submission.cu line 1: `inline` on a __shared__ variable is ignored");
	KT_CONTAINS(j[1].log, "note: submission.cu line 2:");
	free_jobs(j, 2);
	j = compile_all(bad, 1, 0);
	KT_EQ_INT(j[0].status, KS_COMPILE_ERROR);
	free_jobs(j, 1);
}

static void test_fix_source_blanks_only_inline_on_shared_variables(void)
{
	struct {
		const char *in, *out;
		size_t line;
	} c[] = {
		{ "__global__ void k() { extern __shared__ inline float s[]; }",
		  "__global__ void k() { extern __shared__        float s[]; }", 1 },
		{ "// c\n/* x\n */ void f() {\n  inline __shared__ int a[2]; __inline__ extern __shared__ int b[]; }",
		  "// c\n/* x\n */ void f() {\n         __shared__ int a[2];            extern __shared__ int b[]; }", 4 },
		{ "namespace a { void f() { static __shared__ __inline float z[4]; } }",
		  "namespace a { void f() { static __shared__          float z[4]; } }", 1 },
		/* left alone: namespace scope, extern "C" blocks, functions, comments and literals */
		{ "extern __shared__ inline float s[];", NULL, 0 },
		{ "namespace a { extern __shared__ inline float s[]; }", NULL, 0 },
		{ "extern \"C\" { extern __shared__ inline float s[]; }", NULL, 0 },
		{ "inline __device__ float f(float v) { __shared__ float s[4]; s[0] = v; return s[0]; }", NULL, 0 },
		{ "void f() { // __shared__ inline\n const char *s = \"__shared__ inline\"; char c = '{'; }", NULL, 0 },
		{ "void f() { const char *r = R\"x(__shared__ inline)x\"; int n = 1'000; inline_x(__shared__); }", NULL,
		  0 },
	};
	size_t i, line;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char *out = ks_compat_fix_source(c[i].in, &line);
		KT_EQ_STR(out, c[i].out ? c[i].out : c[i].in);
		KT_EQ_INT(line, c[i].line);
		ks_free(out);
	}
}

/* The set's fingerprint and the options are part of the cache key and of the toolchain record. */
static void test_compat_is_in_the_cache_key_and_the_toolchain(void)
{
	const char *src[] = { "__global__ void k(float *x) { x[0] = 1; }\n" };
	ks_compile_job *a = compile_all(src, 1, 0), *b = compile_all(src, 1, 1);
	ks_compile_options o = KS_COMPILE_OPTIONS_INIT;
	ks_compile_toolchain t;
	char sha[65], *dir;

	KT_EQ_INT(a[0].status, KS_COMPILE_OK);
	KT_EQ_INT(b[0].status, KS_COMPILE_OK);
	KT_ASSERT(strcmp(a[0].key, b[0].key) != 0);
	free_jobs(a, 1);
	free_jobs(b, 1);

	KT_EQ_INT(ks_compile_toolchain_get(&t, &o), 0);
	dir = ks_compat_find(NULL);
	KT_ASSERT(dir != NULL);
	KT_EQ_INT(ks_compat_hash(sha, dir), 0);
	KT_EQ_STR(t.compat_sha256, sha);
	KT_EQ_STR(t.options, "--gpu-architecture=sm_90a --std=c++17 -default-device -I<compat> "
			     "-I<cuda>/include -I<cuda>/include/cccl -DKSCORE=1 "
			     "--pre-include=kscore/prelude.h");
	ks_compile_toolchain_clear(&t);
	o.no_compat = 1;
	KT_EQ_INT(ks_compile_toolchain_get(&t, &o), 0);
	KT_ASSERT(t.compat_sha256 == NULL);
	KT_NOT_CONTAINS(t.options, "compat");
	ks_compile_toolchain_clear(&t);
	o.no_compat = 0;
	o.compat_dir = "/no/such/compat";
	KT_ASSERT(ks_compile_toolchain_get(&t, &o) < 0);
	KT_CONTAINS(ks_error_msg(), "/no/such/compat");
	ks_free(dir);
}

static const kt_test tests[] = {
	KT(test_normalise_log_hides_why_a_file_cannot_be_opened),
	KT(test_missing_header_is_found_in_the_log),
	KT(test_header_advice_says_what_to_include),
	KT(test_stand_ins_are_the_files_that_say_so),
	KT(test_fingerprint_covers_names_and_contents),
	KT(test_prompt_note_matches_the_example_builder),
	KT(test_notes_explain_a_failed_compile),
	KT(test_cuda_h_compiles),
	KT(test_device_usable_standard_headers_compile),
	KT(test_unused_host_only_headers_compile),
	KT(test_names_nvcc_brings_implicitly_need_no_include),
	KT(test_functions_without_device_are_device_functions),
	KT(test_host_library_headers_compile),
	KT(test_cub_and_thrust_compile),
	KT(test_torch_includes_compile_and_torch_types_fail_clearly),
	KT(test_source_conflicting_with_the_headers_compiles_without_them),
	KT(test_host_only_use_fails_with_kscores_message),
	KT(test_host_function_called_from_a_kernel_fails_clearly),
	KT(test_missing_header_names_it_and_what_to_include),
	KT(test_compat_is_in_the_cache_key_and_the_toolchain),
	KT(test_hide_paths_writes_folders_as_names),
	KT(test_log_names_header_folders_not_host_paths),
	KT(test_mixed_math_arguments_compile),
	KT(test_inline_shared_array_in_a_kernel_compiles),
	KT(test_fix_source_blanks_only_inline_on_shared_variables),
	{ NULL, NULL }
};

KT_MAIN("compat", tests)
