/* kscore-worker, timing sessions (KS_MSG_TIME_*, DESIGN §4.6; see src/worker/worker_int.h): several
 * input sets of one plan, rotated between runs. Before each run, outside the timed window: a part
 * of every random input redrawn for the run's own version of its set's inputs (so no run sees the
 * inputs of an earlier one), inout tensors restored from a pristine copy, outputs poisoned and
 * scratch reset (so no run can find an earlier answer in its outputs), then L2 flushed (after the
 * fills, so none of their dirty lines is left for the run) and persisting lines reset. After each
 * run, outside the window too, its outputs (sampled) and its inputs' checksums can be kept so that
 * the scoring process may check any run after the fact. */
#include "worker/worker_int.h"
#include "load/dtype.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wk_time_end(wk_ctx *w)
{
	wk_timing *t = &w->t;
	int i;
	size_t k;
	wk_free_set(w, &w->run); /* room for the session's sets, and nothing held after it */
	if (!t->active)
		return;
	for (i = 0; i < t->nsets; i++) {
		for (k = 0; t->pristine[i] && k < t->plan.nbufs; k++)
			if (t->pristine[i][k])
				w->cu.cuMemFree(t->pristine[i][k]);
		ks_free(t->pristine[i]);
		wk_free_set(w, &t->sets[i]);
	}
	if (t->flush)
		w->cu.cuMemFree(t->flush);
	if (t->kept)
		w->cu.cuMemFree(t->kept);
	ks_free(t->kept_off);
	ks_free(t->kept_mode);
	ks_plan_clear(&t->plan);
	memset(t, 0, sizeof(*t));
}

static CUresult snapshot_inout(wk_ctx *w, int set)
{
	wk_timing *t = &w->t;
	size_t k;
	CUresult r;
	for (k = 0; k < t->plan.nbufs; k++) {
		const ks_plan_buf *b = &t->plan.bufs[k];
		if (b->role != KS_ROLE_INOUT || !b->bytes)
			continue;
		if (!t->pristine[set][k] &&
		    (r = w->cu.cuMemAlloc(&t->pristine[set][k], b->bytes)) != CUDA_SUCCESS)
			return r;
		if ((r = w->cu.cuMemcpyDtoDAsync(t->pristine[set][k], t->sets[set].b[k].base + t->plan.guard,
					      b->bytes, w->stream)) != CUDA_SUCCESS)
			return r;
	}
	return CUDA_SUCCESS;
}

/* Records mark i of marks (none without marks): the phases of a TIME_RUN that asks for them. */
static CUresult mark(wk_ctx *w, const CUevent *marks, int i)
{
	return marks ? w->cu.cuEventRecord(marks[i], w->stream) : CUDA_SUCCESS;
}

/* Everything that must happen before a timed run, outside its window, in this order: the fills
 * (inputs redrawn to the run's version, inout restored, outputs poisoned, scratch reset), then the
 * L2 flush, which evicts the lines the fills dirtied. With marks, marks[0] is recorded before the
 * redraw, marks[1] after it and marks[2] after the other fills. */
static CUresult prepare_run(wk_ctx *w, int set, uint64_t version, int flush, const CUevent *marks)
{
	wk_timing *t = &w->t;
	size_t k;
	CUresult r;
	if ((r = mark(w, marks, 0)) != CUDA_SUCCESS)
		return r;
	if (t->plan.change > 0 && version != t->version[set]) {
		if ((r = wk_redraw_inputs(w, &t->plan, &t->sets[set], t->pristine[set], t->seed[set], t->version[set],
					  version)) != CUDA_SUCCESS)
			return r;
		t->version[set] = version;
	}
	if ((r = mark(w, marks, 1)) != CUDA_SUCCESS)
		return r;
	for (k = 0; k < t->plan.nbufs; k++)
		if (t->pristine[set][k] &&
		    (r = w->cu.cuMemcpyDtoDAsync(t->sets[set].b[k].base + t->plan.guard, t->pristine[set][k],
					      t->plan.bufs[k].bytes, w->stream)) != CUDA_SUCCESS)
			return r;
	if ((r = wk_reset_outputs(w, &t->plan, &t->sets[set])) != CUDA_SUCCESS ||
	    (r = mark(w, marks, 2)) != CUDA_SUCCESS)
		return r;
	if (flush && t->flush) {
		uint64_t v = (uint64_t)set;
		void *p[] = { &t->flush, &t->flush_words, &v };
		if ((r = w->cu.cuLaunchKernel(w->hk[KS_HK_FLUSH], 1024, 1, 1, 256, 1, 1, 0, w->stream,
					      p, NULL)) != CUDA_SUCCESS)
			return r;
	}
	return CUDA_SUCCESS;
}

