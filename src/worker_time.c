/* kscore-worker, timing sessions (KS_MSG_TIME_*, DESIGN §4.6; see include/worker_int.h): several
 * input sets of one plan, rotated between runs; L2 flushed and persisting lines reset outside the
 * timed window; inout tensors restored from a pristine copy before each run. */
#include "worker_int.h"
#include "errors.h"
#include "jsonutil.h"
#include "mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wk_time_end(wk_ctx *w)
{
	wk_timing *t = &w->t;
	int i;
	size_t k;
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

/* Everything that must happen before a timed run, outside its window. */
static CUresult prepare_run(wk_ctx *w, int set, int flush)
{
	wk_timing *t = &w->t;
	size_t k;
	CUresult r;
	for (k = 0; k < t->plan.nbufs; k++)
		if (t->pristine[set][k] &&
		    (r = w->cu.cuMemcpyDtoDAsync(t->sets[set].b[k].base + t->plan.guard, t->pristine[set][k],
					      t->plan.bufs[k].bytes, w->stream)) != CUDA_SUCCESS)
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
	i = 0;
	cJSON_ArrayForEach(it, seeds)
	{
		uint64_t seed = cJSON_IsString(it) ? strtoull(it->valuestring, NULL, 10) : 0;
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
	wk_reply(wk_ok_reply(), NULL, 0);
	return;
fail:
	if (!err[0])
		snprintf(err, sizeof(err), "%s", ks_cu_error(&w->cu, r));
	if (!ks_cu_error_is_sticky(r))
		wk_time_end(w);
	wk_reply_error(stage, r, err, ks_cu_error_is_sticky(r));
}

void wk_time_run(wk_ctx *w, const ks_msg *m)
{
	wk_timing *t = &w->t;
	const cJSON *runs = cJSON_GetObjectItemCaseSensitive(m->json, "runs"), *it;
	CUevent *ev = NULL;
	int set[KS_PROTO_MAX_RUNS], n = 0, i, flush = 1;
	char err[1024] = "";
	CUresult r = CUDA_SUCCESS;
	const char *stage = "launch";
	cJSON *j, *ms;

	if (!t->active || !cJSON_IsArray(runs) || cJSON_GetArraySize(runs) < 1 ||
	    cJSON_GetArraySize(runs) > KS_PROTO_MAX_RUNS) {
		wk_reply_error("plan", CUDA_ERROR_INVALID_VALUE, "bad timing run request", 0);
		return;
	}
	ks_json_bool(&flush, m->json, "flush", 0);
	cJSON_ArrayForEach(it, runs)
	{
		set[n] = (int)it->valuedouble;
		if (set[n] < 0 || set[n] >= t->nsets)
			set[n] = 0;
		n++;
	}
	if ((r = wk_events(w, &ev, 2 * n)) != CUDA_SUCCESS) {
		wk_reply_error("launch", r, ks_cu_error(&w->cu, r), ks_cu_error_is_sticky(r));
		return;
	}
	if (w->cu.cuCtxResetPersistingL2Cache)
		w->cu.cuCtxResetPersistingL2Cache();
	for (i = 0; i < n && r == CUDA_SUCCESS; i++) {
		if ((r = prepare_run(w, set[i], flush)) == CUDA_SUCCESS)
			r = wk_timed_launch(w, &t->plan, t->mod, &t->sets[set[i]], ev[2 * i], ev[2 * i + 1], err,
					 sizeof(err));
	}
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
	j = wk_ok_reply();
	ms = cJSON_AddArrayToObject(j, "ms");
	for (i = 0; i < n; i++) {
		float el = 0;
		w->cu.cuEventElapsedTime(&el, ev[2 * i], ev[2 * i + 1]);
		cJSON_AddItemToArray(ms, cJSON_CreateNumber(el));
	}
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
	if ((r = wk_fill_set(w, &t->plan, &t->sets[set], strtoull(seed_s, NULL, 10), err,
			     sizeof(err))) != CUDA_SUCCESS ||
	    (r = snapshot_inout(w, set)) != CUDA_SUCCESS || (r = prepare_run(w, set, 1)) != CUDA_SUCCESS)
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
