/* Tests of the oracle's client (src/load/sets/oracle.h): its reply reader on hand-written replies
 * (well-formed ones and broken ones), and the client with the real kscore-oracle helper over the
 * TritonBench-G and KernelBench fixtures of tests/fixtures/sets/, torch and triton being the
 * stand-ins of tests/oracle/fake (a Python wrapper puts them first on the helper's path), so that it
 * runs without torch: cases, the problem model they make (args, roles, dims, data inputs, refused
 * cases with their reasons), materialize into two folders, a test that raises. */
#include "ktest.h"
#include "clitest.h"
#include "load/sets/oracle.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/mem.h"

#include <sys/stat.h>
#include <unistd.h>

static char *fx(const char *rel)
{
	return ks_asprintf("%s/tests/fixtures/sets/%s", getenv("KSCORE_ROOT"), rel);
}

static void read_text(ks_oracle_reply *r, const char *s)
{
	ks_oracle_reply_read(r, s, strlen(s));
}

#define TENSOR(path, shape, strides) \
	"{\"kind\":\"tensor\",\"path\":\"" path "\",\"shape\":" shape ",\"dtype\":\"float32\",\"strides\":" strides \
	",\"offset\":0,\"device\":\"cuda:0\",\"contiguous\":true}"

static void test_reply_is_read(void)
{
	ks_oracle_reply r;
	const ks_oval *t;
	read_text(&r, "{\"id\":1,\"status\":\"ok\",\"file\":\"/s/add.py\",\"confinement\":{\"landlock\":true},"
		      "\"notes\":[\"perf: none\"],\"cases\":[{\"index\":0,\"kind\":\"perf\",\"entry\":\"add\","
		      "\"args\":[" TENSOR("a0", "[4,6]", "[6,1]") ",{\"kind\":\"float\",\"value\":\"nan\"}],"
		      "\"kwargs\":{\"out\":" TENSOR("k.out", "[3]", "[1]") "},"
		      "\"returns\":{\"kind\":\"tuple\",\"items\":[" TENSOR("r.0", "[2]", "[1]") ",{\"kind\":\"none\"}]},"
		      "\"writes\":[\"k.out\"],\"signature\":\"0123456789abcdef\","
		      "\"inputs\":{\"a0\":{\"file\":\"c0.a0.bin\",\"bytes\":96}}}],\"seconds\":0.5}");
	KT_EQ_INT(r.status, KS_ORACLE_OK);
	KT_EQ_INT((int)r.ncases, 1);
	KT_ASSERT(r.landlock);
	KT_EQ_STR(r.notes[0], "perf: none");
	KT_ASSERT(r.cases[0].perf);
	KT_EQ_STR(r.cases[0].entry, "add");
	KT_ASSERT(r.cases[0].args[1].fval != r.cases[0].args[1].fval); /* NaN */
	KT_EQ_STR(r.cases[0].kwargs[0].key, "out");
	KT_ASSERT((t = ks_oracle_case_tensor(&r.cases[0], "r.0")) != NULL);
	KT_EQ_INT((int)t->shape[0], 2);
	KT_ASSERT((t = ks_oracle_case_tensor(&r.cases[0], "a0")) != NULL && t->strides[0] == 6);
	KT_EQ_STR(r.cases[0].in_files[0], "c0.a0.bin");
	KT_EQ_INT((int)r.cases[0].in_bytes[0], 96);
	ks_oracle_reply_clear(&r);

	read_text(&r, "{\"status\":\"error\",\"file\":\"/s/raises.py\",\"reason\":\"its test code raised X\"}");
	KT_EQ_INT(r.status, KS_ORACLE_ERROR);
	KT_EQ_STR(r.reason, "its test code raised X");
	ks_oracle_reply_clear(&r);
}

