/* prepare: see include/prepare.h. */
#include "session/prepare.h"
#include "util/nearest.h"
#include "lang/cubin.h"
#include "util/errors.h"
#include "load/extract.h"
#include "lang/triton/tracer.h"
#include "util/mem.h"
#include "util/tracelog.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* What an entry needs before a GPU sees it. */
typedef struct {
	const ks_problem *p;
	ks_launch launch;
	char **names;
	size_t nnames;
	int compile;      /* its kernel is to be compiled (job below) */
	int triton;       /* a Triton answer: traced on a lane (by its check), not compiled here */
	int compiled;     /* that compile is final */
	int golden;       /* index of its problem's golden record, -1: needs none */
	int settled;      /* its ready call was made */
	ks_compile_job job;
	char *label;
} entry_prep;

struct ks_prepare_set {
	ks_prepare *q;
	void *ud;
	ks_kernel_result *out;
	const ks_entry *const *entries;
	size_t n;
	entry_prep *e;
	ks_candidate_image *img;     /* per entry: views into its job and launch */
	ks_prepare_set *next;        /* waiting for the compile thread */
};

/* A problem's golden kernel: compiled once per run, into the store. */
typedef struct {
	const ks_problem *p;
	int state;                   /* G_QUEUED, G_DONE */
	ks_compile_job job;
	char **names;
	size_t nnames;
	char *label;
	struct waiter {
		ks_prepare_set *s;
		size_t i;
	} *wait;                     /* entries compiled before it */
	size_t nwait, capwait;
} golden_rec;

enum { G_QUEUED = 1, G_DONE = 2 };

struct ks_prepare {
	ks_golden_store *store;
	int gpu;
	ks_check_options o;
	ks_prepare_ready_fn ready;
	void *ud;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t th;
	int threaded, stop, held;     /* held: ks_prepare_hold */
	ks_prepare_set *head, *tail;  /* added, not taken yet */
	/* the compile thread's own (never touched elsewhere) */
	golden_rec *gold;
	size_t ngold, capgold;
};

/* ---- what needs no compile */

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

/* Picks and validates the entry's launch plan; returns 0 or sets BAD_LAUNCH. */
static int choose_launch(entry_prep *pr, ks_kernel_result *r, const ks_entry *e, const ks_check_options *o)
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

/* The loaded problem whose name is a typing slip away from name (util/nearest.h), or NULL. */
static const char *nearest_problem(const ks_problem_set *set, const char *name)
{
	const char **names;
	const char *near;
	size_t i;

	if (!set || !set->n || !name)
		return NULL;
	names = ks_calloc(set->n, sizeof(*names));
	for (i = 0; i < set->n; i++)
		names[i] = set->problems[i]->name;
	near = ks_nearest_name(name, names, set->n);
	ks_free(names);
	return near;
}

/* Everything about an entry that is known from the entry alone: returns 1 when its kernel is to be
 * compiled, 0 when it is settled (its result says why). */
static int prepare_entry(const ks_prepare *q, entry_prep *pr, ks_kernel_result *r, const ks_entry *e)
{
	if (e->error) {
		/* duplicates are not compiled: only the first entry for a problem counts */
		ks_kernel_result_fail(r, e->fault == KS_ENTRY_DUPLICATE ? KS_REASON_DUPLICATE
				      : e->fault == KS_ENTRY_BAD_ENCODING ? KS_REASON_BAD_ENCODING
				      : KS_REASON_BAD_ENTRY, "%s", e->error);
		return 0;
	}
	pr->p = ks_problem_set_find(q->o.problems, e->problem);
	if (!pr->p) {
		const char *near = nearest_problem(q->o.problems, e->problem);
		ks_kernel_result_fail(r, KS_REASON_UNKNOWN_PROBLEM,
				      "\"%s\" names no problem in the reference tests (%zu problems loaded)%s%s%s",
				      e->file, q->o.problems ? q->o.problems->n : 0, near ? "; did you mean \"" : "",
				      near ? near : "", near ? "\"?" : "");
		return 0;
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
		return 0;
	}
	if (e->language == KS_LANG_TRITON) {
		/* nothing to compile here: Triton compiles it while it is traced, on a lane */
		pr->triton = 1;
		r->launch_source = ks_strdup("traced");
		return 0;
	}
	if (choose_launch(pr, r, e, &q->o) < 0)
		return 0;
	pr->label = ks_asprintf("pass %zu entry %zu (%s)", r->pass, e->index, e->file);
	pr->job.source = e->code;
	pr->job.names = (const char *const *)pr->names;
	pr->job.nnames = pr->nnames;
	pr->job.label = pr->label;
	return 1;
}

