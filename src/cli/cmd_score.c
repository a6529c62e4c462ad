/* score [OPTIONS] SUBMISSION...: the scoring command. Parses its options, finds the reference
 * problems and the cache, and runs the pipeline load -> compile -> run and check -> report for each
 * submission (src/cli/cmd.h). */
#include "cli/cli.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "judge/metrics.h"
#include "report/outdir.h"
#include "cli/cmd.h"
#include "load/paths.h"
#include "session/pipeline.h"
#include "load/submission.h"
#include "session/scoreopts.h"
#include "upload/upload_setup.h"
#include "util/version.h"

#include <curl/curl.h>

#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	ks_scoreopts so;           /* the scoring and upload options shared with `score batch` */
	const char *team, *out;
	int json, quiet, color;
	ks_upload_setup *upsetup;
} options;

/* The contract of `score --json` (docs/results.md, "The --json summary"). */
#define KS_SCORE_SUMMARY_SCHEMA "kscore.score-summary/1"

static int g_color;

static void upload_log(const char *line, void *ud)
{
	(void)ud;
	fprintf(stderr, "score: upload: %s\n", line);
}

void ks_score_usage(FILE *f)
{
	fprintf(f,
		"Usage: score [OPTIONS] SUBMISSION...\n"
		"       score calibrate [--devices LIST|all] [--force] [--json]\n"
		"       score problems [--suite NAME] [--json] [--export-prompts FILE [--language cuda|triton]]\n"
		"                      [--plans FILE]\n"
		"       score check-refs [--suite NAME] [--compile-only] [--json FILE]\n"
		"       score baseline [--suite NAME] [--out FILE]\n"
		"       score upload [OPTIONS] RESULT_DIR... | --pending\n"
		"       score batch [OPTIONS] MANIFEST   (teams' git repositories; see score batch --help)\n"
		"       score export RESULTS_DIR... --out SITE_DIR   (static leaderboard site)\n"
		"Score GPU-kernel submissions: compile each kernel with NVRTC, run it on the GPU against\n"
		"the golden kernel of its problem, and write a result folder per SUBMISSION.\n"
		"\n"
		"A SUBMISSION is a JSON array of entries, a JSON Lines file (either may be gzip-compressed),\n"
		"or a folder of such files, each file being one pass for pass@k.\n"
		"\n"
		"Options:\n"
		"  -t, --team NAME           team name recorded in the results\n"
		"  -o, --out DIR             result folder (one SUBMISSION only); default: X/ for X.json,\n"
		"                            D-results/ for a folder D\n");
	ks_scoreopts_usage(f);
	fprintf(f,
		"      --json                print a JSON summary on stdout instead of the table\n"
		"  -q, --quiet               no progress and no table\n"
		"      --color[=WHEN]        never, always or auto (default; honours NO_COLOR)\n"
		"  -h, --help                show this help and exit\n"
		"  -V, --version             show the version and exit\n"
		"\n"
		"Exit status:\n"
		"   0  every kernel is correct          1  some kernels are correct\n"
		"   2  no kernel is correct             3  no GPU: compile-only results were written\n"
		"  64  usage error                     65  an input could not be read or parsed\n"
		"  69  --require-gpu and no usable GPU 70  internal error\n"
		"  73  an output folder is refused: it exists and is not a kscore result folder, or it\n"
		"      is, holds or lies inside an input; nothing was written\n"
		"  74  results could not be written    78  the upload configuration is unusable\n");
}

/* An SGR escape when the output is coloured (ks_cli_color_use decided once, in ks_score_main). */
static const char *col(const char *code)
{
	return g_color ? code : "";
}

static char *default_out(const char *input)
{
	char *dir, *stem, *out;
	size_t n = strlen(input);
	char *trim = ks_strdup(input);
	while (n > 1 && trim[n - 1] == '/')
		trim[--n] = '\0';
	if (ks_fs_is_dir(trim)) {
		out = ks_asprintf("%s-results", trim);
		ks_free(trim);
		return out;
	}
	dir = ks_path_dirname(trim);
	stem = ks_path_stem(trim);
	out = ks_path_join(dir, stem);
	ks_free(dir);
	ks_free(stem);
	ks_free(trim);
	return out;
}

