/* cubin tests: parameter lists read from real NVRTC images (the format assumption), from images
 * built here (the logic), and robustness against truncated and corrupted bytes (the reader takes
 * untrusted input; ASan and UBSan watch every case). */
#include "ktest.h"
#include "compiletest.h"
#include "lang/cuda/compile.h"
#include "lang/cubin.h"
#include "util/errors.h"
#include "util/mem.h"
#include "load/plan.h"
#include "load/problem.h"
#include "util/sandbox.h"

/* Compiles src for the named kernels with the freshly built helper; skips where it cannot. */
static void compile(ks_compile_job *j, const char *src, const char *const *names, size_t n)
{
	ks_compile_options o = kt_helper_opts(60, 1);
	memset(j, 0, sizeof(*j));
	j->source = src;
	j->names = names;
	j->nnames = n;
	j->label = "cubin test";
	KT_EQ_INT(ks_compile_run(j, 1, &o), 0);
	KT_ASSERT_MSG(j->status == KS_COMPILE_OK, "compile failed: %.1500s", j->log);
}

static const char *kernels_src =
	"struct S { int x[5]; };\n"
	"extern \"C\" __global__ void foo(const float *a, float *b, int n, double d, char c, short s)\n"
	"{ if (threadIdx.x < n) b[threadIdx.x] = a[threadIdx.x] + d + c + s; }\n"
	"extern \"C\" __global__ void bar(void) {}\n"
	"extern \"C\" __global__ void baz(S s, long long q, float *out) { out[0] = s.x[3] + q; }\n"
	"template <typename T> __global__ void tk(T *x, unsigned n) { if (threadIdx.x < n) x[0] = T(1); }\n";

static void test_real_images(void)
{
	const char *names[] = { "foo", "bar", "baz", "tk<double>" };
	ks_compile_job j;
	ks_cubin_params cp;
	compile(&j, kernels_src, names, 4);
	KT_EQ_INT(ks_cubin_kernel_params(&cp, j.cubin, j.cubin_len, "foo"), 0);
	KT_EQ_INT(cp.nparams, 6);
	KT_EQ_INT(cp.size[0], 8);
	KT_EQ_INT(cp.size[1], 8);
	KT_EQ_INT(cp.size[2], 4);
	KT_EQ_INT(cp.size[3], 8);
	KT_EQ_INT(cp.size[4], 1);
	KT_EQ_INT(cp.size[5], 2);
	KT_EQ_INT(cp.total, 36);
	KT_EQ_INT(ks_cubin_kernel_params(&cp, j.cubin, j.cubin_len, "bar"), 0);
	KT_EQ_INT(cp.nparams, 0);
	KT_EQ_INT(ks_cubin_kernel_params(&cp, j.cubin, j.cubin_len, "baz"), 0);
	KT_EQ_INT(cp.nparams, 3);
	KT_EQ_INT(cp.size[0], 20);
	KT_EQ_INT(cp.size[1], 8);
	KT_EQ_INT(cp.size[2], 8);
	KT_EQ_INT(cp.total, 40);
	KT_EQ_STR(j.lowered[3], "_Z2tkIdEvPT_j");
	KT_EQ_INT(ks_cubin_kernel_params(&cp, j.cubin, j.cubin_len, j.lowered[3]), 0);
	KT_EQ_INT(cp.nparams, 2);
	KT_EQ_INT(cp.size[1], 4);
	/* a name the image does not hold, and a prefix of one that it does */
	KT_EQ_INT(ks_cubin_kernel_params(&cp, j.cubin, j.cubin_len, "nope"), 1);
	KT_EQ_INT(ks_cubin_kernel_params(&cp, j.cubin, j.cubin_len, "fo"), 1);
	ks_compile_job_clear(&j);
}

/* The vadd fixture's default plan: (f32* a, f32* b, f32* c, i32 n). */
static int check_vadd(char **detail, const char *src)
{
	const char *names[] = { "vadd" };
	ks_problem_set *s = NULL;
	const ks_problem *p;
	ks_compile_job j;
	int rc;
	compile(&j, src, names, 1);
	KT_EQ_INT(ks_problem_set_load(&s, "tests/fixtures/problems", NULL), 0);
	p = ks_problem_set_find(s, "vadd");
	rc = ks_cubin_check_launch(detail, j.cubin, j.cubin_len, j.lowered, j.nnames, p, &p->launch);
	ks_problem_set_free(s);
	ks_compile_job_clear(&j);
	return rc;
}

static void test_plan_against_real_images(void)
{
	char *d = NULL;
	KT_EQ_INT(check_vadd(&d, "extern \"C\" __global__ void vadd(const float *a, const float *b, float *c, "
				 "int n) {}\n"), 0);
	KT_ASSERT(d == NULL);
	KT_EQ_INT(check_vadd(&d, "extern \"C\" __global__ void vadd(const float *a, float *c, int n) {}\n"), 1);
	KT_EQ_STR(d, "kernel vadd takes 3 parameters (8, 8, 4 bytes) but the launch plan passes 4 "
		     "(8, 8, 8, 4 bytes)");
	ks_free(d);
	KT_EQ_INT(check_vadd(&d, "extern \"C\" __global__ void vadd(const float *a, const float *b, float *c, "
				 "long n) {}\n"), 1);
	KT_CONTAINS(d, "takes 4 parameters (8, 8, 8, 8 bytes)");
	ks_free(d);
}

