/* score baseline: times every golden kernel with the scoring protocol and stores the times for
 * this device (src/cli/cmd.h). The stored data is baseline.c's; this file is the command. */
#include "time/baseline.h"
#include "cli/cli.h"
#include "cli/cmd.h"
#include "time/config.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "report/outdir.h"
#include "load/paths.h"
#include "run/runner.h"
#include "time/timing.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --out FILE may replace only an earlier baseline file, never an input (outdir.h): 0, or the exit
 * status (73 refused, 74 cannot be examined) after saying why. */
static int check_out(const char *path, const char *refs, const char *cfgpath)
{
	ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
	const char *in[2] = { refs, cfgpath };
	int rc;
	oo.inputs = in;
	oo.ninputs = 2;
	if ((rc = ks_outdir_check_file(path, KS_BASELINE_SCHEMA, &oo)) == 0)
		return 0;
	fprintf(stderr, "score baseline: error: %s\n", ks_error_msg());
	return rc == KS_EINVALID ? KS_EXIT_CANTCREAT : KS_EXIT_IOERR;
}

int ks_baseline_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		KS_CLI_REFS_LONGOPTS,
		{ "out", required_argument, 0, 'o' },  { "device", required_argument, 0, 'd' },
		{ "help", no_argument, 0, 'h' },       { 0, 0, 0, 0 }
	};
	ks_cli_refs ropts = { 0 };
	const char *outp = NULL;
	char *refs = NULL, *cache = NULL, *path = NULL, *cfgpath = NULL;
	ks_runner_options ro = KS_RUNNER_OPTIONS_INIT;
	ks_timing_options to;
	ks_config cfg = KS_CONFIG_INIT;
	ks_problem_set *set = NULL;
	ks_runner *run = NULL;
	cJSON *root = NULL, *pa;
	time_t now = time(NULL);
	struct tm tm;
	char ts[32];
	int opt, device = 0, rc = 0;
	size_t i, ci, nfail = 0;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "r:o:h", lopts, NULL)) != -1) {
		if (ks_cli_refs_option(&ropts, opt, optarg))
			continue;
		switch (opt) {
		case 'o':
			outp = optarg;
			break;
		case 'd':
			if (ks_cli_device_parse(&device, optarg) < 0) {
				rc = ks_cli_usage_error("score baseline", "--device takes a device ordinal from 0 to %d",
							KS_DEVICE_MAX_ORDINAL);
				goto done;
			}
			break;
		case 'h':
			printf("Usage: score baseline [--refs DIR] [--suite NAME] [--out FILE] [--device N]\n"
			       "Times every golden kernel on its perf cases, with the scoring protocol, and stores\n"
			       "the times for this device (default: the cache, per GPU and driver). Then\n"
			       "`score --baseline SUBMISSION` uses them instead of timing the golden kernel again,\n"
			       "which halves the timing of a re-score; the default stays the live co-run.\n"
			       "--out FILE replaces only an earlier baseline file (schema kscore.baseline/1).\n"
			       "Exit status: 0 stored, 1 some problems failed, 65 no problem, 69 no GPU,\n"
			       "73 --out names something that is not a baseline file, or an input, 74 not written.\n");
			return KS_EXIT_OK;
		default:
			return KS_EXIT_USAGE;
		}
	}
	if ((rc = ks_cli_refs_load(&set, &refs, &ropts, "score baseline", 1)) != 0)
		goto done;
	/* refused before the GPU spends minutes on it */
	if (outp && (rc = check_out(outp, refs, NULL)) != 0)
		goto done;
	cache = ks_paths_default_cache();
	ro.device = device;
	ro.compile.cache_dir = cache;
	ro.golden_only = 1;
	if (ks_runner_start(&run, &ro) < 0) {
		fprintf(stderr, "score baseline: no usable GPU: %s\n", ks_error_msg());
		rc = KS_EXIT_UNAVAILABLE;
		goto done;
	}
	ks_problem_set_sm_count(set, ks_runner_device(run)->sm_count);
	cfgpath = ks_config_find(refs);
	if (cfgpath && ks_config_load(&cfg, cfgpath) < 0) {
		fprintf(stderr, "score baseline: %s\n", ks_error_msg());
		rc = KS_EXIT_DATAERR;
		goto done;
	}
	ks_timing_options_for(&to, ks_runner_device(run), ro.kernel_timeout_s);
	to.cfg = cfg;
	to.seed = 0x6b73636f7265ull;
	/* the golden kernels, compiled for this device */
	{
		ks_compile_options co = ro.compile; /* the runner's cache, this device's architecture */
		ks_compile_status *st = ks_calloc(set->n + 1, sizeof(*st));
		char **logs = ks_calloc(set->n + 1, sizeof(char *));
		co.arch = ks_runner_arch(run);
		ks_runner_compile_goldens(run, set, &co, st, logs);
		ks_free_strv(logs, set->n);
		ks_free(st);
	}
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "schema", KS_BASELINE_SCHEMA);
	cJSON_AddStringToObject(root, "scorer", KS_VERSION);
	cJSON_AddStringToObject(root, "device", ks_runner_device(run)->name);
	cJSON_AddStringToObject(root, "uuid", ks_runner_device(run)->uuid);
	cJSON_AddNumberToObject(root, "driver_version", ks_runner_device(run)->driver_version);
	cJSON_AddStringToObject(root, "measured_at", ts);
	pa = cJSON_AddArrayToObject(root, "problems");
	for (i = 0; i < set->n; i++) {
		const ks_problem *p = set->problems[i];
		cJSON *o = cJSON_CreateObject(), *ca = NULL;
		cJSON_AddStringToObject(o, "problem", p->name);
		cJSON_AddStringToObject(o, "sha256", p->sha256);
		ca = cJSON_AddArrayToObject(o, "cases");
		for (ci = 0; ci < p->nperf; ci++) {
			ks_stats st;
			cJSON *c = cJSON_CreateObject();
			if (ks_time_golden(&st, run, p, ci, &to) < 0) {
				fprintf(stderr, "score baseline: %s\n", ks_error_msg());
				memset(&st, 0, sizeof(st));
				nfail++;
			}
			cJSON_AddStringToObject(c, "case", p->perf[ci].label);
			cJSON_AddNumberToObject(c, "ms", st.median);
			cJSON_AddNumberToObject(c, "mean", st.mean);
			cJSON_AddNumberToObject(c, "min", st.min);
			cJSON_AddNumberToObject(c, "max", st.max);
			cJSON_AddNumberToObject(c, "stdev", st.stdev);
			ks_json_add_num(c, "rel_error", st.rel_error);
			cJSON_AddNumberToObject(c, "runs", (double)st.n);
			cJSON_AddItemToArray(ca, c);
			printf("%-28s %-40.40s %10.4f ms (%zu runs)\n", p->name, p->perf[ci].label, st.median, st.n);
		}
		cJSON_AddItemToArray(pa, o);
	}
	path = outp ? ks_strdup(outp) : ks_baseline_default_path(cache ? cache : ".", ks_runner_device(run));
	if ((rc = check_out(path, refs, cfgpath)) != 0)
		goto done;
	{
		char *dir = ks_path_dirname(path);
		ks_fs_mkdir_p(dir, 0755);
		ks_free(dir);
	}
	if (ks_json_write_file(path, root, 1) < 0) {
		fprintf(stderr, "score baseline: %s\n", ks_error_msg());
		rc = KS_EXIT_IOERR;
		goto done;
	}
	printf("stored %s\n", path);
	rc = nfail ? KS_EXIT_SOME : KS_EXIT_OK;
done:
	cJSON_Delete(root);
	ks_runner_free(run);
	ks_problem_set_free(set);
	ks_free(refs);
	ks_free(cache);
	ks_free(path);
	ks_free(cfgpath);
	return rc;
}