static void print_table(const ks_kernel_result *r, size_t n, int gpu)
{
	size_t i;
	printf("%-4s %-28s %-8s %-5s %-5s %8s  %s\n", "pass", "problem", "compiled", "call", "exec", "speedup",
	       "verdict");
	for (i = 0; i < n; i++) {
		const char *ok = r[i].exec ? col("\033[32m") : col("\033[31m");
		char sp[32] = "-";
		if (r[i].timed)
			snprintf(sp, sizeof(sp), "%.3fx", r[i].speedup);
		printf("%-4zu %-28.28s %-8s %-5s %s%-5s%s %8s  ", r[i].pass,
		       r[i].problem ? r[i].problem : (r[i].file ? r[i].file : "?"), r[i].compiled ? "yes" : "no",
		       gpu ? (r[i].call ? "yes" : "no") : "-", gpu ? ok : "", gpu ? (r[i].exec ? "yes" : "no") : "-",
		       gpu ? col("\033[0m") : "", sp);
		if (r[i].suspicious)
			printf("%sSUSPICIOUS%s: %s\n", col("\033[33m"), col("\033[0m"), r[i].suspicious_why);
		else if (r[i].reason != KS_REASON_OK)
			printf("%s: %s\n", ks_reason_name(r[i].reason), r[i].detail ? r[i].detail : "");
		else if (r[i].timing_error)
			printf("ok (not timed: %s)\n", r[i].timing_error);
		else
			printf("ok\n");
	}
}

/* Before anything is scored: every result folder must be one kscore may replace (outdir.h), none
 * may be, hold or lie inside an input, and each must be creatable (a read-only or missing parent
 * found now, not after the whole run). Returns 0, KS_EXIT_CANTCREAT or KS_EXIT_IOERR. */
static int check_outs(const options *o, int argc, char **argv, const char *refs, const char *cache)
{
	const char *extra[] = { refs, cache, o->so.pipeline.config, o->so.pipeline.baseline, o->so.upload_config,
				o->so.up.token_file, o->so.up.ca_bundle, o->so.pipeline.reference_dir };
	size_t nin = (size_t)(argc - optind) + sizeof(extra) / sizeof(extra[0]), i;
	const char **in = ks_calloc(nin, sizeof(*in));
	ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
	int rc = 0, r;

	for (i = 0; i < (size_t)(argc - optind); i++)
		in[i] = argv[optind + (int)i];
	memcpy(in + i, extra, sizeof(extra));
	oo.inputs = in;
	oo.ninputs = nin;
	for (i = (size_t)optind; i < (size_t)argc; i++) {
		char *out = o->out ? ks_strdup(o->out) : default_out(argv[i]);
		if ((r = ks_outdir_check(out, &oo)) < 0 || (r = ks_outdir_probe(out)) < 0) {
			fprintf(stderr, "score: error: %s\n", ks_error_msg());
			if (rc != KS_EXIT_CANTCREAT)
				rc = r == KS_EINVALID ? KS_EXIT_CANTCREAT : KS_EXIT_IOERR;
		}
		ks_free(out);
	}
	ks_free(in);
	return rc;
}

/* One input of the command line in the run's queue: every file is queued at once, each one's result
 * folder is written as soon as it is scored, and the tables come out in command-line order. */
typedef struct {
	const char *input;
	char *out;
	ks_submission *sub;          /* NULL: it could not be read */
	ks_scored sc;
	int finished, rc;
	char *error;
	pthread_mutex_t *mu;
	pthread_cond_t *cv;
} file_job;

static void file_done(void *ud, ks_scored *sc, int rc, const char *error)
{
	file_job *f = ud;
	pthread_mutex_lock(f->mu);
	f->sc = *sc;
	memset(sc, 0, sizeof(*sc));
	f->rc = rc;
	f->error = error ? ks_strdup(error) : NULL;
	f->finished = 1;
	pthread_cond_broadcast(f->cv);
	pthread_mutex_unlock(f->mu);
}

#define DUP_EXAMPLES 5 /* duplicates named in a file's one warning line */

/* One line per file for its duplicate entries, however many (a real file held thousands): how many,
 * the first few, and the rule (each duplicate's record still says which entry it repeats). */
