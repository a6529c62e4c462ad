#include "baseline.h"
#include "calibrate.h"
#include "errors.h"
#include "fsutil.h"
#include "jsonutil.h"
#include "mem.h"
#include "outdir.h"
#include "runner.h"
#include "scoreopts.h"
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef KS_VERSION
#define KS_VERSION "0.0.0"
#endif

#define BASELINE_SCHEMA "kscore.baseline/1"

/* --out FILE may replace only an earlier baseline file, never an input (outdir.h): 0, or the exit
 * status (73 refused, 74 cannot be examined) after saying why. */
static int check_out(const char *path, const char *refs, const char *cfgpath)
{
	ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
	const char *in[2] = { refs, cfgpath };
	int rc;
	oo.inputs = in;
	oo.ninputs = 2;
	if ((rc = ks_outdir_check_file(path, BASELINE_SCHEMA, &oo)) == 0)
		return 0;
	fprintf(stderr, "score baseline: error: %s\n", ks_error_msg());
	return rc == KS_EINVALID ? 73 : 74;
}

typedef struct {
	char *name;
	char sha256[65];
	ks_stats *cases;
	size_t ncases;
} entry;

struct ks_baseline {
	char uuid[64], device[256], measured_at[32], describe[512];
	int driver_version;
	entry *e;
	size_t n;
};

void ks_baseline_free(ks_baseline *b)
{
	size_t i;
	if (!b)
		return;
	for (i = 0; i < b->n; i++) {
		ks_free(b->e[i].name);
		ks_free(b->e[i].cases);
	}
	ks_free(b->e);
	ks_free(b);
}

static double num(const cJSON *o, const char *k)
{
	double d = 0;
	ks_json_num(&d, o, k, 0);
	return d;
}

int ks_baseline_load(ks_baseline **out, const char *path)
{
	char *text = NULL;
	cJSON *j = NULL;
	const cJSON *ps, *p;
	const char *s = NULL;
	ks_baseline *b = ks_calloc(1, sizeof(*b));
	int rc;

	*out = NULL;
	if ((rc = ks_fs_read(&text, NULL, path, 16u << 20)) < 0 ||
	    (rc = ks_json_parse(&j, text, strlen(text), 16, path)) < 0)
		goto done;
	if (ks_json_str(&s, j, "schema", 1) < 0 || strcmp(s, BASELINE_SCHEMA)) {
		rc = ks_error_set(KS_EINVALID, "%s: not a kscore.baseline/1 file", path);
		goto done;
	}
	if (ks_json_str(&s, j, "uuid", 0) == 0)
		snprintf(b->uuid, sizeof(b->uuid), "%s", s);
	if (ks_json_str(&s, j, "device", 0) == 0)
		snprintf(b->device, sizeof(b->device), "%s", s);
	if (ks_json_str(&s, j, "measured_at", 0) == 0)
		snprintf(b->measured_at, sizeof(b->measured_at), "%s", s);
	b->driver_version = (int)num(j, "driver_version");
	ps = cJSON_GetObjectItemCaseSensitive(j, "problems");
	b->e = ks_calloc((size_t)cJSON_GetArraySize(ps) + 1, sizeof(entry));
	cJSON_ArrayForEach(p, ps)
	{
		entry *e = &b->e[b->n];
		const cJSON *cs = cJSON_GetObjectItemCaseSensitive(p, "cases"), *c;
		if (ks_json_str(&s, p, "problem", 1) < 0)
			continue;
		e->name = ks_strdup(s);
		if (ks_json_str(&s, p, "sha256", 0) == 0)
			snprintf(e->sha256, sizeof(e->sha256), "%s", s);
		e->cases = ks_calloc((size_t)cJSON_GetArraySize(cs) + 1, sizeof(ks_stats));
		cJSON_ArrayForEach(c, cs)
		{
			ks_stats *st = &e->cases[e->ncases++];
			st->median = num(c, "ms");
			st->mean = num(c, "mean");
			st->min = num(c, "min");
			st->max = num(c, "max");
			st->stdev = num(c, "stdev");
			st->rel_error = num(c, "rel_error");
			st->n = (size_t)num(c, "runs");
		}
		b->n++;
	}
	snprintf(b->describe, sizeof(b->describe), "stored baseline %s, measured %s on %s", path, b->measured_at,
		 b->device);
done:
	cJSON_Delete(j);
	ks_free(text);
	if (rc < 0)
		ks_baseline_free(b);
	else
		*out = b;
	return rc;
}

