/* score check-refs: validates every reference problem (src/cli/cmd.h). The checks are
 * refcheck.c's; this file is options, the compile of the golden kernels, and the table. */
#include "time/calibrate.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "lang/cuda/compile.h"
#include "time/config.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "load/paths.h"
#include "refs/refcheck.h"
#include "run/runner.h"
#include "run/worker.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define PROG "score check-refs"

static void usage(void)
{
	printf("Usage: score check-refs [--refs DIR] [--suite NAME] [--compile-only] [--json FILE]\n"
	       "Validates every reference problem: the spec loads; the golden kernel compiles;\n"
	       "on a GPU it passes its own correctness cases (runs, stays inside its buffers,\n"
	       "writes every output, leaves inputs alone, repeats bit for bit), its outputs\n"
	       "change with its inputs, each perf case takes at least %.1f ms, and no perf\n"
	       "case beats the measured roofline. Prints a table (and JSON with --json).\n"
	       "Exit status: 0 all pass, 1 some fail, 65 no problem loads, 69 no GPU.\n",
	       KS_REFCHECK_MIN_PERF_MS);
}

/* One line of the table. */
static void print_row(const ks_refcheck_row *r, int ran)
{
	char cases[32] = "-", sig[16] = "-", perf[16] = "-", roof[16] = "-";
	if (ran && r->compiled) {
		snprintf(cases, sizeof(cases), "%d/%d", r->cases_ok, r->cases);
		snprintf(sig, sizeof(sig), "%.0f%%", 100 * r->signal);
		if (isfinite(r->min_perf_ms) && r->min_perf_ms > 0)
			snprintf(perf, sizeof(perf), "%.4f", r->min_perf_ms);
		if (r->max_roofline > 0)
			snprintf(roof, sizeof(roof), "%.0f", 100 * r->max_roofline);
	}
	printf("%-10s %-28s %-7s %-8s %-7s %10s %7s  %s\n", r->p->suite, r->p->name,
	       r->compiled ? "ok" : "FAIL", cases, sig, perf, roof,
	       r->fail ? r->fail : (ran ? "PASS" : "compiles (not run)"));
}