/* The slots for the kept outputs of the runs of one TIME_RUN (the request's check_k and
 * check_runs; none without them): per run, check_k sampled elements of each output, or all of it
 * when that is not more (the rule of a SAMPLE fetch), and, when the inputs change between runs,
 * each input's checksum, as many runs as fit in KS_PROTO_MAX_SNAPSHOT. */
static CUresult alloc_kept(wk_ctx *w, const cJSON *req, char *err, size_t errlen)
{
	wk_timing *t = &w->t;
	double k = 0, runs = 0;
	size_t i;
	CUresult r;
	ks_json_num(&k, req, "check_k", 0);
	ks_json_num(&runs, req, "check_runs", 0);
	if (!(runs >= 1) || !(k >= 2 * KS_SAMPLE_EDGE && k <= (1 << 22)))
		return CUDA_SUCCESS; /* none asked for (or nonsense): the reply says none are kept */
	t->check_k = (uint64_t)k;
	t->kept_off = ks_calloc(t->plan.nbufs + 1, sizeof(uint64_t));
	t->kept_mode = ks_calloc(t->plan.nbufs + 1, sizeof(int));
	t->slot_bytes = 0;
	for (i = 0; i < t->plan.nbufs; i++) {
		const ks_plan_buf *b = &t->plan.bufs[i];
		uint64_t n;
		if (b->scratch || (b->role == KS_ROLE_IN && !(t->plan.change > 0)))
			continue;
		if (b->role == KS_ROLE_IN)
			t->kept_mode[i] = KS_FETCH_GUARDS; /* a later run on its set redraws part of it */
		else
			t->kept_mode[i] = wk_sample_whole(t->check_k, b->count) ? KS_FETCH_FULL : KS_FETCH_SAMPLE;
		n = t->kept_mode[i] == KS_FETCH_GUARDS ? 8
		    : t->kept_mode[i] == KS_FETCH_FULL ? b->bytes
						       : t->check_k * ks_dtype_size(b->dtype);
		t->kept_off[i] = t->slot_bytes;
		t->slot_bytes += (n + 255) & ~255ull;
	}
	if (!t->slot_bytes)
		t->slot_bytes = 256;
	t->check_runs = runs > KS_PROTO_MAX_RUNS ? KS_PROTO_MAX_RUNS : (int)runs;
	if ((uint64_t)t->check_runs * t->slot_bytes > KS_PROTO_MAX_SNAPSHOT)
		t->check_runs = (int)(KS_PROTO_MAX_SNAPSHOT / t->slot_bytes);
	if (t->check_runs < 1)
		t->check_runs = 1;
	if ((r = w->cu.cuMemAlloc(&t->kept, (uint64_t)t->check_runs * t->slot_bytes)) != CUDA_SUCCESS) {
		t->kept = 0;
		snprintf(err, errlen, "allocating %llu bytes for the outputs of checked runs: %s",
			 (unsigned long long)t->check_runs * t->slot_bytes, ks_cu_error(&w->cu, r));
		return r;
	}
	return CUDA_SUCCESS;
}

static wk_kept kept_slot(const wk_timing *t, int run)
{
	wk_kept k;
	k.base = t->kept + (uint64_t)run * t->slot_bytes;
	k.off = t->kept_off;
	k.mode = t->kept_mode;
	k.k = t->check_k;
	return k;
}

