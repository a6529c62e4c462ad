/* kscore-worker, running a plan (KS_MSG_RUN; see src/worker/worker_int.h): buffer sets with guard
 * bands, fills from the harness kernels, launches, and the read-back of buffers per fetch mode. */
#include "worker/worker_int.h"
#include "load/dtype.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CUresult launch_h(wk_ctx *w, int k, unsigned grid, void **params)
{
	return w->cu.cuLaunchKernel(w->hk[k], grid, 1, 1, 256, 1, 1, 0, w->stream, params, NULL);
}

static unsigned grid_for(uint64_t n)
{
	uint64_t g = (n + 255) / 256;
	if (g > 65536)
		g = 65536;
	return g ? (unsigned)g : 1;
}

static CUresult fill_pattern(wk_ctx *w, CUdeviceptr dst, uint64_t nbytes, uint64_t pattern,
			     int width)
{
	void *p[] = { &dst, &nbytes, &pattern, &width };
	if (!nbytes)
		return CUDA_SUCCESS;
	return launch_h(w, KS_HK_FILL_PATTERN, grid_for(nbytes / 8 + 1), p);
}

/* Draws the random contents of b into data: version plan->version of them, or with update, only
 * the elements in which that version differs from version prev, which data holds. */
static CUresult fill_random(wk_ctx *w, const ks_plan *plan, const ks_plan_buf *b, CUdeviceptr data, uint64_t prev,
			    int update)
{
	uint64_t n = b->count, seed = plan->seed, version = plan->version;
	int dtype = b->dtype, size = (int)ks_dtype_size(b->dtype), dist = b->dist;
	double a = b->a, bb = b->b, change = plan->change;
	unsigned stream = b->stream;
	void *p[] = { &data, &n, &dtype, &size, &dist, &a, &bb, &seed, &stream, &version, &change, &prev, &update };
	if (!n)
		return CUDA_SUCCESS;
	/* a warp per 32 chunks of 32 elements (harness.c) */
	return launch_h(w, KS_HK_FILL_RANDOM, grid_for((n + 31) / 32), p);
}

static CUresult fill_buffer(wk_ctx *w, const ks_plan *plan, const ks_plan_buf *b, CUdeviceptr data)
{
	if (b->fill == KS_FILL_ZERO)
		return b->bytes ? w->cu.cuMemsetD8Async(data, 0, b->bytes, w->stream) : CUDA_SUCCESS;
	if (b->fill == KS_FILL_POISON) {
		unsigned char pat[8];
		uint64_t word = 0;
		ks_dtype_poison(b->dtype, plan->poison, pat);
		memcpy(&word, pat, 8);
		return fill_pattern(w, data, b->bytes, word, (int)ks_dtype_size(b->dtype));
	}
	return fill_random(w, plan, b, data, 0, 0);
}

CUresult wk_redraw_inputs(wk_ctx *w, const ks_plan *plan, const wk_set *s, const CUdeviceptr *pristine,
			  uint64_t seed, uint64_t from, uint64_t to)
{
	ks_plan p = *plan;
	size_t i;
	CUresult r;
	p.seed = seed;
	p.version = to;
	for (i = 0; i < plan->nbufs; i++) {
		const ks_plan_buf *b = &plan->bufs[i];
		CUdeviceptr data = s->b[i].base + plan->guard;
		if (b->fill != KS_FILL_RANDOM || b->scratch || (b->role != KS_ROLE_IN && b->role != KS_ROLE_INOUT))
			continue;
		if (b->role == KS_ROLE_INOUT) {
			if (!pristine || !pristine[i])
				continue; /* empty */
			data = pristine[i];
		}
		if ((r = fill_random(w, &p, b, data, from, 1)) != CUDA_SUCCESS)
			return r;
	}
	return CUDA_SUCCESS;
}

/* Enqueues the checksum of nbytes at data into the 8 bytes at dst (read back by the caller after
 * one synchronisation for all of them). */
