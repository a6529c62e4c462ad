#include "nvtool/nvtool.h"
#include "util/buf.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "nvtool/profile.h"
#include "nvtool/sanitize.h"
#include "nvtool/toolrun.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef KS_CUDA_HOME
#define KS_CUDA_HOME "/usr/local/cuda"
#endif

int ks_profile_when_parse(ks_profile_when *out, const char *s)
{
	if (!s || !strcmp(s, "slow"))
		*out = KS_PROFILE_SLOW;
	else if (!strcmp(s, "all"))
		*out = KS_PROFILE_ALL;
	else if (!strcmp(s, "never"))
		*out = KS_PROFILE_NEVER;
	else
		return ks_error_set(KS_EINVALID, "--profile takes slow, all or never");
	return 0;
}

const char *ks_profile_when_name(ks_profile_when w)
{
	return w == KS_PROFILE_ALL ? "all" : w == KS_PROFILE_SLOW ? "slow" : "never";
}

char *ks_nvtool_find(const char *name)
{
	const char *var = !strcmp(name, "ncu") ? "KSCORE_NCU" : "KSCORE_COMPUTE_SANITIZER";
	const char *env = getenv(var), *home = getenv("CUDA_HOME"), *path = getenv("PATH");
	char *c, *found = NULL;

	if (env && *env) {
		if (access(env, X_OK) == 0)
			return ks_strdup(env);
		ks_error_set(KS_ENOTFOUND, "$%s names %s, which is not an executable", var, env);
		return NULL;
	}
	if (home && *home) {
		c = ks_asprintf("%s/bin/%s", home, name);
		if (access(c, X_OK) == 0)
			return c;
		ks_free(c);
	}
	c = ks_asprintf("%s/bin/%s", KS_CUDA_HOME, name);
	if (access(c, X_OK) == 0)
		return c;
	ks_free(c);
	if (strcmp(KS_CUDA_HOME, "/usr/local/cuda")) {
		c = ks_asprintf("/usr/local/cuda/bin/%s", name);
		if (access(c, X_OK) == 0)
			return c;
		ks_free(c);
	}
	if (path) {
		char *dup = ks_strdup(path), *tok, *save = NULL;
		for (tok = strtok_r(dup, ":", &save); tok && !found; tok = strtok_r(NULL, ":", &save)) {
			if (*tok != '/')
				continue; /* a relative PATH entry would depend on the working folder */
			c = ks_path_join(tok, name);
			if (access(c, X_OK) == 0)
				found = c;
			else
				ks_free(c);
		}
		ks_free(dup);
	}
	if (!found)
		ks_error_set(KS_ENOTFOUND, "%s not found (looked in $CUDA_HOME/bin, %s/bin%s and $PATH)", name,
			     KS_CUDA_HOME, strcmp(KS_CUDA_HOME, "/usr/local/cuda") ? ", /usr/local/cuda/bin" : "");
	return found;
}

typedef struct golden_profile {
	const ks_problem *p;
	size_t ci;
	ks_profile_data data;
	char **names;
	size_t nnames;
	char *error;
	double seconds;
	struct golden_profile *next;
} golden_profile;

/* Shared by the threads of every GPU lane (lanes.h): mu guards the tools' paths and notes (a
 * stage stops for everyone), prof_mu makes profiles one at a time (two ncu sessions cannot share
 * the GPUs' counters) and guards what only profiles touch (skip, goldens). */
struct ks_nvtool {
	ks_nvtool_options o;
	char *sanitizer, *ncu;
	char *san_note, *ncu_note;    /* why a stage is off, or stopped */
	unsigned char skip[KS_PM_COUNT]; /* metrics this ncu does not know */
	golden_profile *goldens;
	pthread_mutex_t mu, prof_mu;
};

