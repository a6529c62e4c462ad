#include "ktest.h"
#include "load/extract.h"
#include "util/errors.h"
#include "util/mem.h"

#include <cJSON.h>

#define K "__global__ void k(float *y) { y[0] = 1; }\n"

/* The last result; kept reachable so that the leak checker does not count them. */
static char *g_code, *g_note;

/* Extracts and expects code; returns it (valid until the next call). */
static char *take(const char *text)
{
	ks_free(g_code);
	ks_free(g_note);
	g_code = g_note = NULL;
	KT_EQ_INT(ks_extract_code(&g_code, &g_note, text), 0);
	KT_ASSERT_MSG(g_code != NULL, "no code from \"%s\" (note: %s)", text, g_note);
	KT_ASSERT(g_note != NULL);
	return g_code;
}

static void expect_none(const char *text)
{
	char *code = (char *)"sentinel";
	ks_free(g_note);
	g_note = NULL;
	KT_EQ_INT(ks_extract_code(&code, &g_note, text), 0);
	KT_ASSERT_MSG(code == NULL, "expected no code from \"%s\", got \"%s\"", text, code);
	KT_ASSERT(g_note != NULL);
}

static void test_whole_text_without_fences(void)
{
	const char *text = "#include <cuda_fp16.h>\n" K "// end";
	KT_EQ_STR(take(text), text);
	KT_EQ_STR(g_note, "whole text");
}

static void test_backtick_and_tilde_fences(void)
{
	KT_EQ_STR(take("Here is the kernel:\n```cuda\n" K "```\nIt is fast.\n"), K);
	KT_EQ_STR(g_note, "1 ```cuda block");
	KT_EQ_STR(take("~~~cu\n" K "~~~\n"), K);
	KT_EQ_STR(g_note, "1 ~~~cu block");
	KT_EQ_STR(take("`````c++\n" K "`````"), K);
	KT_EQ_STR(g_note, "1 ```c++ block");
}

static void test_untagged_and_info_strings(void)
{
	KT_EQ_STR(take("```\n" K "```\n"), K);
	KT_EQ_STR(g_note, "1 untagged ``` block");
	/* language is the info string's first word, case-insensitive */
	KT_EQ_STR(take("```CUDA title=\"sin.cu\"\n" K "```\n"), K);
	KT_EQ_STR(g_note, "1 ```cuda block");
	KT_EQ_STR(take("```Cpp\n" K "```\n"), K);
}

static void test_other_languages_ignored(void)
{
	const char *text = "```python\nimport torch\nx = torch.ones(3)\n```\n"
			   "```cuda\n" K "```\n"
			   "```bash\nnvcc k.cu\n```\n";
	char *code = take(text);
	KT_EQ_STR(code, K);
	KT_NOT_CONTAINS(code, "torch");
	KT_EQ_STR(g_note, "1 ```cuda block; 1 ```python block, 1 ```bash block ignored");
}

static void test_several_blocks_joined_in_order(void)
{
	const char *text = "First the helper:\n"
			   "```cuda\n__device__ float sq(float x) { return x * x; }\n```\n"
			   "then the kernel:\n```cuda\n" K "```\n```\n// tail\n```\n"
			   "```python\nprint(1)\n```\n";
	KT_EQ_STR(take(text), "__device__ float sq(float x) { return x * x; }\n" K "// tail\n");
	KT_EQ_STR(g_note,
		  "2 ```cuda blocks, 1 untagged ``` block joined; 1 ```python block ignored");
}

static void test_unclosed_fence_runs_to_end(void)
{
	KT_EQ_STR(take("```cuda\n" K "// more"), K "// more");
	KT_CONTAINS(g_note, "1 ```cuda block");
	KT_CONTAINS(g_note, "not closed");
	/* a shorter or different fence does not close a block */
	KT_EQ_STR(take("````cuda\n```\n~~~~\n" K "````\n"), "```\n~~~~\n" K);
}

static void test_nested_backticks(void)
{
	const char *text = "````cuda\n/* example:\n```python\nx\n```\n*/\n" K "````\nafter\n";
	KT_EQ_STR(take(text), "/* example:\n```python\nx\n```\n*/\n" K);
	KT_EQ_STR(g_note, "1 ```cuda block");
	/* an inline ```x``` line is not a fence */
	KT_EQ_STR(take("Use ```k<<<g, b>>>``` here.\n" K), "Use ```k<<<g, b>>>``` here.\n" K);
	KT_EQ_STR(g_note, "whole text");
}