void ks_prepare_add(ks_prepare_set **out, ks_prepare *q, ks_kernel_result *results,
		    const ks_entry *const *entries, const size_t *pass, size_t n, void *set_ud)
{
	ks_prepare_set *s = ks_calloc(1, sizeof(*s));
	size_t i;
	*out = s;
	s->q = q;
	s->ud = set_ud;
	s->out = results;
	s->entries = entries;
	s->n = n;
	s->e = ks_calloc(n + 1, sizeof(*s->e));
	s->img = ks_calloc(n + 1, sizeof(*s->img));
	for (i = 0; i < n; i++) {
		init_result(&results[i], entries[i], pass ? pass[i] : 0);
		s->e[i].golden = -1;
		s->e[i].compile = prepare_entry(q, &s->e[i], &results[i], entries[i]);
	}
	pthread_mutex_lock(&q->mu);
	if (q->tail)
		q->tail->next = s;
	else
		q->head = s;
	q->tail = s;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

/* ---- after the compiles */

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

/* A Triton answer has nothing to compile here (Triton compiles it while it is traced, on a lane):
 * without a GPU it gets the static check alone; with one it goes to the lanes (its check traces
 * it first) once its problem's golden kernel is compiled. */
static ks_candidate_image *settle_triton(ks_prepare *q, ks_prepare_set *s, size_t i)
{
	ks_kernel_result *r = &s->out[i];
	entry_prep *pr = &s->e[i];
	if (!q->gpu) {
		ks_tracer_options to = KS_TRACER_OPTIONS_INIT;
		char *reason = NULL;
		int ok = 0, line = 0;
		if (ks_tracer_check(&ok, &reason, &line, &to, s->entries[i]->code) < 0)
			ks_kernel_result_fail(r, KS_REASON_NOT_RUN, "a Triton answer, not checked: %s", ks_error_msg());
		else if (!ok)
			ks_kernel_result_fail(r, KS_REASON_REFUSED, "%s", reason ? reason : "refused");
		else
			ks_kernel_result_fail(r, KS_REASON_NOT_RUN, "a Triton answer: it passed the static check; "
					      "tracing and running it need a GPU (%s)",
					      q->o.compile_only ? "compile-only" : "no GPU");
		ks_free(reason);
		return NULL;
	}
	if (ks_golden_store_image(&s->img[i], q->store, pr->p) < 0) {
		ks_error_clear();
		memset(&s->img[i], 0, sizeof(s->img[i]));
		ks_kernel_result_fail(r, KS_REASON_PROBLEM_INVALID, "the golden kernel of %s does not compile",
				      pr->p->name);
		return NULL;
	}
	memset(&s->img[i], 0, sizeof(s->img[i]));
	s->img[i].language = KS_LANG_TRITON;
	s->img[i].source = s->entries[i]->code;
	s->img[i].problem = pr->p;
	return &s->img[i];
}

/* The end of entry i's prepare step: its result gets what the compile said, and it is handed on,
 * to a GPU (its image) or settled (NULL). The set is not touched after its last entry's call. */
static void settle(ks_prepare *q, ks_prepare_set *s, size_t i)
{
	ks_kernel_result *r = &s->out[i];
	entry_prep *pr = &s->e[i];
	ks_compile_job *jb = &pr->job;
	const char *why_not_run = q->o.compile_only ? "compile-only" : "no GPU";
	ks_candidate_image *img = NULL;

	if (pr->settled)
		return;
	pr->settled = 1;
	if (pr->triton) {
		img = settle_triton(q, s, i);
		goto hand_on;
	}
	if (!pr->compile)
		goto hand_on;
	r->compile_s = jb->seconds;
	r->compile_cached = jb->cached;
	r->compile_log = log_excerpt(jb->log, q->o.max_log_excerpt);
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
		goto hand_on;
	}
	r->compiled = 1;
	if (!q->gpu) {
		char *bad = NULL;
		/* the worker's parameter check, from the image: a kernel that cannot be launched with its
		 * plan does not count as compiled */
		if (ks_cubin_check_launch(&bad, jb->cubin, jb->cubin_len, jb->lowered, jb->nnames, pr->p,
					  &pr->launch) == 1) {
			r->compiled = 0;
			ks_kernel_result_fail(r, KS_REASON_LAUNCH_ERROR, "%s (read from the compiled image; not "
					      "run, %s)", bad, why_not_run);
		} else
			ks_kernel_result_fail(r, KS_REASON_NOT_RUN, "compiled for %s; not run (%s)", q->o.compile.arch,
					      why_not_run);
		ks_free(bad);
		goto hand_on;
	}
	if (ks_golden_store_image(&s->img[i], q->store, pr->p) < 0) {
		ks_error_clear();
		memset(&s->img[i], 0, sizeof(s->img[i]));
		ks_kernel_result_fail(r, KS_REASON_PROBLEM_INVALID, "the golden kernel of %s does not compile",
				      pr->p->name);
		goto hand_on;
	}
	memset(&s->img[i], 0, sizeof(s->img[i]));
	s->img[i].language = KS_LANG_CUDA;
	s->img[i].cubin = jb->cubin;
	s->img[i].len = jb->cubin_len;
	s->img[i].lowered = jb->lowered;
	s->img[i].nlowered = jb->nnames;
	s->img[i].launch = pr->launch;
	s->img[i].problem = pr->p;
	img = &s->img[i];
hand_on:
	q->ready(q->ud, s->ud, i, img);
}