static void test_broken_replies_are_refused(void)
{
	static const char *const bad[] = {
		"not json",
		"{\"status\":\"fine\"}",
		"{\"status\":\"ok\",\"cases\":{}}",
		"{\"status\":\"ok\",\"cases\":[{\"index\":1,\"kind\":\"perf\",\"entry\":\"f\",\"signature\":\"0123456789abcdef\","
		"\"args\":[],\"kwargs\":{},\"returns\":{\"kind\":\"none\"}}]}",
		"{\"status\":\"ok\",\"cases\":[{\"index\":0,\"kind\":\"perf\",\"entry\":\"f\",\"signature\":\"0123456789abcdef\","
		"\"args\":[" TENSOR("a0", "[4,6]", "[6]") "],\"kwargs\":{},\"returns\":{\"kind\":\"none\"}}]}",
		"{\"status\":\"ok\",\"cases\":[{\"index\":0,\"kind\":\"perf\",\"entry\":\"f\",\"signature\":\"0123456789abcdef\","
		"\"args\":[],\"kwargs\":{},\"returns\":{\"kind\":\"none\"},\"writes\":[\"a9\"]}]}",
		"{\"status\":\"ok\",\"cases\":[{\"index\":0,\"kind\":\"perf\",\"entry\":\"../f\",\"signature\":\"0123456789abcdef\","
		"\"args\":[],\"kwargs\":{},\"returns\":{\"kind\":\"none\"}}]}",
		"{\"status\":\"ok\",\"cases\":[{\"index\":0,\"kind\":\"perf\",\"entry\":\"f\",\"signature\":\"0123456789abcdef\","
		"\"args\":[],\"kwargs\":{},\"returns\":{\"kind\":\"none\"},\"inputs\":{\"a0\":{\"file\":\"../x\",\"bytes\":1}}}]}",
		"{\"status\":\"ok\",\"cases\":[{\"index\":0,\"kind\":\"perf\",\"entry\":\"f\",\"signature\":\"0123456789abcdef\","
		"\"args\":[{\"kind\":\"list\",\"items\":[{\"kind\":\"list\",\"items\":[{\"kind\":\"list\",\"items\":[{\"kind\":"
		"\"list\",\"items\":[{\"kind\":\"list\",\"items\":[{\"kind\":\"list\",\"items\":[{\"kind\":\"list\",\"items\":["
		"{\"kind\":\"list\",\"items\":[{\"kind\":\"list\",\"items\":[]}]}]}]}]}]}]}]}]}],\"kwargs\":{},"
		"\"returns\":{\"kind\":\"none\"}}]}",
	};
	size_t i;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ks_oracle_reply r;
		read_text(&r, bad[i]);
		KT_ASSERT_MSG(r.status == KS_ORACLE_BROKEN, "reply %zu was accepted", i);
		KT_CONTAINS(r.reason, "malformed");
		KT_EQ_INT((int)r.ncases, 0);
		ks_oracle_reply_clear(&r);
	}
}

/* A Python that runs the helper with the stand-in torch first on its path (the helper's -I would
 * keep PYTHONPATH out, and its environment is emptied). */
static char *fake_python(void)
{
	char *body = ks_asprintf("#!/bin/sh\n# $1 $2: -I -B; $3 the helper; $4 its mode\n"
				 "exec python3 -B -c 'import sys, runpy; sys.path.insert(0, \"%s/tests/oracle/fake\"); "
				 "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name=\"__main__\")' \"$3\" \"$4\"\n",
				 getenv("KSCORE_ROOT"));
	char *path = ks_strdup(kt_write("python", body, strlen(body)));
	chmod(path, 0755);
	ks_free(body);
	return path;
}

static ks_oracle *start(char **py)
{
	ks_oracle_options o = KS_ORACLE_OPTIONS_INIT;
	ks_oracle *or = NULL;
	*py = fake_python();
	o.python = *py;
	o.timeout_s = 60;
	if (ks_oracle_start(&or, &o) < 0)
		KT_FAIL("the oracle did not start: %s", ks_error_msg());
	return or;
}

static ks_set_problem tb(const char *name, const char *entry, const char *perf)
{
	ks_set_problem p;
	memset(&p, 0, sizeof(p));
	p.name = (char *)name;
	p.suite = (char *)"tritonbench-g";
	p.path = ks_asprintf("%s/tests/fixtures/sets/tritonbench-g/reference/%s.py", getenv("KSCORE_ROOT"), name);
	p.perf_path = perf ? ks_asprintf("%s/tests/fixtures/sets/tritonbench-g/perf/%s", getenv("KSCORE_ROOT"), perf)
			   : NULL;
	p.entries = ks_calloc(2, sizeof(char *));
	p.entries[0] = (char *)entry;
	p.nentries = 1;
	return p;
}

static void tb_free(ks_set_problem *p)
{
	ks_free(p->path);
	ks_free(p->perf_path);
	ks_free(p->entries);
}

static const ks_arg *arg(const ks_problem *p, const char *name)
{
	int i = ks_problem_arg_index(p, name);
	return i < 0 ? NULL : &p->args[i];
}