void wk_time_start(wk_ctx *w, const ks_msg *m)
{
	wk_timing *t = &w->t;
	const cJSON *seeds = cJSON_GetObjectItemCaseSensitive(m->json, "seeds"), *it;
	double fb = 0;
	char err[1024] = "";
	CUresult r = CUDA_SUCCESS;
	const char *stage = "plan";
	int i;

	wk_time_end(w);
	if (ks_plan_from_json(&t->plan, cJSON_GetObjectItemCaseSensitive(m->json, "plan")) < 0) {
		wk_reply_error("plan", CUDA_ERROR_INVALID_VALUE, ks_error_msg(), 0);
		return;
	}
	t->active = 1;
	t->mod = wk_module_of(w, m->json);
	if (!t->mod || !cJSON_IsArray(seeds) || cJSON_GetArraySize(seeds) < 1 ||
	    cJSON_GetArraySize(seeds) > KS_PROTO_MAX_SETS) {
		snprintf(err, sizeof(err), "bad timing request");
		r = CUDA_ERROR_INVALID_VALUE;
		goto fail;
	}
	stage = "launch";
	if (wk_check_plan(w, &t->plan, t->mod, err, sizeof(err)) < 0) {
		r = CUDA_ERROR_INVALID_VALUE;
		goto fail;
	}
	stage = "alloc";
	/* the kept outputs first: a plan whose own buffers leave no room for them fails, rather than
	 * running unchecked */
	if ((r = alloc_kept(w, m->json, err, sizeof(err))) != CUDA_SUCCESS)
		goto fail;
	i = 0;
	cJSON_ArrayForEach(it, seeds)
	{
		uint64_t seed = cJSON_IsString(it) ? strtoull(it->valuestring, NULL, 10) : 0;
		t->seed[i] = seed;
		t->nsets++;
		t->pristine[i] = ks_calloc(t->plan.nbufs + 1, sizeof(CUdeviceptr));
		if ((r = wk_alloc_set(w, &t->plan, &t->sets[i], err, sizeof(err))) != CUDA_SUCCESS ||
		    (r = wk_fill_set(w, &t->plan, &t->sets[i], seed, err, sizeof(err))) != CUDA_SUCCESS ||
		    (r = snapshot_inout(w, i)) != CUDA_SUCCESS)
			goto fail;
		i++;
	}
	ks_json_num(&fb, m->json, "flush_bytes", 0);
	if (fb >= 8) {
		t->flush_words = (uint64_t)fb / 8;
		if ((r = w->cu.cuMemAlloc(&t->flush, t->flush_words * 8)) != CUDA_SUCCESS) {
			snprintf(err, sizeof(err), "allocating the L2 flush buffer: %s", ks_cu_error(&w->cu, r));
			goto fail;
		}
	}
	/* no persisting L2 lines: a kernel cannot keep its data resident across timed runs */
	if (w->cu.cuCtxSetLimit)
		w->cu.cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0);
	stage = "fill";
	if ((r = w->cu.cuStreamSynchronize(w->stream)) != CUDA_SUCCESS)
		goto fail;
	{
		cJSON *j = wk_ok_reply();
		if (t->kept)
			cJSON_AddNumberToObject(j, "check_runs", t->check_runs);
		wk_reply(j, NULL, 0);
	}
	return;
fail:
	if (!err[0])
		snprintf(err, sizeof(err), "%s", ks_cu_error(&w->cu, r));
	if (!ks_cu_error_is_sticky(r))
		wk_time_end(w);
	wk_reply_error(stage, r, err, ks_cu_error_is_sticky(r));
}

/* The GPU time of each step around the runs of a batch, summed over its runs (a TIME_RUN that asks
 * for "phases", which KSCORE_TRACE does): the redraw of the inputs, the other fills (inout restored,
 * outputs poisoned, scratch reset), the L2 flush, and the kept samples and checksums after a run. */
static void add_phases(wk_ctx *w, cJSON *j, const CUevent *ev, const CUevent *marks, int n)
{
	static const char *const names[] = { "redraw", "fill", "flush", "keep" };
	double sum[4] = { 0, 0, 0, 0 };
	cJSON *o = cJSON_AddObjectToObject(j, "phase_ms");
	int i, k;
	for (i = 0; i < n; i++) {
		const CUevent *mk = marks + 4 * i;
		/* from-to pairs: mark 0-1, 1-2, 2-run start, run end-mark 3 */
		CUevent from[4] = { mk[0], mk[1], mk[2], ev[2 * i + 1] }, to[4] = { mk[1], mk[2], ev[2 * i], mk[3] };
		for (k = 0; k < 4; k++) {
			float el = 0;
			if (w->cu.cuEventElapsedTime(&el, from[k], to[k]) == CUDA_SUCCESS)
				sum[k] += el;
		}
	}
	for (k = 0; k < 4; k++)
		cJSON_AddNumberToObject(o, names[k], sum[k]);
}

