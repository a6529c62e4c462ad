/* score problems: lists the reference problems and exports their agent instructions
 * (src/cli/cmd.h). The listings are catalog.c's; this file is options and output. */
#include "refs/catalog.h"
#include "refs/setcases.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "util/numparse.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROG "score problems"

/* `score problems --refs DIR --cases`: the oracle over the set (refs/setcases.h), listed or as
 * JSON. Frees src. Returns 0 when some problem got cases, 65 when none did, 64 for a name --only
 * does not know, 69 when the oracle cannot start. */
static int list_cases(ks_problem_source *src, int json, const ks_setcases_options *o)
{
	cJSON *res = NULL;
	char *t;
	int rc = KS_EXIT_OK;
	if (ks_setcases_run(&res, src, o) < 0) {
		rc = o->only && strstr(ks_error_msg(), "--only") ? KS_EXIT_USAGE : KS_EXIT_UNAVAILABLE;
		fprintf(stderr, PROG ": %s: %s\n", rc == KS_EXIT_USAGE ? "usage" : "error", ks_error_msg());
		ks_set_free(src);
		return rc;
	}
	t = json ? ks_json_print(res, 1) : ks_setcases_text(res);
	printf("%s%s", t, json ? "\n" : "");
	if (ks_json_num_or(cJSON_GetObjectItemCaseSensitive(res, "summary"), "with_cases", 0) == 0)
		rc = KS_EXIT_DATAERR;
	ks_free(t);
	cJSON_Delete(res);
	ks_set_free(src);
	return rc;
}

/* `score problems --refs DIR` on a problem set read from its source (TritonBench-G, KernelBench):
 * what it holds and, for every file it could not use, why (docs/problem-format.md, "Imported
 * problem sets"). Returns an exit status: 0, or 65 when the set holds no usable problem. */
static int list_source(const char *dir, int json, const ks_setcases_options *cases)
{
	ks_problem_source *src = NULL;
	size_t i;
	if (ks_set_read(&src, dir, NULL) < 0) {
		fprintf(stderr, PROG ": error: %s\n", ks_error_msg());
		return KS_EXIT_DATAERR;
	}
	if (cases)
		return list_cases(src, json, cases);
	if (json) {
		cJSON *o = ks_catalog_source(src);
		char *t = ks_json_print(o, 1);
		printf("%s\n", t);
		ks_free(t);
		cJSON_Delete(o);
	} else {
		printf("%-20s %-36s %7s %4s  %s\n", "suite", "problem", "kernels", "perf", "entry");
		for (i = 0; i < src->n; i++) {
			const ks_set_problem *p = &src->problems[i];
			printf("%-20s %-36s %7zu %4s  %s\n", p->suite, p->name, p->nkernels,
			       src->format == KS_SET_KERNELBENCH ? "-" : p->perf_path ? "yes" : "no",
			       p->nentries ? p->entries[0] : "");
		}
		for (i = 0; i < src->nskipped; i++)
			fprintf(stderr, PROG ": %s: not used: %s\n", src->skipped[i].path, src->skipped[i].reason);
		printf("%zu problem%s (%s), %zu file%s not used\n", src->n, src->n == 1 ? "" : "s",
		       ks_set_format_name(src->format), src->nskipped, src->nskipped == 1 ? "" : "s");
	}
	i = src->n;
	ks_set_free(src);
	return i ? KS_EXIT_OK : KS_EXIT_DATAERR;
}

/* Writes o to path and frees it; says why on stderr when it cannot. */
static int write_json(const char *path, cJSON *o, int pretty)
{
	int rc = ks_json_write_file(path, o, pretty);
	if (rc < 0)
		fprintf(stderr, PROG ": %s\n", ks_error_msg());
	cJSON_Delete(o);
	return rc;
}

