/* Tests of the static Python reading the problem-set readers share (src/load/sets/pyscan.c): top-
 * level definitions only, Triton kernels by their decorators, strings, comments and brackets that
 * hide what looks like code, imports, result_gold, and the uses of a name. */
#include "ktest.h"
#include "load/sets/set_int.h"
#include "util/mem.h"

static const ks_py_def *def(const ks_py_info *in, const char *name)
{
	size_t i;
	for (i = 0; i < in->ndefs; i++)
		if (strcmp(in->defs[i].name, name) == 0)
			return &in->defs[i];
	return NULL;
}

static void test_top_level_defs_and_kernels(void)
{
	static const char src[] =
		"import torch, triton.language as tl\n"
		"from triton import jit\n"
		"from . import sibling\n"
		"@triton.autotune(configs=[\n"
		"    triton.Config({}),\n"
		"], key=['n'])\n"
		"@triton.jit\n"
		"def kern(x):\n"
		"    def inner():\n"
		"        pass\n"
		"def plain(a,\n"
		"def fake_in_brackets(): pass,\n"
		"          b):\n"
		"    '''\n"
		"def in_docstring():\n"
		"    '''\n"
		"    s = \"def in_string(): \"\n"
		"# def commented():\n"
		"class Model(nn.Module):\n"
		"    pass\n"
		"alias = plain\n"
		"x = \\\n"
		"def after_backslash(): pass\n"
		"@jit\n"
		"def k2(y): pass\n"
		"result_gold = test_all()\n";
	ks_py_info in;
	ks_py_scan(&in, src, 64);
	KT_ASSERT(def(&in, "kern") && def(&in, "kern")->kernel);
	KT_ASSERT(def(&in, "k2") && def(&in, "k2")->kernel);
	KT_ASSERT(def(&in, "plain") && !def(&in, "plain")->kernel);
	KT_ASSERT(def(&in, "Model") && def(&in, "Model")->is_class);
	KT_ASSERT(def(&in, "alias") && def(&in, "alias")->is_name);
	KT_ASSERT(def(&in, "inner") == NULL);
	KT_ASSERT(def(&in, "fake_in_brackets") == NULL);
	KT_ASSERT(def(&in, "in_docstring") == NULL);
	KT_ASSERT(def(&in, "in_string") == NULL);
	KT_ASSERT(def(&in, "commented") == NULL);
	KT_ASSERT(def(&in, "after_backslash") == NULL);
	/* torch, triton (twice: once), the relative import not a module */
	KT_EQ_INT((int)in.nimports, 2);
	KT_EQ_STR(in.imports[0], "torch");
	KT_EQ_STR(in.imports[1], "triton");
	KT_EQ_STR(in.gold_fn, "test_all");
	ks_py_info_clear(&in);
}

static void test_caps_on_names(void)
{
	char *src = NULL;
	ks_py_info in;
	size_t i, len = 0;
	for (i = 0; i < 100; i++) {
		char line[64];
		int n = snprintf(line, sizeof(line), "def f%zu(): pass\n", i);
		src = ks_realloc(src, len + (size_t)n + 1);
		memcpy(src + len, line, (size_t)n + 1);
		len += (size_t)n;
	}
	ks_py_scan(&in, src, 10);
	KT_EQ_INT((int)in.ndefs, 10);
	KT_EQ_INT(in.truncated, 1);
	ks_py_info_clear(&in);
	ks_free(src);
}

static void test_uses(void)
{
	static const char src[] = "y = add(x)\nz = obj.sub(x)\nw = Scale.apply(x)\nk[grid](x)\n"
				  "s = 'mul(x)'\n# div(x)\nt = add_more(x)\n";
	KT_ASSERT(ks_py_uses(src, "add"));
	KT_ASSERT(!ks_py_uses(src, "sub"));   /* an attribute, not the module's name */
	KT_ASSERT(ks_py_uses(src, "Scale"));  /* Scale.apply */
	KT_ASSERT(ks_py_uses(src, "k"));      /* k[grid](...) */
	KT_ASSERT(!ks_py_uses(src, "mul"));   /* in a string */
	KT_ASSERT(!ks_py_uses(src, "div"));   /* in a comment */
	KT_ASSERT(!ks_py_uses(src, "more"));
	KT_ASSERT(!ks_py_uses("", "add"));
}

static void test_unterminated_text_is_fine(void)
{
	ks_py_info in;
	ks_py_scan(&in, "def a(:\n  '''never closed\ndef b(): pass\n\"\\", 8);
	KT_ASSERT(def(&in, "a") != NULL);
	KT_ASSERT(def(&in, "b") == NULL);
	ks_py_info_clear(&in);
	KT_ASSERT(!ks_py_uses("(((((", "x"));
}

static const kt_test tests[] = {
	KT(test_top_level_defs_and_kernels),
	KT(test_caps_on_names),
	KT(test_uses),
	KT(test_unterminated_text_is_fine),
	{ NULL, NULL }
};

KT_MAIN("pyscan", tests)