static void test_cases_make_a_problem(void)
{
	char *py = NULL;
	ks_oracle *o = start(&py);
	ks_set_problem sp = tb("add_dict", "add", "add_dict_perf.py");
	ks_oracle_reply r;
	ks_oracle_refusal *ref = NULL;
	size_t nref = 0;
	ks_problem *p = NULL;
	KT_EQ_INT(ks_oracle_cases(o, &r, KS_SET_TRITONBENCH_G, &sp, 1), 0);
	KT_ASSERT_MSG(r.status == KS_ORACLE_OK, "%s", r.reason ? r.reason : "");
	KT_EQ_INT((int)r.ncases, 5);
	KT_EQ_INT(ks_oracle_problem(&p, &ref, &nref, &sp, KS_SET_TRITONBENCH_G, &r), 0);
	KT_ASSERT(p != NULL);
	KT_EQ_INT((int)nref, 0);
	KT_ASSERT(p->oracle);
	KT_ASSERT(p->golden_src == NULL);
	KT_EQ_INT((int)p->ncorrectness, 1);
	KT_EQ_INT((int)p->nperf, 4);
	KT_EQ_INT((int)p->nargs, 3);
	KT_EQ_INT(arg(p, "a0")->role, KS_ROLE_IN);
	KT_EQ_INT(arg(p, "r")->role, KS_ROLE_OUT);
	KT_EQ_INT(arg(p, "a1")->dtype, KS_DT_F32);
	KT_EQ_STR(arg(p, "a1")->shape[0], "a1_d0");
	KT_NEAR(arg(p, "r")->atol, 1e-2, 1e-12);
	KT_NEAR(arg(p, "r")->rtol, 1e-1, 1e-12);
	KT_EQ_STR(p->correctness[0].dims[0], "1000");
	KT_EQ_STR(p->perf[3].dims[0], "32768");
	KT_EQ_INT(p->correctness[0].dist[0].kind, KS_DIST_DATA);
	KT_EQ_STR(p->correctness[0].dist[1].file, "c0.a1.bin");
	KT_EQ_STR(p->perf[0].dist[0].file, "c1.a0.bin");
	KT_EQ_INT(p->correctness[0].dist[2].kind, KS_DIST_DEFAULT); /* the output's values are the oracle's */
	KT_EQ_STR(p->correctness[0].dist[2].file, "c0.r.bin");
	KT_EQ_STR(p->python.entry, "add");
	KT_EQ_STR(p->python.returns, "r");
	KT_EQ_INT((int)p->python.nargs, 2);
	{
		char *call = ks_pyentry_call_text(&p->python);
		cJSON *e = ks_problem_python_json(p);
		KT_EQ_STR(call, "add(a0, a1)");
		KT_ASSERT(e && cJSON_GetArraySize(cJSON_GetObjectItem(e, "args")) == 2);
		ks_free(call);
		cJSON_Delete(e);
	}
	ks_problem_free(p);
	ks_oracle_refusals_free(ref, nref);
	ks_oracle_reply_clear(&r);
	tb_free(&sp);
	ks_oracle_free(o);
	ks_free(py);
}

static void test_in_place_strided_and_refused_cases(void)
{
	char *py = NULL;
	ks_oracle *o = start(&py);
	ks_set_problem sp = tb("update_inplace", "update_", "update_inplace_perf.py");
	ks_oracle_reply r;
	ks_oracle_refusal *ref = NULL;
	size_t nref = 0;
	ks_problem *p = NULL;
	KT_EQ_INT(ks_oracle_cases(o, &r, KS_SET_TRITONBENCH_G, &sp, 1), 0);
	KT_ASSERT_MSG(r.status == KS_ORACLE_OK, "%s", r.reason ? r.reason : "");
	KT_EQ_INT((int)r.ncases, 5);
	KT_EQ_INT(ks_oracle_problem(&p, &ref, &nref, &sp, KS_SET_TRITONBENCH_G, &r), 0);
	KT_ASSERT(p != NULL);
	/* the second call passes a transposed view: refused, with why */
	KT_EQ_INT((int)nref, 1);
	KT_EQ_INT((int)ref[0].index, 1);
	KT_CONTAINS(ref[0].reason, "a1 is a strided view");
	KT_EQ_INT((int)p->ncorrectness, 1);
	KT_EQ_INT((int)p->nperf, 3);
	KT_EQ_INT(arg(p, "a0")->role, KS_ROLE_INOUT);
	KT_EQ_INT(arg(p, "r_0")->role, KS_ROLE_OUT);
	{
		char *call = ks_pyentry_call_text(&p->python);
		KT_EQ_STR(call, "update_(a0, a1)");
		ks_free(call);
	}
	KT_EQ_STR(p->perf[2].dims[0], "32");
	KT_EQ_STR(p->perf[2].dims[1], "8");
	ks_problem_free(p);
	ks_oracle_refusals_free(ref, nref);
	ks_oracle_reply_clear(&r);
	tb_free(&sp);
	ks_oracle_free(o);
	ks_free(py);
}