static void warn_duplicates(const ks_pass *p)
{
	ks_buf line = KS_BUF_INIT(4096); /* DUP_EXAMPLES examples of at most 64-byte names fit */
	size_t j, n = 0;

	for (j = 0; j < p->nentries; j++) {
		const ks_entry *e = &p->entries[j];
		if (!e->error || e->fault != KS_ENTRY_DUPLICATE)
			continue;
		if (n < DUP_EXAMPLES)
			ks_buf_printf(&line, "%sentry %zu (duplicate of entry %zu, \"%.64s\")", n ? ", " : "",
				      e->index, e->first, e->problem ? e->problem : "");
		n++;
	}
	if (n)
		fprintf(stderr, "score: warning: %s: %zu %s an earlier entry's problem and %s not counted: "
			"%s%s; only the first entry for a problem in a file counts (several attempts belong "
			"in several files, for pass@k)\n", p->path, n, n == 1 ? "entry names" : "entries name",
			n == 1 ? "is" : "are", line.ptr ? line.ptr : "", n > DUP_EXAMPLES ? ", ..." : "");
	ks_buf_free(&line);
}

/* Reads one input (queue_one queues it). Records why it cannot be read. */
static void load_one(const options *o, file_job *f, int *bad_input)
{
	ks_submission_limits lim = KS_SUBMISSION_LIMITS_INIT;
	size_t i, j;
	if (ks_submission_load(&f->sub, f->input, &lim) < 0) {
		fprintf(stderr, "score: error: %s\n", ks_error_msg());
		f->error = ks_strdup(ks_error_msg());
		f->sub = NULL;
		*bad_input = 1;
		return;
	}
	for (i = 0; i < f->sub->npasses; i++) {
		const ks_pass *p = &f->sub->passes[i];
		if (p->error)
			fprintf(stderr, "score: error: %s\n", p->error);
		for (j = 0; j < p->nentries; j++)
			if (p->entries[j].error && p->entries[j].fault != KS_ENTRY_DUPLICATE)
				fprintf(stderr, "score: warning: %s\n", p->entries[j].error);
		warn_duplicates(p);
	}
	f->out = o->out ? ks_strdup(o->out) : default_out(f->input);
}

static void queue_one(ks_pipeline *pl, const options *o, file_job *f)
{
	if (f->sub)
		ks_pipeline_submit(pl, f->sub, o->team, f->out, file_done, f);
}

/* --baseline reference: the references of the problems the inputs name, scored first (the others
 * are no one's baseline). */
static void score_references(ks_pipeline *pl, const file_job *f, size_t n)
{
	const char **names = NULL;
	size_t i, k, e, nn = 0, cap = 0;
	for (i = 0; i < n; i++)
		for (k = 0; f[i].sub && k < f[i].sub->npasses; k++)
			for (e = 0; e < f[i].sub->passes[k].nentries; e++) {
				const char *name = f[i].sub->passes[k].entries[e].problem;
				if (!name)
					continue;
				names = ks_grow(names, sizeof(*names), &cap, nn + 1);
				names[nn++] = name;
			}
	/* no entry names a problem: nothing to be the baseline of, and nothing is scored */
	if (nn && ks_pipeline_score_references(pl, names, nn) < 0) {
		fprintf(stderr, "score: warning: --baseline reference: %s; the speedups are over the golden kernel\n",
			ks_error_msg());
		ks_error_clear();
	}
	ks_free(names);
}

#define UNKNOWN_LINES 5 /* unknown problems warned about one by one; the rest in one line */

/* Entries that name no loaded problem are charged unknown_problem like a broken kernel: a warning
 * says so (a mistyped name, or the wrong --refs), with the nearest name where there is one. */
static void warn_unknown(const char *input, const ks_scored *sc)
{
	size_t i, n = 0;
	for (i = 0; i < sc->nresults; i++) {
		const ks_kernel_result *r = &sc->results[i];
		if (r->reason != KS_REASON_UNKNOWN_PROBLEM)
			continue;
		if (n++ < UNKNOWN_LINES)
			fprintf(stderr, "score: warning: %s: pass %zu, entry %zu: %s\n", input, r->pass, r->index,
				r->detail ? r->detail : "names no problem");
	}
	if (n > UNKNOWN_LINES)
		fprintf(stderr, "score: warning: %s: %zu more entries name no problem in the reference tests "
			"(score.json lists them; is --refs right?)\n", input, n - UNKNOWN_LINES);
}

/* Once a queued input is scored: its upload, its record in the JSON summary and its table. Returns
 * 0, or a negative exit code for fatal problems (results that cannot be written). */