static double now_s(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

void ks_nvtool_new(ks_nvtool **out, const ks_nvtool_options *o)
{
	ks_nvtool *t = ks_calloc(1, sizeof(*t));
	t->o = *o;
	pthread_mutex_init(&t->mu, NULL);
	pthread_mutex_init(&t->prof_mu, NULL);
	if (!t->o.prog)
		t->o.prog = "score";
	if (!t->o.warn)
		t->o.warn = stderr;
	if (o->sanitize && !(t->sanitizer = ks_nvtool_find("compute-sanitizer"))) {
		t->san_note = ks_strdup(ks_error_msg());
		fprintf(t->o.warn, "%s: warning: --sanitize: %s; kernels are scored without the sanitizer stage\n",
			t->o.prog, t->san_note);
	}
	if (o->profile != KS_PROFILE_NEVER && !(t->ncu = ks_nvtool_find("ncu"))) {
		t->ncu_note = ks_asprintf("Nsight Compute's %s", ks_error_msg());
		fprintf(t->o.warn, "%s: warning: --profile: %s; kernels are scored without profiles\n", t->o.prog,
			t->ncu_note);
	}
	*out = t;
}

void ks_nvtool_free(ks_nvtool *t)
{
	if (!t)
		return;
	while (t->goldens) {
		golden_profile *g = t->goldens;
		t->goldens = g->next;
		ks_profile_data_clear(&g->data);
		ks_free_strv(g->names, g->nnames);
		ks_free(g->error);
		ks_free(g);
	}
	ks_free(t->sanitizer);
	ks_free(t->ncu);
	ks_free(t->san_note);
	ks_free(t->ncu_note);
	pthread_mutex_destroy(&t->mu);
	pthread_mutex_destroy(&t->prof_mu);
	ks_free(t);
}

cJSON *ks_nvtool_json(const ks_nvtool *t)
{
	cJSON *o = cJSON_CreateObject(), *s, *a;
	pthread_mutex_t *mu = (pthread_mutex_t *)&t->mu; /* a lock, not the tool's state */
	int i;
	pthread_mutex_lock(mu);
	s = cJSON_AddObjectToObject(o, "sanitizer");
	a = cJSON_AddArrayToObject(s, "tools");
	for (i = 0; i < KS_SAN_NTOOLS; i++)
		if (t->o.sanitize & (1u << i))
			cJSON_AddItemToArray(a, cJSON_CreateString(ks_sanitize_tool_name(1u << i)));
	cJSON_AddBoolToObject(s, "available", t->sanitizer != NULL);
	if (t->san_note)
		cJSON_AddStringToObject(s, "note", t->san_note);
	else
		cJSON_AddNullToObject(s, "note");
	s = cJSON_AddObjectToObject(o, "profiler");
	cJSON_AddStringToObject(s, "when", ks_profile_when_name(t->o.profile));
	cJSON_AddBoolToObject(s, "available", t->ncu != NULL);
	if (t->ncu_note)
		cJSON_AddStringToObject(s, "note", t->ncu_note);
	else
		cJSON_AddNullToObject(s, "note");
	pthread_mutex_unlock(mu);
	return o;
}

/* A copy of a tool's path (NULL once its stage is off), for one thread's runs. */
static char *tool_path(ks_nvtool *t, char *const *which)
{
	char *c;
	pthread_mutex_lock(&t->mu);
	c = *which ? ks_strdup(*which) : NULL;
	pthread_mutex_unlock(&t->mu);
	return c;
}

/* Turns a stage off for the rest of the session (every lane), saying why once. */
static void tool_off(ks_nvtool *t, char **which, char **note, const char *why, const char *warning)
{
	pthread_mutex_lock(&t->mu);
	if (*which) {
		if (warning)
			fprintf(stderr, "%s", warning);
		ks_free(*note);
		*note = ks_strdup(why);
		ks_free(*which);
		*which = NULL;
	}
	pthread_mutex_unlock(&t->mu);
}

/* ---- one run under a tool (toolrun.h) */

/* The first line of text starting with prefix, printable and capped; NULL when none. */
static char *first_line(const char *text, const char *prefix)
{
	const char *p = text;
	size_t n = strlen(prefix);
	while (p && *p) {
		if (!strncmp(p, prefix, n)) {
			const char *e = strchr(p, '\n');
			size_t l = e ? (size_t)(e - p) : strlen(p), i;
			char *o;
			if (l > 300)
				l = 300;
			o = ks_strndup(p, l);
			for (i = 0; o[i]; i++)
				if ((unsigned char)o[i] < 0x20 || (unsigned char)o[i] >= 0x7f)
					o[i] = '?';
			return o;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return NULL;
}

/* The tool's first complaint about itself, for messages. */
static char *tool_complaint(const ks_toolrun *jr)
{
	char *c = first_line(jr->log, "==ERROR==");
	if (!c)
		c = first_line(jr->out, "==ERROR==");
	if (!c)
		c = first_line(jr->log, "========= Error");
	if (!c)
		c = first_line(jr->out, "========= Error");
	return c;
}

static double run_timeout(const ks_nvtool *t)
{
	/* the tools slow kernels down by one to two orders of magnitude and add their start-up */
	return 60.0 + 20.0 * t->o.kernel_timeout_s;
}

/* ---- the sanitizer stage */

void ks_nvtool_sanitize(ks_nvtool *t, ks_kernel_result *r, const ks_candidate_image *img, ks_runner *run)
{
	const ks_problem *p = img->problem;
	ks_env env = KS_ENV_INIT;
	ks_plan plan;
	cJSON *rec, *tools, *findings;
	double t0 = now_s();
	ks_sanitize_case_rule rule = KS_SAN_CASE_TAIL;
	size_t ci = 0;
	char *san;
	int i;

	if (!t || !t->o.sanitize || !r->exec || !img->cubin || !p || !p->ncorrectness ||
	    !(san = tool_path(t, &t->sanitizer)))
		return;
	memset(&plan, 0, sizeof(plan));
	rec = cJSON_CreateObject();
	/* the first case with several blocks and a partial tail, with the inputs of its first checked
	 * run: an access that goes wrong past the first block or on a partial tile happens there */
	if (ks_sanitize_pick_case(&ci, &rule, img, &t->o.limits, KS_SANITIZE_MAX_CASE_BYTES) < 0) {
		cJSON_AddStringToObject(rec, "error", ks_error_msg());
		goto done;
	}
	cJSON_AddStringToObject(rec, "case", p->correctness[ci].label);
	cJSON_AddNumberToObject(rec, "case_index", (double)ci);
	cJSON_AddStringToObject(rec, "case_choice", ks_sanitize_case_rule_name(rule));
	cJSON_AddStringToObject(rec, "case_why", ks_sanitize_case_rule_text(rule));
	tools = cJSON_AddArrayToObject(rec, "tools");
	findings = cJSON_AddArrayToObject(rec, "findings");
	if (ks_problem_env(&env, p, &p->correctness[ci]) < 0 ||
	    ks_candidate_plan(&plan, img, 0, ci, &env, ks_seed_derive(t->o.seed, p->name, 0, ci, 0), 0, &t->o.limits) < 0) {
		cJSON_AddStringToObject(rec, "error", ks_error_msg());
		goto done;
	}
	for (i = 0; i < KS_SAN_NTOOLS && r->exec && san; i++) {
		unsigned bit = 1u << i;
		const char *name = ks_sanitize_tool_name(bit);
		char *dir = NULL, *logp = NULL, **argv = NULL, *detail = NULL, *why = NULL;
		size_t an = 0;
		ks_toolrun jr;
		ks_sanitize_report rep;
		cJSON *tr;
		if (!(t->o.sanitize & bit))
			continue;
		{
			ks_toolrun_kernel kern = { img->cubin, img->len, img->lowered, img->nlowered };
			char tag[80];
			snprintf(tag, sizeof(tag), "%s-%.40s-p%zue%zu", name, p->name, r->pass, r->index);
			if (bit == KS_SAN_MEMCHECK) {
				/* memcheck stops a kernel at its first finding: one worker serves many */
				ks_toolrun_kept(&jr, run, san, tag, &kern, &plan, run_timeout(t));
			} else {
				if (!(dir = ks_toolrun_scratch())) {
					cJSON_AddStringToObject(rec, "error", ks_error_msg());
					break;
				}
				logp = ks_path_join(dir, "log");
				ks_sanitize_argv(&argv, &an, san, bit, logp);
				ks_toolrun_fresh(&jr, run, "candidate", tag, argv, dir, &kern, &plan, run_timeout(t), 0);
				ks_fs_rm_rf(dir);
			}
		}
		ks_sanitize_parse(&rep, jr.log, jr.log_len);
		if (!rep.n && !rep.api_errors && rep.summary_errors < 0) {
			/* nothing in the log: a tool that ignored --log-file printed to its console */
			ks_sanitize_report_clear(&rep);
			ks_sanitize_parse(&rep, jr.out, strlen(jr.out));
		}
		tr = cJSON_CreateObject();
		cJSON_AddStringToObject(tr, "tool", name);
		ks_json_add_num(tr, "seconds", jr.seconds);
		cJSON_AddNumberToObject(tr, "errors", (double)rep.errors);
		cJSON_AddNumberToObject(tr, "warnings", (double)(rep.total - rep.errors));
		cJSON_AddNumberToObject(tr, "api_errors", (double)rep.api_errors);
		if (jr.exit_status >= 0 && WIFEXITED(jr.exit_status))
			cJSON_AddNumberToObject(tr, "exit_status", WEXITSTATUS(jr.exit_status));
		else
			cJSON_AddNullToObject(tr, "exit_status");
		/* which process it ran in: one of its own, or the lane thread's kept worker (and after how
		 * many other kernels); a kept worker that is still running has no exit status yet */
		cJSON_AddStringToObject(tr, "worker", bit == KS_SAN_MEMCHECK ? "kept" : "fresh");
		if (bit == KS_SAN_MEMCHECK)
			cJSON_AddNumberToObject(tr, "worker_kernels_before", (double)jr.before);
		if (jr.replaced)
			cJSON_AddStringToObject(tr, "worker_replaced", jr.replaced);
		if (ks_sanitize_fails(&rep, bit) && (detail = ks_sanitize_detail(&rep, name))) {
			/* a finding: the kernel is wrong even though its outputs were right */
			cJSON_AddStringToObject(tr, "status", "error");
			r->exec = 0;
			ks_kernel_result_fail(r, KS_REASON_SANITIZER, "%s", detail);
		} else if (jr.stage == 3 && jr.run.status == KS_RUN_FAULT) {
			cJSON_AddStringToObject(tr, "status", "error");
			r->exec = 0;
			ks_kernel_result_fail(r, KS_REASON_SANITIZER, "%s: the kernel failed under compute-sanitizer "
					      "(no finding was printed): %s", name,
					      jr.run.message ? jr.run.message : "?");
		} else if (jr.stage == 3 && jr.run.status == KS_RUN_OK && ks_sanitize_unread_errors(&rep, jr.exit_status)) {
			/* the tool's exit status says it found errors that its log does not show in a form
			 * kscore reads: the second witness decides */
			cJSON_AddStringToObject(tr, "status", "error");
			r->exec = 0;
			ks_kernel_result_fail(r, KS_REASON_SANITIZER, "%s: compute-sanitizer found errors (exit status "
					      "%d) but printed no finding kscore could read", name, KS_SANITIZE_EXIT_CODE);
		} else if (jr.stage == 3 && jr.run.status == KS_RUN_OK) {
			cJSON_AddStringToObject(tr, "status", rep.total ? "warnings" : "clean");
		} else {
			/* the tool, not the kernel: recorded and charged to nobody */
			char *c = rep.tool_error ? ks_strdup(rep.tool_error) : tool_complaint(&jr);
			why = ks_asprintf("%s%s%s", jr.stage < 3 ? jr.error : jr.run.message ? jr.run.message : "?",
					  c ? ": " : "", c ? c : "");
			ks_free(c);
			cJSON_AddStringToObject(tr, "status", "not_run");
			cJSON_AddStringToObject(tr, "error", why);
			if (jr.stage == 0) {
				/* it cannot start a worker at all: say so once and stop trying */
				char *note = ks_asprintf("compute-sanitizer could not start a worker: %s", why);
				char *warn = ks_asprintf("%s: warning: compute-sanitizer cannot run here (%s); the "
							 "sanitizer stage is off for the rest of this run\n", t->o.prog, why);
				tool_off(t, &t->sanitizer, &t->san_note, note, warn);
				ks_free(note);
				ks_free(warn);
				ks_free(san);
				san = NULL;
			} else
				fprintf(stderr, "%s: warning: the %s run of %s (pass %zu, entry %zu) could not finish (%s); "
					"not charged to the kernel\n", t->o.prog, name, r->problem ? r->problem : "?", r->pass,
					r->index, why);
		}
		{
			cJSON *fa = ks_sanitize_findings_json(&rep, name), *f;
			while ((f = cJSON_DetachItemFromArray(fa, 0)) != NULL)
				cJSON_AddItemToArray(findings, f);
			cJSON_Delete(fa);
		}
		cJSON_AddItemToArray(tools, tr);
		ks_free(detail);
		ks_free(why);
		ks_sanitize_report_clear(&rep);
		ks_toolrun_clear(&jr);
		ks_free_strv(argv, an);
		ks_free(logp);
		ks_free(dir);
	}
done:
	ks_free(san);
	ks_json_add_num(rec, "seconds", now_s() - t0);
	cJSON_Delete(r->sanitizer);
	r->sanitizer = rec;
	ks_plan_clear(&plan);
	ks_env_free(&env);
}

/* ---- the profile stage */

int ks_nvtool_wants_profile(const ks_nvtool *t, const ks_kernel_result *r)
{
	int on;
	if (!t || t->o.profile == KS_PROFILE_NEVER || !r->exec || !r->timed || !r->nperf)
		return 0;
	pthread_mutex_lock((pthread_mutex_t *)&t->mu); /* a lock, not the tool's state */
	on = t->ncu != NULL;
	pthread_mutex_unlock((pthread_mutex_t *)&t->mu);
	if (!on)
		return 0;
	return t->o.profile == KS_PROFILE_ALL || (r->speedup > 0 && r->speedup < 1);
}

static int plain_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_'))
			return 0;
	return 1;
}

/* The distinct lowered names of the kernels a plan launches. */
static void plan_names(char ***out, size_t *nout, const ks_plan *plan, char *const *lowered, size_t nl)
{
	char **v = ks_calloc(plan->nkernels + 1, sizeof(char *));
	size_t k, j, n = 0;
	for (k = 0; k < plan->nkernels; k++) {
		const char *nm = plan->kernels[k].func < nl ? lowered[plan->kernels[k].func] : NULL;
		if (!nm)
			continue;
		for (j = 0; j < n && strcmp(v[j], nm); j++)
			;
		if (j == n)
			v[n++] = ks_strdup(nm);
	}
	*out = v;
	*nout = n;
}

/* Profiles one plan under ncu into *out; on failure *err says why (caller frees). Under prof_mu:
 * t->ncu changes only here, and under mu as well for the other readers. */
static void profile_one(ks_nvtool *t, ks_runner *run, const char *role, const char *tag, const void *cubin, size_t len,
			char *const *lowered, size_t nl, const ks_plan *plan, char **names, size_t nnames,
			ks_profile_data *out, char **err, double *secs)
{
	int attempt, filter = nnames > 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	*err = NULL;
	*secs = 0;
	for (i = 0; i < nnames; i++)
		filter = filter && plain_name(names[i]) && strlen(names[i]) < 1024;
	for (attempt = 0; attempt < 2 && t->ncu; attempt++) {
		char *dir = ks_toolrun_scratch(), *logp, *metrics, *regex = NULL, *count = NULL, *perm;
		const char *argv[32];
		size_t k = 0;
		ks_toolrun jr;
		ks_buf rb = KS_BUF_INIT(1u << 20);
		if (!dir) {
			*err = ks_strdup(ks_error_msg());
			return;
		}
		logp = ks_path_join(dir, "log");
		metrics = ks_profile_metric_list(t->skip);
		argv[k++] = t->ncu;
		/* the GPU's clocks are never changed (DESIGN §4.6) */
		argv[k++] = "--clock-control";
		argv[k++] = "none";
		argv[k++] = "--target-processes";
		argv[k++] = "all";
		if (filter) {
			/* only the plan's kernels, not the harness's fills and checksums */
			ks_buf_puts(&rb, "regex:^(");
			for (i = 0; i < nnames; i++)
				ks_buf_printf(&rb, "%s%s", i ? "|" : "", names[i]);
			ks_buf_puts(&rb, ")$");
			regex = ks_buf_take(&rb, NULL);
			count = ks_asprintf("%zu", plan->nkernels);
			argv[k++] = "--kernel-name-base";
			argv[k++] = "mangled";
			argv[k++] = "--kernel-name";
			argv[k++] = regex;
			argv[k++] = "--launch-count";
			argv[k++] = count;
		}
		argv[k++] = "--metrics";
		argv[k++] = metrics;
		argv[k++] = "--csv";
		argv[k++] = "--page";
		argv[k++] = "raw";
		argv[k++] = "--print-units";
		argv[k++] = "base";
		argv[k++] = "--print-kernel-base";
		argv[k++] = "mangled";
		argv[k++] = "--log-file";
		argv[k++] = logp;
		argv[k] = NULL;
		{
			ks_toolrun_kernel kern = { cubin, len, lowered, nl };
			ks_toolrun_fresh(&jr, run, role, tag, (char *const *)argv, dir, &kern, plan, run_timeout(t), 1);
		}
		ks_fs_rm_rf(dir);
		*secs += jr.seconds;
		ks_profile_parse(out, jr.log, jr.log_len);
		if (!out->format) {
			/* a table printed to the console rather than the log */
			ks_profile_data_clear(out);
			ks_profile_parse(out, jr.out, strlen(jr.out));
		}
		perm = strstr(jr.log, "ERR_NVGPUCTRPERM") ? jr.log : strstr(jr.out, "ERR_NVGPUCTRPERM");
		if (out->n == 0) {
			char *c = tool_complaint(&jr);
			ks_free(*err);
			if (perm) {
				char *warn;
				*err = ks_strdup("ncu may not read the GPU's performance counters (ERR_NVGPUCTRPERM: "
						 "profiling is restricted to administrators on this machine)");
				warn = ks_asprintf("%s: warning: --profile: %s; no profiles for the rest of this run\n",
						   t->o.prog, *err);
				tool_off(t, &t->ncu, &t->ncu_note, *err, warn);
				ks_free(warn);
			} else if (jr.stage < 3)
				*err = ks_asprintf("ncu could not run the kernel: %s%s%s", jr.error, c ? ": " : "",
						   c ? c : "");
			else if (jr.run.status != KS_RUN_OK)
				*err = ks_asprintf("the run under ncu failed: %s: %s%s%s", ks_run_status_name(jr.run.status),
						   jr.run.message ? jr.run.message : "?", c ? "; " : "", c ? c : "");
			else
				*err = ks_asprintf("ncu reported no kernel%s%s", c ? ": " : "", c ? c : "");
			ks_free(c);
		}
		{
			int retry = out->n == 0 && !perm && attempt == 0 &&
				    (ks_profile_failed_metrics(t->skip, jr.log, jr.log_len) +
				     ks_profile_failed_metrics(t->skip, jr.out, strlen(jr.out))) > 0;
			if (!perm && jr.stage == 0 && attempt == 0 && !retry) {
				char *warn = ks_asprintf("%s: warning: --profile: ncu cannot start a worker here (%s); "
							 "no profiles for the rest of this run\n", t->o.prog,
							 *err ? *err : "?");
				tool_off(t, &t->ncu, &t->ncu_note, *err ? *err : "ncu cannot start a worker", warn);
				ks_free(warn);
			}
			ks_toolrun_clear(&jr);
			ks_free(dir);
			ks_free(logp);
			ks_free(metrics);
			ks_free(regex);
			ks_free(count);
			ks_buf_free(&rb);
			if (!retry)
				break;
			ks_profile_data_clear(out);
		}
	}
	if (out->n) {
		ks_free(*err);
		*err = NULL;
	}
}

/* The perf case to profile: the largest one (most golden time; most bytes when untimed). */
static const ks_perf_result *largest_case(const ks_kernel_result *r)
{
	const ks_perf_result *best = NULL;
	size_t i;
	for (i = 0; i < r->nperf; i++) {
		const ks_perf_result *pc = &r->perf[i];
		double a = isnan(pc->golden_ms) ? 0 : pc->golden_ms, b = best && !isnan(best->golden_ms) ? best->golden_ms : 0;
		if (!best || a > b || (a == b && pc->bytes >= best->bytes))
			best = pc;
	}
	return best;
}

static cJSON *side_json(const ks_profile_data *d, const ks_profile_launch *pick, const char *err, double secs)
{
	cJSON *o = cJSON_CreateObject(), *a = cJSON_AddArrayToObject(o, "launches");
	size_t i;
	for (i = 0; i < d->n; i++)
		cJSON_AddItemToArray(a, ks_profile_launch_json(&d->launches[i]));
	if (pick)
		cJSON_AddStringToObject(o, "diagnosed", pick->name);
	else
		cJSON_AddNullToObject(o, "diagnosed");
	if (err)
		cJSON_AddStringToObject(o, "error", err);
	else
		cJSON_AddNullToObject(o, "error");
	ks_json_add_num(o, "seconds", secs);
	return o;
}

void ks_nvtool_profile(ks_nvtool *t, ks_kernel_result *r, const ks_candidate_image *img, ks_runner *run)
{
	const ks_problem *p = img->problem;
	const ks_perf_result *pc;
	const ks_profile_launch *kl = NULL, *gl = NULL;
	ks_env env = KS_ENV_INIT;
	ks_plan cplan, gplan;
	ks_profile_data cdata;
	golden_profile *g = NULL;
	char **cnames = NULL, *cerr = NULL, **lines = NULL;
	size_t ncn = 0, nlines = 0, i;
	double t0 = now_s(), csecs = 0;
	uint64_t seed;
	cJSON *rec;

	if (!ks_nvtool_wants_profile(t, r) || !img->cubin || !p || !(pc = largest_case(r)) || pc->case_index >= p->nperf)
		return;
	pthread_mutex_lock(&t->prof_mu);
	memset(&cplan, 0, sizeof(cplan));
	memset(&gplan, 0, sizeof(gplan));
	memset(&cdata, 0, sizeof(cdata));
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "tool", "ncu");
	cJSON_AddStringToObject(rec, "case", pc->label);
	cJSON_AddNumberToObject(rec, "case_index", (double)pc->case_index);
	/* the inputs of the timing's first input set */
	seed = ks_seed_derive(t->o.seed, p->name, 1, pc->case_index, 100);
	if (ks_problem_env(&env, p, &p->perf[pc->case_index]) < 0 ||
	    ks_candidate_plan(&cplan, img, 1, pc->case_index, &env, seed, 0, &t->o.limits) < 0) {
		cJSON_AddStringToObject(rec, "error", ks_error_msg());
		goto done;
	}
	plan_names(&cnames, &ncn, &cplan, img->lowered, img->nlowered);
	{
		char tag[80];
		snprintf(tag, sizeof(tag), "ncu-%.40s-p%zue%zu", p->name, r->pass, r->index);
		profile_one(t, run, "candidate", tag, img->cubin, img->len, img->lowered, img->nlowered, &cplan, cnames, ncn,
			    &cdata, &cerr, &csecs);
	}
	kl = ks_profile_pick(&cdata, cnames, ncn);
	for (g = t->goldens; g; g = g->next)
		if (g->p == p && g->ci == pc->case_index)
			break;
	if (!g && t->ncu) {
		const void *gc;
		size_t glen, gn;
		char *const *glow;
		g = ks_calloc(1, sizeof(*g));
		g->p = p;
		g->ci = pc->case_index;
		if (ks_runner_golden_image(run, p, &gc, &glen, &glow, &gn) < 0)
			g->error = ks_asprintf("the golden kernel of %s is not loaded", p->name);
		else if (ks_plan_build(&gplan, p, &p->golden_launch, &p->perf[pc->case_index], &env, seed, 0,
				       &t->o.limits) < 0)
			g->error = ks_strdup(ks_error_msg());
		else {
			plan_names(&g->names, &g->nnames, &gplan, glow, gn);
			char tag[80];
			snprintf(tag, sizeof(tag), "ncu-%.40s-golden", p->name);
			profile_one(t, run, "golden", tag, gc, glen, glow, gn, &gplan, g->names, g->nnames, &g->data,
				    &g->error, &g->seconds);
		}
		g->next = t->goldens;
		t->goldens = g;
	}
	if (g)
		gl = ks_profile_pick(&g->data, g->names, g->nnames);
	cJSON_AddItemToObject(rec, "kernel", side_json(&cdata, kl, cerr, csecs));
	if (g)
		cJSON_AddItemToObject(rec, "golden", side_json(&g->data, gl, g->error, g->seconds));
	else
		cJSON_AddNullToObject(rec, "golden");
	if (kl) {
		cJSON *d;
		ks_profile_diagnose(&lines, &nlines, kl, gl, p->peak && strstr(p->peak, "_tc") != NULL);
		d = cJSON_AddArrayToObject(rec, "diagnosis");
		for (i = 0; i < nlines; i++)
			cJSON_AddItemToArray(d, cJSON_CreateString(lines[i]));
		cJSON_AddNullToObject(rec, "error");
	} else
		cJSON_AddStringToObject(rec, "error", cerr ? cerr : "ncu reported none of the kernel's launches");
done:
	ks_json_add_num(rec, "seconds", now_s() - t0);
	cJSON_Delete(r->profile);
	r->profile = rec;
	ks_free_strv(lines, nlines);
	ks_free_strv(cnames, ncn);
	ks_free(cerr);
	ks_profile_data_clear(&cdata);
	ks_plan_clear(&cplan);
	ks_plan_clear(&gplan);
	ks_env_free(&env);
	pthread_mutex_unlock(&t->prof_mu);
}

/* ---- text for performance_analysis.txt */

static double side_metric(const cJSON *side, const char *key)
{
	const cJSON *ls = cJSON_GetObjectItemCaseSensitive(side, "launches"), *l, *d;
	const char *diag = NULL;
	ks_json_str(&diag, side, "diagnosed", 0);
	cJSON_ArrayForEach(l, ls)
	{
		const char *nm = NULL;
		double v = NAN;
		ks_json_str(&nm, l, "name", 0);
		if (diag && nm && strcmp(diag, nm))
			continue;
		d = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(l, "metrics"), key);
		if (cJSON_IsNumber(d))
			v = d->valuedouble;
		return v;
	}
	return NAN;
}