static void test_materialize_writes_two_folders(void)
{
	char *py = NULL;
	ks_oracle *o = start(&py);
	ks_set_problem sp = tb("update_inplace", "update_", NULL);
	ks_oracle_reply r, m;
	char *in = ks_asprintf("%s/in", kt_tmpdir()), *out = ks_asprintf("%s/out", kt_tmpdir()), *f;
	struct stat st;
	mkdir(in, 0755);
	mkdir(out, 0755);
	KT_EQ_INT(ks_oracle_cases(o, &r, KS_SET_TRITONBENCH_G, &sp, 1), 0);
	KT_EQ_INT(r.status, KS_ORACLE_OK);
	KT_EQ_INT(ks_oracle_materialize(o, &m, KS_SET_TRITONBENCH_G, &sp, 99, &r, 1, in, out, 0), 0);
	KT_ASSERT_MSG(m.status == KS_ORACLE_OK, "%s", m.reason ? m.reason : "");
	KT_EQ_INT((int)m.ncases, 2);
	KT_EQ_INT((int)m.cases[0].nin, 2);
	KT_EQ_INT((int)m.cases[0].nout, 2);
	KT_EQ_INT((int)m.bytes_written, 8 * 96);
	f = ks_path_join(in, "c1.a1.bin");
	KT_ASSERT(stat(f, &st) == 0 && st.st_size == 96);
	ks_free(f);
	f = ks_path_join(out, "c1.r.0.bin");
	KT_ASSERT(stat(f, &st) == 0 && st.st_size == 96);
	ks_free(f);
	f = ks_path_join(in, "c1.r.0.bin"); /* expected outputs never lie beside the inputs */
	KT_ASSERT(stat(f, &st) != 0);
	ks_free(f);
	/* the problem model names the files; read back with the size its case's shape gives */
	{
		ks_problem *p = NULL;
		ks_oracle_refusal *ref = NULL;
		size_t nref = 0, n = 0;
		void *buf = NULL;
		int a1, r0, a0;
		KT_EQ_INT(ks_oracle_problem(&p, &ref, &nref, &sp, KS_SET_TRITONBENCH_G, &r), 0);
		a0 = ks_problem_arg_index(p, "a0");
		a1 = ks_problem_arg_index(p, "a1");
		r0 = ks_problem_arg_index(p, "r_0");
		KT_EQ_STR(p->correctness[0].dist[r0].file, "c0.r.0.bin");
		KT_EQ_INT(ks_oracle_read_tensor(&buf, &n, p, &p->correctness[0], (size_t)a1, in), 0);
		KT_EQ_INT((int)n, 96);
		ks_free(buf);
		KT_EQ_INT(ks_oracle_read_tensor(&buf, &n, p, &p->correctness[0], (size_t)r0, out), 0);
		KT_EQ_INT((int)n, 96);
		ks_free(buf);
		KT_ASSERT(ks_oracle_read_tensor(&buf, &n, p, &p->correctness[0], (size_t)r0, in) < 0);
		KT_CONTAINS(ks_error_msg(), "c0.r.0.bin");
		/* a file of another size, a link: refused, named */
		f = ks_path_join(out, "c0.a0.bin");
		KT_EQ_INT(ks_fs_write_atomic(f, "short", 5), 0);
		KT_ASSERT(ks_oracle_read_tensor(&buf, &n, p, &p->correctness[0], (size_t)a0, out) < 0);
		KT_CONTAINS(ks_error_msg(), "5 bytes where case");
		unlink(f);
		KT_EQ_INT(symlink("c0.r.0.bin", f), 0);
		KT_ASSERT(ks_oracle_read_tensor(&buf, &n, p, &p->correctness[0], (size_t)a0, out) < 0);
		KT_ASSERT(buf == NULL);
		ks_free(f);
		ks_problem_free(p);
		ks_oracle_refusals_free(ref, nref);
	}
	ks_oracle_reply_clear(&m);
	ks_oracle_reply_clear(&r);
	tb_free(&sp);
	ks_oracle_free(o);
	ks_free(py);
	ks_free(in);
	ks_free(out);
}

