#include "run/runner.h"
#include "lang/triton/tracer.h"
#include "run/workerenv.h"
#include "run/compare.h"
#include "run/goldcache.h"
#include "util/errors.h"
#include "util/fsutil.h"
#include "run/harness.h"
#include "util/mem.h"
#include "util/tracelog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A golden result this runner uses, held in the GPU's cache (goldcache.h) until it is forgotten. */
typedef struct golden_entry {
	ks_goldcache_key key;
	ks_goldcache_entry *ref;
	struct golden_entry *next;
} golden_entry;

typedef struct golden_module {
	const ks_problem *p;
	void *cubin;
	size_t len;
	char **lowered;
	size_t n;
	int module;    /* in the golden worker; -1 until loaded */
	int broken;
	char *why;
	struct golden_module *next;
} golden_module;

struct ks_runner {
	ks_runner_options opts;
	char *worker_exe;
	char *arch;
	ks_device_info dev;
	ks_worker *golden, *cand;
	ks_worker *pending;      /* the candidate worker between begin and finish */
	int golden_ready;        /* its context is made (HELLO answered) */
	double t_start;          /* trace clock at begin */
	int cand_starts;
	void *harness;
	size_t harness_len;
	char *harness_names[KS_HK_COUNT];
	golden_entry *cache;
	ks_goldcache *goldens;        /* opts.goldens, or the runner's own */
	int own_goldens;
	golden_module *mods;
	ks_tracer *tracer;       /* the Triton helper of this runner's thread, started on first use */
	char *tracer_why;        /* why it could not be started: every later answer is told the same */
	void *attached;          /* ks_runner_attach */
	void (*release)(void *);
};

uint64_t ks_seed_derive(uint64_t base, const char *problem, int perf, size_t case_index, int seed_index)
{
	uint64_t h = base ^ 0x51ed270b2bd1e1c5ull;
	const char *s;
#define MIX(x)                                                                                     \
	do {                                                                                       \
		h ^= (uint64_t)(x);                                                                \
		h += 0x9e3779b97f4a7c15ull;                                                        \
		h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ull;                                       \
		h = (h ^ (h >> 27)) * 0x94d049bb133111ebull;                                       \
		h ^= h >> 31;                                                                      \
	} while (0)
	for (s = problem; *s; s++)
		MIX((unsigned char)*s);
	MIX(perf);
	MIX(case_index);
	MIX((uint64_t)(int64_t)seed_index);
#undef MIX
	return h;
}

char *ks_arch_for(int cc_major, int cc_minor)
{
	/* Hopper and later get the architecture-specific target so submissions may use wgmma and
	 * friends; the CUBIN only has to run on this very device. */
	if (cc_major >= 9)
		return ks_asprintf("sm_%d%da", cc_major, cc_minor);
	return ks_asprintf("sm_%d%d", cc_major, cc_minor);
}

static ks_worker_options worker_options(const ks_runner *r, const char *role)
{
	ks_worker_options wo = KS_WORKER_OPTIONS_INIT;
	wo.exe = r->worker_exe;
	wo.device = r->opts.device;
	wo.own_device = r->opts.own_device;
	wo.role = role;
	wo.gate = r->opts.gate;
	return wo;
}

static int start_worker_with(ks_runner *r, ks_worker **w, const ks_worker_options *wo)
{
	ks_device_info info;
	int rc;
	if ((rc = ks_worker_start(w, &info, wo)) < 0)
		return rc;
	if (r->harness && (rc = ks_worker_harness(*w, r->harness, r->harness_len, r->harness_names)) < 0) {
		ks_worker_free(*w);
		*w = NULL;
		return rc;
	}
	if (!r->dev.name[0])
		r->dev = info;
	return 0;
}

static int start_worker(ks_runner *r, ks_worker **w, const char *role)
{
	ks_worker_options wo = worker_options(r, role);
	return start_worker_with(r, w, &wo);
}

int ks_runner_start_wrapped(ks_runner *r, ks_worker **out, const char *role, const ks_worker_options *wo)
{
	ks_worker_options o = *wo, base = worker_options(r, role);
	o.exe = base.exe;
	o.device = base.device;
	o.own_device = base.own_device;
	o.role = role;
	o.gate = base.gate; /* the tool's runs share the runner's GPU like its own workers' */
	return start_worker_with(r, out, &o);
}

