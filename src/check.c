#include "check.h"
#include "compare.h"
#include "cubin.h"
#include "errors.h"
#include "extract.h"
#include "harness.h"
#include "mem.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

typedef struct {
	const ks_problem *p;
	ks_launch launch;
	char **names;
	size_t nnames;
	int job;          /* index into the compile jobs, -1 when not compiled */
	int gjob;         /* the compile job of its problem's golden kernels (also their index among
			   * the goldens compiled here: those jobs come first), -1 when none is needed */
} prep;

/* The compile stage runs in a thread of its own while this one checks each entry on the GPU as
 * soon as its kernel and its problem's golden kernel are compiled: cold compiles overlap the GPU
 * work instead of preceding it. Compiles are CPU work in sandboxed child processes; the checks
 * are GPU round trips, so the two hardly compete. */
typedef struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	unsigned char *ready;        /* per job, set by the compile thread */
	int finished;
	ks_compile_job *jobs;
	size_t n;
	ks_compile_options co;
	char *err;                   /* why the compiler could not run at all */
} compile_bg;

static void bg_done(void *ud, size_t i)
{
	compile_bg *b = ud;
	pthread_mutex_lock(&b->mu);
	b->ready[i] = 1;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
}

static void *bg_main(void *ud)
{
	compile_bg *b = ud;
	int rc = ks_compile_run_cb(b->jobs, b->n, &b->co, bg_done, b);
	pthread_mutex_lock(&b->mu);
	if (rc < 0)
		b->err = ks_strdup(ks_error_msg());
	b->finished = 1;
	pthread_cond_broadcast(&b->cv);
	pthread_mutex_unlock(&b->mu);
	return NULL;
}

/* Waits until job i is final; 0, or -1 when the compiler could not run at all. */
static int bg_wait(compile_bg *b, size_t i)
{
	int rc;
	pthread_mutex_lock(&b->mu);
	while (!b->ready[i] && !b->finished)
		pthread_cond_wait(&b->cv, &b->mu);
	rc = b->ready[i] ? 0 : -1;
	pthread_mutex_unlock(&b->mu);
	return rc;
}

static void init_result(ks_kernel_result *r, const ks_entry *e, size_t pass)
{
	memset(r, 0, sizeof(*r));
	r->pass = pass;
	r->index = e->index;
	r->file = e->file ? ks_strdup(e->file) : NULL;
	r->problem = e->problem ? ks_strdup(e->problem) : NULL;
	r->difficulty = e->difficulty;
	memcpy(r->entry_sha256, e->sha256, sizeof(r->entry_sha256));
	r->extract_note = e->extract_note ? ks_strdup(e->extract_note) : NULL;
}

static void case_push(ks_kernel_result *r, size_t *cap, const char *label, size_t ci, int si,
		      uint64_t seed)
{
	ks_case_result *c;
	r->cases = ks_grow(r->cases, sizeof(*r->cases), cap, r->ncases + 1);
	c = &r->cases[r->ncases++];
	memset(c, 0, sizeof(*c));
	c->label = ks_strdup(label);
	c->case_index = ci;
	c->seed_index = si;
	c->seed = seed;
}

