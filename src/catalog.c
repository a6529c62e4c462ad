/* catalog: see include/catalog.h. */
#include "catalog.h"
#include "errors.h"
#include "fsutil.h"
#include "jsonutil.h"
#include "mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cJSON *ks_catalog_prompts(const ks_problem_set *set)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;
	for (i = 0; i < set->n; i++) {
		const ks_problem *p = set->problems[i];
		cJSON *o = cJSON_CreateObject();
		char *file = ks_asprintf("%s.%s", p->name, strcmp(p->suite, "hackathon") ? "cu" : "py");
		cJSON_AddStringToObject(o, "instruction", p->instruction);
		cJSON_AddStringToObject(o, "file", file);
		cJSON_AddNumberToObject(o, "difficulty", p->difficulty);
		cJSON_AddStringToObject(o, "suite", p->suite);
		cJSON_AddItemToArray(a, o);
		ks_free(file);
	}
	return a;
}

static char *case_text(const ks_problem *p, const ks_case *c)
{
	return ks_strdup(c->label ? c->label : p->name);
}

cJSON *ks_catalog_list(const ks_problem_set *set)
{
	cJSON *a = cJSON_CreateArray();
	size_t i, k;
	for (i = 0; i < set->n; i++) {
		const ks_problem *p = set->problems[i];
		cJSON *o = cJSON_CreateObject(), *d, *t, *pf;
		cJSON_AddStringToObject(o, "name", p->name);
		cJSON_AddStringToObject(o, "suite", p->suite);
		cJSON_AddNumberToObject(o, "difficulty", p->difficulty);
		cJSON_AddStringToObject(o, "description", p->description ? p->description : "");
		d = cJSON_AddArrayToObject(o, "dims");
		for (k = 0; k < p->ndims; k++)
			cJSON_AddItemToArray(d, cJSON_CreateString(p->dims[k]));
		t = cJSON_AddArrayToObject(o, "tensors");
		for (k = 0; k < p->nargs; k++) {
			const ks_arg *a2 = &p->args[k];
			char *s;
			if (a2->role == KS_ROLE_SCALAR)
				continue;
			s = ks_asprintf("%s %s %s", a2->name, ks_dtype_name(a2->dtype),
					a2->role == KS_ROLE_IN ? "in" : a2->role == KS_ROLE_OUT ? "out" : "inout");
			cJSON_AddItemToArray(t, cJSON_CreateString(s));
			ks_free(s);
		}
		cJSON_AddNumberToObject(o, "correctness_cases", (double)p->ncorrectness);
		pf = cJSON_AddArrayToObject(o, "perf_cases");
		for (k = 0; k < p->nperf; k++) {
			char *s = case_text(p, &p->perf[k]);
			cJSON_AddItemToArray(pf, cJSON_CreateString(s));
			ks_free(s);
		}
		cJSON_AddStringToObject(o, "peak", p->peak);
		cJSON_AddStringToObject(o, "bytes", p->bytes);
		cJSON_AddStringToObject(o, "flops", p->flops ? p->flops : "0");
		cJSON_AddItemToArray(a, o);
	}
	return a;
}