int ks_runner_begin(ks_runner **out, const ks_runner_options *opts)
{
	ks_runner *r = ks_calloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	r->opts = *opts;
	r->goldens = opts->goldens;
	if (!r->goldens) {
		r->goldens = ks_runner_goldcache_new(0);
		r->own_goldens = 1;
	}
	r->worker_exe = opts->worker_exe ? ks_strdup(opts->worker_exe) : ks_fs_find_helper("kscore-worker");
	if (!r->worker_exe) {
		rc = KS_ENOTFOUND;
		goto fail;
	}
	/* Both workers create their CUDA contexts at once, the candidate's while the harness kernels
	 * compile; a candidate worker that fails to come up is started again when first needed. */
	{
		ks_worker_options gw = worker_options(r, "golden"), cw = worker_options(r, "candidate");
		r->t_start = ks_tracelog_ms();
		if ((rc = ks_worker_spawn(&r->golden, &gw)) < 0)
			goto fail;
		if (!opts->golden_only && ks_worker_spawn(&r->pending, &cw) < 0)
			r->pending = NULL;
		/* a worker of this build describes its GPU before it has a context */
		if ((rc = ks_worker_init(r->golden, &r->dev)) < 0)
			goto fail;
		if (rc == 0) {
			if ((rc = ks_worker_ready(r->golden, &r->dev)) < 0)
				goto fail;
			r->golden_ready = 1;
			ks_tracelog_span("runner-ready", "golden", r->t_start);
		}
	}
	r->arch = ks_arch_for(r->dev.cc_major, r->dev.cc_minor);
	*out = r;
	return 0;
fail:
	ks_runner_free(r);
	return rc;
}

int ks_runner_finish(ks_runner *r)
{
	ks_compile_job job;
	ks_compile_options co;
	int rc, i;
	double t_h;

	memset(&job, 0, sizeof(job));
	co = r->opts.compile;
	co.arch = r->arch;
	job.source = ks_harness_source();
	job.names = (const char *const *)ks_harness_kernels;
	job.nnames = KS_HK_COUNT;
	job.label = "harness kernels";
	t_h = ks_tracelog_ms();
	if ((rc = ks_compile_run(&job, 1, &co)) < 0)
		goto done;
	ks_tracelog_span("harness-compile", r->arch, t_h);
	if (job.status != KS_COMPILE_OK) {
		rc = ks_error_set(KS_ERROR, "the harness kernels did not compile for %s: %s: %s", r->arch,
				  ks_compile_status_name(job.status), job.log);
		goto done;
	}
	r->harness = job.cubin;
	r->harness_len = job.cubin_len;
	job.cubin = NULL;
	for (i = 0; i < KS_HK_COUNT; i++)
		r->harness_names[i] = ks_strdup(job.lowered[i]);
	if (!r->golden_ready) {
		ks_device_info d;
		if ((rc = ks_worker_ready(r->golden, &d)) < 0)
			goto done;
		if (strcmp(d.uuid, r->dev.uuid) || d.cc_major != r->dev.cc_major || d.cc_minor != r->dev.cc_minor ||
		    d.sm_count != r->dev.sm_count || d.device_count != r->dev.device_count) {
			rc = ks_error_set(KS_ERROR, "the golden worker described %s (%s) before its context and %s "
					  "(%s) after", r->dev.name, r->dev.uuid, d.name, d.uuid);
			goto done;
		}
		r->dev = d;
		r->golden_ready = 1;
		ks_tracelog_span("runner-ready", "golden", r->t_start);
	}
	t_h = ks_tracelog_ms();
	if ((rc = ks_worker_harness(r->golden, r->harness, r->harness_len, r->harness_names)) < 0)
		goto done;
	ks_tracelog_span("harness-load", "golden", t_h);
	if (r->pending) {
		ks_device_info ci;
		if (ks_worker_ready(r->pending, &ci) == 0 &&
		    ks_worker_harness(r->pending, r->harness, r->harness_len, r->harness_names) == 0) {
			r->cand = r->pending;
			r->cand_starts = 1;
			r->pending = NULL;
		}
		ks_worker_free(r->pending);
		r->pending = NULL;
	}
	rc = 0;
done:
	ks_compile_job_clear(&job);
	return rc;
}

