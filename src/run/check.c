#include "run/check.h"
#include "run/compare.h"
#include "util/errors.h"
#include "run/harness.h"
#include "util/mem.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

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

void ks_golden_store_put(ks_golden_store *s, const ks_problem *p, const ks_compile_job *g)
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

int ks_golden_store_has(ks_golden_store *s, const ks_problem *p)
{
	return store_find(s, p) != NULL;
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

/* Case ci of the given kind (ks_case_kind) on each of its seeds, then seed 0 again: the same inputs
 * must agree. A scored case charges the kernel with its first failure (ks_check_case_outcome); an
 * extended case only its own case results. Returns the case's first failure, OK when it passed. */
static ks_reason check_case(ks_kernel_result *r, const ks_candidate_image *img, ks_runner *run,
			    const ks_check_options *o, int module, int kind, size_t ci, size_t *cap, int *first)
{
	const ks_problem *p = img->problem;
	const ks_case *c = ks_problem_case(p, kind, ci);
	int extended = kind == KS_CASE_EXTENDED, s;
	ks_reason failed = KS_REASON_OK;
	ks_run_result res;
	ks_env env = KS_ENV_INIT;
	size_t i;

	if (ks_problem_env(&env, p, c) < 0) {
		if (!extended)
			ks_kernel_result_fail(r, KS_REASON_PROBLEM_INVALID, "%s", ks_error_msg());
		ks_env_free(&env);
		return KS_REASON_PROBLEM_INVALID;
	}
	for (s = 0; s <= c->seeds && failed == KS_REASON_OK; s++) {
		int repeat = s == c->seeds, si = repeat ? 0 : s;
		uint64_t seed = ks_seed_derive(o->seed, p->name, kind, ci, si);
		const ks_golden_run *g = NULL;
		ks_fetch_mode fetch[KS_LAUNCH_MAX_SCRATCH + 72];
		ks_case_result *cr;
		ks_plan plan;
		char *detail = NULL;
		ks_reason why = KS_REASON_OK;

		case_push(r, cap, c->label, ci, repeat ? -1 : si, seed);
		cr = &r->cases[r->ncases - 1];
		cr->extended = extended;
		if (ks_runner_golden(run, &g, p, kind, ci, seed) < 0) {
			ks_check_case_outcome(r, cr, KS_REASON_PROBLEM_INVALID, ks_strdup(ks_error_msg()), NULL);
			failed = KS_REASON_PROBLEM_INVALID;
			break;
		}
		if (ks_candidate_plan(&plan, img, kind, ci, &env, seed, repeat ? 1 : si % 2, &o->limits) < 0) {
			ks_check_case_outcome(r, cr, KS_REASON_BAD_LAUNCH, ks_strdup(ks_error_msg()), NULL);
			failed = KS_REASON_BAD_LAUNCH;
			break;
		}
		for (i = 0; i < plan.nbufs; i++)
			fetch[i] = plan.bufs[i].scratch ? KS_FETCH_GUARDS : KS_FETCH_FULL;
		ks_runner_run(run, &res, module, &plan, fetch);
		cr->ms = res.ms;
		if (res.status != KS_RUN_OK) {
			why = ks_check_run_failure(&res);
			detail = ks_asprintf("%s", res.message ? res.message : "?");
		} else {
			if (*first && !extended)
				r->call = 1;
			why = ks_check_run(&detail, &res, &plan, fetch, g, p);
			if (why != KS_REASON_OK && repeat)
				why = KS_REASON_NONDETERMINISTIC;
		}
		if (!extended)
			*first = 0;
		ks_check_case_outcome(r, cr, why, detail, c->label);
		failed = why;
		ks_plan_clear(&plan);
		ks_run_result_clear(&res);
	}
	ks_env_free(&env);
	return failed;
}

void ks_check_case_outcome(ks_kernel_result *r, ks_case_result *cr, ks_reason why, char *detail,
			   const char *label)
{
	cr->passed = why == KS_REASON_OK;
	if (cr->passed) {
		ks_free(detail);
		return;
	}
	cr->reason = why;
	cr->detail = detail ? detail : ks_strdup(ks_reason_name(why));
	if (cr->extended)
		return;
	if (!label)
		ks_kernel_result_fail(r, why, "%s", cr->detail);
	else if (why == KS_REASON_NONDETERMINISTIC)
		ks_kernel_result_fail(r, why, "case %s: a re-run on the inputs of seed 0, which passed, gave a "
				      "different answer: %s", label, cr->detail);
	else
		ks_kernel_result_fail(r, why, "case %s, seed %d: %s", label, cr->seed_index < 0 ? 0 : cr->seed_index,
				      cr->detail);
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

	for (ci = 0; ci < p->ncorrectness && r->reason == KS_REASON_OK; ci++)
		check_case(r, img, run, o, module, KS_CASE_CORRECTNESS, ci, &cap, &first);
	if (r->reason == KS_REASON_OK)
		r->exec = 1;
	/* the extended cases, once the scored ones passed: reported, never counted (a trace covers
	 * the scored cases only, so a Triton answer's are not run) */
	r->extended = p->nextended;
	for (ci = 0; r->exec && img->language != KS_LANG_TRITON && ci < p->nextended; ci++) {
		r->extended_run++;
		if (check_case(r, img, run, o, module, KS_CASE_EXTENDED, ci, &cap, &first) == KS_REASON_OK)
			r->extended_passed++;
	}
	ks_runner_unload(run, module);
	ks_runner_collect_output(run, r);
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
	r->extended = r->extended_run = r->extended_passed = 0;
	r->check_s = 0;
}