/* ---- the compile thread */

/* What one job of a wave is for. */
typedef struct {
	ks_prepare *q;
	ks_compile_job *jobs;        /* the wave: copies of the owners' inputs */
	unsigned char *reported;
	struct owner {
		ks_prepare_set *s;   /* an entry's kernel, or NULL: golden record g */
		size_t i;
		size_t g;
	} *own;
} wave;

static void golden_done(ks_prepare *q, size_t g)
{
	golden_rec *gr = &q->gold[g];
	size_t k, n = gr->nwait;
	struct waiter *w = gr->wait;
	ks_golden_store_put(q->store, gr->p, &gr->job);
	gr->state = G_DONE;
	ks_compile_job_clear(&gr->job);
	gr->wait = NULL;
	gr->nwait = gr->capwait = 0;
	for (k = 0; k < n; k++)
		settle(q, w[k].s, w[k].i);
	ks_free(w);
}

/* Entry i of s is settled once its problem's golden kernel is compiled (compile thread). */
static void wait_golden(ks_prepare *q, ks_prepare_set *s, size_t i)
{
	golden_rec *gr = &q->gold[s->e[i].golden];
	gr->wait = ks_grow(gr->wait, sizeof(*gr->wait), &gr->capwait, gr->nwait + 1);
	gr->wait[gr->nwait].s = s;
	gr->wait[gr->nwait++].i = i;
}