int ks_runner_start(ks_runner **out, const ks_runner_options *opts)
{
	ks_runner *r;
	int rc;
	*out = NULL;
	if ((rc = ks_runner_begin(&r, opts)) < 0)
		return rc;
	if ((rc = ks_runner_finish(r)) < 0) {
		ks_runner_free(r);
		return rc;
	}
	*out = r;
	return 0;
}

const ks_device_info *ks_runner_device(const ks_runner *r)
{
	return &r->dev;
}

const char *ks_runner_arch(const ks_runner *r)
{
	return r->arch;
}

void ks_runner_add_golden(ks_runner *r, const ks_problem *p, const void *cubin, size_t len,
			  char *const *lowered, size_t n)
{
	golden_module *m = ks_calloc(1, sizeof(*m));
	size_t i;
	m->p = p;
	m->cubin = ks_malloc(len);
	memcpy(m->cubin, cubin, len);
	m->len = len;
	m->lowered = ks_calloc(n + 1, sizeof(char *));
	for (i = 0; i < n; i++)
		m->lowered[i] = ks_strdup(lowered[i]);
	m->n = n;
	m->module = -1;
	m->next = r->mods;
	r->mods = m;
}

static golden_module *find_module(ks_runner *r, const ks_problem *p)
{
	golden_module *m;
	for (m = r->mods; m; m = m->next)
		if (m->p == p)
			return m;
	return NULL;
}

void ks_runner_golden_job(ks_compile_job *job, char ***names, size_t *nn, const ks_problem *p)
{
	ks_plan_kernel_names(names, nn, &p->golden_launch);
	job->source = p->golden_src;
	job->names = (const char *const *)*names;
	job->nnames = *nn;
	job->label = p->name;
}

int ks_runner_compile_goldens(ks_runner *r, const ks_problem_set *set, const ks_compile_options *co,
			      ks_compile_status *status, char **logs)
{
	ks_compile_job *jobs = ks_calloc(set->n + 1, sizeof(*jobs));
	char ***names = ks_calloc(set->n + 1, sizeof(char **));
	size_t *nn = ks_calloc(set->n + 1, sizeof(size_t)), i;
	int rc;

	for (i = 0; i < set->n; i++)
		ks_runner_golden_job(&jobs[i], &names[i], &nn[i], set->problems[i]);
	rc = ks_compile_run(jobs, set->n, co);
	for (i = 0; i < set->n; i++) {
		status[i] = rc < 0 ? KS_COMPILE_CRASH : jobs[i].status;
		logs[i] = ks_strdup(rc < 0 ? ks_error_msg() : jobs[i].log ? jobs[i].log : "");
		if (rc == 0 && r && jobs[i].status == KS_COMPILE_OK)
			ks_runner_add_golden(r, set->problems[i], jobs[i].cubin, jobs[i].cubin_len, jobs[i].lowered,
					     jobs[i].nnames);
		ks_compile_job_clear(&jobs[i]);
		ks_free_strv(names[i], nn[i]);
	}
	ks_free(jobs);
	ks_free(names);
	ks_free(nn);
	return rc;
}

int ks_runner_has_golden(const ks_runner *r, const ks_problem *p)
{
	return find_module((ks_runner *)r, p) != NULL;
}

int ks_runner_golden_image(ks_runner *r, const ks_problem *p, const void **cubin, size_t *len,
			   char *const **lowered, size_t *n)
{
	golden_module *m = find_module(r, p);
	if (!m || m->broken)
		return -1;
	*cubin = m->cubin;
	*len = m->len;
	*lowered = m->lowered;
	*n = m->n;
	return 0;
}

void ks_golden_run_clear(ks_golden_run *g)
{
	ks_plan_clear(&g->plan);
	ks_run_result_clear(&g->res);
	ks_free(g->fetch);
	g->fetch = NULL;
}

static void golden_run_free(void *v)
{
	ks_golden_run_clear(v);
	ks_free(v);
}

ks_goldcache *ks_runner_goldcache_new(uint64_t max_bytes)
{
	return ks_goldcache_new(max_bytes, golden_run_free);
}

/* The golden worker died: every module in it is gone. */
static void golden_worker_lost(ks_runner *r)
{
	golden_module *m;
	ks_worker_free(r->golden);
	r->golden = NULL;
	for (m = r->mods; m; m = m->next)
		m->module = -1;
}

