/* Tests of the replay plan of a driver trace (src/trace/drvplan.c) on the committed fixtures of
 * tests/fixtures/drvtrace/: buffers and their roles, relocated parameter blocks (plain, struct and
 * tensor-map words), steps in recorded order, and what is refused with its reason. */
#include "ktest.h"
#include "lang/image.h"
#include "trace/drvplan.h"
#include "util/errors.h"
#include "util/mem.h"

static void load(ks_drvtrace *t, const char *name)
{
	char *dir = ks_asprintf("%s/tests/fixtures/drvtrace/%s", getenv("KSCORE_ROOT"), name);
	KT_ASSERT_MSG(ks_drvtrace_read(t, dir, NULL, NULL) == 0, "%s", ks_error_msg());
	ks_free(dir);
}

static uint64_t word(const ks_drvplan_step *s, size_t off)
{
	uint64_t v;
	memcpy(&v, s->params + off, 8);
	return v;
}

static void test_a_forward_becomes_buffers_steps_and_modules(void)
{
	/* the forward's output: the 1 KiB its set clears and its kernels write */
	const ks_drvplan_tensor out = { KS_DRVBUF_OUTPUT, 0x7f0000100000ull, 1024 };
	ks_drvtrace t;
	ks_drvplan p;
	const ks_drvplan_step *s;
	size_t i;
	load(&t, "forward");
	KT_ASSERT_MSG(ks_drvplan_build(&p, &t, &out, 1, NULL) == 0, "%s", ks_error_msg());
	KT_ASSERT_MSG(p.refused == NULL, "%s", p.refused);
	KT_EQ_INT(p.nbufs, 2);
	KT_EQ_INT(p.bufs[0].role, KS_DRVBUF_OUTPUT);
	KT_EQ_INT(p.bufs[0].tensor, 0);
	KT_EQ_INT(p.bufs[0].alloc, 1);
	KT_EQ_INT(p.bufs[0].bytes, 1024);
	/* the allocation filled from kept bytes before the forward is a constant, whole */
	KT_EQ_INT(p.bufs[1].role, KS_DRVBUF_CONST);
	KT_EQ_STR(ks_drvbuf_role_name(p.bufs[1].role), "constant");
	KT_EQ_INT(p.bufs[1].alloc, 0);
	KT_EQ_INT(p.bufs[1].bytes, 4096);
	KT_EQ_INT(p.nmodules, 1);
	KT_EQ_INT(p.modules[0], 0);
	KT_EQ_INT(p.nsteps, 4);
	s = &p.steps[0];
	KT_EQ_STR(ks_drvstep_kind_name(s->kind), "fill-bytes");
	KT_ASSERT(s->setup);
	KT_EQ_INT(s->buf, 1);
	KT_EQ_INT(s->off, 0);
	KT_EQ_INT(s->bytes, 64);
	KT_EQ_STR(s->data, t.copies[0].data);
	s = &p.steps[1];
	KT_EQ_INT(s->kind, KS_DRVSTEP_FILL);
	KT_ASSERT(!s->setup);
	KT_EQ_INT(s->buf, 0);
	KT_EQ_INT(s->bytes, 1024);
	KT_EQ_INT(s->elem, 4);
	KT_EQ_INT(s->value, 0);
	s = &p.steps[2];
	KT_EQ_INT(s->kind, KS_DRVSTEP_LAUNCH);
	KT_EQ_STR(s->name, "add_kernel");
	KT_EQ_INT(s->module, 0);
	KT_EQ_INT(s->grid[0], 4);
	KT_EQ_INT(s->block[0], 256);
	KT_EQ_INT(s->nparams, 24);
	KT_EQ_INT(s->nrelocs, 2);
	KT_EQ_INT(s->relocs[0].kind, KS_DRVREL_POINTER);
	KT_EQ_INT(s->relocs[0].offset, 0);
	KT_EQ_INT(s->relocs[0].buf, 1);
	KT_EQ_INT(s->relocs[0].off, 16);
	KT_EQ_INT(s->relocs[1].offset, 16);
	KT_EQ_INT(s->relocs[1].buf, 0);
	KT_EQ_INT(s->relocs[1].off, 0x100);
	KT_EQ_INT(word(s, 0), 0); /* relocated words are cleared, the rest kept */
	KT_EQ_INT(word(s, 8), 42);
	KT_EQ_INT(word(s, 16), 0);
	/* the tensor map of the second launch is relocated whole, onto the output */
	s = &p.steps[3];
	KT_EQ_STR(s->name, "other");
	KT_EQ_INT(s->smem, 49152);
	KT_EQ_INT(s->nattrs, 1);
	KT_EQ_INT(s->nrelocs, 1);
	KT_EQ_INT(s->relocs[0].kind, KS_DRVREL_TMAP);
	KT_EQ_INT(s->relocs[0].offset, 64);
	KT_EQ_INT(s->relocs[0].tmap, 0);
	KT_EQ_INT(s->relocs[0].buf, 0);
	KT_EQ_INT(s->relocs[0].off, 0);
	KT_EQ_INT(word(s, 0), 7);
	for (i = 64; i < 192; i += 8)
		KT_EQ_INT(word(s, i), 0);
	/* one module: the image is its CUBIN, naming both kernels */
	KT_EQ_INT(p.nnames, 2);
	KT_EQ_STR(p.names[0], "add_kernel");
	KT_EQ_STR(p.names[1], "other");
	KT_EQ_INT(p.module_names[0], 2);
	KT_EQ_INT(p.steps[2].func, 0);
	KT_EQ_INT(p.steps[3].func, 1);
	{
		void *blob;
		size_t len;
		KT_ASSERT_MSG(ks_drvplan_image(&blob, &len, &p, &t) == 0, "%s", ks_error_msg());
		KT_EQ_INT(len, t.modules[0].len);
		KT_ASSERT(memcmp(blob, t.modules[0].bytes, len) == 0);
		ks_free(blob);
	}
	ks_drvplan_clear(&p);

	/* without tensors, the touched allocation is scratch (whole), and the one filled a constant */
	KT_ASSERT(ks_drvplan_build(&p, &t, NULL, 0, NULL) == 0);
	KT_ASSERT(p.refused == NULL);
	KT_EQ_INT(p.nbufs, 2);
	KT_EQ_INT(p.bufs[0].role, KS_DRVBUF_SCRATCH);
	KT_EQ_INT(p.bufs[0].alloc, 1);
	KT_EQ_INT(p.bufs[0].bytes, 1048576);
	KT_EQ_INT(p.bufs[1].role, KS_DRVBUF_CONST);
	ks_drvplan_clear(&p);
	ks_drvtrace_clear(&t);
}

