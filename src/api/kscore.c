/* The public API (include/kscore.h) over the stages: each call is what a command of `score` does,
 * with the command's argument parsing replaced by the option structs, so the API and the commands
 * keep one behaviour. Options go through ks_scoreopts_parse as option values (the same checks and
 * messages as the command line), never through argv. */
#include "kscore.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "batch/batch.h"
#include "load/paths.h"
#include "load/problem.h"
#include "load/submission.h"
#include "report/outdir.h"
#include "session/pipeline.h"
#include "session/scoreopts.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "util/version.h"
#include "web_export/export.h"

/* A score.json is a few MiB for thousands of kernels; this bounds what a result folder makes us read. */
#define API_MAX_SCORE_JSON (256u << 20)
#define API_JSON_DEPTH 64

/* The internal codes are the public ones but for the outdir refusal, which the stages report as
 * KS_EINVALID with the folder named; the public API gives it a code of its own. */
static int public_status(int rc)
{
	switch (rc) {
	case KS_OK:
	case KS_EINVALID:
	case KS_ENOTFOUND:
	case KS_ELIMIT:
	case KS_EIO:
	case KS_EUNSUPPORTED:
		return rc;
	default:
		return rc < 0 ? KSCORE_ERROR : rc;
	}
}

/* A struct of the caller's must be of the version this library knows (its _INIT macro sets it). */
static int check_version(unsigned got, int want, const char *what)
{
	if (got != (unsigned)want)
		return ks_error_set(KS_EINVALID, "%s: version %u, this library knows %d (initialise it with its _INIT macro)",
				    what, got, want);
	return 0;
}

const char *kscore_version(void)
{
	return KS_VERSION;
}

const char *kscore_error_message(void)
{
	return ks_error_msg();
}

/* ---- problems ---- */

struct kscore_problems {
	ks_problem_set *set;
	char *refs;
};

/* The reference folder as `score` finds it (paths.h), or KSCORE_ENOTFOUND. *out is the caller's. */
static int find_refs(char **out, const char *given)
{
	*out = ks_paths_find_refs(given);
	if (!*out)
		return ks_error_set(KS_ENOTFOUND, given ? "%s: no reference problems folder there" :
					"no reference_tests folder found (set refs)", given);
	return 0;
}

int kscore_problems_open(kscore_problems **out, const kscore_problems_options *opts)
{
	kscore_problems_options dflt = KSCORE_PROBLEMS_OPTIONS_INIT;
	kscore_problems *p = NULL;
	int rc;

	*out = NULL;
	ks_error_clear();
	if (!opts)
		opts = &dflt;
	if (check_version(opts->version, KSCORE_PROBLEMS_OPTIONS_VERSION, "kscore_problems_options") < 0)
		return KS_EINVALID;
	p = ks_calloc(1, sizeof(*p));
	if ((rc = find_refs(&p->refs, opts->refs)) < 0)
		goto done;
	if ((rc = ks_problem_set_load(&p->set, p->refs, opts->suite)) < 0)
		goto done;
	if (p->set->n == 0) {
		rc = ks_error_set(KS_EINVALID, "%s: no valid problem%s%s", p->refs, opts->suite ? " in suite " : "",
				  opts->suite ? opts->suite : "");
		goto done;
	}
	*out = p;
	p = NULL;
done:
	kscore_problems_free(p);
	return public_status(rc);
}

size_t kscore_problems_count(const kscore_problems *p)
{
	return p ? p->set->n : 0;
}

const char *kscore_problems_name(const kscore_problems *p, size_t i)
{
	return p && i < p->set->n ? p->set->problems[i]->name : NULL;
}

const char *kscore_problems_suite(const kscore_problems *p, size_t i)
{
	return p && i < p->set->n ? p->set->problems[i]->suite : NULL;
}

size_t kscore_problems_errors(const kscore_problems *p)
{
	return p ? p->set->nerrors : 0;
}

const char *kscore_problems_error(const kscore_problems *p, size_t i)
{
	return p && i < p->set->nerrors ? p->set->errors[i] : NULL;
}

void kscore_problems_free(kscore_problems *p)
{
	if (!p)
		return;
	ks_problem_set_free(p->set);
	ks_free(p->refs);
	ks_free(p);
}

/* ---- scoring ---- */

struct kscore_session {
	ks_scoreopts so;
	ks_pipeline *pl;
	char *refs, *cache;
	int quiet;
};

/* One option value through the command line's parser (scoreopts.h), so every check and message is
 * the command's; the option is named in the message as the struct field. */
static int set_opt(ks_scoreopts *so, int code, const char *arg, const char *field)
{
	if (ks_scoreopts_parse(so, code, arg) < 0)
		return ks_error_wrap(KS_EINVALID, "%s", field);
	return 0;
}