static int validate_golden(const ks_golden_run *g, const char *problem, const char *label)
{
	size_t i;
	for (i = 0; i < g->plan.nbufs; i++) {
		const ks_plan_buf *b = &g->plan.bufs[i];
		const unsigned char *base = g->res.blob + g->res.bufs[i].off;
		uint64_t guard = g->plan.guard, back = g->res.bufs[i].total - guard - b->bytes;
		ks_fetch_mode md = g->res.bufs[i].mode;
		const unsigned char *backp = md == KS_FETCH_FULL ? base + guard + b->bytes : base + guard;
		uint64_t unwritten;
		if (b->scratch || md == KS_FETCH_NONE || md == KS_FETCH_CHECKSUM)
			continue;
		if (ks_compare_guard(base, guard, 0) >= 0 ||
		    ks_compare_guard(backp, back, (guard + b->bytes) % 8) >= 0)
			return ks_error_set(KS_ERROR, "the golden kernel of %s wrote outside %s on case %s",
					    problem, b->name, label);
		if (b->role == KS_ROLE_IN || (md != KS_FETCH_FULL && md != KS_FETCH_SAMPLE))
			continue;
		if (md == KS_FETCH_FULL)
			unwritten = ks_compare_count_poison(NULL, b->dtype, base + guard, b->count, g->plan.poison);
		else
			unwritten = ks_compare_count_poison(NULL, b->dtype, base + g->res.bufs[i].total - b->bytes,
							    g->res.bufs[i].sampled, g->plan.poison);
		if (unwritten)
			return ks_error_set(KS_ERROR, "the golden kernel of %s left %llu elements of %s "
					    "unwritten on case %s", problem, (unsigned long long)unwritten,
					    b->name, label);
	}
	return 0;
}

static int ensure_golden_module(ks_runner *r, golden_module *m, const ks_problem *p)
{
	ks_run_result res;
	ks_func_info fi[KS_PLAN_MAX_FUNCS];
	int rc;
	if (!r->golden && (rc = start_worker(r, &r->golden, "golden")) < 0)
		return rc;
	if (m->module >= 0)
		return 0;
	ks_worker_load(r->golden, &res, &m->module, fi, m->cubin, m->len, m->lowered, m->n,
		       r->opts.kernel_timeout_s * 3);
	if (res.status != KS_RUN_OK) {
		m->broken = 1;
		ks_free(m->why); /* an extended case's failure, kept while not broken */
		m->why = ks_asprintf("the golden kernel of %s could not be loaded: %s", p->name,
				     res.message ? res.message : "?");
		if (!ks_worker_alive(r->golden))
			golden_worker_lost(r);
		m->module = -1;
		ks_run_result_clear(&res);
		return ks_error_set(KS_ERROR, "%s", m->why);
	}
	ks_run_result_clear(&res);
	return 0;
}

ks_worker *ks_runner_golden_worker(ks_runner *r, const ks_problem *p, int *module)
{
	golden_module *m = find_module(r, p);
	if (!m) {
		ks_error_set(KS_ERROR, "the golden kernel of %s was not compiled", p->name);
		return NULL;
	}
	if (m->broken) {
		ks_error_set(KS_ERROR, "%s", m->why);
		return NULL;
	}
	if (ensure_golden_module(r, m, p) < 0)
		return NULL;
	*module = m->module;
	return r->golden;
}

void ks_runner_golden_plan(ks_runner *r, ks_run_result *res, const ks_problem *p, const ks_plan *plan,
			   const ks_fetch_mode *fetch)
{
	int module = -1;
	ks_worker *w = ks_runner_golden_worker(r, p, &module);
	if (!w) {
		memset(res, 0, sizeof(*res));
		res->status = KS_RUN_ERROR;
		res->message = ks_strdup(ks_error_msg());
		res->stage = ks_strdup("load");
		return;
	}
	ks_worker_run(w, res, module, plan, fetch, 0, 0, r->opts.kernel_timeout_s * 6);
	if (!ks_worker_alive(r->golden))
		golden_worker_lost(r);
}

ks_worker *ks_runner_candidate_worker(ks_runner *r)
{
	return r->cand && ks_worker_alive(r->cand) ? r->cand : NULL;
}

cJSON *ks_runner_status(ks_runner *r)
{
	return ks_worker_status(r->golden);
}