static void test_fence_indentation(void)
{
	KT_EQ_STR(take("   ```cuda\n   " K "     int x;\n   ```\n"), K "  int x;\n");
	/* four spaces make an indented code block, not a fence: the whole text is taken */
	const char *text = "    ```cuda\n" K "    ```\n";
	KT_EQ_STR(take(text), text);
	KT_EQ_STR(g_note, "whole text");
}

static void test_crlf(void)
{
	char *code = take("Sure!\r\n```cuda\r\n__global__ void k(int *p)\r\n{ *p = 1; }\r\n"
			  "```\r\nDone.\r\n");
	KT_EQ_STR(code, "__global__ void k(int *p)\n{ *p = 1; }\n");
	KT_EQ_STR(g_note, "1 ```cuda block");
}

static void test_chat_tokens_removed(void)
{
	char *code = take(K "<|im_end|><|endoftext|>");
	KT_EQ_STR(code, K);
	KT_EQ_STR(g_note, "whole text; 2 chat tokens removed");
	code = take("```cuda\n" K "<|eot_id|>```<|EOT|>\n");
	KT_EQ_STR(code, K);
	KT_CONTAINS(g_note, "2 chat tokens removed");
	/* only the listed end-of-turn tokens are removed */
	KT_CONTAINS(take("<|im_start|>" K), "<|im_start|>");
}

static void test_no_global_gives_null_with_reason(void)
{
	expect_none("```python\n@triton.jit\ndef k(x): pass\n```\n");
	KT_EQ_STR(g_note,
		  "no __global__ function in any C/C++/CUDA block; 1 ```python block ignored");
	expect_none("```cuda\n__device__ int f() { return 1; }\n```\n```cuda\nint x;\n```\n");
	KT_EQ_STR(g_note, "no __global__ function in 2 ```cuda blocks");
	expect_none("import triton\n");
	KT_EQ_STR(g_note, "no __global__ function in the whole text");
	expect_none("");
	KT_EQ_STR(g_note, "no __global__ function in the whole text (it is empty)");
	/* a kernel hidden in an ignored block is not taken */
	expect_none("```python\n" K "```\n");
	KT_CONTAINS(g_note, "1 ```python block ignored");
}

static void test_many_tags_keep_the_note_small(void)
{
	char text[40000];
	size_t n = 0;
	int i;
	for (i = 0; i < 400; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "```lang%d\nx\n```\n", i);
	snprintf(text + n, sizeof(text) - n, "```cuda\n" K "```\n");
	KT_EQ_STR(take(text), K);
	KT_ASSERT(strlen(g_note) < 1024);
	KT_CONTAINS(g_note, "1 ```cuda block; ");
	KT_CONTAINS(g_note, "392 other blocks ignored");
}

static void test_invalid_arguments(void)
{
	char *code, *note;
	KT_EQ_INT(ks_extract_code(&code, &note, NULL), KS_EINVALID);
	KT_EQ_INT(ks_extract_code(NULL, &note, "x"), KS_EINVALID);
}

static void test_launch_comment_block_form(void)
{
	const char *src =
		"#include <cuda.h>\n"
		"/* kscore-launch\n"
		"{ \"kernels\": [\n"
		"    { \"name\": \"partial\", \"grid\": [\"rows\", \"cdiv(cols, 1024)\"],\n"
		"      \"block\": [256], \"args\": [\"x\", \"tmp\"] },\n"
		"    { \"name\": \"finish\", \"grid\": [\"rows\"], \"block\": [256] } ],\n"
		"  \"scratch\": [\n"
		"    { \"name\": \"tmp\", \"dtype\": \"f32\", \"count\": \"rows * 4\" } ] }\n"
		"*/\n" K "/* kscore-launch {\"kernel\": \"second\"} */\n";
	char *json = ks_extract_launch_comment(src);
	cJSON *v;
	KT_ASSERT(json != NULL);
	KT_ASSERT(json[0] == '{' && json[strlen(json) - 1] == '}');
	v = cJSON_Parse(json);
	KT_ASSERT_MSG(v != NULL, "not JSON: %s", json);
	KT_EQ_INT(cJSON_GetArraySize(cJSON_GetObjectItem(v, "kernels")), 2);
	KT_EQ_STR(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(v, "scratch"), 0),
				      "count")->valuestring, "rows * 4");
	cJSON_Delete(v);
	ks_free(json);
}

static void test_launch_comment_line_form(void)
{
	char *json = ks_extract_launch_comment(
		K "// kscore-launch: { \"kernel\": \"k\", \"grid\": [\"cdiv(n,512)\"],"
		" \"block\": [512] }  \r\n"
		"// kscore-launch: {\"kernel\": \"ignored\"}\n");
	KT_EQ_STR(json, "{ \"kernel\": \"k\", \"grid\": [\"cdiv(n,512)\"], \"block\": [512] }");
	ks_free(json);
	json = ks_extract_launch_comment("//kscore-launch {\"kernel\":\"k\"}");
	KT_EQ_STR(json, "{\"kernel\":\"k\"}");
	ks_free(json);
}