static int report_one(const options *o, ks_pipeline *pl, file_job *f, cJSON *jsum, size_t *nk,
		      size_t *ngood, int *bad_input)
{
	const ks_scored *sc = &f->sc;
	cJSON *js, *ka;
	size_t i;
	int gpu = ks_pipeline_has_gpu(pl);

	if (!f->sub) {
		/* the same keys as a read input's, so a script reads every record one way */
		js = cJSON_CreateObject();
		cJSON_AddStringToObject(js, "input", f->input);
		cJSON_AddNullToObject(js, "out");
		cJSON_AddNullToObject(js, "sha256");
		cJSON_AddStringToObject(js, "error", f->error ? f->error : "cannot be read");
		cJSON_AddNullToObject(js, "summary");
		cJSON_AddArrayToObject(js, "kernels");
		cJSON_AddItemToArray(jsum, js);
		return 0;
	}
	if (f->rc < 0) {
		fprintf(stderr, "score: error: %s\n", f->error ? f->error : "writing results");
		return -KS_EXIT_IOERR;
	}
	if (sc->bad_input)
		*bad_input = 1;
	if (o->upsetup) {
		ks_upload_report ur;
		if (!gpu) {
			fprintf(stderr, "score: upload: skipped for %s: compile-only results have no score\n", f->out);
		} else {
			ks_upload_result_dir(&ur, f->out, ks_upload_setup_options(o->upsetup));
			fprintf(stderr, "score: upload: %s: %s\n", ks_upload_status_name(ur.status), ur.message);
			ks_upload_report_clear(&ur);
		}
	}
	*nk += sc->nresults;
	*ngood += sc->correct;
	js = cJSON_CreateObject();
	cJSON_AddStringToObject(js, "input", f->input);
	cJSON_AddStringToObject(js, "out", f->out);
	cJSON_AddStringToObject(js, "sha256", f->sub->sha256);
	/* a file of the input that could not be read or parsed (its entries are not scored) */
	for (i = 0; i < f->sub->npasses && !f->sub->passes[i].error; i++)
		;
	if (i < f->sub->npasses)
		cJSON_AddStringToObject(js, "error", f->sub->passes[i].error);
	else
		cJSON_AddNullToObject(js, "error");
	cJSON_AddItemToObject(js, "summary", cJSON_Duplicate(sc->summary, 1));
	ka = cJSON_AddArrayToObject(js, "kernels");
	for (i = 0; i < sc->nresults; i++) {
		const ks_kernel_result *r = &sc->results[i];
		cJSON *k = cJSON_CreateObject();
		cJSON_AddNumberToObject(k, "pass", (double)r->pass);
		if (r->problem)
			cJSON_AddStringToObject(k, "problem", r->problem);
		else
			cJSON_AddNullToObject(k, "problem");
		cJSON_AddBoolToObject(k, "compiled", r->compiled);
		if (r->ran) { /* as score.json: null when the kernel was not run (compile-only) */
			cJSON_AddBoolToObject(k, "call", r->call);
			cJSON_AddBoolToObject(k, "exec", r->exec);
		} else {
			cJSON_AddNullToObject(k, "call");
			cJSON_AddNullToObject(k, "exec");
		}
		cJSON_AddStringToObject(k, "reason", ks_reason_name(r->reason));
		cJSON_AddStringToObject(k, "language", ks_language_name(r->language));
		cJSON_AddItemToArray(ka, k);
	}
	cJSON_AddItemToArray(jsum, js);
	warn_unknown(f->input, sc);
	{
		ks_file_metrics fm;
		ks_metrics_file(&fm, sc->results, sc->nresults);
		if (ks_metrics_not_cuda_warning(&fm))
			fprintf(stderr, "score: warning: %s: %s\n", f->input, ks_metrics_not_cuda_warning(&fm));
	}
	if (!o->json && !o->quiet) {
		ks_file_metrics fm;
		printf("%s%s%s\n", col("\033[1m"), f->input, col("\033[0m"));
		ks_metrics_file(&fm, sc->results, sc->nresults);
		if (ks_metrics_not_cuda_warning(&fm))
			printf("%sWARNING: %s%s\n", col("\033[33m"), ks_metrics_not_cuda_warning(&fm),
			       col("\033[0m"));
		print_table(sc->results, sc->nresults, gpu);
		{
			ks_buf lines = KS_BUF_INIT(4096);
			ks_metrics_summary_lines(&lines, &fm, sc->nresults, gpu, !o->so.pipeline.no_timing);
			fputs(lines.ptr ? lines.ptr : "", stdout);
			ks_buf_free(&lines);
		}
		printf("results: %s/\n\n", f->out);
		fflush(stdout);
	}
	return 0;
}