/* A wave's job is final: its outputs go to their owner, and whatever waited for it is settled. */
static void wave_done(void *ud, size_t k)
{
	wave *w = ud;
	ks_prepare *q = w->q;
	struct owner *o = &w->own[k];
	ks_compile_job *dst = o->s ? &o->s->e[o->i].job : &q->gold[o->g].job;
	w->reported[k] = 1;
	dst->status = w->jobs[k].status;
	dst->log = w->jobs[k].log;
	dst->cubin = w->jobs[k].cubin;
	dst->cubin_len = w->jobs[k].cubin_len;
	dst->lowered = w->jobs[k].lowered;
	dst->seconds = w->jobs[k].seconds;
	dst->cached = w->jobs[k].cached;
	memcpy(dst->key, w->jobs[k].key, sizeof(dst->key));
	memset(&w->jobs[k], 0, sizeof(w->jobs[k]));
	if (!o->s) {
		golden_done(q, o->g);
		return;
	}
	o->s->e[o->i].compiled = 1;
	if (o->s->e[o->i].golden >= 0 && q->gold[o->s->e[o->i].golden].state != G_DONE) {
		wait_golden(q, o->s, o->i);
		return;
	}
	settle(q, o->s, o->i);
}

/* The golden record of p, queued into the wave (at *n) when it is new. */
static int golden_of(ks_prepare *q, wave *w, size_t *n, const ks_problem *p)
{
	size_t g;
	for (g = 0; g < q->ngold; g++)
		if (q->gold[g].p == p)
			return (int)g;
	q->gold = ks_grow(q->gold, sizeof(*q->gold), &q->capgold, q->ngold + 1);
	g = q->ngold++;
	memset(&q->gold[g], 0, sizeof(q->gold[g]));
	q->gold[g].p = p;
	if (ks_golden_store_has(q->store, p)) {
		q->gold[g].state = G_DONE; /* compiled by an earlier holder of the store */
		return (int)g;
	}
	q->gold[g].state = G_QUEUED;
	ks_runner_golden_job(&w->jobs[*n], &q->gold[g].names, &q->gold[g].nnames, p);
	q->gold[g].label = ks_asprintf("golden kernel of %s", p->name);
	w->jobs[*n].label = q->gold[g].label;
	q->gold[g].job = w->jobs[*n]; /* its inputs; the outputs come in wave_done */
	w->own[*n].s = NULL;
	w->own[*n].g = g;
	(*n)++;
	return (int)g;
}

/* Compiles everything added since the last wave, in one call of --jobs helpers. */
static void run_wave(ks_prepare *q, ks_prepare_set *sets)
{
	ks_prepare_set *s, *next;
	size_t n = 0, cap = 0, i;
	double t0;
	wave w;

	for (s = sets; s; s = s->next)
		cap += 2 * s->n;
	w.q = q;
	w.jobs = ks_calloc(cap + 1, sizeof(*w.jobs));
	w.own = ks_calloc(cap + 1, sizeof(*w.own));
	w.reported = ks_calloc(cap + 1, 1);
	/* a submission's golden kernels (the heaviest compiles, and every check needs one), then its
	 * kernels in entry order, the order they are checked in; submissions in the order they came */
	for (s = sets; s; s = s->next) {
		for (i = 0; q->gpu && i < s->n; i++)
			if (s->e[i].compile || s->e[i].triton)
				s->e[i].golden = golden_of(q, &w, &n, s->e[i].p);
		for (i = 0; i < s->n; i++)
			if (s->e[i].compile) {
				w.jobs[n] = s->e[i].job;
				w.own[n].s = s;
				w.own[n].i = i;
				n++;
			}
	}
	/* what needs no compile is settled now, or once its golden kernel is; a set may be freed after
	 * its last entry is settled, so nothing of it is touched afterwards */
	for (s = sets; s; s = next) {
		size_t *now = ks_calloc(s->n + 1, sizeof(*now)), nnow = 0, k;
		next = s->next;
		for (i = 0; i < s->n; i++) {
			if (s->e[i].compile)
				continue; /* settled when its compile is done */
			if (s->e[i].golden >= 0 && q->gold[s->e[i].golden].state != G_DONE)
				wait_golden(q, s, i);
			else
				now[nnow++] = i;
		}
		for (k = 0; k < nnow; k++)
			settle(q, s, now[k]);
		ks_free(now);
	}
	t0 = ks_tracelog_ms();
	if (n && ks_compile_run_cb(w.jobs, n, &q->o.compile, wave_done, &w) < 0)
		ks_error_clear(); /* every job was reported failed with the reason */
	if (n) {
		char d[32];
		snprintf(d, sizeof(d), "%zu", n);
		ks_tracelog_span("compile-wave", d, t0);
	}
	/* the compiler reports every job, even when it cannot run; this is for the unexpected */
	for (i = 0; i < n; i++)
		if (!w.reported[i]) {
			ks_compile_job_clear(&w.jobs[i]);
			w.jobs[i].status = KS_COMPILE_CRASH;
			w.jobs[i].log = ks_strdup("the compiler did not run");
			wave_done(&w, i);
		}
	ks_free(w.jobs);
	ks_free(w.own);
	ks_free(w.reported);
}

