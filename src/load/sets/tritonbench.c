/* tritonbench: the TritonBench-G reader of the set family (set.h). A reference file as GEAK-eval
 * ships it is the reference implementation (Triton kernels and the Python entry functions), a
 * line of exactly 146 '#', then the test code: test functions that call the entry functions and
 * return their outputs, ending with `result_gold = test_...()`, the value GEAK-eval compares. */
#include "load/sets/set_int.h"

#include <string.h>

#include "util/mem.h"

#define TB_SEPARATOR_LEN 146

/* The separator line: exactly TB_SEPARATOR_LEN '#' (a trailing CR or spaces allowed). Returns the
 * start of the line and sets *after to the next line's start, or NULL when there is none. */
static const char *find_separator(const char *text, const char **after)
{
	const char *line = text;
	while (line && *line) {
		const char *nl = strchr(line, '\n'), *e = nl ? nl : line + strlen(line), *p = line;
		while (p < e && *p == '#')
			p++;
		if (p - line == TB_SEPARATOR_LEN) {
			while (p < e && (*p == ' ' || *p == '\t' || *p == '\r'))
				p++;
			if (p == e) {
				*after = nl ? nl + 1 : e;
				return line;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return NULL;
}

static char *read_tb(ks_set_problem *p, const char *text, const ks_set_limits *lim)
{
	ks_py_info ref, test;
	const char *after = NULL, *sep = find_separator(text, &after);
	char *reason = NULL;
	size_t i, tests = 0;

	if (!sep)
		return ks_strdup("no line of exactly 146 '#' between a reference implementation and its test code "
				 "(not a TritonBench-G reference file)");
	p->reference = ks_strndup(text, (size_t)(sep - text));
	p->test_code = ks_strdup(after);
	ks_py_scan(&ref, p->reference, lim->max_names);
	ks_py_scan(&test, p->test_code, lim->max_names);
	for (i = 0; i < ref.ndefs; i++)
		if (ref.defs[i].kernel)
			ks_set_strv_add(&p->kernels, &p->nkernels, ref.defs[i].name, lim->max_names);
	for (i = 0; i < ref.nimports; i++)
		ks_set_strv_add(&p->imports, &p->nimports, ref.imports[i], lim->max_names);
	/* the entries: the reference's own functions and classes (an autograd Function's apply, a
	 * module, an alias of either) that its test code calls; a kernel the test code launches
	 * itself only where nothing else is called */
	for (i = 0; i < ref.ndefs; i++)
		if (!ref.defs[i].kernel && ks_py_uses(p->test_code, ref.defs[i].name))
			ks_set_strv_add(&p->entries, &p->nentries, ref.defs[i].name, lim->max_names);
	for (i = 0; p->nentries == 0 && i < ref.ndefs; i++)
		if (ref.defs[i].kernel && ks_py_uses(p->test_code, ref.defs[i].name))
			ks_set_strv_add(&p->entries, &p->nentries, ref.defs[i].name, lim->max_names);
	if (test.gold_fn)
		p->test_fn = ks_strdup(test.gold_fn);
	for (i = 0; i < test.ndefs; i++)
		tests += !test.defs[i].is_name && !test.defs[i].is_class;
	if (p->nkernels == 0)
		reason = ks_strdup("the reference defines no @triton.jit kernel");
	else if (tests == 0)
		reason = ks_strdup("no test code below the separator");
	else if (!p->test_fn && strstr(p->test_code, "result_gold ="))
		reason = ks_strdup("the test code sets result_gold only inside a block (such as `if __name__ == "
				   "'__main__':`), which GEAK-eval's import of the file never runs");
	else if (!p->test_fn)
		reason = ks_strdup("the test code never sets result_gold = test_...() (the value GEAK-eval compares)");
	else if (p->nentries == 0)
		reason = ks_strdup("the test code calls no function of the reference");
	for (i = 0; !reason && i < test.ndefs && (test.defs[i].is_name || strcmp(test.defs[i].name, p->test_fn) != 0); i++)
		;
	if (!reason && i == test.ndefs)
		reason = ks_asprintf("result_gold calls %s, which the test code does not define", p->test_fn);
	ks_py_info_clear(&ref);
	ks_py_info_clear(&test);
	return reason;
}

const ks_set_reader ks_set_tritonbench_reader = { KS_SET_TRITONBENCH_G, read_tb };