/* Queues every input, then reports each in command-line order as it finishes. Returns 0 or a
 * negative exit code (the first fatal problem; every queued input is still waited for). */
static int score_all(const options *o, ks_pipeline *pl, char **inputs, size_t n, cJSON *jsum, size_t *nk,
		     size_t *ngood, int *bad_input)
{
	pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
	file_job *f = ks_calloc(n + 1, sizeof(*f));
	size_t i;
	int rc = 0, r;

	/* every input in one compile wave: the first file alone would leave most cores idle, and
	 * the rest would wait for its slowest compile */
	for (i = 0; i < n; i++) {
		f[i].input = inputs[i];
		f[i].mu = &mu;
		f[i].cv = &cv;
		load_one(o, &f[i], bad_input);
	}
	if (o->so.pipeline.reference_dir)
		score_references(pl, f, n);
	ks_pipeline_hold_compiles(pl, 1);
	for (i = 0; i < n; i++)
		queue_one(pl, o, &f[i]);
	ks_pipeline_end_input(pl);
	ks_pipeline_hold_compiles(pl, 0);
	for (i = 0; i < n; i++) {
		pthread_mutex_lock(&mu);
		while (f[i].sub && !f[i].finished)
			pthread_cond_wait(&cv, &mu);
		pthread_mutex_unlock(&mu);
		if ((r = report_one(o, pl, &f[i], jsum, nk, ngood, bad_input)) < 0 && rc == 0)
			rc = r;
	}
	ks_pipeline_wait(pl);
	for (i = 0; i < n; i++) {
		ks_scored_clear(&f[i].sc);
		ks_free(f[i].out);
		ks_free(f[i].error);
		ks_submission_free(f[i].sub);
	}
	ks_free(f);
	pthread_mutex_destroy(&mu);
	pthread_cond_destroy(&cv);
	return rc;
}

