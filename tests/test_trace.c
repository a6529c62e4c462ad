/* Tests of lang/triton/trace.c: the trace request built from a problem, the helper's response read
 * as untrusted input, and a recorded case turned into a launch plan. Responses here are made by
 * hand to reach every check; tests/test_trace_fixtures.c replays responses recorded on a GPU host. */
#include "ktest.h"
#include "lang/triton/trace.h"
#include "util/errors.h"
#include "util/hash.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <openssl/evp.h>
#include <string.h>

static ks_problem_set *load(void)
{
	ks_problem_set *s = NULL;
	KT_EQ_INT(ks_problem_set_load(&s, "tests/fixtures/problems", NULL), 0);
	KT_EQ_INT(s->nerrors, 0);
	return s;
}

static const char fake_cubin[] = "not really a CUBIN, but bytes all the same";

static cJSON *kernel_json(const char *name)
{
	cJSON *k = cJSON_CreateObject(), *ps;
	unsigned char b64[256];
	char hex[65];
	EVP_EncodeBlock(b64, (const unsigned char *)fake_cubin, (int)sizeof(fake_cubin));
	ks_sha256_hex(hex, fake_cubin, sizeof(fake_cubin));
	cJSON_AddStringToObject(k, "name", name);
	cJSON_AddStringToObject(k, "cubin", (const char *)b64);
	cJSON_AddStringToObject(k, "sha256", hex);
	cJSON_AddNumberToObject(k, "num_warps", 4);
	cJSON_AddNumberToObject(k, "num_ctas", 1);
	cJSON_AddNumberToObject(k, "shared", 0);
	ps = cJSON_AddArrayToObject(k, "params");
	cJSON_AddItemToArray(ps, cJSON_CreateString("*fp32"));
	cJSON_AddItemToArray(ps, cJSON_CreateString("*fp32"));
	cJSON_AddItemToArray(ps, cJSON_CreateString("*fp32"));
	cJSON_AddItemToArray(ps, cJSON_CreateString("i32"));
	return k;
}

static cJSON *arg_buf(const char *name, double off)
{
	cJSON *a = cJSON_CreateObject();
	cJSON_AddStringToObject(a, "buffer", name);
	cJSON_AddNumberToObject(a, "offset", off);
	return a;
}

/* A response for problem vadd (3 correctness cases, 1 perf case) as kscore-triton would write it:
 * the wrapper zeroes a scratch buffer, copies the first element of a into c (a stand-in for a
 * wrapper's .copy_ of a part its kernel then reads or writes), then launches vadd_kernel over n. */