static double side_ratio(const cJSON *side, const char *num, const char *den)
{
	double a = side_metric(side, num), b = side_metric(side, den);
	return b > 0 ? a / b : NAN;
}

static void cell(ks_buf *out, double v, int decimals)
{
	if (isnan(v))
		ks_buf_printf(out, " %10s", "-");
	else
		ks_buf_printf(out, " %10.*f", decimals, v);
}

void ks_nvtool_text(ks_buf *out, const ks_kernel_result *r)
{
	const cJSON *s = r->sanitizer, *p = r->profile, *x;
	const char *str = NULL;
	double secs = NAN;
	if (s) {
		const cJSON *tl = cJSON_GetObjectItemCaseSensitive(s, "tools");
		ks_json_num(&secs, s, "seconds", 0);
		ks_json_str(&str, s, "case", 0);
		ks_buf_printf(out, "   sanitizer on case %s", str ? str : "?");
		str = NULL;
		if (ks_json_str(&str, s, "case_why", 0) == 0 && str)
			ks_buf_printf(out, " (%s)", str);
		ks_buf_printf(out, " (%.1f s):", secs);
		cJSON_ArrayForEach(x, tl)
		{
			const char *tool = "?", *st = "?", *err = NULL;
			ks_json_str(&tool, x, "tool", 0);
			ks_json_str(&st, x, "status", 0);
			ks_json_str(&err, x, "error", 0);
			ks_buf_printf(out, " %s %s%s%s;", tool, st, err ? ": " : "", err ? err : "");
		}
		if (r->reason == KS_REASON_SANITIZER && r->detail)
			ks_buf_printf(out, " %s", r->detail);
		str = NULL;
		if (ks_json_str(&str, s, "error", 0) == 0 && str)
			ks_buf_printf(out, " %s", str);
		ks_buf_puts(out, "\n");
	}
	if (p) {
		static const struct {
			const char *label, *key, *den;
			int dec;
		} rows[] = { { "time under ncu (us)", "duration_ns", NULL, 1 },
			     { "DRAM throughput (% of peak)", "dram_pct", NULL, 1 },
			     { "SM throughput (% of peak)", "sm_pct", NULL, 1 },
			     { "achieved occupancy (%)", "occupancy_pct", NULL, 1 },
			     { "theoretical occupancy (%)", "theoretical_occupancy_pct", NULL, 1 },
			     { "registers per thread", "registers", NULL, 0 },
			     { "L1 hit rate (%)", "l1_hit_pct", NULL, 1 },
			     { "L2 hit rate (%)", "l2_hit_pct", NULL, 1 },
			     { "sectors per global load", "load_sectors", "load_requests", 1 },
			     { "sectors per global store", "store_sectors", "store_requests", 1 },
			     { "tensor pipe busy (%)", "tensor_pct", NULL, 1 } };
		const cJSON *k = cJSON_GetObjectItemCaseSensitive(p, "kernel"), *g = cJSON_GetObjectItemCaseSensitive(p, "golden");
		const cJSON *diag = cJSON_GetObjectItemCaseSensitive(p, "diagnosis");
		size_t i;
		str = NULL;
		secs = NAN;
		ks_json_num(&secs, p, "seconds", 0);
		ks_json_str(&str, p, "case", 0);
		ks_buf_printf(out, "   profile (Nsight Compute, case %s, %.1f s):\n", str ? str : "?", secs);
		str = NULL;
		if (ks_json_str(&str, p, "error", 0) == 0 && str)
			ks_buf_printf(out, "     no profile: %s\n", str);
		cJSON_ArrayForEach(x, diag)
		{
			if (cJSON_IsString(x))
				ks_buf_printf(out, "     - %s\n", x->valuestring);
		}
		if (cJSON_IsArray(diag)) {
			ks_buf_printf(out, "     %-30s %10s %10s\n", "", "kernel", "golden");
			for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
				double kv = rows[i].den ? side_ratio(k, rows[i].key, rows[i].den) : side_metric(k, rows[i].key);
				double gv = rows[i].den ? side_ratio(g, rows[i].key, rows[i].den) : side_metric(g, rows[i].key);
				if (!strcmp(rows[i].key, "duration_ns")) {
					kv /= 1e3;
					gv /= 1e3;
				}
				if (isnan(kv) && isnan(gv))
					continue;
				ks_buf_printf(out, "     %-30s", rows[i].label);
				cell(out, kv, rows[i].dec);
				cell(out, gv, rows[i].dec);
				ks_buf_puts(out, "\n");
			}
		}
	}
}