static CUresult checksum_into(wk_ctx *w, CUdeviceptr data, uint64_t nbytes, CUdeviceptr dst)
{
	void *p[] = { &data, &nbytes, &dst };
	/* at most a few thousand blocks, each looping: every block ends in one atomic on dst */
	unsigned grid = grid_for(nbytes / 64 + 1) < 4096 ? grid_for(nbytes / 64 + 1) : 4096;
	CUresult r;
	if ((r = w->cu.cuMemsetD8Async(dst, 0, 8, w->stream)) != CUDA_SUCCESS)
		return r;
	if (nbytes && (r = launch_h(w, KS_HK_CHECKSUM, grid, p)) != CUDA_SUCCESS)
		return r;
	return CUDA_SUCCESS;
}

/* Device memory of at least *have bytes at *buf, grown (never shrunk) as needed: buffers reused
 * from request to request, because every allocation is a driver round trip. */
static CUresult reserve(wk_ctx *w, CUdeviceptr *buf, uint64_t *have, uint64_t need)
{
	CUresult r;
	if (need <= *have)
		return CUDA_SUCCESS;
	if (*buf)
		w->cu.cuMemFree(*buf);
	*buf = 0;
	*have = 0;
	if ((r = w->cu.cuMemAlloc(buf, need)) != CUDA_SUCCESS)
		return r;
	*have = need;
	return CUDA_SUCCESS;
}

CUresult wk_events(wk_ctx *w, CUevent **out, int n)
{
	CUresult r;
	if (n > WK_MAX_EVENTS)
		return CUDA_ERROR_INVALID_VALUE;
	while (w->nev < n) {
		if ((r = w->cu.cuEventCreate(&w->ev[w->nev], CU_EVENT_DEFAULT)) != CUDA_SUCCESS)
			return r;
		w->nev++;
	}
	*out = w->ev;
	return CUDA_SUCCESS;
}

/* Checks the plan's arguments against the compiled kernel's parameter list. */
static int check_params(wk_ctx *w, const ks_plan_kernel *k, CUfunction f, char *err, size_t errlen)
{
	size_t n = 0, off, sz, i, o;
	size_t sizes[256];
	char have[600] = "", want[600] = "";
	if (!w->cu.cuFuncGetParamInfo)
		return 0;
	while (n < 256 && w->cu.cuFuncGetParamInfo(f, n, &off, &sz) == CUDA_SUCCESS)
		sizes[n++] = sz;
	if (n == k->nparams) {
		for (i = 0; i < n; i++)
			if (sizes[i] != ks_plan_param_size(k->params[i].kind))
				break;
		if (i == n)
			return 0;
	}
	for (i = 0, o = 0; i < n && o < sizeof(have) - 8; i++)
		o += (size_t)snprintf(have + o, sizeof(have) - o, "%s%zu", i ? ", " : "", sizes[i]);
	for (i = 0, o = 0; i < k->nparams && o < sizeof(want) - 8; i++)
		o += (size_t)snprintf(want + o, sizeof(want) - o, "%s%zu", i ? ", " : "",
				      ks_plan_param_size(k->params[i].kind));
	snprintf(err, errlen,
		 "kernel %s takes %zu parameters (%s bytes) but the launch plan passes %zu (%s bytes)",
		 k->name, n, have, k->nparams, want);
	return -1;
}

typedef union {
	CUdeviceptr p;
	int32_t i32;
	uint32_t u32;
	int64_t i64;
	uint64_t u64;
	uint16_t b16;
	uint8_t b8;
	float f32;
	double f64;
} param_val;

/* Buffers and sample spans start 256-byte aligned. */
static uint64_t align256(uint64_t n)
{
	return (n + 255) & ~255ull;
}