void wk_time_run(wk_ctx *w, const ks_msg *m)
{
	wk_timing *t = &w->t;
	const cJSON *runs = cJSON_GetObjectItemCaseSensitive(m->json, "runs"), *it;
	const cJSON *vers = cJSON_GetObjectItemCaseSensitive(m->json, "versions");
	CUevent *ev = NULL, *marks = NULL;
	int set[KS_PROTO_MAX_RUNS], n = 0, i, flush = 1, phases = 0;
	uint64_t ver[KS_PROTO_MAX_RUNS];
	char err[1024] = "";
	CUresult r = CUDA_SUCCESS;
	const char *stage = "launch";
	cJSON *j, *ms;

	if (!t->active || !cJSON_IsArray(runs) || cJSON_GetArraySize(runs) < 1 ||
	    cJSON_GetArraySize(runs) > KS_PROTO_MAX_RUNS ||
	    (t->kept && cJSON_GetArraySize(runs) > t->check_runs) ||
	    (vers && (!cJSON_IsArray(vers) || cJSON_GetArraySize(vers) != cJSON_GetArraySize(runs)))) {
		wk_reply_error("plan", CUDA_ERROR_INVALID_VALUE, "bad timing run request", 0);
		return;
	}
	t->last_n = 0;
	ks_json_bool(&flush, m->json, "flush", 0);
	ks_json_bool(&phases, m->json, "phases", 0);
	cJSON_ArrayForEach(it, runs)
	{
		const cJSON *v = vers ? cJSON_GetArrayItem(vers, n) : NULL;
		set[n] = (int)it->valuedouble;
		if (set[n] < 0 || set[n] >= t->nsets)
			set[n] = 0;
		/* without versions, a run sees its set's inputs as they are */
		ver[n] = cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 9007199254740992.0
				 ? (uint64_t)v->valuedouble
				 : t->version[set[n]];
		n++;
	}
	/* the last two events bracket the whole batch, fills, flushes and kept samples included: the
	 * GPU time a timed request holds the GPU for, which the scorer reports beside the runs' own */
	if ((r = wk_events(w, &ev, phases ? 6 * n + 2 : 2 * n + 2)) != CUDA_SUCCESS) {
		wk_reply_error("launch", r, ks_cu_error(&w->cu, r), ks_cu_error_is_sticky(r));
		return;
	}
	if (phases)
		marks = ev + 2 * n + 2; /* four a run: before the redraw, after it, after the fills, after the keep */
	if (w->cu.cuCtxResetPersistingL2Cache)
		w->cu.cuCtxResetPersistingL2Cache();
	r = w->cu.cuEventRecord(ev[2 * n], w->stream);
	for (i = 0; i < n && r == CUDA_SUCCESS; i++) {
		const CUevent *mk = marks ? marks + 4 * i : NULL;
		if ((r = prepare_run(w, set[i], ver[i], flush, mk)) == CUDA_SUCCESS)
			r = wk_timed_launch(w, &t->plan, t->mod, &t->sets[set[i]], ev[2 * i], ev[2 * i + 1], err,
					 sizeof(err));
		if (r == CUDA_SUCCESS && t->kept) {
			/* after the end event: kept for a check the scoring process may ask for later */
			wk_kept k = kept_slot(t, i);
			r = wk_keep_outputs(w, &t->plan, &t->sets[set[i]], &k, t->seed[set[i]]);
		}
		if (r == CUDA_SUCCESS)
			r = mark(w, mk, 3);
	}
	if (r == CUDA_SUCCESS)
		r = w->cu.cuEventRecord(ev[2 * n + 1], w->stream);
	if (r == CUDA_SUCCESS) {
		stage = "sync";
		r = w->cu.cuStreamSynchronize(w->stream);
	}
	if (r != CUDA_SUCCESS) {
		if (!err[0])
			snprintf(err, sizeof(err), "%s", ks_cu_error(&w->cu, r));
		wk_reply_error(stage, r, err, ks_cu_error_is_sticky(r));
		return;
	}
	if (t->kept) {
		memcpy(t->last_set, set, sizeof(int) * (size_t)n);
		t->last_n = n;
	}
	j = wk_ok_reply();
	ms = cJSON_AddArrayToObject(j, "ms");
	for (i = 0; i < n; i++) {
		float el = 0;
		w->cu.cuEventElapsedTime(&el, ev[2 * i], ev[2 * i + 1]);
		cJSON_AddItemToArray(ms, cJSON_CreateNumber(el));
	}
	{
		float span = 0;
		w->cu.cuEventElapsedTime(&span, ev[2 * n], ev[2 * n + 1]);
		cJSON_AddNumberToObject(j, "span_ms", span);
	}
	if (marks)
		add_phases(w, j, ev, marks, n);
	wk_reply(j, NULL, 0);
}