/* Picks and validates the entry's launch plan; returns 0 or sets BAD_LAUNCH. */
static int choose_launch(prep *pr, ks_kernel_result *r, const ks_entry *e, const ks_check_options *o)
{
	char what[512], *comment = NULL;
	size_t ci;
	int rc = 0;

	snprintf(what, sizeof(what), "entry %zu (%s) launch plan", e->index, e->file);
	if (e->launch_json) {
		r->launch_source = ks_strdup("entry launch field");
		rc = ks_launch_parse_text(&pr->launch, e->launch_json, what);
	} else if ((comment = ks_extract_launch_comment(e->code)) != NULL) {
		r->launch_source = ks_strdup("code comment");
		rc = ks_launch_parse_text(&pr->launch, comment, what);
	} else {
		r->launch_source = ks_strdup("problem default");
		ks_launch_copy(&pr->launch, &pr->p->launch);
	}
	ks_free(comment);
	if (rc == 0)
		rc = ks_problem_check_launch(pr->p, &pr->launch, what);
	/* Evaluate the plan on every correctness case now, so a formula that fails (division by zero,
	 * a block of 2048 threads) is reported before anything runs. */
	for (ci = 0; rc == 0 && ci < pr->p->ncorrectness; ci++) {
		ks_env env = KS_ENV_INIT;
		ks_plan plan;
		const ks_case *c = &pr->p->correctness[ci];
		if ((rc = ks_problem_env(&env, pr->p, c)) == 0 &&
		    (rc = ks_plan_build(&plan, pr->p, &pr->launch, c, &env, 1, 0, &o->limits)) == 0)
			ks_plan_clear(&plan);
		else
			ks_error_wrap(rc, "%s, case %s", what, c->label);
		ks_env_free(&env);
	}
	if (rc < 0) {
		ks_kernel_result_fail(r, KS_REASON_BAD_LAUNCH, "%s", ks_error_msg());
		ks_launch_clear(&pr->launch);
		return -1;
	}
	r->launch = ks_launch_to_json(&pr->launch);
	ks_plan_kernel_names(&pr->names, &pr->nnames, &pr->launch);
	return 0;
}

static char *log_excerpt(const char *log, size_t max)
{
	size_t n = log ? strlen(log) : 0;
	if (n <= max)
		return ks_strdup(log ? log : "");
	return ks_asprintf("%.*s\n[... %zu more bytes of log]", (int)max, log, n - max);
}

static ks_reason compile_reason(ks_compile_status s)
{
	switch (s) {
	case KS_COMPILE_TIMEOUT:
		return KS_REASON_COMPILE_TIMEOUT;
	case KS_COMPILE_LIMIT:
		return KS_REASON_COMPILE_LIMIT;
	case KS_COMPILE_CRASH:
	case KS_COMPILE_SANDBOX:
		return KS_REASON_COMPILE_CRASH;
	case KS_COMPILE_NONAME:
		return KS_REASON_MISSING_KERNEL;
	case KS_COMPILE_NOHEADER:
		return KS_REASON_MISSING_HEADER;
	default:
		return KS_REASON_COMPILE_ERROR;
	}
}

/* The first line of a log that says "error", for a one-line detail. */
static char *first_error_line(const char *log)
{
	const char *p = log ? strstr(log, "error") : NULL, *s, *e;
	if (!p)
		return ks_strdup(log && *log ? log : "no log");
	for (s = p; s > log && s[-1] != '\n'; s--)
		;
	e = strchr(p, '\n');
	return ks_strndup(s, e ? (size_t)(e - s) : strlen(s));
}

/* ---- verification of one candidate run against the golden run */

/* The data of buffer i as fetched: all of it (FULL) or its samples (SAMPLE); *count elements. */
static const unsigned char *data_of(const ks_run_result *res, const ks_plan *plan, size_t i, uint64_t *count)
{
	if (res->bufs[i].mode == KS_FETCH_SAMPLE) {
		*count = res->bufs[i].sampled;
		return res->blob + res->bufs[i].off + (res->bufs[i].total - plan->bufs[i].bytes);
	}
	*count = plan->bufs[i].count;
	return res->blob + res->bufs[i].off + plan->guard;
}