static void test_launch_comment_absent(void)
{
	KT_ASSERT(ks_extract_launch_comment(K) == NULL);
	KT_ASSERT(ks_extract_launch_comment(NULL) == NULL);
	KT_ASSERT(ks_extract_launch_comment("/* see kscore-launch in the docs */\n" K) == NULL);
	KT_ASSERT(ks_extract_launch_comment("/* kscore-launcher {} */") == NULL);
	KT_ASSERT(ks_extract_launch_comment("const char *s = \"/* kscore-launch {} */\";") == NULL);
	KT_ASSERT(ks_extract_launch_comment("char c = '\"'; // note\n/* kscore-launch") == NULL);
}


static void test_text_that_is_not_utf8_gives_no_code(void)
{
	/* 0xFF in the kernel: NVRTC would say the kernel is missing; extraction names the byte */
	expect_none("// caf\xC3\xA9\n__global__ void k(float *y) { y[0] = 1; }\xFF\n");
	KT_EQ_STR(g_note, "no code: the text holds a byte that is not UTF-8 (0xFF) at byte offset 50 (line 2, "
			  "column 42)");
	expect_none("```cuda\n" K "// \xE2\x82\n```\n"); /* a truncated sequence */
	KT_CONTAINS(g_note, "(0xE2) at byte offset 53 (line 3, column 4)");
	expect_none(K "\xED\xA0\x80"); /* an encoded surrogate */
	KT_CONTAINS(g_note, "(0xED)");
	expect_none(K "\xC0\xAF"); /* an overlong '/' */
	KT_CONTAINS(g_note, "(0xC0)");
	/* valid multi-byte text is code */
	KT_CONTAINS(take("// \xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\n" K), "\xF0\x9F\x98\x80");
	/* a NUL, which a C string cannot carry, is found when the length is known */
	KT_EQ_INT(ks_extract_check_text("ab\ncd\0e", 7), KS_EINVALID);
	KT_EQ_STR(ks_error_msg(), "a NUL character at byte offset 5 (line 2, column 3)");
	KT_EQ_INT(ks_extract_check_text("ab\xFF\0", 4), KS_EINVALID);
	KT_CONTAINS(ks_error_msg(), "not UTF-8 (0xFF) at byte offset 2");
	KT_EQ_INT(ks_extract_check_text("\xC3\xA9t", 3), 0);
}

/* Answers in Python or Triton are named as such (issue 11, item 4); CUDA and prose are not. */
static void test_foreign_language_is_named(void)
{
	KT_EQ_STR(ks_extract_foreign_language("```python\nimport triton\nimport triton.language as tl\n\n"
					      "@triton.jit\ndef k(x_ptr, n):\n    pid = tl.program_id(0)\n```"),
		  "Triton (Python)");
	KT_EQ_STR(ks_extract_foreign_language("import torch\n\nclass Model(torch.nn.Module):\n"
					      "    def forward(self, x):\n        return x * 2\n"),
		  "Python");
	KT_EQ_STR(ks_extract_foreign_language("Use this:\n```python\nprint(1)\n```\n"), "Python");
	KT_ASSERT(ks_extract_foreign_language("__device__ float f(float x) { return x; }\n") == NULL);
	KT_ASSERT(ks_extract_foreign_language("I cannot write this kernel, sorry.") == NULL);
	/* one import line in a C comment is not Python */
	KT_ASSERT(ks_extract_foreign_language("// import this\nint x;\n") == NULL);
	KT_ASSERT(ks_extract_foreign_language(NULL) == NULL);
}

static const kt_test tests[] = {
	KT(test_whole_text_without_fences), KT(test_backtick_and_tilde_fences),
	KT(test_untagged_and_info_strings), KT(test_other_languages_ignored),
	KT(test_several_blocks_joined_in_order), KT(test_unclosed_fence_runs_to_end),
	KT(test_nested_backticks), KT(test_fence_indentation), KT(test_crlf),
	KT(test_chat_tokens_removed), KT(test_no_global_gives_null_with_reason),
	KT(test_many_tags_keep_the_note_small), KT(test_invalid_arguments),
	KT(test_launch_comment_block_form), KT(test_launch_comment_line_form),
	KT(test_launch_comment_absent),
	KT(test_text_that_is_not_utf8_gives_no_code), KT(test_foreign_language_is_named), { 0 }
};
KT_MAIN("extract", tests)