/* Runs p's golden kernel on case (perf: a ks_case_kind, case_index) with the inputs of seed, version and change
 * (plan.h) into *g, and validates the run. On failure the problem's golden kernel is marked broken
 * and g is cleared. */
static int golden_compute(ks_runner *r, ks_golden_run *g, const ks_problem *p, int perf, size_t case_index,
			  uint64_t seed, uint64_t version, double change)
{
	golden_module *m = find_module(r, p);
	const ks_case *c = ks_problem_case(p, perf, case_index);
	ks_env env = KS_ENV_INIT;
	size_t i;
	int rc = 0, extended = 0;

	memset(g, 0, sizeof(*g));
	if (!c)
		return ks_error_set(KS_EINVALID, "%s has no case %zu of that kind", p->name, case_index + 1);
	/* an extended case is checked like a correctness case (full outputs); a golden kernel that
	 * fails one is not marked broken: the scored cases are what it is the oracle of */
	if (perf == KS_CASE_EXTENDED)
		perf = 0, extended = 1;
	if (!m)
		return ks_error_set(KS_ERROR, "the golden kernel of %s was not compiled", p->name);
	if (m->broken)
		return ks_error_set(KS_ERROR, "%s", m->why);
	if ((rc = ensure_golden_module(r, m, p)) < 0)
		return rc;
	if ((rc = ks_problem_env(&env, p, c)) < 0 ||
	    (rc = ks_plan_build(&g->plan, p, &p->golden_launch, c, &env, seed, 0, &r->opts.limits)) < 0) {
		m->broken = !extended;
		ks_free(m->why);
		m->why = ks_asprintf("the golden plan of %s does not build for case %s: %s", p->name,
				     c->label, ks_error_msg());
		rc = ks_error_set(KS_ERROR, "%s", m->why);
		goto fail;
	}
	g->plan.version = version;
	g->plan.change = change;
	/* perf-size inputs travel as checksums: the outputs are what candidates are compared with */
	g->fetch = ks_calloc(g->plan.nbufs + 1, sizeof(ks_fetch_mode));
	for (i = 0; i < g->plan.nbufs; i++) {
		const ks_plan_buf *b = &g->plan.bufs[i];
		g->fetch[i] = b->scratch || (perf && b->role == KS_ROLE_IN) ? KS_FETCH_GUARDS
			      : perf ? KS_FETCH_SAMPLE : KS_FETCH_FULL;
	}
	ks_worker_run(r->golden, &g->res, m->module, &g->plan, g->fetch, perf ? KS_VERIFY_SAMPLES : 0, seed,
		      r->opts.kernel_timeout_s * (perf ? 6 : 3));
	if (g->res.status != KS_RUN_OK) {
		m->broken = !extended;
		ks_free(m->why);
		m->why = ks_asprintf("the golden kernel of %s failed on case %s: %s: %s", p->name, c->label,
				     ks_run_status_name(g->res.status), g->res.message ? g->res.message : "?");
		if (!ks_worker_alive(r->golden))
			golden_worker_lost(r);
		rc = ks_error_set(KS_ERROR, "%s", m->why);
		goto fail;
	}
	if ((rc = validate_golden(g, p->name, c->label)) < 0) {
		m->broken = !extended;
		ks_free(m->why);
		m->why = ks_strdup(ks_error_msg());
		goto fail;
	}
	ks_env_free(&env);
	return 0;
fail:
	ks_env_free(&env);
	ks_golden_run_clear(g);
	return rc;
}

/* What a golden result holds, for the cache's budget. */
static uint64_t golden_bytes(const ks_golden_run *g)
{
	return g->res.blob_len + g->res.nbufs * sizeof(*g->res.bufs) + g->plan.nbufs * (sizeof(*g->plan.bufs) +
													 sizeof(*g->fetch));
}

static void hold(ks_runner *r, const ks_goldcache_key *k, ks_goldcache_entry *ref)
{
	golden_entry *e = ks_calloc(1, sizeof(*e));
	e->key = *k;
	e->ref = ref;
	e->next = r->cache;
	r->cache = e;
}