static int guards_of(const ks_run_result *res, const ks_plan *plan, size_t i, char *msg, size_t len)
{
	ks_fetch_mode mode = res->bufs[i].mode;
	const ks_plan_buf *b = &plan->bufs[i];
	const unsigned char *base = res->blob + res->bufs[i].off;
	uint64_t guard = plan->guard, back_len = res->bufs[i].total - guard - b->bytes;
	const unsigned char *back = mode == KS_FETCH_FULL ? base + guard + b->bytes : base + guard;
	int64_t at;
	if ((at = ks_compare_guard(base, guard, 0)) >= 0) {
		snprintf(msg, len, "wrote before %s: %lld bytes before its start", b->name,
			 (long long)(guard - (uint64_t)at));
		return -1;
	}
	if ((at = ks_compare_guard(back, back_len, (guard + b->bytes) % 8)) >= 0) {
		snprintf(msg, len, "wrote past the end of %s (%llu bytes): at byte %llu after it", b->name,
			 (unsigned long long)b->bytes, (unsigned long long)at);
		return -1;
	}
	return 0;
}

ks_reason ks_check_run(char **detail, const ks_run_result *res, const ks_plan *plan,
		       const ks_fetch_mode *fetch, const ks_golden_run *g, const ks_problem *p)
{
	char msg[1024];
	size_t i;

	(void)fetch;
	for (i = 0; i < plan->nbufs; i++) {
		if (res->bufs[i].mode == KS_FETCH_NONE || res->bufs[i].mode == KS_FETCH_CHECKSUM)
			continue;
		if (guards_of(res, plan, i, msg, sizeof(msg)) < 0) {
			*detail = ks_strdup(msg);
			return KS_REASON_OOB_WRITE;
		}
	}
	/* Tensors come first in both plans, in the problem's order. */
	for (i = 0; i < plan->nbufs; i++) {
		const ks_plan_buf *b = &plan->bufs[i];
		const unsigned char *got, *want;
		const ks_arg *a;
		ks_cmp_stats st;
		uint64_t ngot, nwant;
		if (b->scratch)
			continue;
		a = &p->args[b->stream];
		if (b->role == KS_ROLE_IN &&
		    (res->bufs[i].mode != KS_FETCH_FULL || g->res.bufs[i].mode != KS_FETCH_FULL)) {
			/* perf sizes: inputs are compared by checksum */
			if (!res->bufs[i].has_checksum || !g->res.bufs[i].has_checksum) {
				*detail = ks_asprintf("internal: no checksum for input %s", b->name);
				return KS_REASON_CRASH;
			}
			if (res->bufs[i].checksum != g->res.bufs[i].checksum) {
				*detail = ks_asprintf("input %s was modified (its checksum changed)", b->name);
				return KS_REASON_INPUT_MODIFIED;
			}
			continue;
		}
		got = data_of(res, plan, i, &ngot);
		want = data_of(&g->res, &g->plan, i, &nwant);
		if (ngot != nwant || res->bufs[i].mode != g->res.bufs[i].mode) {
			*detail = ks_asprintf("internal: %s was fetched differently from the golden run", b->name);
			return KS_REASON_CRASH;
		}
		if (b->role == KS_ROLE_IN) {
			if (memcmp(got, want, b->bytes)) {
				uint64_t k = 0;
				size_t es = ks_dtype_size(b->dtype);
				while (k < b->count && !memcmp(got + k * es, want + k * es, es))
					k++;
				*detail = ks_asprintf("input %s was modified: %s[%llu] is %.9g, was %.9g",
						      b->name, b->name, (unsigned long long)k,
						      ks_dtype_get(b->dtype, got, k), ks_dtype_get(b->dtype, want, k));
				return KS_REASON_INPUT_MODIFIED;
			}
			continue;
		}
		ks_compare_tensor(&st, b->dtype, got, want, ngot, a->atol, a->rtol, plan->poison);
		if (st.bad) {
			if (res->bufs[i].mode == KS_FETCH_SAMPLE) {
				/* name the real element, and say that these were samples */
				char *d;
				st.first_bad = ks_sample_index(st.first_bad, ngot, b->count, plan->seed);
				d = ks_compare_describe(&st, b->name, a->atol, a->rtol);
				*detail = ks_asprintf("%s (of %llu elements sampled from %llu)", d,
						      (unsigned long long)ngot, (unsigned long long)b->count);
				ks_free(d);
			} else
				*detail = ks_compare_describe(&st, b->name, a->atol, a->rtol);
			return st.unwritten == st.bad ? KS_REASON_UNWRITTEN : KS_REASON_MISMATCH;
		}
	}
	return KS_REASON_OK;
}