static void test_a_struct_parameter_with_embedded_pointers_is_relocated(void)
{
	const ks_drvplan_tensor ts[2] = { { KS_DRVBUF_INPUT, 0x7f0000200000ull, 4096 },
					  { KS_DRVBUF_OUTPUT, 0x7f0000400010ull, 1024 } };
	const ks_drvplan_tensor weight = { KS_DRVBUF_INPUT, 0x7f0000201000ull, 64 };
	ks_drvtrace t;
	ks_drvplan p;
	const ks_drvplan_step *s;
	load(&t, "struct");
	KT_ASSERT_MSG(ks_drvplan_build(&p, &t, ts, 2, NULL) == 0, "%s", ks_error_msg());
	KT_ASSERT_MSG(p.refused == NULL, "%s", p.refused);
	KT_EQ_INT(p.nbufs, 3);
	KT_EQ_INT(p.bufs[0].role, KS_DRVBUF_INPUT);
	KT_EQ_INT(p.bufs[0].alloc, 0);
	KT_EQ_INT(p.bufs[1].role, KS_DRVBUF_OUTPUT);
	KT_EQ_INT(p.bufs[1].alloc, 1);
	/* the weight beside the input in the same allocation: that allocation's own buffer, filled */
	KT_EQ_INT(p.bufs[2].role, KS_DRVBUF_CONST);
	KT_EQ_INT(p.bufs[2].alloc, 0);
	KT_EQ_INT(p.nsteps, 2);
	KT_EQ_INT(p.steps[0].kind, KS_DRVSTEP_FILL_BYTES);
	KT_EQ_INT(p.steps[0].buf, 2);
	KT_EQ_INT(p.steps[0].off, 4096);
	s = &p.steps[1];
	KT_EQ_STR(s->name, "k_struct");
	KT_EQ_INT(s->nrelocs, 3);
	KT_EQ_INT(s->relocs[0].offset, 0);
	KT_EQ_INT(s->relocs[0].buf, 0);
	KT_EQ_INT(s->relocs[0].off, 0);
	KT_EQ_INT(s->relocs[1].offset, 8);
	KT_EQ_INT(s->relocs[1].buf, 2);
	KT_EQ_INT(s->relocs[1].off, 4096);
	KT_EQ_INT(s->relocs[2].offset, 24);
	KT_EQ_INT(s->relocs[2].buf, 1);
	KT_EQ_INT(s->relocs[2].off, 0);
	KT_EQ_INT(word(s, 16), 16);
	ks_drvplan_clear(&p);

	/* when the weight is an argument of the case, the copy that uploaded it before the forward is
	 * the harness's: the replay fills inputs with fresh values, not with it */
	KT_ASSERT(ks_drvplan_build(&p, &t, &weight, 1, NULL) == 0);
	KT_ASSERT_MSG(p.refused == NULL, "%s", p.refused);
	KT_EQ_INT(p.bufs[0].role, KS_DRVBUF_INPUT);
	KT_EQ_INT(p.nsteps, 1);
	KT_EQ_INT(p.steps[0].kind, KS_DRVSTEP_LAUNCH);
	KT_EQ_INT(p.steps[0].relocs[1].buf, 0);
	KT_EQ_INT(p.steps[0].relocs[1].off, 0);
	ks_drvplan_clear(&p);
	ks_drvtrace_clear(&t);
}