int ks_catalog_main(int argc, char **argv)
{
	enum { OPT_JSON = 1, OPT_EXPORT, OPT_PLANS, OPT_SM_COUNT, OPT_LANGUAGE, OPT_CASES, OPT_ONLY, OPT_SEED,
	       OPT_ORACLE_TIMEOUT, OPT_UNCONFINED };
	static const struct option lopts[] = {
		KS_CLI_REFS_LONGOPTS,
		{ "json", no_argument, 0, OPT_JSON },
		{ "export-prompts", required_argument, 0, OPT_EXPORT },
		{ "language", required_argument, 0, OPT_LANGUAGE },
		{ "plans", required_argument, 0, OPT_PLANS },
		{ "sm-count", required_argument, 0, OPT_SM_COUNT },
		{ "cases", no_argument, 0, OPT_CASES },
		{ "only", required_argument, 0, OPT_ONLY },
		{ "seed", required_argument, 0, OPT_SEED },
		{ "oracle-timeout", required_argument, 0, OPT_ORACLE_TIMEOUT },
		{ "unconfined", no_argument, 0, OPT_UNCONFINED },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	ks_cli_refs ro = { 0 };
	char *refs = NULL;
	const char *export = NULL, *plans = NULL, *language = NULL;
	ks_prompt_lang lang = KS_PROMPT_CUDA;
	long sm_count = 0;
	ks_problem_set *set = NULL;
	ks_setcases_options co = KS_SETCASES_OPTIONS_INIT;
	int opt, json = 0, rc = KS_EXIT_OK, cases = 0, oracle_opt = 0;
	size_t i;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "r:h", lopts, NULL)) != -1) {
		if (ks_cli_refs_option(&ro, opt, optarg))
			continue;
		switch (opt) {
		case OPT_JSON:
			json = 1;
			break;
		case OPT_EXPORT:
			export = optarg;
			break;
		case OPT_PLANS:
			plans = optarg;
			break;
		case OPT_CASES:
			cases = 1;
			break;
		case OPT_ONLY:
			co.only = optarg;
			oracle_opt = 1;
			break;
		case OPT_SEED:
			if (ks_numparse_u64(&co.seed, optarg, UINT64_MAX, 1) < 0)
				return ks_cli_usage_error(PROG, "--seed: %s", ks_error_msg());
			oracle_opt = 1;
			break;
		case OPT_ORACLE_TIMEOUT: {
			char *end;
			co.oracle.timeout_s = strtod(optarg, &end);
			if (*end || end == optarg || !(co.oracle.timeout_s >= 1 && co.oracle.timeout_s <= 3600))
				return ks_cli_usage_error(PROG, "--oracle-timeout takes 1 to 3600 seconds, not \"%s\"",
							  optarg);
			oracle_opt = 1;
			break;
		}
		case OPT_UNCONFINED:
			co.oracle.unconfined = 1;
			oracle_opt = 1;
			break;
		case OPT_LANGUAGE:
			language = optarg;
			if (ks_prompt_lang_parse(&lang, optarg) < 0)
				return ks_cli_usage_error(PROG, "--language: %s", ks_error_msg());
			break;
		case OPT_SM_COUNT: {
			char *end;
			sm_count = strtol(optarg, &end, 10);
			if (*end || end == optarg || sm_count < 1 || sm_count > 100000)
				return ks_cli_usage_error(PROG, "--sm-count takes a number of SMs, not \"%s\"",
							  optarg);
			break;
		}
		case 'h':
			printf("Usage: score problems [--refs DIR] [--suite NAME] [--json]\n"
			       "                      [--export-prompts FILE [--language cuda|triton]]\n"
			       "                      [--plans FILE [--sm-count N]]\n"
			       "Lists the reference problems (suite, difficulty, tensors, cases, perf sizes).\n"
			       "  --export-prompts FILE  write the agent instructions as a GEAK-style JSON array\n"
			       "                         (instruction, file, difficulty) for an agent to answer\n"
			       "  --language L           the language the answers are to be written in: cuda\n"
			       "                         (device code, the default) or triton (Python: Triton\n"
			       "                         kernels and the problem's entry function)\n"
			       "  --plans FILE           write the golden launch plans of every case, resolved\n"
			       "                         (kscore.plans/1: shapes, buffers, launches, source)\n"
			       "  --sm-count N           the sm_count the plans use (default %d, an H100's)\n"
			       "On an imported set (TritonBench-G, KernelBench):\n"
			       "  --cases                run the set's own code in the oracle and list the cases\n"
			       "                         it makes per problem (counts, shapes, dtypes) or why none\n"
			       "  --only NAMES           those problems only (comma-separated)\n"
			       "  --seed N               the seed the set's code runs under (default 0)\n"
			       "  --oracle-timeout SEC   one file's run (default %.0f)\n"
			       "  --unconfined           run the set's code without the oracle's Landlock view\n"
			       "Exit status: 0 ok, 64 usage, 65 no valid problem (--cases: none got cases),\n"
			       "69 the oracle cannot start, 74 FILE not writable.\n",
			       KS_PROBLEM_DEFAULT_SM_COUNT, KS_ORACLE_DEFAULT_TIMEOUT);
			return KS_EXIT_OK;
		default:
			return KS_EXIT_USAGE;
		}
	}
	if (language && !export)
		return ks_cli_usage_error(PROG, "--language applies to --export-prompts");
	if (oracle_opt && !cases)
		return ks_cli_usage_error(PROG, "--only, --seed, --oracle-timeout and --unconfined apply to --cases");
	if (ro.refs) {
		ks_set_format f;
		if (ks_set_detect(&f, ro.refs) == 0 && f != KS_SET_KSCORE) {
			if (export || plans || ro.suite)
				return ks_cli_usage_error(PROG, "%s is a %s problem set: --export-prompts, --plans and "
							  "--suite apply to kscore's own problems", ro.refs,
							  ks_set_format_name(f));
			return list_source(ro.refs, json, cases ? &co : NULL);
		}
	}
	if (cases)
		return ks_cli_usage_error(PROG, "--cases applies to an imported problem set (--refs DIR of "
					  "TritonBench-G or KernelBench)");
	if ((rc = ks_cli_refs_load(&set, &refs, &ro, PROG, 1)) != 0)
		goto done;
	for (i = 0; i < set->nerrors; i++)
		fprintf(stderr, PROG ": invalid problem: %s\n", set->errors[i]);
	ks_problem_set_sm_count(set, sm_count);
	if (plans) {
		if (write_json(plans, ks_catalog_plans(set), 0) < 0)
			rc = KS_EXIT_IOERR;
		else if (!json)
			fprintf(stderr, PROG ": wrote the plans of %zu problems to %s\n", set->n, plans);
	}
	if (export) {
		cJSON *a = ks_catalog_prompts(set, lang);
		size_t n = (size_t)cJSON_GetArraySize(a);
		if (write_json(export, a, 1) < 0)
			rc = KS_EXIT_IOERR;
		else if (!json)
			fprintf(stderr, PROG ": wrote %zu %s instructions to %s%s\n", n,
				lang == KS_PROMPT_TRITON ? "Triton" : "CUDA", export,
				n < set->n ? " (problems without a Python entry left out)" : "");
	}
	if (json) {
		cJSON *a = ks_catalog_list(set);
		char *s = cJSON_Print(a);
		printf("%s\n", s);
		cJSON_free(s);
		cJSON_Delete(a);
	} else if (!export && !plans) {
		printf("%-10s %-28s %4s %-6s %5s %5s  %s\n", "suite", "problem", "diff", "peak", "cases",
		       "perf", "description");
		for (i = 0; i < set->n; i++) {
			const ks_problem *p = set->problems[i];
			printf("%-10s %-28s %4d %-6s %5zu %5zu  %.60s\n", p->suite, p->name, p->difficulty,
			       p->peak, p->ncorrectness, p->nperf, p->description ? p->description : "");
		}
		printf("%zu problems\n", set->n);
	}
done:
	ks_problem_set_free(set);
	ks_free(refs);
	return rc;
}
