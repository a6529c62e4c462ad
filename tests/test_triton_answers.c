/* Tests of the bundled Triton answers (submissions/triton/) without torch, Triton or a GPU: every
 * answer parses, defines its problem's Python entry with a signature that accepts the scorer's call
 * (as ks_problem_python_json gives it), keeps to what the trace's static check accepts (except the
 * attacks), and the submission files hold the sources' current text. The checking is
 * tests/triton_answers.py (python3's standard library); the GPU host runs the answers for real. */
#include "ktest.h"
#include "load/problem.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"

static const char *root(void)
{
	const char *r = getenv("KSCORE_ROOT");
	return r && *r ? r : ".";
}

static void need_python(void)
{
	if (system("command -v python3 >/dev/null 2>&1") != 0)
		KT_SKIP("python3 is not installed: the answers are not parsed");
}

/* Runs the checker with args; returns its exit status, its output in *out (caller frees). */
static int run_checker(char **out, const char *args)
{
	char *cmd = ks_asprintf("python3 '%s/tests/triton_answers.py' %s >'%s/out' 2>&1", root(), args, kt_tmpdir());
	char *path = ks_asprintf("%s/out", kt_tmpdir());
	int st = system(cmd);
	*out = NULL;
	KT_EQ_INT(ks_fs_read(out, NULL, path, 1u << 20), 0);
	ks_free(cmd);
	ks_free(path);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void write_file(const char *name, const char *text)
{
	char *path = ks_asprintf("%s/%s", kt_tmpdir(), name);
	FILE *f = fopen(path, "w");
	KT_ASSERT(f);
	fputs(text, f);
	fclose(f);
	ks_free(path);
}

/* Every shipped problem's entry object, keyed by problem, with its suite. */
static void write_entries(void)
{
	char *refs = ks_asprintf("%s/reference_tests", root()), *path = ks_asprintf("%s/entries.json", kt_tmpdir());
	ks_problem_set *set = NULL;
	cJSON *all = cJSON_CreateObject();
	size_t i;
	KT_EQ_INT(ks_problem_set_load(&set, refs, NULL), 0);
	KT_EQ_INT(set->nerrors, 0);
	for (i = 0; i < set->n; i++) {
		cJSON *e = ks_problem_python_json(set->problems[i]);
		KT_ASSERT_MSG(e, "%s has no Python entry", set->problems[i]->name);
		cJSON_AddStringToObject(e, "suite", set->problems[i]->suite);
		cJSON_AddItemToObject(all, set->problems[i]->name, e);
	}
	KT_EQ_INT(ks_json_write_file(path, all, 0), 0);
	cJSON_Delete(all);
	ks_problem_set_free(set);
	ks_free(refs);
	ks_free(path);
}

static void test_bundled_answers_parse_and_match_their_entries(void)
{
	char *out = NULL, *args;
	need_python();
	write_entries();
	args = ks_asprintf("'%s/entries.json' '%s/submissions/triton'", kt_tmpdir(), root());
	KT_ASSERT_MSG(run_checker(&out, args) == 0, "%s", out);
	KT_CONTAINS(out, "triton answers: 10 hackathon, 13 level, 7 attacks checked, 0 problems");
	ks_free(out);
	ks_free(args);
}

/* The checker is not a formality: each kind of bad answer is caught, the good one passes. */
static void test_the_checker_finds_bad_answers(void)
{
	static const struct {
		const char *src, *want;
	} bad[] = {
		{ "import torch\ndef call_kernel(x:\n", "does not parse: line " },
		{ "import torch\ndef call_kernel_v2(x):\n    return x\n", "no top-level function call_kernel" },
		{ "def call_kernel():\n    pass\n", "call_kernel takes 0 positional arguments, the scorer passes 1" },
		{ "def call_kernel(x, n):\n    pass\n", "parameter n is not given" },
		{ "def call_kernel(x, *, fast):\n    pass\n", "parameter fast is not given" },
		{ "import os\ndef call_kernel(x):\n    pass\n", "line 1: os is not allowed at top level" },
		{ "import torch\ntorch.manual_seed(0)\ndef call_kernel(x):\n    pass\n",
		  "line 2: Expr is not allowed at top level" },
		{ "import torch\ndef call_kernel(x):\n    s = torch.cuda.Stream()\n", "line 3: torch.cuda.Stream" },
		{ "def call_kernel(x):\n    return eval('x')\n", "line 2: eval" },
	};
	char *out = NULL, *args;
	size_t i;
	need_python();
	write_file("entry.json", "{\"name\": \"call_kernel\", \"args\": [\"x\"], \"kwargs\": {}, \"returns\": \"y\", "
				 "\"made_by_entry\": []}");
	args = ks_asprintf("--one '%s/entry.json' '%s/submissions/triton/src/hackathon/sin_kernel.py'", kt_tmpdir(), root());
	KT_ASSERT_MSG(run_checker(&out, args) == 0, "%s", out);
	ks_free(out);
	ks_free(args);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		write_file("bad.py", bad[i].src);
		args = ks_asprintf("--one '%s/entry.json' '%s/bad.py'", kt_tmpdir(), kt_tmpdir());
		KT_ASSERT_MSG(run_checker(&out, args) == 1, "accepted: %s", bad[i].src);
		KT_CONTAINS(out, bad[i].want);
		ks_free(out);
		ks_free(args);
	}
	/* keywords: a missing one, one also given by position */
	write_file("entry.json", "{\"name\": \"f\", \"args\": [\"x\"], \"kwargs\": {\"eps\": \"eps\"}, \"returns\": \"y\", "
				 "\"made_by_entry\": []}");
	write_file("bad.py", "def f(x):\n    pass\n");
	args = ks_asprintf("--one '%s/entry.json' '%s/bad.py'", kt_tmpdir(), kt_tmpdir());
	KT_EQ_INT(run_checker(&out, args), 1);
	KT_CONTAINS(out, "f has no parameter eps");
	ks_free(out);
	write_file("bad.py", "def f(eps, x=1):\n    pass\n");
	KT_EQ_INT(run_checker(&out, args), 1);
	KT_CONTAINS(out, "keyword eps is also passed by position");
	ks_free(out);
	write_file("bad.py", "def f(x, eps=1e-6, **kw):\n    pass\n");
	KT_EQ_INT(run_checker(&out, args), 0);
	ks_free(out);
	ks_free(args);
}

static const kt_test tests[] = {
	KT(test_bundled_answers_parse_and_match_their_entries),
	KT(test_the_checker_finds_bad_answers),
	{ NULL, NULL }
};

KT_MAIN("triton_answers", tests)
