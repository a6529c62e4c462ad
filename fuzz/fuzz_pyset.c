/* fuzz_pyset: one Python source file through the problem-set readers' static reading
 * (src/load/sets/pyscan.c) and both readers' per-file step (tritonbench.c, kernelbench.c): a
 * problem set is a folder from anywhere, so no file of it may crash, hang or overrun the reader.
 * The contract: every name found is non-empty and within the cap, and a reader either returns a
 * reason or fills the problem's reference. */
#include "load/sets/set_int.h"
#include "fuzz.h"

#define FZ_MAX_NAMES 64

static void check_problem(const ks_set_problem *p, const char *reason)
{
	size_t i;
	FZ_CHECK(reason ? *reason != 0 : p->reference != NULL, "a reader neither refused nor read");
	FZ_CHECK(p->nkernels <= FZ_MAX_NAMES && p->nentries <= FZ_MAX_NAMES && p->nimports <= FZ_MAX_NAMES,
		 "more names than the cap");
	for (i = 0; i < p->nentries; i++)
		FZ_CHECK(*p->entries[i], "an empty entry name");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ks_set_limits lim = KS_SET_LIMITS_INIT;
	ks_set_problem p;
	ks_py_info info;
	char *text = fz_cstr(data, size), *reason;
	size_t i;

	lim.max_names = FZ_MAX_NAMES;
	ks_py_scan(&info, text, FZ_MAX_NAMES);
	FZ_CHECK(info.ndefs <= FZ_MAX_NAMES && info.nimports <= FZ_MAX_NAMES, "more names than the cap");
	for (i = 0; i < info.ndefs; i++) {
		FZ_CHECK(*info.defs[i].name, "an empty definition name");
		(void)ks_py_uses(text, info.defs[i].name);
	}
	ks_py_info_clear(&info);

	memset(&p, 0, sizeof(p));
	p.name = ks_strdup("fuzz");
	p.suite = ks_strdup("tritonbench-g");
	reason = ks_set_tritonbench_reader.read_file(&p, text, &lim);
	check_problem(&p, reason);
	ks_free(reason);
	ks_set_problem_clear(&p);

	memset(&p, 0, sizeof(p));
	p.name = ks_strdup("1_Fuzz");
	p.suite = ks_strdup("kernelbench-level1");
	reason = ks_set_kernelbench_reader.read_file(&p, text, &lim);
	check_problem(&p, reason);
	ks_free(reason);
	ks_set_problem_clear(&p);
	ks_free(text);
	return 0;
}