/* The scoring options of a session or a batch from the public struct's fields. */
static int scoreopts_from(ks_scoreopts *so, const char *suite, int compile_only, int require_gpu,
			  const char *devices, const char *cache_dir, int no_cache, unsigned long long seed,
			  int no_timing, int jobs)
{
	char num[32];
	int rc = 0;
	ks_scoreopts_init(so);
	if (suite && (rc = set_opt(so, KS_SO_SUITE, suite, "suite")) < 0)
		return rc;
	if (compile_only && (rc = set_opt(so, KS_SO_COMPILE_ONLY, NULL, "compile_only")) < 0)
		return rc;
	if (require_gpu && (rc = set_opt(so, KS_SO_REQUIRE_GPU, NULL, "require_gpu")) < 0)
		return rc;
	if (devices && (rc = set_opt(so, KS_SO_DEVICES, devices, "devices")) < 0)
		return rc;
	if (cache_dir && (rc = set_opt(so, KS_SO_CACHE_DIR, cache_dir, "cache_dir")) < 0)
		return rc;
	if (no_cache && (rc = set_opt(so, KS_SO_NO_CACHE, NULL, "no_cache")) < 0)
		return rc;
	if (no_timing && (rc = set_opt(so, KS_SO_NO_TIMING, NULL, "no_timing")) < 0)
		return rc;
	if (seed) {
		snprintf(num, sizeof(num), "%llu", seed);
		if ((rc = set_opt(so, KS_SO_SEED, num, "seed")) < 0)
			return rc;
	}
	if (jobs) {
		if (jobs < 0)
			return ks_error_set(KS_EINVALID, "jobs: %d is not a number of compiles", jobs);
		snprintf(num, sizeof(num), "%d", jobs);
		if ((rc = set_opt(so, 'j', num, "jobs")) < 0)
			return rc;
	}
	if (ks_scoreopts_finish(so) < 0)
		return ks_error_wrap(KS_EINVALID, "options");
	return 0;
}

/* The cache as `score` uses it: the given folder or the default, created; NULL when there is none
 * or it cannot be made (a warning: scoring works without it). */
static char *open_cache(const ks_scoreopts *so, int quiet)
{
	char *cache;
	if (so->no_cache)
		return NULL;
	cache = so->cache_dir ? ks_strdup(so->cache_dir) : ks_paths_default_cache();
	if (cache && ks_fs_mkdir_p(cache, 0755) < 0) {
		if (!quiet)
			fprintf(stderr, "kscore: warning: cannot use the cache %s: %s\n", cache, ks_error_msg());
		ks_free(cache);
		cache = NULL;
	}
	return cache;
}

int kscore_session_open(kscore_session **out, const kscore_session_options *opts)
{
	kscore_session_options dflt = KSCORE_SESSION_OPTIONS_INIT;
	kscore_session *s = NULL;
	int rc;

	*out = NULL;
	ks_error_clear();
	if (!opts)
		opts = &dflt;
	/* version 1 ends before reference_dir: a program built against it keeps working */
	if (opts->version != 1 &&
	    check_version(opts->version, KSCORE_SESSION_OPTIONS_VERSION, "kscore_session_options") < 0)
		return KS_EINVALID;
	s = ks_calloc(1, sizeof(*s));
	s->quiet = opts->quiet;
	if ((rc = scoreopts_from(&s->so, opts->suite, opts->compile_only, opts->require_gpu, opts->devices,
				 opts->cache_dir, opts->no_cache, opts->seed, opts->no_timing, opts->jobs)) < 0)
		goto done;
	if (opts->version >= 2 && opts->reference_dir)
		s->so.pipeline.reference_dir = opts->reference_dir;
	s->cache = open_cache(&s->so, s->quiet);
	if ((rc = find_refs(&s->refs, opts->refs)) < 0)
		goto done;
	ks_scoreopts_pipeline(&s->so, s->refs, s->cache);
	s->so.pipeline.progress = 0;
	if ((rc = ks_pipeline_new(&s->pl, &s->so.pipeline)) < 0)
		goto done;
	*out = s;
	s = NULL;
done:
	kscore_session_close(s);
	return public_status(rc);
}

int kscore_session_has_gpu(const kscore_session *s)
{
	return s && ks_pipeline_has_gpu(s->pl);
}