CUresult wk_alloc_set(wk_ctx *w, const ks_plan *plan, wk_set *s, char *err, size_t errlen)
{
	size_t i;
	CUresult r;
	s->b = ks_calloc(plan->nbufs + 1, sizeof(wk_buf));
	s->n = plan->nbufs;
	for (i = 0; i < plan->nbufs; i++) {
		uint64_t body = align256(plan->bufs[i].bytes);
		s->b[i].total = 2ull * plan->guard + body;
		if ((r = w->cu.cuMemAlloc(&s->b[i].base, s->b[i].total)) != CUDA_SUCCESS) {
			snprintf(err, errlen, "allocating %s (%llu bytes): %s", plan->bufs[i].name,
				 (unsigned long long)s->b[i].total, ks_cu_error(&w->cu, r));
			return r;
		}
	}
	return CUDA_SUCCESS;
}

/* 1 when s has the buffers of plan's sizes (wk_alloc_set), so it can be filled anew for it. */
static int set_fits(const wk_set *s, const ks_plan *plan)
{
	size_t i;
	if (!s->b || s->n != plan->nbufs)
		return 0;
	for (i = 0; i < plan->nbufs; i++)
		if (s->b[i].total != 2ull * plan->guard + align256(plan->bufs[i].bytes))
			return 0;
	return 1;
}

void wk_free_set(wk_ctx *w, wk_set *s)
{
	size_t i;
	for (i = 0; s->b && i < s->n; i++)
		if (s->b[i].base)
			w->cu.cuMemFree(s->b[i].base);
	ks_free(s->b);
	s->b = NULL;
	s->n = 0;
}

CUresult wk_fill_set(wk_ctx *w, const ks_plan *plan, wk_set *s, uint64_t seed, char *err,
		     size_t errlen)
{
	ks_plan p = *plan;
	size_t i;
	CUresult r;
	p.seed = seed; /* version: the plan's (0 in a timing session: a set starts as its seed draws it) */
	for (i = 0; i < plan->nbufs; i++) {
		if ((r = fill_pattern(w, s->b[i].base, s->b[i].total, KS_GUARD_WORD, 8)) != CUDA_SUCCESS ||
		    (r = fill_buffer(w, &p, &plan->bufs[i], s->b[i].base + plan->guard)) != CUDA_SUCCESS) {
			snprintf(err, errlen, "filling %s: %s", plan->bufs[i].name, ks_cu_error(&w->cu, r));
			return r;
		}
	}
	return CUDA_SUCCESS;
}

CUresult wk_reset_outputs(wk_ctx *w, const ks_plan *plan, const wk_set *s)
{
	size_t i;
	CUresult r;
	for (i = 0; i < plan->nbufs; i++)
		if (plan->bufs[i].fill != KS_FILL_RANDOM &&
		    (r = fill_buffer(w, plan, &plan->bufs[i], s->b[i].base + plan->guard)) != CUDA_SUCCESS)
			return r;
	return CUDA_SUCCESS;
}

int wk_sample_whole(uint64_t k, uint64_t count)
{
	return k < 2 * KS_SAMPLE_EDGE || k >= count;
}

CUresult wk_keep_outputs(wk_ctx *w, const ks_plan *plan, const wk_set *s, const wk_kept *kept,
			 uint64_t seed)
{
	size_t i;
	CUresult r = CUDA_SUCCESS;
	for (i = 0; i < plan->nbufs && r == CUDA_SUCCESS; i++) {
		CUdeviceptr data = s->b[i].base + plan->guard, dst = kept->base + kept->off[i];
		if (kept->mode[i] == KS_FETCH_FULL && plan->bufs[i].bytes)
			r = w->cu.cuMemcpyDtoDAsync(dst, data, plan->bufs[i].bytes, w->stream);
		else if (kept->mode[i] == KS_FETCH_SAMPLE) {
			int es = (int)ks_dtype_size(plan->bufs[i].dtype);
			uint64_t count = plan->bufs[i].count, kk = kept->k, sd = seed;
			void *p[] = { &data, &count, &es, &dst, &kk, &sd };
			r = launch_h(w, KS_HK_GATHER, grid_for(kk), p);
		} else if (kept->mode[i] == KS_FETCH_GUARDS)
			r = checksum_into(w, data, plan->bufs[i].bytes, dst);
	}
	return r;
}