static cJSON *vadd_response(const ks_problem *p)
{
	cJSON *r = cJSON_CreateObject(), *ks, *cases, *v;
	size_t i;
	cJSON_AddStringToObject(r, "status", "ok");
	v = cJSON_AddObjectToObject(r, "versions");
	cJSON_AddStringToObject(v, "python", "3.12.3");
	cJSON_AddStringToObject(v, "torch", "2.11.0");
	cJSON_AddStringToObject(v, "triton", "3.6.0");
	v = cJSON_AddObjectToObject(r, "confinement");
	cJSON_AddTrueToObject(v, "landlock");
	cJSON_AddTrueToObject(v, "seccomp");
	ks = cJSON_AddArrayToObject(r, "kernels");
	cJSON_AddItemToArray(ks, kernel_json("vadd_kernel"));
	cases = cJSON_AddArrayToObject(r, "cases");
	for (i = 0; i < p->ncorrectness + p->nperf; i++) {
		static const long n[] = { 1, 1000, 4097, 1 << 22 };
		cJSON *c = cJSON_CreateObject(), *bufs, *steps, *s, *args, *b, *g, *dst, *src, *launch;
		cJSON_AddNumberToObject(c, "index", (double)i);
		bufs = cJSON_AddArrayToObject(c, "buffers");
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "name", "a");
		cJSON_AddStringToObject(b, "kind", "input");
		cJSON_AddItemToArray(bufs, b);
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "name", "b");
		cJSON_AddStringToObject(b, "kind", "input");
		cJSON_AddItemToArray(bufs, b);
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "name", "c");
		cJSON_AddStringToObject(b, "kind", "output");
		cJSON_AddItemToArray(bufs, b);
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "name", "s0");
		cJSON_AddStringToObject(b, "kind", "scratch");
		cJSON_AddNumberToObject(b, "bytes", 64);
		cJSON_AddItemToArray(bufs, b);
		steps = cJSON_AddArrayToObject(c, "steps");
		s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "op", "fill");
		cJSON_AddStringToObject(s, "buffer", "s0");
		cJSON_AddNumberToObject(s, "offset", 0);
		cJSON_AddNumberToObject(s, "bytes", 64);
		cJSON_AddStringToObject(s, "dtype", "f32");
		cJSON_AddNumberToObject(s, "value", 0);
		cJSON_AddItemToArray(steps, s);
		s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "op", "launch");
		cJSON_AddNumberToObject(s, "kernel", 0);
		g = cJSON_AddArrayToObject(s, "grid");
		cJSON_AddItemToArray(g, cJSON_CreateNumber((double)((n[i] + 127) / 128)));
		cJSON_AddItemToArray(g, cJSON_CreateNumber(1));
		cJSON_AddItemToArray(g, cJSON_CreateNumber(1));
		args = cJSON_AddArrayToObject(s, "args");
		cJSON_AddItemToArray(args, arg_buf("a", 0));
		cJSON_AddItemToArray(args, arg_buf("b", 0));
		cJSON_AddItemToArray(args, arg_buf("c", 0));
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "type", "i32");
		cJSON_AddNumberToObject(b, "value", (double)n[i]);
		cJSON_AddItemToArray(args, b);
		b = cJSON_CreateObject();
		cJSON_AddStringToObject(b, "null", "global_scratch");
		cJSON_AddItemToArray(args, b);
		launch = s;
		s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "op", "copy");
		cJSON_AddStringToObject(s, "dtype", "f32");
		dst = cJSON_AddObjectToObject(s, "dst");
		cJSON_AddStringToObject(dst, "buffer", "c");
		cJSON_AddNumberToObject(dst, "offset", 0);
		cJSON_AddItemToObject(dst, "sizes", cJSON_CreateIntArray((const int[]){ 1 }, 1));
		cJSON_AddItemToObject(dst, "strides", cJSON_CreateIntArray((const int[]){ 1 }, 1));
		src = cJSON_AddObjectToObject(s, "src");
		cJSON_AddStringToObject(src, "buffer", "a");
		cJSON_AddNumberToObject(src, "offset", 0);
		cJSON_AddItemToObject(src, "sizes", cJSON_CreateIntArray((const int[]){ 1 }, 1));
		cJSON_AddItemToObject(src, "strides", cJSON_CreateIntArray((const int[]){ 1 }, 1));
		/* the copy goes before the launch, which then writes c: glue, not the computation */
		cJSON_AddItemToArray(steps, s);
		cJSON_AddItemToArray(steps, launch);
		cJSON_AddItemToArray(cases, c);
	}
	return r;
}