int ks_refcheck_main(int argc, char **argv)
{
	enum { OPT_COMPILE_ONLY = 1, OPT_JSON, OPT_DEVICE };
	static const struct option lopts[] = {
		KS_CLI_REFS_LONGOPTS,
		{ "compile-only", no_argument, 0, OPT_COMPILE_ONLY },
		{ "json", required_argument, 0, OPT_JSON },
		{ "device", required_argument, 0, OPT_DEVICE },
		{ "help", no_argument, 0, 'h' },
		{ 0, 0, 0, 0 }
	};
	ks_cli_refs rops = { 0 };
	char *refs = NULL;
	const char *json = NULL;
	ks_compile_options co = KS_COMPILE_OPTIONS_INIT;
	ks_runner_options ro = KS_RUNNER_OPTIONS_INIT;
	ks_config cfg = KS_CONFIG_INIT;
	ks_problem_set *set = NULL;
	ks_runner *run = NULL;
	ks_ceilings ceil;
	ks_compile_status *status = NULL;
	char **logs = NULL, *cache = NULL, *cfgpath = NULL;
	size_t i, nfail = 0;
	ks_refcheck_row *rows = NULL;
	cJSON *out = NULL;
	int opt, compile_only = 0, device = 0, have_ceil = 0, rc = KS_EXIT_OK;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "r:h", lopts, NULL)) != -1) {
		if (ks_cli_refs_option(&rops, opt, optarg))
			continue;
		switch (opt) {
		case OPT_COMPILE_ONLY:
			compile_only = 1;
			break;
		case OPT_JSON:
			json = optarg;
			break;
		case OPT_DEVICE:
			if (ks_cli_device_parse(&device, optarg) < 0) {
				rc = ks_cli_usage_error(PROG, "--device takes a device ordinal from 0 to %d",
							KS_DEVICE_MAX_ORDINAL);
				goto done;
			}
			break;
		case 'h':
			usage();
			return KS_EXIT_OK;
		default:
			return KS_EXIT_USAGE;
		}
	}
	if ((rc = ks_cli_refs_load(&set, &refs, &rops, PROG, 0)) != 0)
		goto done;
	cache = ks_paths_default_cache();
	if (cache)
		ks_fs_mkdir_p(cache, 0755);
	co.cache_dir = cache;
	cfgpath = ks_config_find(refs);
	if (cfgpath && ks_config_load(&cfg, cfgpath) < 0)
		fprintf(stderr, PROG ": warning: %s\n", ks_error_msg());
	if (!compile_only) {
		ro.device = device;
		ro.compile = co;
		ro.golden_only = 1;
		if (ks_runner_start(&run, &ro) < 0) {
			fprintf(stderr, PROG ": no usable GPU: %s (use --compile-only)\n", ks_error_msg());
			rc = KS_EXIT_UNAVAILABLE;
			goto done;
		}
		co.arch = ks_runner_arch(run);
		ks_problem_set_sm_count(set, ks_runner_device(run)->sm_count);
		{
			char *exe = ks_fs_find_helper("kscore-worker");
			have_ceil = exe && ks_ceilings_get(&ceil, cache, exe, device, ks_runner_device(run),
							   &co, 0) == 0;
			ks_free(exe);
		}
	}
	rows = ks_calloc(set->n + 1, sizeof(*rows));
	status = ks_calloc(set->n + 1, sizeof(*status));
	logs = ks_calloc(set->n + 1, sizeof(char *));
	for (i = 0; i < set->n; i++)
		rows[i].p = set->problems[i];
	co.jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ks_runner_compile_goldens(run, set, &co, status, logs) < 0) {
		fprintf(stderr, PROG ": %s\n", ks_error_msg());
		rc = KS_EXIT_SOFTWARE;
		goto done;
	}
	for (i = 0; i < set->n; i++) {
		ks_refcheck_row *r = &rows[i];
		if (status[i] != KS_COMPILE_OK) {
			ks_refcheck_fail(r, "golden.cu does not compile (%s): %.300s",
					 ks_compile_status_name(status[i]), logs[i]);
			continue;
		}
		r->compiled = 1;
		if (!run)
			continue;
		if (isatty(2))
			fprintf(stderr, "\r\033[Kcheck-refs: [%zu/%zu] %s", i, set->n, r->p->name);
		ks_refcheck_problem(r, run, have_ceil ? &ceil : NULL, &cfg);
	}
	if (isatty(2))
		fprintf(stderr, "\r\033[K");
	out = cJSON_CreateArray();
	printf("%-10s %-28s %-7s %-8s %-7s %10s %7s  %s\n", "suite", "problem", "compile", "cases",
	       "signal", "min perf ms", "roof%", "verdict");
	for (i = 0; i < set->nerrors; i++) {
		printf("%-10s %-28s %s\n", "?", "(spec)", set->errors[i]);
		nfail++;
	}
	for (i = 0; i < set->n; i++) {
		print_row(&rows[i], run != NULL);
		nfail += rows[i].fail != NULL;
		cJSON_AddItemToArray(out, ks_refcheck_row_json(&rows[i], run != NULL));
	}
	printf("%zu problems, %zu passed, %zu failed%s\n", set->n + set->nerrors,
	       set->n + set->nerrors - nfail, nfail, run ? "" : " (compile-only: nothing was run)");
	if (json && ks_json_write_file(json, out, 1) < 0)
		fprintf(stderr, PROG ": %s\n", ks_error_msg());
	rc = nfail ? KS_EXIT_SOME : KS_EXIT_OK;
done:
	for (i = 0; set && rows && i < set->n; i++)
		ks_refcheck_row_clear(&rows[i]);
	if (logs)
		ks_free_strv(logs, set->n);
	cJSON_Delete(out);
	ks_free(rows);
	ks_free(status);
	ks_free(cache);
	ks_free(cfgpath);
	ks_runner_free(run);
	ks_problem_set_free(set);
	ks_free(refs);
	return rc;
}