static void test_a_copy_between_buffers_during_the_forward_is_a_step(void)
{
	const ks_drvplan_tensor out = { KS_DRVBUF_OUTPUT, 0x7f0000400000ull, 1024 };
	ks_drvtrace t;
	ks_drvplan p;
	const ks_drvplan_step *s;
	load(&t, "dtod");
	KT_ASSERT_MSG(ks_drvplan_build(&p, &t, &out, 1, NULL) == 0, "%s", ks_error_msg());
	KT_ASSERT_MSG(p.refused == NULL, "%s", p.refused);
	KT_EQ_INT(p.nbufs, 2);
	KT_EQ_INT(p.bufs[1].role, KS_DRVBUF_SCRATCH);
	KT_EQ_INT(p.nsteps, 2);
	KT_EQ_INT(p.steps[0].relocs[2].buf, 0);
	KT_EQ_INT(p.steps[0].relocs[2].off, 0x10);
	s = &p.steps[1];
	KT_EQ_INT(s->kind, KS_DRVSTEP_COPY);
	KT_EQ_INT(s->buf, 0);
	KT_EQ_INT(s->off, 0);
	KT_EQ_INT(s->src, 1);
	KT_EQ_INT(s->src_off, 4096);
	KT_EQ_INT(s->bytes, 64);
	ks_drvplan_clear(&p);
	ks_drvtrace_clear(&t);
}