static void test_the_request_holds_every_case(void)
{
	ks_problem_set *s = load();
	const ks_problem *p = ks_problem_set_find(s, "vadd");
	cJSON *entry = cJSON_CreateObject(), *req = NULL, *cases, *c, *t;
	cJSON_AddStringToObject(entry, "name", "vadd");
	KT_EQ_INT(ks_trace_request(&req, p, entry, "import triton\n", 2, 60, 7, NULL), 0);
	KT_EQ_STR(cJSON_GetObjectItem(req, "op")->valuestring, "trace");
	KT_EQ_INT(cJSON_GetObjectItem(req, "device")->valueint, 2);
	/* the limit is each case's; the whole trace has it once per case */
	KT_ASSERT(cJSON_GetObjectItem(req, "case_timeout_s")->valuedouble == 60);
	KT_ASSERT(cJSON_GetObjectItem(req, "timeout_s")->valuedouble == 4 * 60);
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(req, "entry"), "name")->valuestring, "vadd");
	cases = cJSON_GetObjectItem(req, "cases");
	KT_EQ_INT(cJSON_GetArraySize(cases), 4);
	c = cJSON_GetArrayItem(cases, 2);
	KT_EQ_INT(cJSON_GetObjectItem(c, "index")->valueint, 2);
	KT_ASSERT(cJSON_IsFalse(cJSON_GetObjectItem(c, "perf")));
	t = cJSON_GetArrayItem(cJSON_GetObjectItem(c, "tensors"), 0);
	KT_EQ_STR(cJSON_GetObjectItem(t, "name")->valuestring, "a");
	KT_EQ_STR(cJSON_GetObjectItem(t, "dtype")->valuestring, "f32");
	KT_EQ_INT(cJSON_GetArrayItem(cJSON_GetObjectItem(t, "shape"), 0)->valueint, 4097);
	/* the case's own distribution (std 1000), as the harness fills it */
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "dist"), "kind")->valuestring, "normal");
	KT_ASSERT(cJSON_GetObjectItem(cJSON_GetObjectItem(t, "dist"), "b")->valuedouble == 1000);
	t = cJSON_GetArrayItem(cJSON_GetObjectItem(c, "tensors"), 2);
	KT_EQ_STR(cJSON_GetObjectItem(t, "role")->valuestring, "out");
	KT_ASSERT(!cJSON_GetObjectItem(t, "dist"));
	t = cJSON_GetArrayItem(cJSON_GetObjectItem(c, "scalars"), 0);
	KT_EQ_INT(cJSON_GetObjectItem(t, "value")->valueint, 4097);
	c = cJSON_GetArrayItem(cases, 3);
	KT_ASSERT(cJSON_IsTrue(cJSON_GetObjectItem(c, "perf")));
	KT_EQ_INT(cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(c, "tensors"), 0),
							 "shape"), 0)->valueint, 1 << 22);
	cJSON_Delete(req);
	cJSON_Delete(entry);
	ks_problem_set_free(s);
}