ks_reason ks_check_run_failure(const ks_run_result *res)
{
	switch (res->status) {
	case KS_RUN_FAULT:
		return KS_REASON_FAULT;
	case KS_RUN_TIMEOUT:
		return KS_REASON_TIMEOUT;
	case KS_RUN_CRASH:
		return KS_REASON_CRASH;
	default:
		return KS_REASON_LAUNCH_ERROR;
	}
}

static void check_one(ks_kernel_result *r, const ks_candidate_image *img, ks_runner *run,
		      const ks_check_options *o)
{
	const ks_problem *p = img->problem;
	ks_func_info fi[KS_LAUNCH_MAX_KERNELS];
	ks_run_result res;
	size_t ci, cap = 0, i;
	int module = -1, first = 1;

	ks_runner_load(run, &res, &module, fi, img->cubin, img->len, img->lowered, img->nlowered);
	if (res.status != KS_RUN_OK) {
		ks_reason why = res.status == KS_RUN_ERROR
					? (res.message && strstr(res.message, "is not in the module")
						   ? KS_REASON_MISSING_KERNEL
						   : KS_REASON_LOAD_ERROR)
					: ks_check_run_failure(&res);
		ks_kernel_result_fail(r, why, "loading the module: %s", res.message ? res.message : "?");
		ks_run_result_clear(&res);
		ks_runner_collect_output(run, r);
		return;
	}
	ks_run_result_clear(&res);
	r->ran = 1;
	{
		char **names = NULL;
		size_t nn = 0;
		ks_plan_kernel_names(&names, &nn, &img->launch);
		r->kernels = ks_calloc(nn + 1, sizeof(ks_kernel_info));
		for (i = 0; i < nn && i < img->nlowered; i++) {
			r->kernels[i].name = names[i];
			names[i] = NULL;
			r->kernels[i].info = fi[i];
		}
		r->nkernels = i;
		ks_free_strv(names, nn);
	}

	for (ci = 0; ci < p->ncorrectness && r->reason == KS_REASON_OK; ci++) {
		const ks_case *c = &p->correctness[ci];
		ks_env env = KS_ENV_INIT;
		int s;
		if (ks_problem_env(&env, p, c) < 0) {
			ks_kernel_result_fail(r, KS_REASON_PROBLEM_INVALID, "%s", ks_error_msg());
			break;
		}
		/* seeds 0..n-1 on fresh inputs, then seed 0 again: the same inputs must agree */
		for (s = 0; s <= c->seeds && r->reason == KS_REASON_OK; s++) {
			int repeat = s == c->seeds, si = repeat ? 0 : s;
			uint64_t seed = ks_seed_derive(o->seed, p->name, 0, ci, si);
			const ks_golden_run *g = NULL;
			ks_fetch_mode fetch[KS_LAUNCH_MAX_SCRATCH + 72];
			ks_case_result *cr;
			ks_plan plan;
			char *detail = NULL;
			ks_reason why;

			case_push(r, &cap, c->label, ci, repeat ? -1 : si, seed);
			cr = &r->cases[r->ncases - 1];
			if (ks_runner_golden(run, &g, p, 0, ci, seed) < 0) {
				cr->reason = KS_REASON_PROBLEM_INVALID;
				cr->detail = ks_strdup(ks_error_msg());
				ks_kernel_result_fail(r, KS_REASON_PROBLEM_INVALID, "%s", ks_error_msg());
				break;
			}
			if (ks_plan_build(&plan, p, &img->launch, c, &env, seed, repeat ? 1 : si % 2,
					  &o->limits) < 0) {
				cr->reason = KS_REASON_BAD_LAUNCH;
				cr->detail = ks_strdup(ks_error_msg());
				ks_kernel_result_fail(r, KS_REASON_BAD_LAUNCH, "%s", ks_error_msg());
				break;
			}
			for (i = 0; i < plan.nbufs; i++)
				fetch[i] = plan.bufs[i].scratch ? KS_FETCH_GUARDS : KS_FETCH_FULL;
			ks_runner_run(run, &res, module, &plan, fetch);
			cr->ms = res.ms;
			if (res.status != KS_RUN_OK) {
				cr->reason = ks_check_run_failure(&res);
				cr->detail = ks_asprintf("%s", res.message ? res.message : "?");
				ks_kernel_result_fail(r, cr->reason, "case %s, seed %d: %s", c->label, si,
						      cr->detail);
			} else {
				if (first)
					r->call = 1;
				why = ks_check_run(&detail, &res, &plan, fetch, g, p);
				if (why == KS_REASON_OK) {
					cr->passed = 1;
				} else {
					if (repeat)
						why = KS_REASON_NONDETERMINISTIC;
					cr->reason = why;
					cr->detail = detail;
					detail = NULL;
					if (repeat)
						ks_kernel_result_fail(r, why, "case %s: a re-run on the inputs of "
								      "seed 0, which passed, gave a different "
								      "answer: %s", c->label, cr->detail);
					else
						ks_kernel_result_fail(r, why, "case %s, seed %d: %s", c->label,
								      si, cr->detail);
				}
			}
			first = 0;
			ks_free(detail);
			ks_plan_clear(&plan);
			ks_run_result_clear(&res);
		}
		ks_env_free(&env);
	}
	if (r->reason == KS_REASON_OK)
		r->exec = 1;
	ks_runner_unload(run, module);
	ks_runner_collect_output(run, r);
}