static void test_words_across_smaller_parameters_stay_bytes(void)
{
	ks_drvtrace t;
	ks_drvplan p;
	const ks_drvplan_step *s;
	load(&t, "packed");
	/* the reader sees an address in the first word; the layout says it is two 32-bit values */
	KT_EQ_INT(t.launches[0].words[0].kind, KS_DRVWORD_POINTER);
	KT_ASSERT_MSG(ks_drvplan_build(&p, &t, NULL, 0, NULL) == 0, "%s", ks_error_msg());
	KT_ASSERT_MSG(p.refused == NULL, "%s", p.refused);
	s = &p.steps[0];
	KT_EQ_INT(s->nrelocs, 1);
	KT_EQ_INT(s->relocs[0].offset, 16);
	KT_EQ_INT(s->relocs[0].off, 0x80);
	KT_EQ_INT(word(s, 0), 0x7f0000200040ull);
	KT_EQ_INT(word(s, 8), 0x7f0000600040ull);
	ks_drvplan_clear(&p);
	ks_drvtrace_clear(&t);
}

static void test_the_modules_launched_become_the_image(void)
{
	ks_image_part parts[KS_IMAGE_MAX_PARTS];
	ks_drvtrace t;
	ks_drvplan p;
	void *blob;
	size_t len, n;
	load(&t, "two-modules");
	KT_ASSERT_MSG(ks_drvplan_build(&p, &t, NULL, 0, NULL) == 0, "%s", ks_error_msg());
	KT_ASSERT_MSG(p.refused == NULL, "%s", p.refused);
	/* modules in first use, each one's kernels after the previous one's */
	KT_EQ_INT(p.nmodules, 2);
	KT_EQ_INT(p.modules[0], 1);
	KT_EQ_INT(p.modules[1], 0);
	KT_EQ_INT(p.nnames, 3);
	KT_EQ_STR(p.names[0], "k_a");
	KT_EQ_STR(p.names[1], "k_c");
	KT_EQ_STR(p.names[2], "k_b");
	KT_EQ_INT(p.module_names[0], 2);
	KT_EQ_INT(p.module_names[1], 1);
	KT_EQ_INT(p.steps[0].func, 0);
	KT_EQ_INT(p.steps[1].func, 2);
	KT_EQ_INT(p.steps[2].func, 0);
	KT_EQ_INT(p.steps[3].func, 1);
	KT_EQ_INT(p.steps[1].module, 1);
	KT_ASSERT_MSG(ks_drvplan_image(&blob, &len, &p, &t) == 0, "%s", ks_error_msg());
	KT_ASSERT(ks_image_is_bundle(blob, len));
	KT_ASSERT_MSG(ks_image_parts(parts, &n, blob, len, 3) == 0, "%s", ks_error_msg());
	KT_EQ_INT(n, 2);
	KT_EQ_INT(parts[0].len, t.modules[1].len);
	KT_ASSERT(memcmp(parts[0].data, t.modules[1].bytes, parts[0].len) == 0);
	KT_EQ_INT(parts[0].nnames, 2);
	KT_EQ_INT(parts[1].nnames, 1);
	ks_free(blob);
	ks_drvplan_clear(&p);
	ks_drvtrace_clear(&t);
}

static void refused_with(const char *fixture, const ks_drvplan_tensor *ts, size_t n, const char *why)
{
	ks_drvtrace t;
	ks_drvplan p;
	load(&t, fixture);
	KT_ASSERT_MSG(ks_drvplan_build(&p, &t, ts, n, NULL) == 0, "%s", ks_error_msg());
	KT_ASSERT_MSG(p.refused != NULL, "%s: not refused", fixture);
	KT_CONTAINS(p.refused, why);
	{
		void *blob;
		size_t len;
		KT_EQ_INT(ks_drvplan_image(&blob, &len, &p, &t), KS_EINVALID);
		KT_ASSERT(blob == NULL);
	}
	ks_drvplan_clear(&p);
	ks_drvtrace_clear(&t);
}