static void test_a_recorded_case_becomes_a_plan(void)
{
	ks_problem_set *s = load();
	const ks_problem *p = ks_problem_set_find(s, "vadd");
	cJSON *resp = vadd_response(p), *j;
	ks_env env = KS_ENV_INIT;
	ks_trace t;
	ks_plan plan, back;
	void *blob = NULL;
	char **names = NULL;
	size_t len = 0, nn = 0;
	KT_EQ_INT(ks_trace_read(&t, resp, p, NULL), 0);
	KT_EQ_INT(t.status, KS_TRACE_OK);
	KT_EQ_INT(t.nkernels, 1);
	KT_EQ_INT(t.kernels[0].len, sizeof(fake_cubin));
	KT_ASSERT(strstr(t.versions, "triton 3.6.0"));
	KT_ASSERT(strstr(t.confinement, "landlock"));
	KT_EQ_INT(ks_problem_env(&env, p, &p->correctness[1]), 0);
	KT_EQ_INT(ks_trace_plan(&plan, &t, p, 0, 1, &env, 42, 0, NULL), 0);
	/* a, b, c as ks_plan_build makes them, then the scratch buffer */
	KT_EQ_INT(plan.nbufs, 4);
	KT_EQ_STR(plan.bufs[0].name, "a");
	KT_EQ_INT(plan.bufs[0].fill, KS_FILL_RANDOM);
	KT_EQ_INT(plan.bufs[2].fill, KS_FILL_POISON);
	KT_EQ_INT(plan.bufs[3].scratch, 1);
	KT_EQ_INT(plan.bufs[3].bytes, 64);
	KT_EQ_INT(plan.nkernels, 1);
	KT_EQ_INT(plan.kernels[0].block[0], 128); /* 32 * num_warps */
	KT_EQ_INT(plan.kernels[0].grid[0], 8);
	KT_EQ_INT(plan.kernels[0].nparams, 5);
	KT_EQ_INT(plan.kernels[0].params[2].buf, 2);
	KT_EQ_INT(plan.kernels[0].params[3].kind, KS_PARAM_I32);
	KT_EQ_INT(plan.kernels[0].params[3].i, 1000);
	KT_EQ_INT(plan.kernels[0].params[4].kind, KS_PARAM_NULL);
	KT_EQ_INT(plan.nsteps, 3);
	KT_EQ_INT(plan.steps[0].kind, KS_STEP_FILL);
	KT_EQ_INT(plan.steps[0].buf, 3);
	KT_EQ_INT(plan.steps[0].sizes[0], 16);
	KT_EQ_INT(plan.steps[1].kind, KS_STEP_COPY);
	KT_EQ_INT(plan.steps[1].buf, 2);
	KT_EQ_INT(plan.steps[1].src, 0);
	KT_EQ_INT(plan.steps[2].kind, KS_STEP_LAUNCH);
	/* what travels to the worker is read back the same */
	j = ks_plan_to_json(&plan);
	KT_EQ_INT(ks_plan_from_json(&back, j), 0);
	KT_EQ_INT(back.nsteps, 3);
	ks_plan_clear(&back);
	cJSON_Delete(j);
	ks_plan_clear(&plan);
	ks_env_free(&env);
	/* the perf case too */
	KT_EQ_INT(ks_problem_env(&env, p, &p->perf[0]), 0);
	KT_EQ_INT(ks_trace_plan(&plan, &t, p, 1, 0, &env, 42, 0, NULL), 0);
	KT_EQ_INT(plan.kernels[0].grid[0], (1 << 22) / 128);
	ks_plan_clear(&plan);
	ks_env_free(&env);
	KT_EQ_INT(ks_trace_image(&blob, &len, &names, &nn, &t), 0);
	KT_EQ_INT(nn, 1);
	KT_EQ_STR(names[0], "vadd_kernel");
	KT_EQ_INT(len, sizeof(fake_cubin)); /* one CUBIN stays a CUBIN */
	ks_free(blob);
	ks_free_strv(names, nn);
	ks_trace_clear(&t);
	cJSON_Delete(resp);
	ks_problem_set_free(s);
}

/* Reads resp (consumed) and expects the given status, with `want` in the message. */
static void expect(const ks_problem *p, cJSON *resp, ks_trace_status st, const char *want)
{
	ks_trace t;
	KT_EQ_INT(ks_trace_read(&t, resp, p, NULL), 0);
	KT_EQ_STR(ks_trace_status_name(t.status), ks_trace_status_name(st));
	KT_ASSERT_MSG(t.message && strstr(t.message, want), "message: %s", t.message ? t.message : "(none)");
	ks_trace_clear(&t);
	cJSON_Delete(resp);
}

static cJSON *case_of(cJSON *resp, int i)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(resp, "cases"), i);
}

static cJSON *step_of(cJSON *resp, int c, int s)
{
	return cJSON_GetArrayItem(cJSON_GetObjectItem(case_of(resp, c), "steps"), s);
}