static void *compile_main(void *ud)
{
	ks_prepare *q = ud;
	/* Below the GPU workers: a kernel may be timed while others still compile, and a worker that
	 * waits for a CPU would stretch its timed runs. The nice value of a thread is inherited by the
	 * compilers it starts. */
	if (q->gpu)
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 10);
	pthread_mutex_lock(&q->mu);
	for (;;) {
		ks_prepare_set *sets;
		while ((!q->head || q->held) && !q->stop)
			pthread_cond_wait(&q->cv, &q->mu);
		if (!q->head)
			break;
		sets = q->head;
		q->head = q->tail = NULL;
		pthread_mutex_unlock(&q->mu);
		run_wave(q, sets);
		pthread_mutex_lock(&q->mu);
	}
	pthread_mutex_unlock(&q->mu);
	return NULL;
}

int ks_prepare_new(ks_prepare **out, ks_golden_store *store, int gpu, const ks_check_options *o,
		   ks_prepare_ready_fn ready, void *ud)
{
	ks_prepare *q = ks_calloc(1, sizeof(*q));
	q->store = store;
	q->gpu = gpu && store;
	q->o = *o;
	q->ready = ready;
	q->ud = ud;
	pthread_mutex_init(&q->mu, NULL);
	pthread_cond_init(&q->cv, NULL);
	if (pthread_create(&q->th, NULL, compile_main, q) != 0) {
		pthread_mutex_destroy(&q->mu);
		pthread_cond_destroy(&q->cv);
		ks_free(q);
		*out = NULL;
		return ks_error_set(KS_ERROR, "cannot start the compile thread");
	}
	q->threaded = 1;
	*out = q;
	return 0;
}

ks_candidate_image *ks_prepare_image(ks_prepare_set *s, size_t i)
{
	return i < s->n && (s->img[i].cubin || s->img[i].language == KS_LANG_TRITON) ? &s->img[i] : NULL;
}

void ks_prepare_set_free(ks_prepare_set *s)
{
	size_t i;
	if (!s)
		return;
	for (i = 0; i < s->n; i++) {
		if (s->img[i].owned || s->img[i].trace)
			ks_candidate_image_clear(&s->img[i]); /* a trace and its bundle; the rest are views */
		ks_compile_job_clear(&s->e[i].job);
		ks_launch_clear(&s->e[i].launch);
		ks_free_strv(s->e[i].names, s->e[i].nnames);
		ks_free(s->e[i].label);
	}
	ks_free(s->e);
	ks_free(s->img);
	ks_free(s);
}

void ks_prepare_hold(ks_prepare *q, int held)
{
	pthread_mutex_lock(&q->mu);
	q->held = held;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
}

void ks_prepare_free(ks_prepare *q)
{
	size_t g;
	if (!q)
		return;
	pthread_mutex_lock(&q->mu);
	q->stop = 1;
	pthread_cond_broadcast(&q->cv);
	pthread_mutex_unlock(&q->mu);
	if (q->threaded)
		pthread_join(q->th, NULL);
	for (g = 0; g < q->ngold; g++) {
		ks_compile_job_clear(&q->gold[g].job);
		ks_free_strv(q->gold[g].names, q->gold[g].nnames);
		ks_free(q->gold[g].label);
		ks_free(q->gold[g].wait);
	}
	ks_free(q->gold);
	pthread_mutex_destroy(&q->mu);
	pthread_cond_destroy(&q->cv);
	ks_free(q);
}