int ks_score_main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "team", required_argument, 0, 't' },
		{ "out", required_argument, 0, 'o' },
		{ "json", no_argument, 0, 1 },
		{ "quiet", no_argument, 0, 'q' },
		{ "color", optional_argument, 0, 2 },
		{ "help", no_argument, 0, 'h' },
		{ "version", no_argument, 0, 'V' },
		KS_SCOREOPTS_LONGOPTS,
		{ 0, 0, 0, 0 }
	};
	options o;
	ks_pipeline *pl = NULL;
	char *refs = NULL, *cache = NULL;
	cJSON *jsum = NULL, *jroot = NULL;
	size_t nk = 0, ngood = 0;
	int c, rc = KS_EXIT_OK, bad_input = 0;

	memset(&o, 0, sizeof(o));
	ks_scoreopts_init(&o.so);
	o.color = -1;
	ks_cli_join_optional(&argc, argv, "--baseline", "reference");
	while ((c = getopt_long(argc, argv, "t:o:qhV" KS_SCOREOPTS_SHORTOPTS, lopts, NULL)) != -1) {
		int r = ks_scoreopts_parse(&o.so, c, optarg);
		if (r < 0) {
			fprintf(stderr, "score: %s\n", ks_error_msg());
			return KS_EXIT_USAGE;
		}
		if (r == 1)
			continue;
		switch (c) {
		case 't':
			o.team = optarg;
			break;
		case 'o':
			o.out = optarg;
			break;
		case 1:
			o.json = 1;
			break;
		case 'q':
			o.quiet = 1;
			break;
		case 2:
			if (ks_cli_color_parse(&o.color, optarg) < 0) {
				fprintf(stderr, "score: --color takes never, always or auto\n");
				return KS_EXIT_USAGE;
			}
			break;
		case 'h':
			ks_score_usage(stdout);
			return KS_EXIT_OK;
		case 'V':
			printf("score (kscore) %s\n", KS_VERSION);
			return KS_EXIT_OK;
		default:
			fprintf(stderr, "Try 'score --help' for more information.\n");
			return KS_EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "score: no SUBMISSION given\nTry 'score --help' for more information.\n");
		return KS_EXIT_USAGE;
	}
	if (o.out && argc - optind > 1) {
		fprintf(stderr, "score: --out needs exactly one SUBMISSION\n");
		return KS_EXIT_USAGE;
	}
	if (ks_scoreopts_finish(&o.so) < 0) {
		fprintf(stderr, "score: %s\n", ks_error_msg());
		return KS_EXIT_USAGE;
	}
	g_color = o.json ? 0 : ks_cli_color_use(o.color, 1);
	if (!o.so.no_cache) {
		cache = o.so.cache_dir ? ks_strdup(o.so.cache_dir) : ks_paths_default_cache();
		if (cache && ks_fs_mkdir_p(cache, 0755) < 0) {
			fprintf(stderr, "score: warning: cannot use the cache %s: %s\n", cache, ks_error_msg());
			ks_free(cache);
			cache = NULL;
		}
	}
	if (o.so.upload) {
		/* before any child process starts: this removes the token from the environment */
		curl_global_init(CURL_GLOBAL_ALL);
		o.so.up.team = o.team;
		o.so.up.log_fn = upload_log;
		if (ks_upload_setup_new(&o.upsetup, &o.so.up, o.so.upload_config, KS_UPLOAD_NEED_ENDPOINT) < 0) {
			fprintf(stderr, "score: error: upload configuration: %s\n", ks_error_msg());
			rc = KS_EXIT_CONFIG;
			goto done;
		}
	}

	refs = ks_paths_find_refs(o.so.refs);
	if (!refs) {
		fprintf(stderr, "score: error: cannot load the reference problems: no reference_tests folder "
			"found (use --refs)\n");
		rc = KS_EXIT_DATAERR;
		goto done;
	}
	if ((rc = check_outs(&o, argc, argv, refs, cache)) != 0)
		goto done;
	ks_scoreopts_pipeline(&o.so, refs, cache);
	o.so.pipeline.progress = isatty(2) && !o.quiet;
	if ((c = ks_pipeline_new(&pl, &o.so.pipeline)) < 0) {
		fprintf(stderr, "score: error: %s\n", ks_error_msg());
		rc = c == KS_EUNSUPPORTED ? KS_EXIT_UNAVAILABLE : KS_EXIT_DATAERR;
		goto done;
	}
	if (!o.so.pipeline.compile_only && !ks_pipeline_has_gpu(pl))
		fprintf(stderr, "score: warning: no usable GPU (%s)\n"
			"score: warning: falling back to compile-only mode: kernels are compiled for %s "
			"but not run, so there are no call or exec results (exit status 3; "
			"--require-gpu makes this an error)\n", ks_pipeline_no_gpu_reason(pl), o.so.pipeline.compile.arch);
	jroot = cJSON_CreateObject();
	cJSON_AddStringToObject(jroot, "schema", KS_SCORE_SUMMARY_SCHEMA);
	cJSON_AddStringToObject(jroot, "scorer", "kscore " KS_VERSION);
	cJSON_AddStringToObject(jroot, "mode", ks_pipeline_has_gpu(pl) ? "gpu" : "compile-only");
	if (!ks_pipeline_has_gpu(pl))
		ks_json_add_str(jroot, "no_gpu_reason", ks_pipeline_no_gpu_reason(pl));
	jsum = cJSON_AddArrayToObject(jroot, "submissions");
	if ((c = score_all(&o, pl, argv + optind, (size_t)(argc - optind), jsum, &nk, &ngood, &bad_input)) < 0) {
		rc = -c;
		goto done;
	}
	if (bad_input)
		rc = KS_EXIT_DATAERR;
	else if (!ks_pipeline_has_gpu(pl) && !o.so.pipeline.compile_only)
		rc = KS_EXIT_NO_GPU;
	else if (nk > 0 && ngood == nk)
		rc = KS_EXIT_OK;
	else if (ngood > 0)
		rc = KS_EXIT_SOME;
	else
		rc = KS_EXIT_NONE;
done:
	if (o.json && jroot) {
		char *s;
		cJSON_AddNumberToObject(jroot, "exit_status", rc);
		s = ks_json_print(jroot, 1);
		printf("%s\n", s ? s : "null");
		ks_free(s);
	}
	cJSON_Delete(jroot);
	ks_pipeline_free(pl);
	ks_free(refs);
	ks_free(cache);
	if (o.upsetup) {
		ks_upload_setup_free(o.upsetup);
		curl_global_cleanup();
	}
	return rc;
}