static void test_a_response_is_untrusted_input(void)
{
	ks_problem_set *s = load();
	const ks_problem *p = ks_problem_set_find(s, "vadd");
	cJSON *r;

	r = vadd_response(p);
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0), "cubin",
				  cJSON_CreateString("!!!!"));
	expect(p, r, KS_TRACE_BROKEN, "not base64");

	r = vadd_response(p);
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0), "sha256",
				  cJSON_CreateString("00"));
	expect(p, r, KS_TRACE_BROKEN, "digest");

	r = vadd_response(p);
	cJSON_DeleteItemFromArray(cJSON_GetObjectItem(r, "cases"), 3);
	expect(p, r, KS_TRACE_BROKEN, "cases");

	r = vadd_response(p);
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(case_of(r, 0), "buffers"), 2), "name",
				  cJSON_CreateString("n"));
	expect(p, r, KS_TRACE_BROKEN, "no output tensor");

	r = vadd_response(p);
	cJSON_ReplaceItemInObject(step_of(r, 1, 2), "kernel", cJSON_CreateNumber(3));
	expect(p, r, KS_TRACE_BROKEN, "no recorded kernel");

	r = vadd_response(p);
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(step_of(r, 0, 2), "args"), 3), "type",
				  cJSON_CreateString("i128"));
	expect(p, r, KS_TRACE_BROKEN, "typed scalar");

	r = vadd_response(p);
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(r, "kernels"), 0), "num_ctas",
				  cJSON_CreateNumber(2));
	expect(p, r, KS_TRACE_UNTRACEABLE, "clusters");

	r = vadd_response(p);
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(case_of(r, 2), "buffers"), 3), "bytes",
				  cJSON_CreateNumber(1e15));
	expect(p, r, KS_TRACE_UNTRACEABLE, "--max-scratch");

	/* a copy into c that no kernel reads or writes after it: kscore's copy would be the answer */
	r = vadd_response(p);
	cJSON_AddItemToArray(cJSON_GetObjectItem(case_of(r, 2), "steps"),
			     cJSON_Duplicate(step_of(r, 2, 1), 1));
	expect(p, r, KS_TRACE_HOST_OP, "case 2, step 4: the wrapper's copy (a torch copy_ or contiguous()) "
				       "writes the output c");
	r = vadd_response(p); /* a fill into c before the launch is glue */
	cJSON_ReplaceItemInArray(cJSON_GetObjectItem(case_of(r, 1), "steps"), 1, cJSON_Duplicate(step_of(r, 1, 0), 1));
	cJSON_ReplaceItemInObject(step_of(r, 1, 1), "buffer", cJSON_CreateString("c"));
	cJSON_ReplaceItemInObject(step_of(r, 1, 1), "bytes", cJSON_CreateNumber(4));
	{
		ks_trace t;
		KT_EQ_INT(ks_trace_read(&t, r, p, NULL), 0);
		KT_EQ_INT(t.status, KS_TRACE_OK);
		ks_trace_clear(&t);
		cJSON_Delete(r);
	}

	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "status", "host_op");
	cJSON_AddStringToObject(r, "reason", "line 12: aten.sin.default computes on the host side");
	cJSON_AddNumberToObject(r, "line", 12);
	expect(p, r, KS_TRACE_HOST_OP, "aten.sin");

	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "status", "made up");
	expect(p, r, KS_TRACE_BROKEN, "status made up");

	r = cJSON_CreateArray();
	expect(p, r, KS_TRACE_BROKEN, "no status");
	ks_problem_set_free(s);
}

/* A step that fits the case it was recorded for but would leave the buffers of the case it is
 * applied to is refused when the plan is built, never sent. */