static CUresult launch_kernel(wk_ctx *w, const ks_plan *plan, size_t k, const wk_module *mod,
			      const wk_set *s, char *err, size_t errlen)
{
	const ks_plan_kernel *pk = &plan->kernels[k];
	CUfunction f = mod->fn[pk->func];
	param_val vals[KS_LAUNCH_MAX_ARGS];
	void *ptrs[KS_LAUNCH_MAX_ARGS];
	size_t p;
	CUresult r;
	if (!pk->grid[0] || !pk->grid[1] || !pk->grid[2])
		return CUDA_SUCCESS; /* nothing to launch for an empty size */
	for (p = 0; p < pk->nparams; p++) {
		const ks_plan_param *pp = &pk->params[p];
		memset(&vals[p], 0, sizeof(vals[p]));
		switch (pp->kind) {
		case KS_PARAM_BUF:
			vals[p].p = s->b[pp->buf].base + plan->guard + pp->off;
			break;
		case KS_PARAM_I32:
			vals[p].i32 = (int32_t)pp->i;
			break;
		case KS_PARAM_U32:
			vals[p].u32 = (uint32_t)pp->i;
			break;
		case KS_PARAM_I64:
			vals[p].i64 = pp->i;
			break;
		case KS_PARAM_U64:
			vals[p].u64 = (uint64_t)pp->i;
			break;
		case KS_PARAM_B16:
			vals[p].b16 = (uint16_t)pp->i;
			break;
		case KS_PARAM_B8:
			vals[p].b8 = (uint8_t)pp->i;
			break;
		case KS_PARAM_F32:
			vals[p].f32 = (float)pp->f;
			break;
		case KS_PARAM_F64:
			vals[p].f64 = pp->f;
			break;
		case KS_PARAM_NULL:
		case KS_PARAM_KIND_COUNT:
			vals[p].p = 0;
			break;
		}
		ptrs[p] = &vals[p];
	}
	if (pk->shared > 48 * 1024)
		w->cu.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)pk->shared);
	r = w->cu.cuLaunchKernel(f, pk->grid[0], pk->grid[1], pk->grid[2], pk->block[0], pk->block[1],
				 pk->block[2], pk->shared, w->stream, pk->nparams ? ptrs : NULL, NULL);
	if (r != CUDA_SUCCESS)
		snprintf(err, errlen, "launching %s (launch %zu, grid %ux%ux%u, block %ux%ux%u, "
			 "%u bytes shared): %s", pk->name, k + 1, pk->grid[0], pk->grid[1], pk->grid[2],
			 pk->block[0], pk->block[1], pk->block[2], pk->shared, ks_cu_error(&w->cu, r));
	return r;
}

/* A fill or copy step (plan.h), by the harness's ks_strided kernel on the plan's stream. */
static CUresult data_step(wk_ctx *w, const ks_plan *plan, size_t i, const wk_set *s, char *err, size_t errlen)
{
	const ks_plan_step *st = &plan->steps[i];
	ks_strided_desc d;
	CUdeviceptr dst = s->b[st->buf].base + plan->guard + st->off, src = 0;
	void *p[] = { &dst, &src, &d };
	uint32_t k;
	CUresult r;
	memset(&d, 0, sizeof(d));
	d.count = ks_plan_step_count(st);
	if (d.count == 0)
		return CUDA_SUCCESS;
	d.value = st->value;
	d.rank = (int32_t)st->rank;
	d.width = (int32_t)st->width;
	for (k = 0; k < st->rank; k++) {
		d.size[k] = st->sizes[k];
		d.ds[k] = st->dstride[k];
		d.ss[k] = st->sstride[k];
	}
	if (st->kind == KS_STEP_COPY)
		src = s->b[st->src].base + plan->guard + st->src_off;
	if ((r = launch_h(w, KS_HK_STRIDED, grid_for(d.count), p)) != CUDA_SUCCESS)
		snprintf(err, errlen, "%s (step %zu of the plan): %s", st->kind == KS_STEP_COPY ? "copying" : "filling",
			 i + 1, ks_cu_error(&w->cu, r));
	return r;
}