/* A rate of the summary object, or -1 where it is null (it does not apply). */
static double rate(const cJSON *sum, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(sum, key);
	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void summary_from(kscore_summary *out, const cJSON *sum)
{
	out->kernels = (size_t)ks_json_num_or(sum, "kernels", 0);
	out->suspicious = (size_t)ks_json_num_or(sum, "suspicious", 0);
	out->compile_accuracy = rate(sum, "compile_accuracy");
	out->call_accuracy = rate(sum, "call_accuracy");
	out->exec_accuracy = rate(sum, "exec_accuracy");
	out->score = rate(sum, "score");
	out->geomean_speedup = rate(sum, "geomean_speedup");
}

/* Refuses an out_dir that kscore may not replace, or that is, holds or lies inside the submission
 * or the session's own folders (as `score` does before it scores anything). */
static int check_out(const kscore_session *s, const char *submission_path, const char *out_dir)
{
	const char *in[] = { submission_path, s->refs, s->cache };
	ks_outdir_options oo = KS_OUTDIR_OPTIONS_INIT;
	int rc;
	oo.inputs = in;
	oo.ninputs = s->cache ? 3 : 2;
	if ((rc = ks_outdir_check(out_dir, &oo)) < 0)
		return rc == KS_EINVALID ? KSCORE_EREFUSED : rc;
	return 0;
}

int kscore_session_score(kscore_summary *summary, kscore_session *s, const char *submission_path,
			 const char *team, const char *out_dir)
{
	ks_submission_limits lim = KS_SUBMISSION_LIMITS_INIT;
	ks_submission *sub = NULL;
	ks_scored sc;
	size_t i, j;
	int rc, bad = 0;

	memset(&sc, 0, sizeof(sc));
	ks_error_clear();
	if (!s || !submission_path || !out_dir)
		return ks_error_set(KS_EINVALID, "kscore_session_score: a session, a submission and an out_dir are needed");
	if (summary && check_version(summary->version, KSCORE_SUMMARY_VERSION, "kscore_summary") < 0)
		return KS_EINVALID;
	if ((rc = check_out(s, submission_path, out_dir)) < 0)
		return rc;
	if ((rc = ks_submission_load(&sub, submission_path, &lim)) < 0)
		return public_status(rc);
	for (i = 0; i < sub->npasses; i++) {
		bad |= sub->passes[i].error != NULL;
		if (sub->passes[i].error && !s->quiet)
			fprintf(stderr, "kscore: error: %s\n", sub->passes[i].error);
		for (j = 0; j < sub->passes[i].nentries; j++)
			if (sub->passes[i].entries[j].error && !s->quiet)
				fprintf(stderr, "kscore: warning: %s\n", sub->passes[i].entries[j].error);
	}
	rc = ks_pipeline_score(s->pl, &sc, sub, team, out_dir);
	if (rc < 0) {
		rc = rc == KS_EINVALID ? KSCORE_EREFUSED : public_status(rc);
		goto done;
	}
	if (summary) {
		summary_from(summary, sc.summary);
		summary->correct = sc.correct;
		summary->bad_input = bad || sc.bad_input;
	}
done:
	ks_scored_clear(&sc);
	ks_submission_free(sub);
	return rc;
}

void kscore_session_close(kscore_session *s)
{
	if (!s)
		return;
	ks_pipeline_free(s->pl);
	ks_free(s->refs);
	ks_free(s->cache);
	ks_free(s);
}

/* ---- results ---- */

/* A string field of obj, or dflt where it is missing or not a string. */
static const char *str_or(const cJSON *obj, const char *key, const char *dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return cJSON_IsString(v) ? v->valuestring : dflt;
}

struct kscore_result {
	cJSON *root;
	const cJSON *kernels;
	size_t nkernels;
};

int kscore_result_open(kscore_result **out, const char *result_dir)
{
	kscore_result *r = NULL;
	char *path = NULL, *text = NULL;
	const char *schema = NULL;
	size_t len = 0;
	int rc;

	*out = NULL;
	ks_error_clear();
	path = ks_asprintf("%s/score.json", result_dir);
	if ((rc = ks_fs_read(&text, &len, path, API_MAX_SCORE_JSON)) < 0)
		goto done;
	r = ks_calloc(1, sizeof(*r));
	if ((rc = ks_json_parse(&r->root, text, len, API_JSON_DEPTH, path)) < 0)
		goto done;
	if (ks_json_str(&schema, r->root, "schema", 1) < 0 || strncmp(schema, "kscore.score/", 13) != 0) {
		rc = ks_error_set(KS_EINVALID, "%s: not a kscore score record (schema %s)", path,
				  schema ? schema : "missing");
		goto done;
	}
	r->kernels = cJSON_GetObjectItemCaseSensitive(r->root, "kernels");
	if (!cJSON_IsArray(r->kernels)) {
		rc = ks_error_set(KS_EINVALID, "%s: no kernels array", path);
		goto done;
	}
	r->nkernels = (size_t)cJSON_GetArraySize(r->kernels);
	*out = r;
	r = NULL;
done:
	kscore_result_free(r);
	ks_free(text);
	ks_free(path);
	return public_status(rc);
}

const char *kscore_result_team(const kscore_result *r)
{
	const cJSON *t = r ? cJSON_GetObjectItemCaseSensitive(r->root, "team") : NULL;
	return cJSON_IsString(t) ? t->valuestring : NULL;
}

void kscore_result_summary(kscore_summary *out, const kscore_result *r)
{
	const cJSON *sum = cJSON_GetObjectItemCaseSensitive(r->root, "summary");
	kscore_summary blank = KSCORE_SUMMARY_INIT;
	size_t i;
	*out = blank;
	summary_from(out, sum);
	for (i = 0; i < r->nkernels; i++) {
		const cJSON *k = cJSON_GetArrayItem(r->kernels, (int)i);
		const cJSON *ok = cJSON_GetObjectItemCaseSensitive(k, !strcmp(str_or(r->root, "mode", ""),
									      "compile-only") ? "compiled" : "exec");
		out->correct += cJSON_IsTrue(ok);
	}
}

size_t kscore_result_kernels(const kscore_result *r)
{
	return r ? r->nkernels : 0;
}

/* A tri-state field: 1 true, 0 false, -1 null or missing (not run). */
static int tri(const cJSON *k, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(k, key);
	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : -1;
}

int kscore_result_kernel(kscore_kernel *out, const kscore_result *r, size_t i)
{
	const cJSON *k;
	memset(out, 0, sizeof(*out));
	if (!r || i >= r->nkernels)
		return ks_error_set(KS_ENOTFOUND, "kernel %zu: the result has %zu", i, r ? r->nkernels : 0);
	k = cJSON_GetArrayItem(r->kernels, (int)i);
	out->problem = str_or(k, "problem", "");
	out->pass = (int)ks_json_num_or(k, "pass", 0);
	out->compiled = tri(k, "compiled") == 1;
	out->call = tri(k, "call");
	out->exec = tri(k, "exec");
	out->reason = str_or(k, "reason", "");
	out->language = str_or(k, "language", "");
	out->speedup = rate(k, "speedup");
	out->suspicious = tri(k, "suspicious") == 1;
	return 0;
}

void kscore_result_free(kscore_result *r)
{
	if (!r)
		return;
	cJSON_Delete(r->root);
	ks_free(r);
}

/* ---- batch and site ---- */

int kscore_batch_run(const char *manifest_path, const kscore_batch_options *opts)
{
	kscore_batch_options dflt = KSCORE_BATCH_OPTIONS_INIT;
	ks_batch_options o;
	int rc;

	ks_error_clear();
	if (!opts)
		opts = &dflt;
	if (check_version(opts->version, KSCORE_BATCH_OPTIONS_VERSION, "kscore_batch_options") < 0)
		return KS_EINVALID;
	if (!manifest_path)
		return ks_error_set(KS_EINVALID, "kscore_batch_run: no manifest");
	memset(&o, 0, sizeof(o));
	if ((rc = scoreopts_from(&o.so, NULL, opts->compile_only, 0, opts->devices, opts->cache_dir, 0, 0, 0, 0)) < 0)
		return rc;
	o.out = opts->out_dir ? opts->out_dir : KS_BATCH_DEFAULT_OUT;
	o.manifest_path = manifest_path;
	o.name_from = -1;
	o.no_fetch = opts->no_fetch;
	o.no_site = opts->no_site;
	o.quiet = opts->quiet;
	o.write_site = ks_export_batch_site;
	return ks_batch_run(&o);
}

int kscore_export_site(const char *site_dir, const char *const *result_dirs, size_t nresult_dirs,
		       const kscore_export_options *opts)
{
	kscore_export_options dflt = KSCORE_EXPORT_OPTIONS_INIT;
	ks_export_options o = KS_EXPORT_OPTIONS_INIT;
	int rc;

	ks_error_clear();
	if (!opts)
		opts = &dflt;
	if (check_version(opts->version, KSCORE_EXPORT_OPTIONS_VERSION, "kscore_export_options") < 0)
		return KS_EINVALID;
	if (!site_dir || !*site_dir || !result_dirs || nresult_dirs == 0)
		return ks_error_set(KS_EINVALID, "kscore_export_site: a site folder and result folders are needed");
	o.out_dir = site_dir;
	o.no_code = opts->no_code;
	o.cache_dir = opts->cache_dir;
	if ((rc = ks_export_check_out(site_dir, result_dirs, nresult_dirs)) < 0)
		return rc == KS_EINVALID ? KSCORE_EREFUSED : public_status(rc);
	return public_status(ks_export_site(NULL, result_dirs, nresult_dirs, &o));
}