/* ---- images built here: ELF64 header, a section name table, one .nv.info.<name> section */

typedef struct {
	unsigned char b[4096];
	size_t len;
} elf;

static void put16(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
}

static void put32(unsigned char *p, uint32_t v)
{
	put16(p, v);
	put16(p + 2, v >> 16);
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* Sections: 0 null, 1 .shstrtab, 2 .nv.info.<kname> holding info[0..ninfo). */
static void build(elf *e, const char *kname, const unsigned char *info, size_t ninfo)
{
	char names[256];
	size_t nl, off, sh;
	memset(e, 0, sizeof(*e));
	nl = (size_t)snprintf(names, sizeof(names), "%c.shstrtab%c.nv.info.%s", 0, 0, kname) + 1;
	memcpy(e->b, "\177ELF", 4);
	e->b[4] = 2;
	e->b[5] = 1;
	off = 64;
	memcpy(e->b + off, names, nl);          /* section name table at 64 */
	memcpy(e->b + off + nl, info, ninfo);   /* info right after */
	sh = (off + nl + ninfo + 7) & ~(size_t)7;
	put64(e->b + 0x28, sh);
	put16(e->b + 0x3a, 64);
	put16(e->b + 0x3c, 3);
	put16(e->b + 0x3e, 1);
	put32(e->b + sh + 64 + 0x00, 1);        /* .shstrtab */
	put32(e->b + sh + 64 + 0x04, 3);
	put64(e->b + sh + 64 + 0x18, off);
	put64(e->b + sh + 64 + 0x20, nl);
	put32(e->b + sh + 128 + 0x00, 11);      /* .nv.info.<kname> */
	put32(e->b + sh + 128 + 0x04, 0x70000000);
	put64(e->b + sh + 128 + 0x18, off + nl);
	put64(e->b + sh + 128 + 0x20, ninfo);
	e->len = sh + 3 * 64;
}

/* One KPARAM_INFO record of ordinal o and size sz at p; returns 16. */
static size_t kparam(unsigned char *p, uint32_t o, uint32_t sz)
{
	p[0] = 0x04;
	p[1] = 0x17;
	put16(p + 2, 12);
	put32(p + 4, 0);
	put16(p + 8, o);
	put16(p + 10, 0);
	put32(p + 12, sz << 18 | 0x1f << 12);
	return 16;
}

static void test_built_images(void)
{
	unsigned char info[128];
	size_t n = 0;
	ks_cubin_params cp;
	elf e;
	/* records in reverse order, as NVRTC writes them, around other formats */
	info[n++] = 0x01, info[n++] = 0x2a, info[n++] = 0, info[n++] = 0;         /* NVAL */
	n += kparam(info + n, 1, 4);
	info[n++] = 0x02, info[n++] = 0x33, info[n++] = 7, info[n++] = 0;         /* BVAL */
	n += kparam(info + n, 0, 8);
	info[n++] = 0x03, info[n++] = 0x19, info[n++] = 12, info[n++] = 0;        /* param bytes */
	info[n++] = 0x04, info[n++] = 0x36, info[n++] = 4, info[n++] = 0;         /* SVAL, 4 bytes */
	n += 4;
	build(&e, "k", info, n);
	KT_EQ_INT(ks_cubin_kernel_params(&cp, e.b, e.len, "k"), 0);
	KT_EQ_INT(cp.nparams, 2);
	KT_EQ_INT(cp.size[0], 8);
	KT_EQ_INT(cp.size[1], 4);
	KT_EQ_INT(cp.total, 12);
	/* an unknown record format: cannot tell */
	info[0] = 0x09;
	build(&e, "k", info, n);
	KT_EQ_INT(ks_cubin_kernel_params(&cp, e.b, e.len, "k"), 1);
	/* parameter bytes but no parameter records: a layout this reader does not know */
	n = 0;
	info[n++] = 0x03, info[n++] = 0x19, info[n++] = 12, info[n++] = 0;
	build(&e, "k", info, n);
	KT_EQ_INT(ks_cubin_kernel_params(&cp, e.b, e.len, "k"), 1);
	/* an SVAL longer than its section */
	n = 0;
	info[n++] = 0x04, info[n++] = 0x17, info[n++] = 200, info[n++] = 0;
	build(&e, "k", info, n);
	KT_ASSERT(ks_cubin_kernel_params(&cp, e.b, e.len, "k") < 0);
	KT_CONTAINS(ks_error_msg(), "runs past its section");
	/* a short parameter record */
	n = 0;
	info[n++] = 0x04, info[n++] = 0x17, info[n++] = 4, info[n++] = 0;
	n += 4;
	build(&e, "k", info, n);
	KT_ASSERT(ks_cubin_kernel_params(&cp, e.b, e.len, "k") < 0);
	/* the highest ordinal sets the count, even past what is kept */
	n = kparam(info, 999, 8);
	build(&e, "k", info, n);
	KT_EQ_INT(ks_cubin_kernel_params(&cp, e.b, e.len, "k"), 0);
	KT_EQ_INT(cp.nparams, 1000);
	KT_EQ_INT(cp.size[0], 0);
}

static void test_malformed_headers(void)
{
	unsigned char info[16];
	ks_cubin_params cp;
	elf e, bad;
	size_t n = kparam(info, 0, 8);
	build(&e, "k", info, n);
	KT_ASSERT(ks_cubin_kernel_params(&cp, "\177ELF", 4, "k") < 0);
	KT_ASSERT(ks_cubin_kernel_params(&cp, NULL, 0, "k") < 0);
	bad = e;
	bad.b[4] = 1; /* ELF32 */
	KT_ASSERT(ks_cubin_kernel_params(&cp, bad.b, bad.len, "k") < 0);
	bad = e;
	put64(bad.b + 0x28, UINT64_MAX - 10); /* section headers far away: the sum wraps */
	KT_ASSERT(ks_cubin_kernel_params(&cp, bad.b, bad.len, "k") < 0);
	bad = e;
	put16(bad.b + 0x3a, 8); /* headers smaller than a header */
	KT_ASSERT(ks_cubin_kernel_params(&cp, bad.b, bad.len, "k") < 0);
	bad = e;
	put16(bad.b + 0x3e, 3); /* name table index past the headers */
	KT_ASSERT(ks_cubin_kernel_params(&cp, bad.b, bad.len, "k") < 0);
	bad = e;
	put16(bad.b + 0x3c, 0); /* extended numbering */
	KT_EQ_INT(ks_cubin_kernel_params(&cp, bad.b, bad.len, "k"), 1);
	bad = e;
	{
		size_t sh = (size_t)(bad.b[0x28] | bad.b[0x29] << 8);
		put64(bad.b + sh + 64 + 0x20, UINT64_MAX); /* name table size */
		KT_ASSERT(ks_cubin_kernel_params(&cp, bad.b, bad.len, "k") < 0);
		bad = e;
		put64(bad.b + sh + 128 + 0x18, UINT64_MAX - 2); /* info offset wraps */
		KT_ASSERT(ks_cubin_kernel_params(&cp, bad.b, bad.len, "k") < 0);
		bad = e;
		put32(bad.b + sh + 128, 0xffffffffu); /* section name past the table */
		KT_EQ_INT(ks_cubin_kernel_params(&cp, bad.b, bad.len, "k"), 1);
		bad = e;
		/* the name table ends inside a name: no terminating NUL in bounds */
		put64(bad.b + sh + 64 + 0x20, 11 + 10);
		KT_EQ_INT(ks_cubin_kernel_params(&cp, bad.b, bad.len, "k"), 1);
	}
}

/* Every prefix and many single-byte corruptions of a real image: no crash, no read out of bounds
 * (ASan), no undefined behaviour (UBSan), and always one of the documented results. */
static void test_truncated_and_corrupted_real_image(void)
{
	const char *names[] = { "foo", "baz" };
	ks_compile_job j;
	ks_cubin_params cp;
	unsigned char *copy;
	uint64_t x = 88172645463325252ull;
	size_t len, i;
	int rc;
	compile(&j, kernels_src, names, 2);
	len = j.cubin_len;
	for (i = 0; i <= len; i++) {
		unsigned char *pre = ks_malloc(i + 1); /* exact size, so ASan sees any overread */
		memcpy(pre, j.cubin, i);
		rc = ks_cubin_kernel_params(&cp, pre, i, "foo");
		KT_ASSERT(rc == 0 || rc == 1 || rc == KS_EINVALID);
		ks_free(pre);
	}
	copy = ks_malloc(len);
	for (i = 0; i < 20000; i++) {
		size_t at;
		memcpy(copy, j.cubin, len);
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		at = (size_t)(x % len);
		copy[at] = (unsigned char)(x >> 32);
		if (i & 1) /* a second byte, often in the headers */
			copy[(size_t)(x >> 40) % (len < 256 ? len : 256)] = (unsigned char)(x >> 48);
		rc = ks_cubin_kernel_params(&cp, copy, len, i % 3 ? "foo" : "baz");
		KT_ASSERT(rc == 0 || rc == 1 || rc == KS_EINVALID);
		KT_ASSERT(cp.nparams <= 65536);
	}
	ks_free(copy);
	ks_compile_job_clear(&j);
}

static const kt_test tests[] = {
	KT(test_real_images), KT(test_plan_against_real_images), KT(test_built_images),
	KT(test_malformed_headers), KT(test_truncated_and_corrupted_real_image), { 0 }
};
KT_MAIN("cubin", tests)