static void test_a_plan_stays_inside_its_buffers(void)
{
	ks_problem_set *s = load();
	const ks_problem *p = ks_problem_set_find(s, "vadd");
	cJSON *r = vadd_response(p), *dst;
	ks_env env = KS_ENV_INIT;
	ks_trace t;
	ks_plan plan;
	/* copy 2 elements into c of the one-element case */
	dst = cJSON_GetObjectItem(step_of(r, 0, 1), "dst");
	cJSON_ReplaceItemInObject(dst, "sizes", cJSON_CreateIntArray((const int[]){ 2 }, 1));
	cJSON_ReplaceItemInObject(cJSON_GetObjectItem(step_of(r, 0, 1), "src"), "sizes",
				  cJSON_CreateIntArray((const int[]){ 2 }, 1));
	/* a pointer past the end of c in the 1000-element case */
	cJSON_ReplaceItemInObject(cJSON_GetArrayItem(cJSON_GetObjectItem(step_of(r, 1, 2), "args"), 2), "offset",
				  cJSON_CreateNumber(4004));
	KT_EQ_INT(ks_trace_read(&t, r, p, NULL), 0);
	KT_EQ_INT(t.status, KS_TRACE_OK);
	KT_EQ_INT(ks_problem_env(&env, p, &p->correctness[0]), 0);
	KT_EQ_INT(ks_trace_plan(&plan, &t, p, 0, 0, &env, 1, 0, NULL), KS_EINVALID);
	KT_ASSERT(strstr(ks_error_msg(), "leaves buffer c"));
	ks_env_free(&env);
	KT_EQ_INT(ks_problem_env(&env, p, &p->correctness[1]), 0);
	KT_EQ_INT(ks_trace_plan(&plan, &t, p, 0, 1, &env, 1, 0, NULL), KS_EINVALID);
	KT_ASSERT(strstr(ks_error_msg(), "4004 bytes into c"));
	ks_env_free(&env);
	ks_trace_clear(&t);
	cJSON_Delete(r);
	ks_problem_set_free(s);
}

static int has_control(const char *s)
{
	for (; s && *s; s++)
		if (((unsigned char)*s < 0x20 && *s != '\n' && *s != '\t') || *s == 0x7f)
			return 1;
	return 0;
}

/* Everything a trace says passes the device printf filter: an exception message that would retitle
 * the window, erase the line and draw a fake row reaches the table as visible text. */
static void test_trace_text_reaches_no_terminal(void)
{
	static const char evil[] = "\x1b]0;owned\x07\r\x1b[2K ok 41.7x \xc2\x9b" "31m";
	ks_problem_set *s = load();
	const ks_problem *p = ks_problem_set_find(s, "vadd");
	cJSON *r = cJSON_CreateObject(), *v;
	ks_trace t;
	cJSON_AddStringToObject(r, "status", "error");
	cJSON_AddStringToObject(r, "reason", evil);
	cJSON_AddStringToObject(r, "stdout", evil);
	v = cJSON_AddObjectToObject(r, "versions");
	cJSON_AddStringToObject(v, "python", evil);
	v = cJSON_AddObjectToObject(r, "confinement");
	cJSON_AddTrueToObject(v, evil);
	KT_EQ_INT(ks_trace_read(&t, r, p, NULL), 0);
	KT_EQ_INT(t.status, KS_TRACE_ERROR);
	KT_ASSERT(!has_control(t.message) && !has_control(t.output) && !has_control(t.versions) &&
		  !has_control(t.confinement));
	KT_EQ_STR(t.message, "\\x1b]0;owned\\x07\\x0d\\x1b[2K ok 41.7x \\u009b31m");
	KT_ASSERT(!strstr(t.output, "\xc2\x9b"));
	ks_trace_clear(&t);
	cJSON_Delete(r);

	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "status", evil); /* quoted in kscore's own message */
	KT_EQ_INT(ks_trace_read(&t, r, p, NULL), 0);
	KT_EQ_INT(t.status, KS_TRACE_BROKEN);
	KT_ASSERT(!has_control(t.message));
	ks_trace_clear(&t);
	cJSON_Delete(r);
	ks_problem_set_free(s);
}

static const kt_test tests[] = {
	KT(test_trace_text_reaches_no_terminal),
	KT(test_the_request_holds_every_case),
	KT(test_a_recorded_case_becomes_a_plan),
	KT(test_a_response_is_untrusted_input),
	KT(test_a_plan_stays_inside_its_buffers),
	{ 0 }
};

KT_MAIN("trace", tests)
