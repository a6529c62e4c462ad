#include "run/check.h"
#include "lang/triton/tracer.h"
#include "run/compare.h"
#include "lang/cubin.h"
#include "util/errors.h"
#include "load/extract.h"
#include "run/harness.h"
#include "util/mem.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef struct {
	const ks_problem *p;
	ks_launch launch;
	char **names;
	size_t nnames;
	int job;          /* index into the compile jobs, -1 when not compiled */
	int gjob;         /* the compile job of its problem's golden kernels (also their index among
			   * the goldens compiled here: those jobs come first), -1 when none is needed */
	int triton;       /* a Triton answer: traced on a lane, not compiled here */
} prep;

/* ---- compiled golden kernels, kept for the whole session and handed to every runner */

typedef struct gstore_entry {
	const ks_problem *p;
	int ok;
	void *cubin;
	size_t len;
	char **lowered;
	size_t n;
	struct gstore_entry *next;
} gstore_entry;

struct ks_golden_store {
	pthread_mutex_t mu;
	gstore_entry *head;
};

ks_golden_store *ks_golden_store_new(void)
{
	ks_golden_store *s = ks_calloc(1, sizeof(*s));
	pthread_mutex_init(&s->mu, NULL);
	return s;
}

void ks_golden_store_free(ks_golden_store *s)
{
	gstore_entry *e;
	if (!s)
		return;
	while ((e = s->head)) {
		s->head = e->next;
		ks_free(e->cubin);
		ks_free_strv(e->lowered, e->n);
		ks_free(e);
	}
	pthread_mutex_destroy(&s->mu);
	ks_free(s);
}

/* Entries are never changed once in the list: what find returns may be read without the lock. */
static const gstore_entry *store_find(ks_golden_store *s, const ks_problem *p)
{
	gstore_entry *e;
	pthread_mutex_lock(&s->mu);
	for (e = s->head; e && e->p != p; e = e->next)
		;
	pthread_mutex_unlock(&s->mu);
	return e;
}

static void store_put(ks_golden_store *s, const ks_problem *p, const ks_compile_job *g)
{
	gstore_entry *e = ks_calloc(1, sizeof(*e));
	size_t i;
	e->p = p;
	e->ok = g->status == KS_COMPILE_OK;
	if (e->ok) {
		e->cubin = ks_malloc(g->cubin_len);
		memcpy(e->cubin, g->cubin, g->cubin_len);
		e->len = g->cubin_len;
		e->n = g->nnames;
		e->lowered = ks_calloc(e->n + 1, sizeof(char *));
		for (i = 0; i < e->n; i++)
			e->lowered[i] = ks_strdup(g->lowered[i]);
	} else
		fprintf(stderr, "score: error: %s/golden.cu does not compile (%s): %s\n", p->dir,
			ks_compile_status_name(g->status), g->log ? g->log : "");
	pthread_mutex_lock(&s->mu);
	e->next = s->head;
	s->head = e;
	pthread_mutex_unlock(&s->mu);
}

int ks_golden_store_register(ks_golden_store *s, ks_runner *runner, const ks_problem *p)
{
	const gstore_entry *e = store_find(s, p);
	if (!e || !e->ok)
		return ks_error_set(KS_ERROR, "the golden kernel of %s does not compile", p->name);
	if (!ks_runner_has_golden(runner, p))
		ks_runner_add_golden(runner, p, e->cubin, e->len, e->lowered, e->n);
	return 0;
}

int ks_golden_store_image(ks_candidate_image *img, ks_golden_store *s, const ks_problem *p)
{
	const gstore_entry *e = store_find(s, p);
	memset(img, 0, sizeof(*img));
	if (!e || !e->ok)
		return ks_error_set(KS_ENOTFOUND, "the golden kernel of %s was not compiled", p->name);
	img->cubin = e->cubin;
	img->len = e->len;
	img->lowered = e->lowered;
	img->nlowered = e->n;
	img->problem = p;
	return 0;
}

/* ---- one submission's entries: compiled in a thread of their own, handed over one by one */

/* The compile stage runs in a thread of its own and hands each entry to the GPU lanes as soon as
 * its kernel and its problem's golden kernel are compiled: cold compiles overlap the GPU work
 * instead of preceding it. Compiles are CPU work in sandboxed child processes; the checks are GPU
 * round trips, so the two hardly compete. */
