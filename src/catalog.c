#include "catalog.h"
#include "compat.h"
#include "errors.h"
#include "fsutil.h"
#include "jsonutil.h"
#include "mem.h"
#include "scoreopts.h"

#include <getopt.h>
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
		size_t len = strlen(p->instruction);
		/* What may be included is the same for every problem: one note, appended here. */
		char *text = ks_asprintf("%s%s\n%s\n", p->instruction,
					 len && p->instruction[len - 1] == '\n' ? "" : "\n",
					 KS_COMPAT_PROMPT_NOTE);
		cJSON_AddStringToObject(o, "instruction", text);
		ks_free(text);
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

int ks_catalog_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "refs", required_argument, 0, 'r' },  { "suite", required_argument, 0, 's' },
		{ "json", no_argument, 0, 'j' },        { "export-prompts", required_argument, 0, 'e' },
		{ "help", no_argument, 0, 'h' },        { 0, 0, 0, 0 }
	};
	char *refs = NULL;
	const char *given = NULL, *suite = NULL, *export = NULL;
	ks_problem_set *set = NULL;
	int opt, json = 0, rc = 0;
	size_t i;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "r:h", lopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			given = optarg;
			break;
		case 's':
			suite = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'e':
			export = optarg;
			break;
		case 'h':
			printf("Usage: score problems [--refs DIR] [--suite NAME] [--json] [--export-prompts FILE]\n"
			       "Lists the reference problems (suite, difficulty, tensors, cases, perf sizes).\n"
			       "  --export-prompts FILE  write the agent instructions as a GEAK-style JSON array\n"
			       "                         (instruction, file, difficulty) for an agent to answer\n"
			       "Exit status: 0 ok, 64 usage, 65 no valid problem, 74 FILE not writable.\n");
			return 0;
		default:
			return 64;
		}
	}
	refs = ks_scoreopts_find_refs(given);
	if (!refs) {
		fprintf(stderr, "score: no reference_tests folder found (use --refs)\n");
		return 65;
	}
	if (ks_problem_set_load(&set, refs, suite) < 0 || set->n == 0) {
		fprintf(stderr, "score problems: no valid problem in %s%s%s\n", refs, set ? "" : ": ",
			set ? "" : ks_error_msg());
		ks_problem_set_free(set);
		ks_free(refs);
		return 65;
	}
	for (i = 0; i < set->nerrors; i++)
		fprintf(stderr, "score problems: invalid problem: %s\n", set->errors[i]);
	if (export) {
		cJSON *a = ks_catalog_prompts(set);
		if (ks_json_write_file(export, a, 1) < 0) {
			fprintf(stderr, "score problems: %s\n", ks_error_msg());
			rc = 74;
		} else if (!json)
			fprintf(stderr, "score problems: wrote %zu instructions to %s\n", set->n, export);
		cJSON_Delete(a);
	}
	if (json) {
		cJSON *a = ks_catalog_list(set);
		char *s = cJSON_Print(a);
		printf("%s\n", s);
		cJSON_free(s);
		cJSON_Delete(a);
	} else if (!export) {
		printf("%-10s %-28s %4s %-6s %5s %5s  %s\n", "suite", "problem", "diff", "peak", "cases", "perf",
		       "description");
		for (i = 0; i < set->n; i++) {
			const ks_problem *p = set->problems[i];
			printf("%-10s %-28s %4d %-6s %5zu %5zu  %.60s\n", p->suite, p->name, p->difficulty, p->peak,
			       p->ncorrectness, p->nperf, p->description ? p->description : "");
		}
		printf("%zu problems\n", set->n);
	}
	ks_problem_set_free(set);
	ks_free(refs);
	return rc;
}