static void test_what_the_replay_cannot_express_is_refused_with_its_reason(void)
{
	const ks_drvplan_tensor across = { KS_DRVBUF_INPUT, 0x7f0000100100ull, 256 };
	const ks_drvplan_tensor outside = { KS_DRVBUF_INPUT, 0x7f00001fff00ull, 512 };
	const ks_drvplan_tensor reused = { KS_DRVBUF_INPUT, 0x7f0000600000ull, 4096 };
	/* a pointer into an allocation freed before the launch */
	refused_with("dangling", NULL, 0,
		     "launch 0 (k_struct), parameter byte 0: 0x7f0000600040 lies in a recorded allocation that was not live");
	refused_with("readback", NULL, 0, "copy 0 (cuMemcpyDtoH_v2): 4 bytes read back to the host during the forward");
	refused_with("unkept", NULL, 0, "the 64 bytes copied to the device before the forward were not kept");
	/* the forward clears 1 KiB from the allocation's start, across the tensor's range */
	refused_with("forward", &across, 1, "set 1 (cuMemsetD32Async): 1024 bytes at 0x7f0000100000 cross tensor 0's range");
	/* a tensor the trace child reports that its allocation does not hold */
	refused_with("two-forwards", NULL, 0, "the trace records more than one forward (copy 0 lies between two)");
	refused_with("reuse", &reused, 1, "tensor 0 lies in two recorded allocations (its address was reused)");
	refused_with("struct", &outside, 1, "tensor 0 (512 bytes at 0x7f00001fff00) is not inside its allocation");
}

static void test_tensors_that_are_no_ranges_are_errors(void)
{
	const ks_drvplan_tensor overlap[2] = { { KS_DRVBUF_INPUT, 0x1000, 256 }, { KS_DRVBUF_OUTPUT, 0x10f0, 16 } };
	const ks_drvplan_tensor empty = { KS_DRVBUF_INPUT, 0x1000, 0 };
	const ks_drvplan_tensor role = { KS_DRVBUF_SCRATCH, 0x1000, 8 };
	ks_drvtrace t;
	ks_drvplan p;
	ks_drvplan_limits lim = KS_DRVPLAN_LIMITS_INIT;
	load(&t, "forward");
	KT_EQ_INT(ks_drvplan_build(&p, &t, overlap, 2, NULL), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "tensors 0 and 1 overlap");
	ks_drvplan_clear(&p);
	KT_EQ_INT(ks_drvplan_build(&p, &t, &empty, 1, NULL), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "tensor 0: 0 bytes at 0x1000 is no range");
	ks_drvplan_clear(&p);
	KT_EQ_INT(ks_drvplan_build(&p, &t, &role, 1, NULL), KS_EINVALID);
	ks_drvplan_clear(&p);
	/* caps: buffers, and their bytes together */
	lim.max_bufs = 1;
	KT_EQ_INT(ks_drvplan_build(&p, &t, NULL, 0, &lim), KS_ELIMIT);
	KT_CONTAINS(ks_error_msg(), "more than 1 buffers");
	ks_drvplan_clear(&p);
	lim.max_bufs = 16;
	lim.max_bytes = 1u << 20;
	KT_EQ_INT(ks_drvplan_build(&p, &t, NULL, 0, &lim), KS_ELIMIT);
	KT_CONTAINS(ks_error_msg(), "more than 1048576 bytes");
	ks_drvplan_clear(&p);
	ks_drvtrace_clear(&t);
}

static const kt_test tests[] = {
	KT(test_a_forward_becomes_buffers_steps_and_modules),
	KT(test_a_struct_parameter_with_embedded_pointers_is_relocated),
	KT(test_a_copy_between_buffers_during_the_forward_is_a_step),
	KT(test_words_across_smaller_parameters_stay_bytes),
	KT(test_the_modules_launched_become_the_image),
	KT(test_what_the_replay_cannot_express_is_refused_with_its_reason),
	KT(test_tensors_that_are_no_ranges_are_errors),
	{ 0 }
};
KT_MAIN("drvplan", tests)