struct ks_check_batch {
	ks_kernel_result *out;
	const ks_entry *const *entries;
	size_t n;
	prep *pr;
	ks_compile_job *jobs;
	size_t njobs, ng;
	int *entry_of;                /* per job: its entry (-1 for golden jobs) */
	unsigned char *jready, *final;
	const ks_problem **gprob;
	char ***gnames;
	size_t *gn;
	char **glabels, **clabels;
	ks_candidate_image *img;      /* per entry, views into jobs and pr */
	ks_golden_store *store;
	int gpu, threaded;
	ks_check_options o;
	ks_compile_options co;
	void (*ready)(void *ud, size_t i);
	void *ud;
	pthread_t th;
	char *err;                    /* why the compiler could not run at all */
};

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
	r->language = e->language;
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
	ks_func_info fi[KS_PLAN_MAX_FUNCS];
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
		if (img->language == KS_LANG_TRITON) {
			/* a trace's kernels are its CUBINs' entries, in image order */
			names = ks_calloc(img->nlowered + 1, sizeof(char *));
			for (nn = 0; nn < img->nlowered; nn++)
				names[nn] = ks_strdup(img->lowered[nn]);
		} else
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
			if (ks_candidate_plan(&plan, img, 0, ci, &env, seed, repeat ? 1 : si % 2, &o->limits) < 0) {
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

/* Everything about entry i that needs no GPU, once its compiles are final; hands it to the lanes
 * when it is to be run. In the compile thread (or the caller's, after the compiles). */
/* A Triton answer has nothing to compile here (Triton compiles it while it is traced, on a lane):
 * without a GPU it gets the static check alone; with one it goes to the lanes once its problem's
 * golden kernel is compiled. */
static void finalize_triton(ks_check_batch *b, size_t i)
{
	ks_kernel_result *r = &b->out[i];
	prep *pr = &b->pr[i];
	const gstore_entry *g;
	if (!b->gpu) {
		ks_tracer_options to = KS_TRACER_OPTIONS_INIT;
		char *reason = NULL;
		int ok = 0, line = 0;
		if (ks_tracer_check(&ok, &reason, &line, &to, b->entries[i]->code) < 0)
			ks_kernel_result_fail(r, KS_REASON_NOT_RUN, "a Triton answer, not checked: %s", ks_error_msg());
		else if (!ok)
			ks_kernel_result_fail(r, KS_REASON_REFUSED, "%s", reason ? reason : "refused");
		else
			ks_kernel_result_fail(r, KS_REASON_NOT_RUN, "a Triton answer: it passed the static check; "
					      "tracing and running it need a GPU (%s)",
					      b->o.compile_only ? "compile-only" : "no GPU");
		ks_free(reason);
		return;
	}
	g = store_find(b->store, pr->p);
	if (!g || !g->ok) {
		ks_kernel_result_fail(r, KS_REASON_PROBLEM_INVALID, "the golden kernel of %s does not compile",
				      pr->p->name);
		return;
	}
	b->img[i].language = KS_LANG_TRITON;
	b->img[i].source = b->entries[i]->code;
	b->img[i].problem = pr->p;
	if (b->ready)
		b->ready(b->ud, i);
}

static void finalize(ks_check_batch *b, size_t i)
{
	ks_kernel_result *r = &b->out[i];
	prep *pr = &b->pr[i];
	ks_compile_job *jb;
	const gstore_entry *g;
	const char *why_not_run = b->o.compile_only ? "compile-only" : "no GPU";

	if (b->final[i])
		return;
	b->final[i] = 1;
	if (pr->triton) {
		finalize_triton(b, i);
		return;
	}
	jb = &b->jobs[pr->job];
	if (!b->jready[pr->job]) {
		ks_kernel_result_fail(r, KS_REASON_COMPILE_CRASH, "%s", b->err ? b->err : "the compiler did not run");
		return;
	}
	r->compile_s = jb->seconds;
	r->compile_cached = jb->cached;
	r->compile_log = log_excerpt(jb->log, b->o.max_log_excerpt);
	if (jb->status != KS_COMPILE_OK) {
		char *line = first_error_line(jb->log);
		/* A missing header's first line is kscore's: which header, and what instead. */
		if (jb->status == KS_COMPILE_NOHEADER)
			ks_kernel_result_fail(r, KS_REASON_MISSING_HEADER, "%.*s", (int)strcspn(jb->log, "\n"),
					      jb->log);
		else
			ks_kernel_result_fail(r, compile_reason(jb->status), "%s: %s",
					      ks_compile_status_name(jb->status), line);
		ks_free(line);
		return;
	}
	r->compiled = 1;
	if (!b->gpu) {
		char *bad = NULL;
		/* the worker's parameter check, from the image: a kernel that cannot be launched with its
		 * plan does not count as compiled */
		if (ks_cubin_check_launch(&bad, jb->cubin, jb->cubin_len, jb->lowered, jb->nnames, pr->p,
					  &pr->launch) == 1) {
			r->compiled = 0;
			ks_kernel_result_fail(r, KS_REASON_LAUNCH_ERROR, "%s (read from the compiled image; not "
					      "run, %s)", bad, why_not_run);
		} else
			ks_kernel_result_fail(r, KS_REASON_NOT_RUN, "compiled for %s; not run (%s)", b->co.arch,
					      why_not_run);
		ks_free(bad);
		return;
	}
	g = store_find(b->store, pr->p);
	if (!g || !g->ok) {
		ks_kernel_result_fail(r, KS_REASON_PROBLEM_INVALID, "the golden kernel of %s does not compile",
				      pr->p->name);
		return;
	}
	b->img[i].cubin = jb->cubin;
	b->img[i].len = jb->cubin_len;
	b->img[i].lowered = jb->lowered;
	b->img[i].nlowered = jb->nnames;
	b->img[i].launch = pr->launch;
	b->img[i].problem = pr->p;
	if (b->ready)
		b->ready(b->ud, i);
}

static void bg_done(void *ud, size_t j)
{
	ks_check_batch *b = ud;
	size_t i;
	b->jready[j] = 1;
	if (j < b->ng) {
		store_put(b->store, b->gprob[j], &b->jobs[j]);
		for (i = 0; i < b->n; i++)
			if (b->pr[i].gjob == (int)j && (b->pr[i].triton || (b->pr[i].job >= 0 && b->jready[b->pr[i].job])))
				finalize(b, i);
	} else {
		i = (size_t)b->entry_of[j];
		if (b->pr[i].gjob < 0 || b->jready[b->pr[i].gjob])
			finalize(b, i);
	}
}

static void *bg_main(void *ud)
{
	ks_check_batch *b = ud;
	int rc;
	/* Below the GPU workers: a kernel may be timed while others still compile, and a worker that
	 * waits for a CPU would stretch its timed runs. The nice value of a thread is inherited by the
	 * compilers it starts. */
	if (b->gpu && b->threaded)
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
	rc = ks_compile_run_cb(b->jobs, b->njobs, &b->co, bg_done, b);
	if (rc < 0)
		b->err = ks_strdup(ks_error_msg());
	return NULL;
}

int ks_check_batch_start(ks_check_batch **out, ks_kernel_result *results, const ks_entry *const *entries,
			 const size_t *pass, size_t n, ks_golden_store *store, int gpu, const ks_check_options *o,
			 void (*ready)(void *ud, size_t i), void *ud)
{
	ks_check_batch *b = ks_calloc(1, sizeof(*b));
	size_t i, j;

	b->out = results;
	b->entries = entries;
	b->n = n;
	b->store = store;
	b->gpu = gpu && store;
	b->o = *o;
	b->co = o->compile;
	b->ready = ready;
	b->ud = ud;
	b->pr = ks_calloc(n + 1, sizeof(*b->pr));
	b->jobs = ks_calloc(2 * n + 1, sizeof(*b->jobs));
	b->entry_of = ks_calloc(2 * n + 1, sizeof(int));
	b->gprob = ks_calloc(n + 1, sizeof(*b->gprob));
	b->gnames = ks_calloc(n + 1, sizeof(char **));
	b->gn = ks_calloc(n + 1, sizeof(size_t));
	b->glabels = ks_calloc(n + 1, sizeof(char *));
	b->clabels = ks_calloc(n + 1, sizeof(char *));
	b->img = ks_calloc(n + 1, sizeof(*b->img));
	b->final = ks_calloc(n + 1, 1);
	/* Golden kernels first: they are the heaviest compiles (tuned tensor-core code) and every check
	 * needs one; then the entries' kernels in entry order, the order they are checked in. */
	for (i = 0; i < n; i++) {
		const ks_entry *e = entries[i];
		ks_kernel_result *r = &results[i];
		prep *pr = &b->pr[i];
		init_result(r, e, pass ? pass[i] : 0);
		pr->job = pr->gjob = -1;
		if (e->error) {
			/* duplicates are not compiled: only the first entry for a problem counts */
			ks_kernel_result_fail(r, e->fault == KS_ENTRY_DUPLICATE ? KS_REASON_DUPLICATE
					      : e->fault == KS_ENTRY_BAD_ENCODING ? KS_REASON_BAD_ENCODING
					      : KS_REASON_BAD_ENTRY, "%s", e->error);
			continue;
		}
		pr->p = ks_problem_set_find(o->problems, e->problem);
		if (!pr->p) {
			ks_kernel_result_fail(r, KS_REASON_UNKNOWN_PROBLEM,
					      "\"%s\" names no problem in the reference tests (%zu problems "
					      "loaded)", e->file, o->problems ? o->problems->n : 0);
			continue;
		}
		if (!e->code) {
			const char *lang = ks_extract_foreign_language(e->predict);
			if (lang && !strncmp(lang, "Triton", 6))
				ks_kernel_result_fail(r, KS_REASON_NO_CODE, "no Triton answer found: %s",
						      e->extract_note ? e->extract_note : "empty predict");
			else if (lang)
				ks_kernel_result_fail(r, KS_REASON_NOT_CUDA, "the answer is %s without a Triton kernel: "
						      "kscore scores CUDA C++ device code (a __global__ kernel) and "
						      "Triton answers (a @triton.jit kernel and the problem's Python "
						      "entry; see docs/submission-format.md)", lang);
			else
				ks_kernel_result_fail(r, KS_REASON_NO_CODE, "no CUDA or Triton code found: %s",
						      e->extract_note ? e->extract_note : "empty predict");
			continue;
		}
		if (e->language == KS_LANG_TRITON) {
			pr->triton = 1;
			r->launch_source = ks_strdup("traced");
		} else {
			if (choose_launch(pr, r, e, o) < 0)
				continue;
			b->clabels[i] = ks_asprintf("pass %zu entry %zu (%s)", r->pass, e->index, e->file);
			pr->job = 0; /* numbered below, after the goldens */
		}
		if (!b->gpu || store_find(store, pr->p))
			continue;
		for (j = 0; j < b->ng; j++)
			if (b->gprob[j] == pr->p)
				break;
		if (j == b->ng) {
			ks_compile_job *g = &b->jobs[b->ng];
			b->gprob[j] = pr->p;
			ks_plan_kernel_names(&b->gnames[j], &b->gn[j], &pr->p->golden_launch);
			b->glabels[j] = ks_asprintf("golden kernel of %s", pr->p->name);
			g->source = pr->p->golden_src;
			g->names = (const char *const *)b->gnames[j];
			g->nnames = b->gn[j];
			g->label = b->glabels[j];
			b->entry_of[j] = -1;
			b->ng++;
		}
		pr->gjob = (int)j;
	}
	b->njobs = b->ng;
	for (i = 0; i < n; i++) {
		prep *pr = &b->pr[i];
		if (pr->job < 0)
			continue;
		pr->job = (int)b->njobs;
		b->jobs[b->njobs].source = entries[i]->code;
		b->jobs[b->njobs].names = (const char *const *)pr->names;
		b->jobs[b->njobs].nnames = pr->nnames;
		b->jobs[b->njobs].label = b->clabels[i];
		b->entry_of[b->njobs] = (int)i;
		b->njobs++;
	}
	b->jready = ks_calloc(b->njobs + 1, 1);
	/* before the first ready call, which may come before this returns */
	*out = b;
	/* Triton answers whose golden kernel needs no compile here are ready now */
	for (i = 0; i < n; i++)
		if (b->pr[i].triton && b->pr[i].gjob < 0)
			finalize(b, i);
	if (b->njobs) {
		b->threaded = 1;
		if (pthread_create(&b->th, NULL, bg_main, b) != 0) {
			b->threaded = 0;
			bg_main(b); /* no thread to be had: compile everything first */
		}
	}
	return 0;
}

void ks_check_batch_wait(ks_check_batch *b)
{
	size_t i;
	if (b->threaded) {
		pthread_join(b->th, NULL);
		b->threaded = 0;
	}
	/* the compiler reports every job, even when it cannot run; this is for the unexpected */
	for (i = 0; i < b->n; i++)
		if (b->pr[i].job >= 0 && !b->final[i])
			finalize(b, i);
}

ks_candidate_image *ks_check_batch_image(ks_check_batch *b, size_t i)
{
	return b->img[i].cubin || b->img[i].language == KS_LANG_TRITON ? &b->img[i] : NULL;
}

void ks_check_batch_free(ks_check_batch *b)
{
	size_t i;
	if (!b)
		return;
	ks_check_batch_wait(b);
	for (i = 0; i < b->njobs; i++)
		ks_compile_job_clear(&b->jobs[i]);
	for (i = 0; i < b->n; i++) {
		if (b->img[i].owned || b->img[i].trace)
			ks_candidate_image_clear(&b->img[i]); /* a trace and its bundle; the rest are views */
		ks_launch_clear(&b->pr[i].launch);
		ks_free_strv(b->pr[i].names, b->pr[i].nnames);
		ks_free(b->clabels[i]);
	}
	for (i = 0; i < b->ng; i++) {
		ks_free_strv(b->gnames[i], b->gn[i]);
		ks_free(b->glabels[i]);
	}
	ks_free(b->err);
	ks_free(b->pr);
	ks_free(b->jobs);
	ks_free(b->entry_of);
	ks_free(b->jready);
	ks_free(b->final);
	ks_free(b->gprob);
	ks_free(b->gnames);
	ks_free(b->gn);
	ks_free(b->glabels);
	ks_free(b->clabels);
	ks_free(b->img);
	ks_free(b);
}

void ks_check_entry(ks_kernel_result *r, ks_candidate_image *img, ks_runner *runner,
		    ks_golden_store *store, const ks_check_options *o)
{
	struct timespec a, b;
	if (ks_golden_store_register(store, runner, img->problem) < 0) {
		ks_kernel_result_fail(r, KS_REASON_PROBLEM_INVALID, "%s", ks_error_msg());
		return;
	}
	if (img->language == KS_LANG_TRITON && !img->trace) {
		cJSON *entry = ks_problem_python_json(img->problem);
		char *detail = NULL;
		ks_reason why = ks_candidate_trace(&detail, img, runner, entry, &o->limits, r);
		cJSON_Delete(entry);
		if (why != KS_REASON_OK) {
			ks_kernel_result_fail(r, why, "%s", detail ? detail : ks_reason_name(why));
			ks_free(detail);
			return;
		}
	}
	if (img->language == KS_LANG_TRITON)
		r->compiled = 1; /* Triton compiled its kernels while the answer was traced */
	clock_gettime(CLOCK_MONOTONIC, &a);
	check_one(r, img, runner, o);
	clock_gettime(CLOCK_MONOTONIC, &b);
	r->check_s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
}

void ks_check_reset(ks_kernel_result *r)
{
	size_t i;
	for (i = 0; i < r->nkernels; i++)
		ks_free(r->kernels[i].name);
	ks_free(r->kernels);
	r->kernels = NULL;
	r->nkernels = 0;
	for (i = 0; i < r->ncases; i++) {
		ks_free(r->cases[i].label);
		ks_free(r->cases[i].detail);
	}
	ks_free(r->cases);
	r->cases = NULL;
	r->ncases = 0;
	ks_free(r->detail);
	r->detail = NULL;
	/* what it printed on the lost GPU: it prints again where it is checked next */
	ks_free(r->device_output);
	r->device_output = NULL;
	r->device_output_bytes = 0;
	r->device_output_raw = 0;
	cJSON_Delete(r->sanitizer);
	r->sanitizer = NULL;
	r->reason = KS_REASON_OK;
	r->ran = r->call = r->exec = 0;
	r->check_s = 0;
}