void ks_candidate_image_clear(ks_candidate_image *img)
{
	ks_free(img->cubin);
	ks_free_strv(img->lowered, img->nlowered);
	ks_launch_clear(&img->launch);
	memset(img, 0, sizeof(*img));
}

void ks_check_entries(ks_kernel_result *out, ks_candidate_image *images, const ks_entry *const *entries,
		      const size_t *pass, size_t n, ks_runner *runner, const ks_check_options *o)
{
	prep *pr = ks_calloc(n + 1, sizeof(*pr));
	ks_compile_job *jobs = ks_calloc(2 * n + 1, sizeof(*jobs));
	const ks_problem **gprob = ks_calloc(n + 1, sizeof(*gprob));
	char ***gnames = ks_calloc(n + 1, sizeof(char **));
	size_t *gn = ks_calloc(n + 1, sizeof(size_t));
	char **glabels = ks_calloc(n + 1, sizeof(char *));
	char **clabels = ks_calloc(n + 1, sizeof(char *));
	int *gdone = ks_calloc(n + 1, sizeof(int));
	size_t njobs = 0, ng = 0, i, j, done = 0;
	ks_compile_options co = o->compile;
	const char *why_not_run = o->compile_only ? "compile-only" : "no GPU";
	ks_candidate_image img;
	compile_bg bg;
	pthread_t th;
	int threaded = 0;

	memset(&bg, 0, sizeof(bg));
	if (runner)
		co.arch = ks_runner_arch(runner);
	/* Golden kernels first: they are the heaviest compiles (tuned tensor-core code) and every check
	 * needs one; then the entries' kernels in entry order, the order they are checked in. */
	for (i = 0; i < n; i++) {
		const ks_entry *e = entries[i];
		ks_kernel_result *r = &out[i];
		init_result(r, e, pass ? pass[i] : 0);
		pr[i].job = pr[i].gjob = -1;
		if (e->error) {
			/* duplicates are not compiled: only the first entry for a problem counts */
			ks_kernel_result_fail(r, e->fault == KS_ENTRY_DUPLICATE ? KS_REASON_DUPLICATE
					      : e->fault == KS_ENTRY_BAD_ENCODING ? KS_REASON_BAD_ENCODING
					      : KS_REASON_BAD_ENTRY, "%s", e->error);
			continue;
		}
		pr[i].p = ks_problem_set_find(o->problems, e->problem);
		if (!pr[i].p) {
			ks_kernel_result_fail(r, KS_REASON_UNKNOWN_PROBLEM,
					      "\"%s\" names no problem in the reference tests (%zu problems "
					      "loaded)", e->file, o->problems ? o->problems->n : 0);
			continue;
		}
		if (!e->code) {
			const char *lang = ks_extract_foreign_language(e->predict);
			if (lang)
				ks_kernel_result_fail(r, KS_REASON_NOT_CUDA, "the answer is %s, not CUDA: kscore "
						      "scores CUDA C++ device code (a __global__ kernel; see "
						      "docs/submission-format.md)", lang);
			else
				ks_kernel_result_fail(r, KS_REASON_NO_CODE, "no CUDA code found: %s",
						      e->extract_note ? e->extract_note : "empty predict");
			continue;
		}
		if (choose_launch(&pr[i], r, e, o) < 0)
			continue;
		clabels[i] = ks_asprintf("pass %zu entry %zu (%s)", r->pass, e->index, e->file);
		pr[i].job = 0; /* numbered below, after the goldens */
		if (!runner || ks_runner_has_golden(runner, pr[i].p))
			continue;
		for (j = 0; j < ng; j++)
			if (gprob[j] == pr[i].p)
				break;
		if (j == ng) {
			gprob[ng] = pr[i].p;
			ks_plan_kernel_names(&gnames[ng], &gn[ng], &pr[i].p->golden_launch);
			glabels[ng] = ks_asprintf("golden kernel of %s", pr[i].p->name);
			jobs[ng].source = gprob[ng]->golden_src;
			jobs[ng].names = (const char *const *)gnames[ng];
			jobs[ng].nnames = gn[ng];
			jobs[ng].label = glabels[ng];
			ng++;
		}
		pr[i].gjob = (int)j;
	}
	njobs = ng;
	for (i = 0; i < n; i++) {
		if (pr[i].job < 0)
			continue;
		pr[i].job = (int)njobs;
		jobs[njobs].source = entries[i]->code;
		jobs[njobs].names = (const char *const *)pr[i].names;
		jobs[njobs].nnames = pr[i].nnames;
		jobs[njobs].label = clabels[i];
		njobs++;
	}
	if (o->progress && njobs)
		o->progress(o->progress_ud, 0, n, "compiling");
	bg.ready = ks_calloc(njobs + 1, 1);
	bg.jobs = jobs;
	bg.n = njobs;
	bg.co = co;
	if (njobs) {
		pthread_mutex_init(&bg.mu, NULL);
		pthread_cond_init(&bg.cv, NULL);
		threaded = pthread_create(&th, NULL, bg_main, &bg) == 0;
		if (!threaded)
			bg_main(&bg); /* no thread to be had: compile everything first */
	}
	for (i = 0; i < n; i++) {
		ks_compile_job *jb;
		ks_kernel_result *r = &out[i];
		if (pr[i].job < 0)
			continue;
		if (bg_wait(&bg, (size_t)pr[i].job) < 0 || (pr[i].gjob >= 0 && bg_wait(&bg, (size_t)pr[i].gjob) < 0)) {
			ks_kernel_result_fail(r, KS_REASON_COMPILE_CRASH, "%s", bg.err ? bg.err : "the compiler did not run");
			continue;
		}
		if (pr[i].gjob >= 0 && !gdone[pr[i].gjob]) {
			ks_compile_job *g = &jobs[pr[i].gjob];
			gdone[pr[i].gjob] = 1;
			if (g->status == KS_COMPILE_OK)
				ks_runner_add_golden(runner, pr[i].p, g->cubin, g->cubin_len, g->lowered, g->nnames);
			else
				fprintf(stderr, "score: error: %s/golden.cu does not compile (%s): %s\n",
					pr[i].p->dir, ks_compile_status_name(g->status), g->log);
		}
		jb = &jobs[pr[i].job];
		r->compile_s = jb->seconds;
		r->compile_cached = jb->cached;
		r->compile_log = log_excerpt(jb->log, o->max_log_excerpt);
		if (jb->status != KS_COMPILE_OK) {
			char *line = first_error_line(jb->log);
			/* A missing header's first line is kscore's: which header, and what instead. */
			if (jb->status == KS_COMPILE_NOHEADER)
				ks_kernel_result_fail(r, KS_REASON_MISSING_HEADER, "%.*s",
						      (int)strcspn(jb->log, "\n"), jb->log);
			else
				ks_kernel_result_fail(r, compile_reason(jb->status), "%s: %s",
						      ks_compile_status_name(jb->status), line);
			ks_free(line);
			continue;
		}
		r->compiled = 1;
		if (!runner) {
			char *bad = NULL;
			/* the worker's parameter check, from the image: a kernel that cannot be launched
			 * with its plan does not count as compiled */
			if (ks_cubin_check_launch(&bad, jb->cubin, jb->cubin_len, jb->lowered, jb->nnames,
						  pr[i].p, &pr[i].launch) == 1) {
				r->compiled = 0;
				ks_kernel_result_fail(r, KS_REASON_LAUNCH_ERROR, "%s (read from the compiled "
						      "image; not run, %s)", bad, why_not_run);
			} else
				ks_kernel_result_fail(r, KS_REASON_NOT_RUN, "compiled for %s; not run (%s)",
						      co.arch, why_not_run);
			ks_free(bad);
			continue;
		}
		if (!ks_runner_has_golden(runner, pr[i].p)) {
			ks_kernel_result_fail(r, KS_REASON_PROBLEM_INVALID,
					      "the golden kernel of %s does not compile", pr[i].p->name);
			continue;
		}
		memset(&img, 0, sizeof(img));
		img.cubin = jb->cubin;
		img.len = jb->cubin_len;
		img.lowered = jb->lowered;
		img.nlowered = jb->nnames;
		img.launch = pr[i].launch;
		img.problem = pr[i].p;
		if (o->progress)
			o->progress(o->progress_ud, done, n, r->problem);
		{
			struct timespec a, b;
			clock_gettime(CLOCK_MONOTONIC, &a);
			check_one(r, &img, runner, o);
			clock_gettime(CLOCK_MONOTONIC, &b);
			r->check_s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
		}
		done++;
		if (images) {
			images[i] = img;
			jb->cubin = NULL;
			jb->lowered = NULL;
			memset(&pr[i].launch, 0, sizeof(pr[i].launch));
		}
	}
	if (njobs) {
		/* every job this loop waited for is final; the thread may still be finishing others */
		if (threaded)
			pthread_join(th, NULL);
		pthread_mutex_destroy(&bg.mu);
		pthread_cond_destroy(&bg.cv);
	}
	if (o->progress)
		o->progress(o->progress_ud, n, n, "done");
	for (i = 0; i < njobs; i++)
		ks_compile_job_clear(&jobs[i]);
	for (i = 0; i < n; i++) {
		ks_launch_clear(&pr[i].launch);
		ks_free_strv(pr[i].names, pr[i].nnames);
		ks_free(clabels[i]);
	}
	for (j = 0; j < ng; j++) {
		ks_free_strv(gnames[j], gn[j]);
		ks_free(glabels[j]);
	}
	ks_free(bg.ready);
	ks_free(bg.err);
	ks_free(pr);
	ks_free(jobs);
	ks_free(gprob);
	ks_free(gnames);
	ks_free(gn);
	ks_free(gdone);
	ks_free(glabels);
	ks_free(clabels);
}