int ks_baseline_matches(const ks_baseline *b, const ks_device_info *dev)
{
	return b && dev && !strcmp(b->uuid, dev->uuid) && b->driver_version == dev->driver_version;
}

const char *ks_baseline_describe(const ks_baseline *b)
{
	return b->describe;
}

const ks_stats *ks_baseline_find(const ks_baseline *b, const ks_problem *p, size_t ci)
{
	size_t i;
	for (i = 0; b && i < b->n; i++)
		if (!strcmp(b->e[i].name, p->name))
			return !strcmp(b->e[i].sha256, p->sha256) && b->e[i].ncases == p->nperf && ci < p->nperf &&
					       b->e[i].cases[ci].median > 0
				       ? &b->e[i].cases[ci]
				       : NULL;
	return NULL;
}

char *ks_baseline_default_path(const char *cache_dir, const ks_device_info *dev)
{
	return ks_asprintf("%s/baselines/%s-%d.json", cache_dir, dev->uuid[0] ? dev->uuid : "unknown",
			   dev->driver_version);
}

int ks_baseline_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "refs", required_argument, 0, 'r' }, { "suite", required_argument, 0, 's' },
		{ "out", required_argument, 0, 'o' },  { "device", required_argument, 0, 'd' },
		{ "help", no_argument, 0, 'h' },       { 0, 0, 0, 0 }
	};
	const char *given = NULL, *suite = NULL, *outp = NULL;
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
		switch (opt) {
		case 'r':
			given = optarg;
			break;
		case 's':
			suite = optarg;
			break;
		case 'o':
			outp = optarg;
			break;
		case 'd':
			device = atoi(optarg);
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
			return 0;
		default:
			return 64;
		}
	}
	if (!(refs = ks_scoreopts_find_refs(given)) || ks_problem_set_load(&set, refs, suite) < 0 || set->n == 0) {
		fprintf(stderr, "score baseline: no reference problems found\n");
		rc = 65;
		goto done;
	}
	/* refused before the GPU spends minutes on it */
	if (outp && (rc = check_out(outp, refs, NULL)) != 0)
		goto done;
	cache = ks_scoreopts_default_cache();
	ro.device = device;
	ro.compile.cache_dir = cache;
	ro.golden_only = 1;
	if (ks_runner_start(&run, &ro) < 0) {
		fprintf(stderr, "score baseline: no usable GPU: %s\n", ks_error_msg());
		rc = 69;
		goto done;
	}
	ks_problem_set_sm_count(set, ks_runner_device(run)->sm_count);
	cfgpath = ks_config_find(refs);
	if (cfgpath && ks_config_load(&cfg, cfgpath) < 0) {
		fprintf(stderr, "score baseline: %s\n", ks_error_msg());
		rc = 65;
		goto done;
	}
	memset(&to, 0, sizeof(to));
	to.cfg = cfg;
	to.seed = 0x6b73636f7265ull;
	{
		ks_plan_limits lim = KS_PLAN_LIMITS_INIT;
		to.limits = lim;
	}
	to.flush_bytes = 2ull * (uint64_t)ks_runner_device(run)->l2_bytes;
	to.timeout_s = 60;
	/* the golden kernels, compiled for this device */
	{
		ks_compile_options co = KS_COMPILE_OPTIONS_INIT;
		ks_compile_status *st = ks_calloc(set->n + 1, sizeof(*st));
		char **logs = ks_calloc(set->n + 1, sizeof(char *));
		co.arch = ks_runner_arch(run);
		co.cache_dir = cache;
		ks_runner_compile_goldens(run, set, &co, st, logs);
		ks_free_strv(logs, set->n);
		ks_free(st);
	}
	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "schema", BASELINE_SCHEMA);
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
		rc = 74;
		goto done;
	}
	printf("stored %s\n", path);
	rc = nfail ? 1 : 0;
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