int ks_runner_golden(ks_runner *r, const ks_golden_run **out, const ks_problem *p, int perf,
		     size_t case_index, uint64_t seed)
{
	golden_entry *e;
	ks_goldcache_entry *ref;
	ks_goldcache_key key;
	ks_golden_run *g;
	int rc;

	*out = NULL;
	memset(&key, 0, sizeof(key));
	key.problem = p;
	key.perf = perf;
	key.case_index = case_index;
	key.seed = seed;
	/* computed before, by this runner or another of its GPU: the same inputs give the same outputs
	 * (every use counts in the cache's figures) */
	if ((ref = ks_goldcache_get(r->goldens, &key)) != NULL) {
		for (e = r->cache; e && e->ref != ref; e = e->next)
			;
		if (e)
			ks_goldcache_release(r->goldens, ref); /* held already */
		else
			hold(r, &key, ref);
		*out = ks_goldcache_value(ref);
		return 0;
	}
	g = ks_calloc(1, sizeof(*g));
	if ((rc = golden_compute(r, g, p, perf, case_index, seed, 0, 0)) < 0) {
		ks_free(g);
		return rc;
	}
	ref = ks_goldcache_put(r->goldens, &key, g, golden_bytes(g));
	hold(r, &key, ref);
	*out = ks_goldcache_value(ref);
	return 0;
}

int ks_runner_golden_version(ks_runner *r, ks_golden_run *out, const ks_problem *p, size_t case_index, uint64_t seed,
			     uint64_t version, double change)
{
	return golden_compute(r, out, p, 1, case_index, seed, version, change);
}

static void forget(ks_runner *r, const ks_problem *p, int perf_only)
{
	golden_entry **pp = &r->cache;
	while (*pp) {
		golden_entry *e = *pp;
		if ((!p || e->key.problem == p) && (!perf_only || e->key.perf)) {
			*pp = e->next;
			ks_goldcache_release(r->goldens, e->ref);
			ks_free(e);
		} else
			pp = &e->next;
	}
}

void ks_runner_share_goldens(ks_runner *r, ks_goldcache *c)
{
	if (!c || c == r->goldens)
		return;
	forget(r, NULL, 0);
	if (r->own_goldens)
		ks_goldcache_free(r->goldens);
	r->goldens = c;
	r->own_goldens = 0;
}

static int ensure_candidate(ks_runner *r, ks_run_result *res)
{
	if (r->cand && ks_worker_alive(r->cand))
		return 0;
	ks_worker_free(r->cand);
	r->cand = NULL;
	if (start_worker(r, &r->cand, "candidate") < 0) {
		memset(res, 0, sizeof(*res));
		res->status = KS_RUN_CRASH;
		res->message = ks_asprintf("could not start a candidate worker: %s", ks_error_msg());
		res->stage = ks_strdup("start");
		return -1;
	}
	r->cand_starts++;
	return 0;
}

void ks_runner_load(ks_runner *r, ks_run_result *res, int *module, ks_func_info *funcs,
		    const void *cubin, size_t len, char *const *lowered, size_t n)
{
	size_t kept;
	uint64_t total;
	if (ensure_candidate(r, res) < 0)
		return;
	/* output from before this kernel is not its own */
	ks_free(ks_worker_take_output(r->cand, &kept, &total));
	ks_worker_load(r->cand, res, module, funcs, cubin, len, lowered, n, r->opts.kernel_timeout_s * 3);
}

void ks_runner_run(ks_runner *r, ks_run_result *res, int module, const ks_plan *plan,
		   const ks_fetch_mode *fetch)
{
	if (!r->cand || !ks_worker_alive(r->cand)) {
		memset(res, 0, sizeof(*res));
		res->status = KS_RUN_CRASH;
		res->message = ks_strdup("the candidate worker is not running");
		res->stage = ks_strdup("run");
		return;
	}
	ks_worker_run(r->cand, res, module, plan, fetch, 0, 0, r->opts.kernel_timeout_s);
}

void ks_runner_unload(ks_runner *r, int module)
{
	if (r->cand && ks_worker_alive(r->cand))
		ks_worker_unload(r->cand, module);
}

void ks_runner_forget(ks_runner *r, const ks_problem *p)
{
	forget(r, p, 0);
}

void ks_runner_forget_perf(ks_runner *r, const ks_problem *p)
{
	forget(r, p, 1);
}