/* Refills a set from a new seed (outputs poisoned again), runs it once, timed, and returns the
 * buffers: the scoring process checks this run's outputs, so a kernel that replays an earlier
 * result from the same addresses is caught. */
void wk_time_verify(wk_ctx *w, const ks_msg *m)
{
	wk_timing *t = &w->t;
	const char *seed_s = NULL;
	double setd = 0;
	int set, *modes;
	char err[1024] = "";
	CUresult r;
	const char *stage = "fill";
	unsigned char *blob = NULL;
	uint64_t blob_len = 0;
	cJSON *j = NULL;

	ks_json_num(&setd, m->json, "set", 0);
	set = (int)setd;
	modes = t->active ? wk_parse_modes(cJSON_GetObjectItemCaseSensitive(m->json, "fetch"),
					     t->plan.nbufs)
			    : NULL;
	if (!modes || set < 0 || set >= t->nsets || ks_json_str(&seed_s, m->json, "seed", 1) < 0) {
		ks_free(modes);
		wk_reply_error("plan", CUDA_ERROR_INVALID_VALUE, "bad verify request", 0);
		return;
	}
	t->last_n = 0; /* the kept runs no longer match their set's inputs */
	t->seed[set] = strtoull(seed_s, NULL, 10);
	t->version[set] = 0; /* the new seed's inputs as drawn: no run saw them */
	if ((r = wk_fill_set(w, &t->plan, &t->sets[set], t->seed[set], err,
			     sizeof(err))) != CUDA_SUCCESS ||
	    (r = snapshot_inout(w, set)) != CUDA_SUCCESS || (r = prepare_run(w, set, 0, 1, NULL)) != CUDA_SUCCESS)
		goto fail;
	if (w->cu.cuCtxResetPersistingL2Cache)
		w->cu.cuCtxResetPersistingL2Cache();
	if ((r = wk_run_fetch(w, &j, &blob, &blob_len, &t->plan, t->mod, &t->sets[set], modes,
			      m->json, &stage, err, sizeof(err))) != CUDA_SUCCESS)
		goto fail;
	ks_free(modes);
	wk_reply(j, blob, blob_len);
	ks_free(blob);
	return;
fail:
	if (!err[0])
		snprintf(err, sizeof(err), "%s", ks_cu_error(&w->cu, r));
	ks_free(modes);
	wk_reply_error(stage, r, err, ks_cu_error_is_sticky(r));
}

/* The outputs run `run` of the last TIME_RUN left (kept after it), with its set's guard bands as
 * they are now and its inputs' checksums as the run left them (kept after it too when the inputs
 * change between runs; else as they are now): the scoring process decides which runs to check only
 * after the batch, so a kernel cannot know, while it runs, whether its outputs will be looked at. */
void wk_time_check(wk_ctx *w, const ks_msg *m)
{
	wk_timing *t = &w->t;
	double rund = -1;
	int run, *modes;
	char err[1024] = "";
	CUresult r;
	unsigned char *blob = NULL;
	uint64_t blob_len = 0;
	cJSON *j = NULL;
	wk_kept k;

	ks_json_num(&rund, m->json, "run", 0);
	run = rund >= 0 && rund < KS_PROTO_MAX_RUNS ? (int)rund : -1;
	modes = t->active ? wk_parse_modes(cJSON_GetObjectItemCaseSensitive(m->json, "fetch"),
					     t->plan.nbufs)
			    : NULL;
	if (!modes || !t->kept || run < 0 || run >= t->last_n) {
		ks_free(modes);
		wk_reply_error("plan", CUDA_ERROR_INVALID_VALUE, "bad check request: no such kept run", 0);
		return;
	}
	k = kept_slot(t, run);
	if ((r = wk_fetch(w, &j, &blob, &blob_len, &t->plan, &t->sets[t->last_set[run]], modes, t->check_k,
			  t->seed[t->last_set[run]], &k, err, sizeof(err))) != CUDA_SUCCESS) {
		if (!err[0])
			snprintf(err, sizeof(err), "%s", ks_cu_error(&w->cu, r));
		ks_free(modes);
		wk_reply_error("fetch", r, err, ks_cu_error_is_sticky(r));
		return;
	}
	ks_free(modes);
	wk_reply(j, blob, blob_len);
	ks_free(blob);
}
