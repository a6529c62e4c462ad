/* kernelbench: the KernelBench reader of the set family (set.h). A problem is a module
 * level<L>/<N>_<Name>.py defining `class Model` (the reference: its forward is the operator),
 * `get_inputs()` (the forward's arguments) and `get_init_inputs()` (the constructor's). */
#include "load/sets/set_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/mem.h"

static char *read_kb(ks_set_problem *p, const char *text, const ks_set_limits *lim)
{
	static const char *const need[] = { "Model", "get_inputs", "get_init_inputs" };
	ks_py_info info;
	char *reason = NULL, missing[96] = "";
	size_t i, k;

	if (!isdigit((unsigned char)p->name[0]) || !strchr(p->name, '_'))
		return ks_strdup("the file name is not <number>_<Name>.py (KernelBench's problem layout)");
	p->number = atoi(p->name);
	p->reference = ks_strdup(text);
	ks_py_scan(&info, text, lim->max_names);
	for (k = 0; k < sizeof(need) / sizeof(need[0]); k++) {
		int found = 0;
		for (i = 0; i < info.ndefs && !found; i++)
			found = strcmp(info.defs[i].name, need[k]) == 0 && !info.defs[i].is_name &&
				info.defs[i].is_class == (k == 0);
		if (!found) {
			size_t l = strlen(missing);
			snprintf(missing + l, sizeof(missing) - l, "%s%s%s", l ? ", " : "", need[k], k ? "()" : "");
		}
	}
	if (*missing)
		reason = ks_asprintf("not a KernelBench problem: it defines no %s at its top level", missing);
	else
		ks_set_strv_add(&p->entries, &p->nentries, "Model", lim->max_names);
	for (i = 0; i < info.ndefs; i++)
		if (info.defs[i].kernel)
			ks_set_strv_add(&p->kernels, &p->nkernels, info.defs[i].name, lim->max_names);
	for (i = 0; i < info.nimports; i++)
		ks_set_strv_add(&p->imports, &p->nimports, info.imports[i], lim->max_names);
	ks_py_info_clear(&info);
	return reason;
}

const ks_set_reader ks_set_kernelbench_reader = { KS_SET_KERNELBENCH, read_kb };