/* The plan's launch sequence: its steps in order, or without steps its kernels in order. */
static CUresult launch_plan(wk_ctx *w, const ks_plan *plan, const wk_module *mod, const wk_set *s,
			    char *err, size_t errlen)
{
	CUresult r = CUDA_SUCCESS;
	size_t k;
	if (!plan->nsteps) {
		for (k = 0; k < plan->nkernels && r == CUDA_SUCCESS; k++)
			r = launch_kernel(w, plan, k, mod, s, err, errlen);
		return r;
	}
	for (k = 0; k < plan->nsteps && r == CUDA_SUCCESS; k++)
		r = plan->steps[k].kind == KS_STEP_LAUNCH ? launch_kernel(w, plan, plan->steps[k].kernel, mod, s, err, errlen)
							    : data_step(w, plan, k, s, err, errlen);
	return r;
}

/* Copies buffers back per fetch mode into a blob and describes them in j's "bufs". The GPU work
 * (sample gathers, checksums) of all buffers is enqueued first and waited for once; then the
 * copies (ks_fetch_mode, proto.h). */
static CUresult fetch_set(wk_ctx *w, const ks_plan *plan, const wk_set *s, int *modes,
			  uint64_t sample_k, uint64_t sample_seed, const wk_kept *kept, cJSON *j,
			  unsigned char **blob_out, uint64_t *len_out, char *err, size_t errlen)
{
	uint64_t blob_len = 0, off = 0, gath = 0, sums[WK_MAX_SUMS];
	unsigned char *blob;
	cJSON *ba = cJSON_AddArrayToObject(j, "bufs");
	CUresult r = CUDA_SUCCESS;
	const char *what = "";
	size_t i, nsum = 0;

	if (kept)
		sample_k = kept->k; /* what was gathered when the run's outputs were kept */
	for (i = 0; i < plan->nbufs; i++) {
		uint64_t es = ks_dtype_size(plan->bufs[i].dtype);
		if (modes[i] == KS_FETCH_SAMPLE && wk_sample_whole(sample_k, plan->bufs[i].count))
			modes[i] = KS_FETCH_FULL; /* small enough to send whole */
		if (kept && (modes[i] == KS_FETCH_SAMPLE || modes[i] == KS_FETCH_FULL) &&
		    modes[i] != kept->mode[i]) {
			snprintf(err, errlen, "%s was not kept after the run", plan->bufs[i].name);
			return CUDA_ERROR_INVALID_VALUE;
		}
		if (modes[i] == KS_FETCH_FULL)
			blob_len += s->b[i].total;
		else if (modes[i] == KS_FETCH_GUARDS)
			blob_len += s->b[i].total - plan->bufs[i].bytes;
		else if (modes[i] == KS_FETCH_SAMPLE) {
			blob_len += s->b[i].total - plan->bufs[i].bytes + sample_k * es;
			if (!kept)
				gath += align256(sample_k * es);
		}
		if (modes[i] == KS_FETCH_GUARDS || modes[i] == KS_FETCH_CHECKSUM)
			nsum++;
	}
	if (nsum > WK_MAX_SUMS) {
		snprintf(err, errlen, "more than %d buffers to checksum", WK_MAX_SUMS);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (gath && (r = reserve(w, &w->gath, &w->gath_bytes, gath)) != CUDA_SUCCESS) {
		snprintf(err, errlen, "allocating the sample buffer: %s", ks_cu_error(&w->cu, r));
		return r;
	}
	/* enqueue: gathers into w->gath, checksums into w->sum */
	{
		uint64_t goff = 0;
		size_t k = 0;
		for (i = 0; i < plan->nbufs && r == CUDA_SUCCESS; i++) {
			CUdeviceptr data = s->b[i].base + plan->guard;
			if (modes[i] == KS_FETCH_SAMPLE && !kept) {
				int es = (int)ks_dtype_size(plan->bufs[i].dtype);
				uint64_t count = plan->bufs[i].count, seed = sample_seed, kk = sample_k;
				CUdeviceptr dst = w->gath + goff;
				void *p[] = { &data, &count, &es, &dst, &kk, &seed };
				what = plan->bufs[i].name;
				r = launch_h(w, KS_HK_GATHER, grid_for(sample_k), p);
				goff += align256(sample_k * (uint64_t)es);
			} else if (modes[i] == KS_FETCH_GUARDS && kept && kept->mode[i] == KS_FETCH_GUARDS) {
				/* an input's checksum taken right after the run, before later runs redrew it */
				what = plan->bufs[i].name;
				r = w->cu.cuMemcpyDtoDAsync(w->sum + 8 * k++, kept->base + kept->off[i], 8, w->stream);
			} else if (modes[i] == KS_FETCH_GUARDS || modes[i] == KS_FETCH_CHECKSUM) {
				what = plan->bufs[i].name;
				r = checksum_into(w, data, plan->bufs[i].bytes, w->sum + 8 * k++);
			}
		}
		if (r == CUDA_SUCCESS && (gath || nsum)) {
			what = "(sync)";
			r = w->cu.cuStreamSynchronize(w->stream);
		}
		if (r == CUDA_SUCCESS && nsum) {
			what = "(checksums)";
			r = w->cu.cuMemcpyDtoH(sums, w->sum, 8 * nsum);
		}
		if (r != CUDA_SUCCESS) {
			snprintf(err, errlen, "reading back %s: %s", what, ks_cu_error(&w->cu, r));
			return r;
		}
	}
	blob = ks_malloc(blob_len ? blob_len : 1);
	{
		uint64_t goff = 0;
		size_t k = 0;
		for (i = 0; i < plan->nbufs && r == CUDA_SUCCESS; i++) {
			cJSON *o = cJSON_CreateObject();
			uint64_t body_end = plan->guard + plan->bufs[i].bytes;
			cJSON_AddNumberToObject(o, "off", (double)off);
			if (modes[i] == KS_FETCH_FULL && kept) {
				/* the guard bands as they are now, the data as the run left it */
				r = w->cu.cuMemcpyDtoH(blob + off, s->b[i].base, plan->guard);
				if (r == CUDA_SUCCESS && plan->bufs[i].bytes)
					r = w->cu.cuMemcpyDtoH(blob + off + plan->guard, kept->base + kept->off[i],
							    plan->bufs[i].bytes);
				if (r == CUDA_SUCCESS)
					r = w->cu.cuMemcpyDtoH(blob + off + body_end, s->b[i].base + body_end,
							    s->b[i].total - body_end);
				off += s->b[i].total;
			} else if (modes[i] == KS_FETCH_FULL) {
				r = w->cu.cuMemcpyDtoH(blob + off, s->b[i].base, s->b[i].total);
				off += s->b[i].total;
			} else if (modes[i] == KS_FETCH_GUARDS || modes[i] == KS_FETCH_SAMPLE) {
				r = w->cu.cuMemcpyDtoH(blob + off, s->b[i].base, plan->guard);
				if (r == CUDA_SUCCESS)
					r = w->cu.cuMemcpyDtoH(blob + off + plan->guard, s->b[i].base + body_end,
							    s->b[i].total - body_end);
				off += s->b[i].total - plan->bufs[i].bytes;
			}
			if (r == CUDA_SUCCESS && modes[i] == KS_FETCH_SAMPLE) {
				uint64_t n = sample_k * ks_dtype_size(plan->bufs[i].dtype);
				if (kept)
					r = w->cu.cuMemcpyDtoH(blob + off, kept->base + kept->off[i], n);
				else {
					r = w->cu.cuMemcpyDtoH(blob + off, w->gath + goff, n);
					goff += align256(n);
				}
				off += n;
				cJSON_AddNumberToObject(o, "sampled", (double)sample_k);
			}
			if (modes[i] == KS_FETCH_GUARDS || modes[i] == KS_FETCH_CHECKSUM) {
				char cs[32];
				snprintf(cs, sizeof(cs), "%llu", (unsigned long long)sums[k++]);
				cJSON_AddStringToObject(o, "checksum", cs);
			}
			cJSON_AddNumberToObject(o, "total", (double)s->b[i].total);
			cJSON_AddNumberToObject(o, "mode", modes[i]);
			cJSON_AddItemToArray(ba, o);
			if (r != CUDA_SUCCESS)
				snprintf(err, errlen, "reading back %s: %s", plan->bufs[i].name, ks_cu_error(&w->cu, r));
		}
	}
	if (r != CUDA_SUCCESS) {
		ks_free(blob);
		return r;
	}
	*blob_out = blob;
	*len_out = blob_len;
	return CUDA_SUCCESS;
}

static uint64_t sample_k(const cJSON *j)
{
	double d = 0;
	ks_json_num(&d, j, "sample_k", 0);
	return d > 0 && d < 1e9 ? (uint64_t)d : 0;
}

static uint64_t sample_seed(const cJSON *j)
{
	const char *s = NULL;
	return ks_json_str(&s, j, "sample_seed", 0) == 0 ? strtoull(s, NULL, 10) : 0;
}

int *wk_parse_modes(const cJSON *fetch, size_t n)
{
	int *modes;
	size_t i;
	if (!cJSON_IsArray(fetch) || (size_t)cJSON_GetArraySize(fetch) != n)
		return NULL;
	modes = ks_calloc(n + 1, sizeof(int));
	for (i = 0; i < n; i++)
		modes[i] = (int)cJSON_GetArrayItem(fetch, (int)i)->valuedouble;
	return modes;
}

wk_module *wk_module_of(wk_ctx *w, const cJSON *j)
{
	double id = -1;
	ks_json_num(&id, j, "module", 1);
	if (id < 0 || id >= KS_PROTO_MAX_MODULES || !w->mods[(int)id].used)
		return NULL;
	return &w->mods[(int)id];
}

int wk_check_plan(wk_ctx *w, const ks_plan *plan, const wk_module *mod, char *err, size_t errlen)
{
	size_t k;
	for (k = 0; k < plan->nkernels; k++) {
		if (plan->kernels[k].func >= (uint32_t)mod->nfn) {
			snprintf(err, errlen, "kernel %s is not loaded", plan->kernels[k].name);
			return -1;
		}
		if (check_params(w, &plan->kernels[k], mod->fn[plan->kernels[k].func], err, errlen) < 0)
			return -1;
	}
	return 0;
}

CUresult wk_fetch(wk_ctx *w, cJSON **out, unsigned char **blob, uint64_t *blob_len, const ks_plan *plan,
		  const wk_set *s, int *modes, uint64_t sample_k, uint64_t sample_seed, const wk_kept *kept,
		  char *err, size_t errlen)
{
	cJSON *j = wk_ok_reply();
	CUresult r;
	*out = NULL;
	if ((r = fetch_set(w, plan, s, modes, sample_k, sample_seed, kept, j, blob, blob_len, err, errlen)) !=
	    CUDA_SUCCESS) {
		cJSON_Delete(j);
		return r;
	}
	*out = j;
	return CUDA_SUCCESS;
}

CUresult wk_timed_launch(wk_ctx *w, const ks_plan *plan, const wk_module *mod, wk_set *s,
			 CUevent e0, CUevent e1, char *err, size_t errlen)
{
	CUresult r;
	if ((r = w->cu.cuEventRecord(e0, w->stream)) != CUDA_SUCCESS)
		return r;
	if ((r = launch_plan(w, plan, mod, s, err, errlen)) != CUDA_SUCCESS)
		return r;
	return w->cu.cuEventRecord(e1, w->stream);
}

CUresult wk_run_fetch(wk_ctx *w, cJSON **out, unsigned char **blob, uint64_t *blob_len,
		      const ks_plan *plan, const wk_module *mod, wk_set *s, int *modes,
		      const cJSON *req, const char **stage, char *err, size_t errlen)
{
	CUevent *ev = NULL;
	CUresult r;
	float ms = 0;
	cJSON *j;

	*out = NULL;
	*stage = "launch";
	if ((r = wk_events(w, &ev, 2)) != CUDA_SUCCESS ||
	    (r = wk_timed_launch(w, plan, mod, s, ev[0], ev[1], err, errlen)) != CUDA_SUCCESS)
		return r;
	*stage = "sync";
	if ((r = w->cu.cuStreamSynchronize(w->stream)) != CUDA_SUCCESS)
		return r;
	w->cu.cuEventElapsedTime(&ms, ev[0], ev[1]);
	*stage = "fetch";
	if ((r = wk_fetch(w, &j, blob, blob_len, plan, s, modes, sample_k(req), sample_seed(req), NULL, err,
			  errlen)) != CUDA_SUCCESS)
		return r;
	cJSON_AddNumberToObject(j, "ms", ms);
	*out = j;
	return CUDA_SUCCESS;
}

void wk_do_run(wk_ctx *w, const ks_msg *m)
{
	ks_plan plan;
	wk_module *mod = wk_module_of(w, m->json);
	wk_set *s = &w->run;
	CUresult r = CUDA_SUCCESS;
	const char *stage = "plan";
	char err[1024] = "";
	unsigned char *blob = NULL;
	uint64_t blob_len = 0;
	int *modes = NULL;
	cJSON *j = NULL;

	if (ks_plan_from_json(&plan, cJSON_GetObjectItemCaseSensitive(m->json, "plan")) < 0) {
		wk_reply_error("plan", CUDA_ERROR_INVALID_VALUE, ks_error_msg(), 0);
		return;
	}
	modes = wk_parse_modes(cJSON_GetObjectItemCaseSensitive(m->json, "fetch"), plan.nbufs);
	if (!mod || !modes) {
		snprintf(err, sizeof(err), "bad run request");
		r = CUDA_ERROR_INVALID_VALUE;
		goto fail;
	}
	stage = "launch";
	if (wk_check_plan(w, &plan, mod, err, sizeof(err)) < 0) {
		r = CUDA_ERROR_INVALID_VALUE;
		goto fail;
	}
	stage = "alloc";
	if (!set_fits(s, &plan)) {
		wk_free_set(w, s);
		if ((r = wk_alloc_set(w, &plan, s, err, sizeof(err))) != CUDA_SUCCESS)
			goto fail;
	}
	/* every byte of the set is written again: guard bands, inputs, poison, scratch */
	stage = "fill";
	if ((r = wk_fill_set(w, &plan, s, plan.seed, err, sizeof(err))) != CUDA_SUCCESS ||
	    (r = w->cu.cuStreamSynchronize(w->stream)) != CUDA_SUCCESS)
		goto fail;
	if ((r = wk_run_fetch(w, &j, &blob, &blob_len, &plan, mod, s, modes, m->json, &stage, err,
			      sizeof(err))) != CUDA_SUCCESS)
		goto fail;
	wk_reply(j, blob, blob_len);
	ks_free(blob);
	ks_free(modes);
	ks_plan_clear(&plan);
	return;
fail:
	if (!err[0])
		snprintf(err, sizeof(err), "%s", ks_cu_error(&w->cu, r));
	if (!ks_cu_error_is_sticky(r))
		wk_free_set(w, s);
	ks_free(modes);
	ks_plan_clear(&plan);
	wk_reply_error(stage, r, err, ks_cu_error_is_sticky(r));
}