void ks_runner_collect_output(ks_runner *r, ks_kernel_result *kr)
{
	size_t len, take, have;
	uint64_t total;
	char *raw, *text, *all;
	if (!r->cand)
		return;
	raw = ks_worker_take_output(r->cand, &len, &total);
	if (total) {
		have = kr->device_output_raw < KS_WORKER_OUTPUT_KEEP ? kr->device_output_raw : KS_WORKER_OUTPUT_KEEP;
		take = len < KS_WORKER_OUTPUT_KEEP - have ? len : KS_WORKER_OUTPUT_KEEP - have;
		text = ks_proto_output_text(raw, take);
		all = ks_asprintf("%s%s", kr->device_output ? kr->device_output : "", text);
		ks_free(kr->device_output);
		ks_free(text);
		kr->device_output = all;
		kr->device_output_raw += take;
		kr->device_output_bytes += total;
	}
	ks_free(raw);
}

int ks_runner_candidate_starts(const ks_runner *r)
{
	return r->cand_starts;
}

void ks_runner_attach(ks_runner *r, void *data, void (*release)(void *data))
{
	if (r->attached && r->release && r->attached != data)
		r->release(r->attached);
	r->attached = data;
	r->release = data ? release : NULL;
}

void *ks_runner_attached(const ks_runner *r)
{
	return r->attached;
}

void ks_runner_free(ks_runner *r)
{
	golden_module *m;
	int i;
	if (!r)
		return;
	ks_runner_attach(r, NULL, NULL);
	forget(r, NULL, 0);
	if (r->own_goldens)
		ks_goldcache_free(r->goldens);
	while ((m = r->mods)) {
		r->mods = m->next;
		ks_free(m->cubin);
		ks_free_strv(m->lowered, m->n);
		ks_free(m->why);
		ks_free(m);
	}
	ks_tracer_free(r->tracer);
	ks_free(r->tracer_why);
	ks_worker_free(r->golden);
	ks_worker_free(r->cand);
	ks_worker_free(r->pending);
	ks_free(r->harness);
	for (i = 0; i < KS_HK_COUNT; i++)
		ks_free(r->harness_names[i]);
	ks_free(r->worker_exe);
	ks_free(r->arch);
	ks_free(r);
}

void ks_runner_trace(ks_runner *r, ks_trace *out, const ks_problem *p, const cJSON *entry, const char *source,
		     const ks_plan_limits *lim, int trusted)
{
	const ks_worker_gate *g = r->opts.gate;
	int exclusive;
	memset(out, 0, sizeof(*out));
	if (!r->tracer && !r->tracer_why) {
		ks_tracer_options to = KS_TRACER_OPTIONS_INIT;
		/* the answers see this GPU alone, as their device 0 (an ordinal past the run's list: none) */
		char *vis = ks_workerenv_visible_entry(getenv("CUDA_VISIBLE_DEVICES"), r->opts.device);
		to.device = 0;
		to.visible_devices = vis ? vis : "";
		if (r->opts.trace_timeout_s > 0)
			to.timeout_s = r->opts.trace_timeout_s;
		if (ks_tracer_start(&r->tracer, &to) < 0)
			r->tracer_why = ks_strdup(ks_error_msg());
		ks_free(vis);
	}
	if (!r->tracer) {
		out->status = KS_TRACE_UNAVAILABLE;
		out->message = ks_strdup(r->tracer_why);
		return;
	}
	/* An answer that autotunes measures during its trace, and the configuration it picks is the one
	 * scored: its trace has the GPU alone, as a timed request has (beside the other thread's checks,
	 * perf-size golden runs and input fills, an autotuner picked a config of 2.6 ms for a GEMM
	 * whose best runs in 1.5 ms: docs/benchmarks.md, "Triton answers"). Any other trace is untimed
	 * work, beside the other thread's checks. The helper's imports (seconds, once per server) are
	 * waited for outside the gate. */
	exclusive = ks_tracer_measures(source);
	if (ks_tracer_ready(r->tracer) < 0)
		ks_error_clear(); /* the trace itself says what is wrong with the helper */
	if (g)
		g->enter(g->ud, exclusive);
	if (trusted && r->opts.compile.cache_dir) {
		char salt[sizeof(r->dev.name) + 32];
		int hit;
		snprintf(salt, sizeof(salt), "%s sm_%d%d", r->dev.name, r->dev.cc_major, r->dev.cc_minor);
		ks_tracer_trace_cached(r->tracer, out, &hit, p, entry, source, lim, r->opts.compile.cache_dir, salt);
	} else
		ks_tracer_trace(r->tracer, out, p, entry, source, lim);
	if (g)
		g->leave(g->ud, exclusive);
}