static void test_errors_name_file_and_reason(void)
{
	char *py = NULL;
	ks_oracle *o = start(&py);
	ks_set_problem sp = tb("raises", "neg_", NULL), kb;
	ks_oracle_reply r;
	ks_oracle_refusal *ref = NULL;
	size_t nref = 0;
	ks_problem *p = NULL;
	KT_EQ_INT(ks_oracle_cases(o, &r, KS_SET_TRITONBENCH_G, &sp, 1), 0);
	KT_EQ_INT(r.status, KS_ORACLE_ERROR);
	KT_CONTAINS(r.reason, "RuntimeError: feature dim too large");
	KT_CONTAINS(r.file, "raises.py");
	KT_EQ_INT(ks_oracle_problem(&p, &ref, &nref, &sp, KS_SET_TRITONBENCH_G, &r), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "raises.py");
	KT_ASSERT(p == NULL);
	ks_oracle_reply_clear(&r);
	/* KernelBench: one case, its forward */
	memset(&kb, 0, sizeof(kb));
	kb.name = (char *)"1_Scale";
	kb.suite = (char *)"kernelbench-level1";
	kb.path = fx("kernelbench/level1/1_Scale.py");
	KT_EQ_INT(ks_oracle_cases(o, &r, KS_SET_KERNELBENCH, &kb, 3), 0);
	KT_ASSERT_MSG(r.status == KS_ORACLE_OK, "%s", r.reason ? r.reason : "");
	KT_EQ_INT((int)r.ncases, 1);
	KT_EQ_INT(ks_oracle_problem(&p, &ref, &nref, &kb, KS_SET_KERNELBENCH, &r), 0);
	KT_NEAR(arg(p, "r")->atol, 1e-4, 1e-12);
	ks_problem_free(p);
	ks_oracle_refusals_free(ref, nref);
	ks_oracle_reply_clear(&r);
	ks_free(kb.path);
	tb_free(&sp);
	ks_oracle_free(o);
	ks_free(py);
}

static void test_missing_helper_is_named(void)
{
	ks_oracle_options o = KS_ORACLE_OPTIONS_INIT;
	ks_oracle *or = NULL;
	o.python = "/nonexistent/python3";
	KT_ASSERT(ks_oracle_start(&or, &o) < 0);
	KT_CONTAINS(ks_error_msg(), "/nonexistent/python3");
	KT_ASSERT(or == NULL);
}

/* `score problems --refs DIR --cases`: what an organizer runs first on a set */
static void test_score_problems_cases(void)
{
	char *py = fake_python(), *dir = fx("tritonbench-g"), *args;
	setenv("KSCORE_PYTHON", py, 1);
	args = ks_asprintf("problems --refs '%s' --cases", dir);
	KT_EQ_INT(score(args), 0);
	KT_CONTAINS(g_out, "add_dict                             ok           1     4");
	KT_CONTAINS(g_out, "add(float32[1000], float32[1000]) -> float32[1000]");
	KT_CONTAINS(g_out, "its test code raised RuntimeError: feature dim too large");
	KT_CONTAINS(g_out, "(1 of 5 cases refused: a1 is a strided view");
	KT_CONTAINS(g_out, "6 problems: 4 with cases, 2 without");
	ks_free(args);
	args = ks_asprintf("problems --refs '%s' --cases --json --only raises,update_inplace --seed 5", dir);
	KT_EQ_INT(score(args), 0);
	KT_CONTAINS(g_out, "\"schema\":\t\"kscore.problem-cases/1\"");
	KT_CONTAINS(g_out, "\"seed\":\t5");
	KT_CONTAINS(g_out, "\"writes\":\t[\"a0\"]");
	KT_CONTAINS(g_out, "\"with_cases\":\t1");
	KT_NOT_CONTAINS(g_out, "add_dict");
	ks_free(args);
	args = ks_asprintf("problems --refs '%s' --cases --only nothing", dir);
	KT_EQ_INT(score(args), 64);
	KT_CONTAINS(g_err, "--only: nothing is not a problem");
	ks_free(args);
	args = ks_asprintf("problems --refs '%s' --cases --only raises", dir);
	KT_EQ_INT(score(args), 65);
	ks_free(args);
	KT_EQ_INT(score("problems --seed 3"), 64);
	KT_CONTAINS(g_err, "apply to --cases");
	KT_EQ_INT(score("problems --cases"), 64);
	KT_CONTAINS(g_err, "imported problem set");
	unsetenv("KSCORE_PYTHON");
	ks_free(dir);
	ks_free(py);
}

static const kt_test tests[] = {
	KT(test_reply_is_read),
	KT(test_broken_replies_are_refused),
	KT(test_cases_make_a_problem),
	KT(test_in_place_strided_and_refused_cases),
	KT(test_materialize_writes_two_folders),
	KT(test_errors_name_file_and_reason),
	KT(test_missing_helper_is_named),
	KT(test_score_problems_cases),
	{ NULL, NULL }
};

KT_MAIN("oracle", tests)
