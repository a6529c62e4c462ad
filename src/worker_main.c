/* kscore-worker: the GPU worker process. It loads the CUDA driver at run time, executes plans sent
 * by the scoring process over fd 3 (see proto.h and plan.h) and sends back buffer contents. One
 * worker runs golden kernels; another runs candidates and is killed and replaced whenever a
 * candidate hangs, crashes it or leaves a sticky CUDA error (DESIGN §4.3). A worker never sees
 * expected outputs: comparison happens in the scoring process. */
#include "cudadrv.h"
#include "errors.h"
#include "harness.h"
#include "jsonutil.h"
#include "nvml.h"
#include "mem.h"
#include "plan.h"
#include "proto.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FD 3
#define MAX_MODULES 64
#define MAX_FUNCS 16
#define GUARD_WORD 0x9e3779b97f4a7c15ull
#define MAX_SUMS 128 /* checksummed buffers per fetch: more than a plan can have (64 args + 8 scratch) */

typedef struct {
	CUmodule mod;
	CUfunction fn[MAX_FUNCS];
	int nfn;
	int used;
} module_slot;

static ks_cu_api cu;
static CUcontext g_ctx;
static CUdevice g_dev;
static CUstream g_stream;
static module_slot g_mods[MAX_MODULES];
static CUmodule g_hmod;
static CUfunction g_hk[KS_HK_COUNT];
static CUdeviceptr g_sum; /* MAX_SUMS u64 slots for the checksums of one fetch */
static CUdeviceptr g_gath; /* sampled elements of every buffer of a fetch (g_gath_bytes) */
static uint64_t g_gath_bytes;
static int g_ready;

static void reply(cJSON *j, const void *blob, uint64_t len)
{
	if (ks_proto_send(FD, KS_MSG_REPLY, j, blob, len) < 0)
		_exit(3);
	cJSON_Delete(j);
}

static void reply_error(const char *stage, CUresult r, const char *msg, int sticky)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddBoolToObject(j, "ok", 0);
	cJSON_AddStringToObject(j, "stage", stage);
	cJSON_AddNumberToObject(j, "code", (double)r);
	cJSON_AddStringToObject(j, "error", msg);
	cJSON_AddBoolToObject(j, "sticky", sticky);
	reply(j, NULL, 0);
	if (sticky)
		_exit(0); /* the context is unusable; the scoring process starts a fresh worker */
}

static cJSON *ok_reply(void)
{
	cJSON *j = cJSON_CreateObject();
	cJSON_AddBoolToObject(j, "ok", 1);
	return j;
}

static int attr(CUdevice_attribute a)
{
	int v = 0;
	cu.cuDeviceGetAttribute(&v, a, g_dev);
	return v;
}

static void do_hello(const cJSON *req)
{
	double dev = 0;
	int count = 0, drv = 0;
	char name[256] = "", pci[64] = "", uuid[64] = "";
	size_t total = 0;
	CUuuid u;
	CUresult r;
	cJSON *j;
	int i;

	ks_json_num(&dev, req, "device", 0);
	if (ks_cu_load(&cu) < 0) {
		reply_error("driver", CUDA_ERROR_NOT_FOUND, ks_error_msg(), 0);
		_exit(0);
	}
	if ((r = cu.cuInit(0)) != CUDA_SUCCESS) {
		reply_error("init", r, ks_cu_error(&cu, r), 0);
		_exit(0);
	}
	cu.cuDriverGetVersion(&drv);
	cu.cuDeviceGetCount(&count);
	if (count <= 0 || dev < 0 || dev >= count) {
		char m[128];
		snprintf(m, sizeof(m), "no CUDA device %d (the driver sees %d)", (int)dev, count);
		reply_error("init", CUDA_ERROR_NO_DEVICE, m, 0);
		_exit(0);
	}
	if ((r = cu.cuDeviceGet(&g_dev, (int)dev)) != CUDA_SUCCESS ||
	    (r = cu.cuDevicePrimaryCtxRetain(&g_ctx, g_dev)) != CUDA_SUCCESS ||
	    (r = cu.cuCtxSetCurrent(g_ctx)) != CUDA_SUCCESS ||
	    (r = cu.cuStreamCreate(&g_stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS ||
	    (r = cu.cuMemAlloc(&g_sum, 8 * MAX_SUMS)) != CUDA_SUCCESS) {
		reply_error("init", r, ks_cu_error(&cu, r), 0);
		_exit(0);
	}
	cu.cuDeviceGetName(name, sizeof(name), g_dev);
	cu.cuDeviceTotalMem(&total, g_dev);
	cu.cuDeviceGetPCIBusId(pci, sizeof(pci), g_dev);
	if (cu.cuDeviceGetUuid(&u, g_dev) == CUDA_SUCCESS) {
		const unsigned char *b = (const unsigned char *)u.bytes;
		int o = snprintf(uuid, sizeof(uuid), "GPU-");
		for (i = 0; i < 16; i++)
			o += snprintf(uuid + o, sizeof(uuid) - (size_t)o, "%02x%s", b[i],
				      (i == 3 || i == 5 || i == 7 || i == 9) ? "-" : "");
	}
	j = ok_reply();
	cJSON_AddStringToObject(j, "name", name);
	cJSON_AddStringToObject(j, "uuid", uuid);
	cJSON_AddStringToObject(j, "pci_bus_id", pci);
	cJSON_AddNumberToObject(j, "driver_version", drv);
	cJSON_AddNumberToObject(j, "cc_major", attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
	cJSON_AddNumberToObject(j, "cc_minor", attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
	cJSON_AddNumberToObject(j, "sm_count", attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
	cJSON_AddNumberToObject(j, "memory_bytes", (double)total);
	cJSON_AddNumberToObject(j, "l2_bytes", attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
	cJSON_AddNumberToObject(j, "max_shared_per_block",
				attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
	cJSON_AddNumberToObject(j, "clock_khz", attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE));
	cJSON_AddNumberToObject(j, "memory_clock_khz", attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE));
	cJSON_AddNumberToObject(j, "memory_bus_bits", attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH));
	cJSON_AddNumberToObject(j, "ecc", attr(CU_DEVICE_ATTRIBUTE_ECC_ENABLED));
	cJSON_AddNumberToObject(j, "persisting_l2_max", attr(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE));
	reply(j, NULL, 0);
	g_ready = 1;
}

static int load_module(CUmodule *mod, CUfunction *fns, int *nfn, const ks_msg *m, char *err,
		       size_t errlen, CUresult *code)
{
	const cJSON *funcs = cJSON_GetObjectItemCaseSensitive(m->json, "funcs"), *f;
	char log[4096] = "";
	CUjit_option opts[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *vals[2] = { log, (void *)(uintptr_t)sizeof(log) };
	CUresult r;

	*nfn = 0;
	if (!m->blob || !cJSON_IsArray(funcs) || cJSON_GetArraySize(funcs) > MAX_FUNCS) {
		snprintf(err, errlen, "bad load request");
		*code = CUDA_ERROR_INVALID_VALUE;
		return -1;
	}
	if ((r = cu.cuModuleLoadDataEx(mod, m->blob, 2, opts, vals)) != CUDA_SUCCESS) {
		snprintf(err, errlen, "%s%s%s", ks_cu_error(&cu, r), log[0] ? ": " : "", log);
		*code = r;
		return -1;
	}
	cJSON_ArrayForEach(f, funcs)
	{
		if (!cJSON_IsString(f) ||
		    (r = cu.cuModuleGetFunction(&fns[*nfn], *mod, f->valuestring)) != CUDA_SUCCESS) {
			snprintf(err, errlen, "kernel \"%s\" is not in the module: %s",
				 cJSON_IsString(f) ? f->valuestring : "?", ks_cu_error(&cu, r));
			*code = r;
			cu.cuModuleUnload(*mod);
			return -1;
		}
		(*nfn)++;
	}
	return 0;
}

static void do_harness(const ks_msg *m)
{
	char err[8192];
	CUresult code = CUDA_SUCCESS;
	int n = 0;
	if (load_module(&g_hmod, g_hk, &n, m, err, sizeof(err), &code) < 0 || n != KS_HK_COUNT) {
		reply_error("harness", code, n != KS_HK_COUNT && !code ? "harness kernels missing" : err, 0);
		return;
	}
	reply(ok_reply(), NULL, 0);
}

static void do_load(const ks_msg *m)
{
	char err[8192];
	CUresult code = CUDA_SUCCESS;
	module_slot *s = NULL;
	cJSON *j, *fa;
	int i, k;

	for (i = 0; i < MAX_MODULES; i++)
		if (!g_mods[i].used) {
			s = &g_mods[i];
			break;
		}
	if (!s) {
		reply_error("load", CUDA_ERROR_INVALID_VALUE, "too many modules loaded", 0);
		return;
	}
	if (load_module(&s->mod, s->fn, &s->nfn, m, err, sizeof(err), &code) < 0) {
		reply_error("load", code, err, ks_cu_error_is_sticky(code));
		return;
	}
	s->used = 1;
	j = ok_reply();
	cJSON_AddNumberToObject(j, "module", i);
	fa = cJSON_AddArrayToObject(j, "funcs");
	for (k = 0; k < s->nfn; k++) {
		cJSON *o = cJSON_CreateObject();
		int v = 0;
#define FATTR(key, a)                                                                              \
	v = 0;                                                                                     \
	cu.cuFuncGetAttribute(&v, a, s->fn[k]);                                                    \
	cJSON_AddNumberToObject(o, key, v);
		FATTR("registers", CU_FUNC_ATTRIBUTE_NUM_REGS)
		FATTR("shared_static", CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
		FATTR("local_bytes", CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
		FATTR("const_bytes", CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)
		FATTR("max_threads", CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
#undef FATTR
		if (cu.cuFuncGetParamInfo) {
			cJSON *ps = cJSON_AddArrayToObject(o, "params");
			size_t pi, off, sz;
			for (pi = 0; pi < 256; pi++) {
				if (cu.cuFuncGetParamInfo(s->fn[k], pi, &off, &sz) != CUDA_SUCCESS)
					break;
				cJSON_AddItemToArray(ps, cJSON_CreateNumber((double)sz));
			}
		}
		cJSON_AddItemToArray(fa, o);
	}
	reply(j, NULL, 0);
}

static void do_unload(const ks_msg *m)
{
	double id = -1;
	ks_json_num(&id, m->json, "module", 0);
	if (id >= 0 && id < MAX_MODULES && g_mods[(int)id].used) {
		cu.cuModuleUnload(g_mods[(int)id].mod);
		memset(&g_mods[(int)id], 0, sizeof(g_mods[0]));
	}
	reply(ok_reply(), NULL, 0);
}

/* ---- running a plan */

typedef struct {
	CUdeviceptr base;
	uint64_t total;     /* allocation: guard + bytes + slack + guard */
	uint64_t checksum;
} dev_buf;

static CUresult launch_h(int k, unsigned grid, void **params)
{
	return cu.cuLaunchKernel(g_hk[k], grid, 1, 1, 256, 1, 1, 0, g_stream, params, NULL);
}

static unsigned grid_for(uint64_t n)
{
	uint64_t g = (n + 255) / 256;
	if (g > 65536)
		g = 65536;
	return g ? (unsigned)g : 1;
}

static CUresult fill_pattern(CUdeviceptr dst, uint64_t nbytes, uint64_t pattern, int width)
{
	void *p[] = { &dst, &nbytes, &pattern, &width };
	if (!nbytes)
		return CUDA_SUCCESS;
	return launch_h(KS_HK_FILL_PATTERN, grid_for(nbytes / 8 + 1), p);
}

static CUresult fill_buffer(const ks_plan *plan, const ks_plan_buf *b, CUdeviceptr data)
{
	if (b->fill == KS_FILL_ZERO)
		return b->bytes ? cu.cuMemsetD8Async(data, 0, b->bytes, g_stream) : CUDA_SUCCESS;
	if (b->fill == KS_FILL_POISON) {
		unsigned char pat[8];
		uint64_t w = 0;
		ks_dtype_poison(b->dtype, plan->poison, pat);
		memcpy(&w, pat, 8);
		return fill_pattern(data, b->bytes, w, (int)ks_dtype_size(b->dtype));
	}
	{
		uint64_t n = b->count, seed = plan->seed;
		int dtype = b->dtype, size = (int)ks_dtype_size(b->dtype), dist = b->dist;
		double a = b->a, bb = b->b;
		unsigned stream = b->stream;
		void *p[] = { &data, &n, &dtype, &size, &dist, &a, &bb, &seed, &stream };
		if (!n)
			return CUDA_SUCCESS;
		return launch_h(KS_HK_FILL_RANDOM, grid_for(n), p);
	}
}

/* Enqueues the checksum of nbytes at data into slot i of g_sum (read back by the caller after
 * one synchronisation for all slots). */
static CUresult checksum_async(CUdeviceptr data, uint64_t nbytes, size_t i)
{
	CUdeviceptr dst = g_sum + 8 * i;
	void *p[] = { &data, &nbytes, &dst };
	CUresult r;
	if ((r = cu.cuMemsetD8Async(dst, 0, 8, g_stream)) != CUDA_SUCCESS)
		return r;
	if (nbytes && (r = launch_h(KS_HK_CHECKSUM, grid_for(nbytes / 8 + 1), p)) != CUDA_SUCCESS)
		return r;
	return CUDA_SUCCESS;
}

/* Device memory of at least *have bytes at *buf, grown (never shrunk) as needed: buffers reused
 * from request to request, because every allocation is a driver round trip. */
static CUresult reserve(CUdeviceptr *buf, uint64_t *have, uint64_t need)
{
	CUresult r;
	if (need <= *have)
		return CUDA_SUCCESS;
	if (*buf)
		cu.cuMemFree(*buf);
	*buf = 0;
	*have = 0;
	if ((r = cu.cuMemAlloc(buf, need)) != CUDA_SUCCESS)
		return r;
	*have = need;
	return CUDA_SUCCESS;
}

/* Events for timed runs (two per run), created once and reused. */
#define MAX_RUNS_PER_CALL 256
static CUevent g_ev[2 * MAX_RUNS_PER_CALL];
static int g_nev;

static CUresult events(CUevent **out, int n)
{
	CUresult r;
	if (n > 2 * MAX_RUNS_PER_CALL)
		return CUDA_ERROR_INVALID_VALUE;
	while (g_nev < n) {
		if ((r = cu.cuEventCreate(&g_ev[g_nev], CU_EVENT_DEFAULT)) != CUDA_SUCCESS)
			return r;
		g_nev++;
	}
	*out = g_ev;
	return CUDA_SUCCESS;
}

static size_t param_size(ks_param_kind k)
{
	return (k == KS_PARAM_I32 || k == KS_PARAM_U32 || k == KS_PARAM_F32) ? 4 : 8;
}

/* Checks the plan's arguments against the compiled kernel's parameter list. */
static int check_params(const ks_plan_kernel *k, CUfunction f, char *err, size_t errlen)
{
	size_t n = 0, off, sz, i, o;
	size_t sizes[256];
	char have[600] = "", want[600] = "";
	if (!cu.cuFuncGetParamInfo)
		return 0;
	while (n < 256 && cu.cuFuncGetParamInfo(f, n, &off, &sz) == CUDA_SUCCESS)
		sizes[n++] = sz;
	if (n == k->nparams) {
		for (i = 0; i < n; i++)
			if (sizes[i] != param_size(k->params[i].kind))
				break;
		if (i == n)
			return 0;
	}
	for (i = 0, o = 0; i < n && o < sizeof(have) - 8; i++)
		o += (size_t)snprintf(have + o, sizeof(have) - o, "%s%zu", i ? ", " : "", sizes[i]);
	for (i = 0, o = 0; i < k->nparams && o < sizeof(want) - 8; i++)
		o += (size_t)snprintf(want + o, sizeof(want) - o, "%s%zu", i ? ", " : "",
				      param_size(k->params[i].kind));
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
	float f32;
	double f64;
} param_val;

/* The device buffers of one plan instance. */
typedef struct {
	dev_buf *b;
	size_t n;
} buf_set;

/* Buffers and sample spans start 256-byte aligned. */
static uint64_t align256(uint64_t n)
{
	return (n + 255) & ~255ull;
}

static CUresult alloc_set(const ks_plan *plan, buf_set *s, char *err, size_t errlen)
{
	size_t i;
	CUresult r;
	s->b = ks_calloc(plan->nbufs + 1, sizeof(dev_buf));
	s->n = plan->nbufs;
	for (i = 0; i < plan->nbufs; i++) {
		uint64_t body = align256(plan->bufs[i].bytes);
		s->b[i].total = 2ull * plan->guard + body;
		if ((r = cu.cuMemAlloc(&s->b[i].base, s->b[i].total)) != CUDA_SUCCESS) {
			snprintf(err, errlen, "allocating %s (%llu bytes): %s", plan->bufs[i].name,
				 (unsigned long long)s->b[i].total, ks_cu_error(&cu, r));
			return r;
		}
	}
	return CUDA_SUCCESS;
}

static void free_set(buf_set *s)
{
	size_t i;
	for (i = 0; s->b && i < s->n; i++)
		if (s->b[i].base)
			cu.cuMemFree(s->b[i].base);
	ks_free(s->b);
	s->b = NULL;
	s->n = 0;
}

/* Guard bands and contents of every buffer, inputs from `seed`. */
static CUresult fill_set(const ks_plan *plan, buf_set *s, uint64_t seed, char *err, size_t errlen)
{
	ks_plan p = *plan;
	size_t i;
	CUresult r;
	p.seed = seed;
	for (i = 0; i < plan->nbufs; i++) {
		if ((r = fill_pattern(s->b[i].base, s->b[i].total, GUARD_WORD, 8)) != CUDA_SUCCESS ||
		    (r = fill_buffer(&p, &plan->bufs[i], s->b[i].base + plan->guard)) != CUDA_SUCCESS) {
			snprintf(err, errlen, "filling %s: %s", plan->bufs[i].name, ks_cu_error(&cu, r));
			return r;
		}
	}
	return CUDA_SUCCESS;
}

/* Zeroes the scratch buffers that ask for it (before every launch sequence). */
static CUresult zero_scratch(const ks_plan *plan, buf_set *s)
{
	size_t i;
	CUresult r;
	for (i = 0; i < plan->nbufs; i++)
		if (plan->bufs[i].fill == KS_FILL_ZERO && plan->bufs[i].bytes &&
		    (r = cu.cuMemsetD8Async(s->b[i].base + plan->guard, 0, plan->bufs[i].bytes, g_stream)) !=
			    CUDA_SUCCESS)
			return r;
	return CUDA_SUCCESS;
}

static CUresult launch_plan(const ks_plan *plan, const module_slot *mod, const buf_set *s, char *err,
			    size_t errlen)
{
	size_t k;
	for (k = 0; k < plan->nkernels; k++) {
		const ks_plan_kernel *pk = &plan->kernels[k];
		CUfunction f = mod->fn[pk->func];
		param_val vals[KS_LAUNCH_MAX_ARGS];
		void *ptrs[KS_LAUNCH_MAX_ARGS];
		size_t p;
		CUresult r;
		if (!pk->grid[0] || !pk->grid[1] || !pk->grid[2])
			continue; /* nothing to launch for an empty size */
		for (p = 0; p < pk->nparams; p++) {
			const ks_plan_param *pp = &pk->params[p];
			switch (pp->kind) {
			case KS_PARAM_BUF:
				vals[p].p = s->b[pp->buf].base + plan->guard;
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
			case KS_PARAM_F32:
				vals[p].f32 = (float)pp->f;
				break;
			case KS_PARAM_F64:
				vals[p].f64 = pp->f;
				break;
			}
			ptrs[p] = &vals[p];
		}
		if (pk->shared > 48 * 1024)
			cu.cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)pk->shared);
		r = cu.cuLaunchKernel(f, pk->grid[0], pk->grid[1], pk->grid[2], pk->block[0], pk->block[1],
				      pk->block[2], pk->shared, g_stream, pk->nparams ? ptrs : NULL, NULL);
		if (r != CUDA_SUCCESS) {
			snprintf(err, errlen, "launching %s (launch %zu, grid %ux%ux%u, block %ux%ux%u, "
				 "%u bytes shared): %s", pk->name, k + 1, pk->grid[0], pk->grid[1], pk->grid[2],
				 pk->block[0], pk->block[1], pk->block[2], pk->shared, ks_cu_error(&cu, r));
			return r;
		}
	}
	return CUDA_SUCCESS;
}

/* Copies buffers back per fetch mode into a blob and describes them in j's "bufs". The GPU work
 * (sample gathers, checksums) of all buffers is enqueued first and waited for once; then the
 * copies. Modes: 1 full, 2 guard bands + checksum, 3 checksum, 4 guard bands + samples. */
static CUresult fetch_set(const ks_plan *plan, const buf_set *s, int *modes, uint64_t sample_k,
			  uint64_t sample_seed, cJSON *j, unsigned char **blob_out, uint64_t *len_out, char *err,
			  size_t errlen)
{
	uint64_t blob_len = 0, off = 0, gath = 0, sums[MAX_SUMS];
	unsigned char *blob;
	cJSON *ba = cJSON_AddArrayToObject(j, "bufs");
	CUresult r = CUDA_SUCCESS;
	const char *what = "";
	size_t i, nsum = 0;

	for (i = 0; i < plan->nbufs; i++) {
		uint64_t es = ks_dtype_size(plan->bufs[i].dtype);
		if (modes[i] == 4 && (sample_k < 2 * KS_SAMPLE_EDGE || sample_k >= plan->bufs[i].count))
			modes[i] = 1; /* small enough to send whole */
		if (modes[i] == 1)
			blob_len += s->b[i].total;
		else if (modes[i] == 2)
			blob_len += s->b[i].total - plan->bufs[i].bytes;
		else if (modes[i] == 4) {
			blob_len += s->b[i].total - plan->bufs[i].bytes + sample_k * es;
			gath += align256(sample_k * es);
		}
		if (modes[i] == 2 || modes[i] == 3)
			nsum++;
	}
	if (nsum > MAX_SUMS) {
		snprintf(err, errlen, "more than %d buffers to checksum", MAX_SUMS);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (gath && (r = reserve(&g_gath, &g_gath_bytes, gath)) != CUDA_SUCCESS) {
		snprintf(err, errlen, "allocating the sample buffer: %s", ks_cu_error(&cu, r));
		return r;
	}
	/* enqueue: gathers into g_gath, checksums into g_sum */
	{
		uint64_t goff = 0;
		size_t k = 0;
		for (i = 0; i < plan->nbufs && r == CUDA_SUCCESS; i++) {
			CUdeviceptr data = s->b[i].base + plan->guard;
			if (modes[i] == 4) {
				int es = (int)ks_dtype_size(plan->bufs[i].dtype);
				uint64_t count = plan->bufs[i].count, seed = sample_seed, kk = sample_k;
				CUdeviceptr dst = g_gath + goff;
				void *p[] = { &data, &count, &es, &dst, &kk, &seed };
				what = plan->bufs[i].name;
				r = launch_h(KS_HK_GATHER, grid_for(sample_k), p);
				goff += align256(sample_k * (uint64_t)es);
			} else if (modes[i] == 2 || modes[i] == 3) {
				what = plan->bufs[i].name;
				r = checksum_async(data, plan->bufs[i].bytes, k++);
			}
		}
		if (r == CUDA_SUCCESS && (gath || nsum)) {
			what = "(sync)";
			r = cu.cuStreamSynchronize(g_stream);
		}
		if (r == CUDA_SUCCESS && nsum) {
			what = "(checksums)";
			r = cu.cuMemcpyDtoH(sums, g_sum, 8 * nsum);
		}
		if (r != CUDA_SUCCESS) {
			snprintf(err, errlen, "reading back %s: %s", what, ks_cu_error(&cu, r));
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
			if (modes[i] == 1) {
				r = cu.cuMemcpyDtoH(blob + off, s->b[i].base, s->b[i].total);
				off += s->b[i].total;
			} else if (modes[i] == 2 || modes[i] == 4) {
				r = cu.cuMemcpyDtoH(blob + off, s->b[i].base, plan->guard);
				if (r == CUDA_SUCCESS)
					r = cu.cuMemcpyDtoH(blob + off + plan->guard, s->b[i].base + body_end,
							    s->b[i].total - body_end);
				off += s->b[i].total - plan->bufs[i].bytes;
			}
			if (r == CUDA_SUCCESS && modes[i] == 4) {
				uint64_t n = sample_k * ks_dtype_size(plan->bufs[i].dtype);
				r = cu.cuMemcpyDtoH(blob + off, g_gath + goff, n);
				off += n;
				goff += align256(n);
				cJSON_AddNumberToObject(o, "sampled", (double)sample_k);
			}
			if (modes[i] == 2 || modes[i] == 3) {
				char cs[32];
				snprintf(cs, sizeof(cs), "%llu", (unsigned long long)sums[k++]);
				cJSON_AddStringToObject(o, "checksum", cs);
			}
			cJSON_AddNumberToObject(o, "total", (double)s->b[i].total);
			cJSON_AddNumberToObject(o, "mode", modes[i]);
			cJSON_AddItemToArray(ba, o);
			if (r != CUDA_SUCCESS)
				snprintf(err, errlen, "reading back %s: %s", plan->bufs[i].name, ks_cu_error(&cu, r));
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

static int *parse_modes(const cJSON *fetch, size_t n)
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

static module_slot *module_of(const cJSON *j)
{
	double id = -1;
	ks_json_num(&id, j, "module", 1);
	if (id < 0 || id >= MAX_MODULES || !g_mods[(int)id].used)
		return NULL;
	return &g_mods[(int)id];
}

static int check_plan(const ks_plan *plan, const module_slot *mod, char *err, size_t errlen)
{
	size_t k;
	for (k = 0; k < plan->nkernels; k++) {
		if (plan->kernels[k].func >= (uint32_t)mod->nfn) {
			snprintf(err, errlen, "kernel %s is not loaded", plan->kernels[k].name);
			return -1;
		}
		if (check_params(&plan->kernels[k], mod->fn[plan->kernels[k].func], err, errlen) < 0)
			return -1;
	}
	return 0;
}

/* One run of the plan on a buffer set between two events; the caller syncs. */
static CUresult timed_launch(const ks_plan *plan, const module_slot *mod, buf_set *s, CUevent e0, CUevent e1,
			     char *err, size_t errlen)
{
	CUresult r;
	if ((r = zero_scratch(plan, s)) != CUDA_SUCCESS)
		return r;
	cu.cuEventRecord(e0, g_stream);
	if ((r = launch_plan(plan, mod, s, err, errlen)) != CUDA_SUCCESS)
		return r;
	return cu.cuEventRecord(e1, g_stream);
}

static void do_run(const ks_msg *m)
{
	ks_plan plan;
	module_slot *mod = module_of(m->json);
	buf_set s = { NULL, 0 };
	CUevent *ev = NULL;
	CUresult r = CUDA_SUCCESS;
	const char *stage = "plan";
	char err[1024] = "";
	unsigned char *blob = NULL;
	uint64_t blob_len = 0;
	float ms = 0;
	int *modes = NULL;
	cJSON *j;

	if (ks_plan_from_json(&plan, cJSON_GetObjectItemCaseSensitive(m->json, "plan")) < 0) {
		reply_error("plan", CUDA_ERROR_INVALID_VALUE, ks_error_msg(), 0);
		return;
	}
	modes = parse_modes(cJSON_GetObjectItemCaseSensitive(m->json, "fetch"), plan.nbufs);
	if (!mod || !modes) {
		snprintf(err, sizeof(err), "bad run request");
		r = CUDA_ERROR_INVALID_VALUE;
		goto fail;
	}
	stage = "launch";
	if (check_plan(&plan, mod, err, sizeof(err)) < 0) {
		r = CUDA_ERROR_INVALID_VALUE;
		goto fail;
	}
	stage = "alloc";
	if ((r = alloc_set(&plan, &s, err, sizeof(err))) != CUDA_SUCCESS)
		goto fail;
	stage = "fill";
	if ((r = fill_set(&plan, &s, plan.seed, err, sizeof(err))) != CUDA_SUCCESS ||
	    (r = cu.cuStreamSynchronize(g_stream)) != CUDA_SUCCESS)
		goto fail;
	stage = "launch";
	if ((r = events(&ev, 2)) != CUDA_SUCCESS ||
	    (r = timed_launch(&plan, mod, &s, ev[0], ev[1], err, sizeof(err))) != CUDA_SUCCESS)
		goto fail;
	stage = "sync";
	if ((r = cu.cuStreamSynchronize(g_stream)) != CUDA_SUCCESS)
		goto fail;
	cu.cuEventElapsedTime(&ms, ev[0], ev[1]);
	stage = "fetch";
	j = ok_reply();
	cJSON_AddNumberToObject(j, "ms", ms);
	if ((r = fetch_set(&plan, &s, modes, sample_k(m->json), sample_seed(m->json), j, &blob, &blob_len, err,
			    sizeof(err))) != CUDA_SUCCESS) {
		cJSON_Delete(j);
		goto fail;
	}
	free_set(&s);
	reply(j, blob, blob_len);
	ks_free(blob);
	ks_free(modes);
	ks_plan_clear(&plan);
	return;
fail:
	if (!err[0])
		snprintf(err, sizeof(err), "%s", ks_cu_error(&cu, r));
	if (!ks_cu_error_is_sticky(r))
		free_set(&s);
	ks_free(modes);
	ks_plan_clear(&plan);
	reply_error(stage, r, err, ks_cu_error_is_sticky(r));
}

/* ---- timing sessions (DESIGN §4.6): several input sets, rotated; L2 flushed and persisting lines
 * reset outside the timed window; inout tensors restored from a pristine copy before each run. */

#define MAX_SETS 8

static struct {
	int active;
	ks_plan plan;
	module_slot *mod;
	buf_set sets[MAX_SETS];
	CUdeviceptr *pristine[MAX_SETS]; /* per buffer: a copy of an inout tensor's initial contents */
	int nsets;
	CUdeviceptr flush;
	uint64_t flush_words;
} g_t;

static void time_end(void)
{
	int i;
	size_t k;
	if (!g_t.active)
		return;
	for (i = 0; i < g_t.nsets; i++) {
		for (k = 0; g_t.pristine[i] && k < g_t.plan.nbufs; k++)
			if (g_t.pristine[i][k])
				cu.cuMemFree(g_t.pristine[i][k]);
		ks_free(g_t.pristine[i]);
		free_set(&g_t.sets[i]);
	}
	if (g_t.flush)
		cu.cuMemFree(g_t.flush);
	ks_plan_clear(&g_t.plan);
	memset(&g_t, 0, sizeof(g_t));
}

static CUresult snapshot_inout(int set)
{
	size_t k;
	CUresult r;
	for (k = 0; k < g_t.plan.nbufs; k++) {
		const ks_plan_buf *b = &g_t.plan.bufs[k];
		if (b->role != KS_ROLE_INOUT || !b->bytes)
			continue;
		if (!g_t.pristine[set][k] && (r = cu.cuMemAlloc(&g_t.pristine[set][k], b->bytes)) != CUDA_SUCCESS)
			return r;
		if ((r = cu.cuMemcpyDtoDAsync(g_t.pristine[set][k], g_t.sets[set].b[k].base + g_t.plan.guard,
					      b->bytes, g_stream)) != CUDA_SUCCESS)
			return r;
	}
	return CUDA_SUCCESS;
}

/* Everything that must happen before a timed run, outside its window. */
static CUresult prepare_run(int set, int flush)
{
	size_t k;
	CUresult r;
	for (k = 0; k < g_t.plan.nbufs; k++)
		if (g_t.pristine[set][k] &&
		    (r = cu.cuMemcpyDtoDAsync(g_t.sets[set].b[k].base + g_t.plan.guard, g_t.pristine[set][k],
					      g_t.plan.bufs[k].bytes, g_stream)) != CUDA_SUCCESS)
			return r;
	if (flush && g_t.flush) {
		uint64_t v = (uint64_t)set;
		void *p[] = { &g_t.flush, &g_t.flush_words, &v };
		if ((r = cu.cuLaunchKernel(g_hk[KS_HK_FLUSH], 1024, 1, 1, 256, 1, 1, 0, g_stream, p, NULL)) !=
		    CUDA_SUCCESS)
			return r;
	}
	return CUDA_SUCCESS;
}

static void do_time_start(const ks_msg *m)
{
	const cJSON *seeds = cJSON_GetObjectItemCaseSensitive(m->json, "seeds"), *it;
	double fb = 0;
	char err[1024] = "";
	CUresult r = CUDA_SUCCESS;
	const char *stage = "plan";
	int i;

	time_end();
	if (ks_plan_from_json(&g_t.plan, cJSON_GetObjectItemCaseSensitive(m->json, "plan")) < 0) {
		reply_error("plan", CUDA_ERROR_INVALID_VALUE, ks_error_msg(), 0);
		return;
	}
	g_t.active = 1;
	g_t.mod = module_of(m->json);
	if (!g_t.mod || !cJSON_IsArray(seeds) || cJSON_GetArraySize(seeds) < 1 ||
	    cJSON_GetArraySize(seeds) > MAX_SETS) {
		snprintf(err, sizeof(err), "bad timing request");
		r = CUDA_ERROR_INVALID_VALUE;
		goto fail;
	}
	stage = "launch";
	if (check_plan(&g_t.plan, g_t.mod, err, sizeof(err)) < 0) {
		r = CUDA_ERROR_INVALID_VALUE;
		goto fail;
	}
	stage = "alloc";
	i = 0;
	cJSON_ArrayForEach(it, seeds)
	{
		uint64_t seed = cJSON_IsString(it) ? strtoull(it->valuestring, NULL, 10) : 0;
		g_t.nsets++;
		g_t.pristine[i] = ks_calloc(g_t.plan.nbufs + 1, sizeof(CUdeviceptr));
		if ((r = alloc_set(&g_t.plan, &g_t.sets[i], err, sizeof(err))) != CUDA_SUCCESS ||
		    (r = fill_set(&g_t.plan, &g_t.sets[i], seed, err, sizeof(err))) != CUDA_SUCCESS ||
		    (r = snapshot_inout(i)) != CUDA_SUCCESS)
			goto fail;
		i++;
	}
	ks_json_num(&fb, m->json, "flush_bytes", 0);
	if (fb >= 8) {
		g_t.flush_words = (uint64_t)fb / 8;
		if ((r = cu.cuMemAlloc(&g_t.flush, g_t.flush_words * 8)) != CUDA_SUCCESS) {
			snprintf(err, sizeof(err), "allocating the L2 flush buffer: %s", ks_cu_error(&cu, r));
			goto fail;
		}
	}
	/* no persisting L2 lines: a kernel cannot keep its data resident across timed runs */
	if (cu.cuCtxSetLimit)
		cu.cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0);
	stage = "fill";
	if ((r = cu.cuStreamSynchronize(g_stream)) != CUDA_SUCCESS)
		goto fail;
	reply(ok_reply(), NULL, 0);
	return;
fail:
	if (!err[0])
		snprintf(err, sizeof(err), "%s", ks_cu_error(&cu, r));
	if (!ks_cu_error_is_sticky(r))
		time_end();
	reply_error(stage, r, err, ks_cu_error_is_sticky(r));
}

static void do_time_run(const ks_msg *m)
{
	const cJSON *runs = cJSON_GetObjectItemCaseSensitive(m->json, "runs"), *it;
	CUevent *ev = NULL;
	int set[MAX_RUNS_PER_CALL], n = 0, i, flush = 1;
	char err[1024] = "";
	CUresult r = CUDA_SUCCESS;
	const char *stage = "launch";
	cJSON *j, *ms;

	if (!g_t.active || !cJSON_IsArray(runs) || cJSON_GetArraySize(runs) < 1 ||
	    cJSON_GetArraySize(runs) > MAX_RUNS_PER_CALL) {
		reply_error("plan", CUDA_ERROR_INVALID_VALUE, "bad timing run request", 0);
		return;
	}
	ks_json_bool(&flush, m->json, "flush", 0);
	cJSON_ArrayForEach(it, runs)
	{
		set[n] = (int)it->valuedouble;
		if (set[n] < 0 || set[n] >= g_t.nsets)
			set[n] = 0;
		n++;
	}
	if ((r = events(&ev, 2 * n)) != CUDA_SUCCESS) {
		reply_error("launch", r, ks_cu_error(&cu, r), ks_cu_error_is_sticky(r));
		return;
	}
	if (cu.cuCtxResetPersistingL2Cache)
		cu.cuCtxResetPersistingL2Cache();
	for (i = 0; i < n && r == CUDA_SUCCESS; i++) {
		if ((r = prepare_run(set[i], flush)) == CUDA_SUCCESS)
			r = timed_launch(&g_t.plan, g_t.mod, &g_t.sets[set[i]], ev[2 * i], ev[2 * i + 1], err,
					 sizeof(err));
	}
	if (r == CUDA_SUCCESS) {
		stage = "sync";
		r = cu.cuStreamSynchronize(g_stream);
	}
	if (r != CUDA_SUCCESS) {
		if (!err[0])
			snprintf(err, sizeof(err), "%s", ks_cu_error(&cu, r));
		reply_error(stage, r, err, ks_cu_error_is_sticky(r));
		return;
	}
	j = ok_reply();
	ms = cJSON_AddArrayToObject(j, "ms");
	for (i = 0; i < n; i++) {
		float t = 0;
		cu.cuEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1]);
		cJSON_AddItemToArray(ms, cJSON_CreateNumber(t));
	}
	reply(j, NULL, 0);
}

/* Refills a set from a new seed (outputs poisoned again), runs it once, timed, and returns the
 * buffers: the scoring process checks this run's outputs, so a kernel that replays an earlier
 * result from the same addresses is caught. */
static void do_time_verify(const ks_msg *m)
{
	const char *seed_s = NULL;
	double setd = 0;
	int set, *modes;
	CUevent *ev = NULL;
	char err[1024] = "";
	CUresult r;
	const char *stage = "fill";
	unsigned char *blob = NULL;
	uint64_t blob_len = 0;
	float ms = 0;
	cJSON *j;

	ks_json_num(&setd, m->json, "set", 0);
	set = (int)setd;
	modes = g_t.active ? parse_modes(cJSON_GetObjectItemCaseSensitive(m->json, "fetch"), g_t.plan.nbufs)
			   : NULL;
	if (!modes || set < 0 || set >= g_t.nsets || ks_json_str(&seed_s, m->json, "seed", 1) < 0) {
		ks_free(modes);
		reply_error("plan", CUDA_ERROR_INVALID_VALUE, "bad verify request", 0);
		return;
	}
	if ((r = events(&ev, 2)) != CUDA_SUCCESS ||
	    (r = fill_set(&g_t.plan, &g_t.sets[set], strtoull(seed_s, NULL, 10), err, sizeof(err))) !=
		    CUDA_SUCCESS ||
	    (r = snapshot_inout(set)) != CUDA_SUCCESS || (r = prepare_run(set, 1)) != CUDA_SUCCESS)
		goto fail;
	stage = "launch";
	if (cu.cuCtxResetPersistingL2Cache)
		cu.cuCtxResetPersistingL2Cache();
	if ((r = timed_launch(&g_t.plan, g_t.mod, &g_t.sets[set], ev[0], ev[1], err, sizeof(err))) != CUDA_SUCCESS)
		goto fail;
	stage = "sync";
	if ((r = cu.cuStreamSynchronize(g_stream)) != CUDA_SUCCESS)
		goto fail;
	cu.cuEventElapsedTime(&ms, ev[0], ev[1]);
	stage = "fetch";
	j = ok_reply();
	cJSON_AddNumberToObject(j, "ms", ms);
	if ((r = fetch_set(&g_t.plan, &g_t.sets[set], modes, sample_k(m->json), sample_seed(m->json), j, &blob,
			   &blob_len, err, sizeof(err))) != CUDA_SUCCESS) {
		cJSON_Delete(j);
		goto fail;
	}
	ks_free(modes);
	reply(j, blob, blob_len);
	ks_free(blob);
	return;
fail:
	if (!err[0])
		snprintf(err, sizeof(err), "%s", ks_cu_error(&cu, r));
	ks_free(modes);
	reply_error(stage, r, err, ks_cu_error_is_sticky(r));
}

/* ---- calibration: the device's own ceilings, measured (DESIGN §4.7) */

static double best_ms(CUresult (*fn)(void *), void *ud, int reps, CUresult *rc)
{
	CUevent e0, e1;
	double best = 1e30;
	int i;
	cu.cuEventCreate(&e0, CU_EVENT_DEFAULT);
	cu.cuEventCreate(&e1, CU_EVENT_DEFAULT);
	*rc = CUDA_SUCCESS;
	for (i = 0; i < reps + 2 && *rc == CUDA_SUCCESS; i++) {
		float t = 0;
		cu.cuEventRecord(e0, g_stream);
		if ((*rc = fn(ud)) != CUDA_SUCCESS)
			break;
		cu.cuEventRecord(e1, g_stream);
		if ((*rc = cu.cuStreamSynchronize(g_stream)) != CUDA_SUCCESS)
			break;
		cu.cuEventElapsedTime(&t, e0, e1);
		if (i >= 2 && t < best)
			best = t; /* the first two are warm-up */
	}
	cu.cuEventDestroy(e0);
	cu.cuEventDestroy(e1);
	return best;
}

typedef struct {
	CUfunction f;
	CUdeviceptr a, b;
	uint64_t n;
	unsigned grid, block;
	int iters;
} cal_job;

static CUresult cal_memcpy(void *ud)
{
	cal_job *c = ud;
	return cu.cuMemcpyDtoDAsync(c->b, c->a, c->n, g_stream);
}

static CUresult cal_copy(void *ud)
{
	cal_job *c = ud;
	uint64_t words = c->n / 16;
	void *p[] = { &c->a, &c->b, &words };
	return cu.cuLaunchKernel(c->f, c->grid, 1, 1, 256, 1, 1, 0, g_stream, p, NULL);
}

static CUresult cal_read(void *ud)
{
	cal_job *c = ud;
	uint64_t words = c->n / 16;
	void *p[] = { &c->a, &words, &c->b };
	return cu.cuLaunchKernel(c->f, c->grid, 1, 1, 256, 1, 1, 0, g_stream, p, NULL);
}

static CUresult cal_fma(void *ud)
{
	cal_job *c = ud;
	float b = 0.999f;
	void *p[] = { &c->a, &c->iters, &b };
	return cu.cuLaunchKernel(c->f, c->grid, 1, 1, c->block, 1, 1, 0, g_stream, p, NULL);
}

static CUresult cal_mma(void *ud)
{
	cal_job *c = ud;
	void *p[] = { &c->a, &c->iters };
	return cu.cuLaunchKernel(c->f, c->grid, 1, 1, c->block, 1, 1, 0, g_stream, p, NULL);
}

static void do_calibrate(const ks_msg *m)
{
	/* the order of ks_calibrate_kernels */
	enum { COPY, READ, FMA, MMA_F16, MMA_BF16, WG_F16, WG_BF16, NCAL };
	static const char *keys[NCAL] = { "copy", "read", "fma", "mma_f16", "mma_bf16", "wgmma_f16", "wgmma_bf16" };
	const cJSON *funcs = cJSON_GetObjectItemCaseSensitive(m->json, "funcs");
	CUfunction fn[NCAL] = { 0 };
	CUmodule mod;
	cal_job c;
	CUresult r;
	size_t free_b = 0, total_b = 0;
	int sms = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), i;
	double ms, flops;
	cJSON *j;

	if (!m->blob || !cJSON_IsArray(funcs) || cJSON_GetArraySize(funcs) != NCAL) {
		reply_error("calibrate", CUDA_ERROR_INVALID_VALUE, "bad calibration request", 0);
		return;
	}
	if ((r = cu.cuModuleLoadDataEx(&mod, m->blob, 0, NULL, NULL)) != CUDA_SUCCESS) {
		reply_error("calibrate", r, ks_cu_error(&cu, r), ks_cu_error_is_sticky(r));
		return;
	}
	for (i = 0; i < NCAL; i++) {
		const cJSON *f = cJSON_GetArrayItem(funcs, i);
		if (cJSON_IsString(f) && *f->valuestring)
			cu.cuModuleGetFunction(&fn[i], mod, f->valuestring);
	}
	j = ok_reply();
	memset(&c, 0, sizeof(c));
	cu.cuMemGetInfo(&free_b, &total_b);
	/* bandwidth: 1 GiB copies (or an eighth of free memory), read + written bytes counted */
	c.n = 1ull << 30;
	while (c.n > free_b / 8 && c.n > (64ull << 20))
		c.n /= 2;
	if (cu.cuMemAlloc(&c.a, c.n) == CUDA_SUCCESS && cu.cuMemAlloc(&c.b, c.n) == CUDA_SUCCESS) {
		cu.cuMemsetD8Async(c.a, 0x3c, c.n, g_stream);
		ms = best_ms(cal_memcpy, &c, 10, &r);
		if (r == CUDA_SUCCESS)
			cJSON_AddNumberToObject(j, "memcpy_gbps", 2.0 * (double)c.n / (ms * 1e-3) / 1e9);
		if (fn[COPY]) {
			c.f = fn[COPY];
			c.grid = (unsigned)sms * 16;
			ms = best_ms(cal_copy, &c, 10, &r);
			if (r == CUDA_SUCCESS)
				cJSON_AddNumberToObject(j, "copy_kernel_gbps", 2.0 * (double)c.n / (ms * 1e-3) / 1e9);
		}
		if (fn[READ]) {
			/* reads the c.n bytes of a; b only receives a write that never happens */
			c.f = fn[READ];
			c.grid = (unsigned)sms * 16;
			ms = best_ms(cal_read, &c, 10, &r);
			if (r == CUDA_SUCCESS)
				cJSON_AddNumberToObject(j, "read_kernel_gbps", (double)c.n / (ms * 1e-3) / 1e9);
		}
	}
	if (c.a)
		cu.cuMemFree(c.a);
	if (c.b)
		cu.cuMemFree(c.b);
	c.a = c.b = 0;
	cu.cuMemAlloc(&c.a, 256);
	if (fn[FMA]) {
		c.f = fn[FMA];
		c.grid = (unsigned)sms * 8;
		c.block = 256;
		c.iters = 2048;
		ms = best_ms(cal_fma, &c, 5, &r);
		flops = 2.0 * 8 * 16 * (double)c.iters * c.grid * c.block;
		if (r == CUDA_SUCCESS)
			cJSON_AddNumberToObject(j, "fp32_tflops", flops / (ms * 1e-3) / 1e12);
	}
	/* tensor cores, mma.sync first, then wgmma (most likely to be refused: done last) */
	for (i = MMA_F16; i < NCAL; i++) {
		if (!fn[i])
			continue;
		c.f = fn[i];
		if (i <= MMA_BF16) {
			c.grid = (unsigned)sms * 8;
			c.block = 256;
			c.iters = 4096;
			flops = 2.0 * 16 * 8 * 16 * 4 * (double)c.iters * (c.grid * (c.block / 32));
		} else {
			c.grid = (unsigned)sms;
			c.block = 256;
			c.iters = 2048;
			flops = 2.0 * 64 * 256 * 16 * 4 * (double)c.iters * (c.grid * 2);
		}
		ms = best_ms(cal_mma, &c, 5, &r);
		if (r != CUDA_SUCCESS) {
			char k[64];
			snprintf(k, sizeof(k), "%s_error", keys[i]);
			cJSON_AddStringToObject(j, k, ks_cu_error(&cu, r));
			if (ks_cu_error_is_sticky(r))
				break;
			continue;
		}
		{
			char k[64];
			snprintf(k, sizeof(k), "%s_tflops", keys[i]);
			cJSON_AddNumberToObject(j, k, flops / (ms * 1e-3) / 1e12);
		}
	}
	cJSON_AddNumberToObject(j, "bandwidth_bytes", (double)c.n);
	reply(j, NULL, 0);
	if (ks_cu_error_is_sticky(r))
		_exit(0);
	cu.cuMemFree(c.a);
	cu.cuModuleUnload(mod);
}

static void do_status(void)
{
	char pci[64] = "";
	ks_gpu_status st;
	cJSON *j = ok_reply();
	cu.cuDeviceGetPCIBusId(pci, sizeof(pci), g_dev);
	ks_nvml_status(&st, pci);
	cJSON_AddBoolToObject(j, "valid", st.valid);
	if (st.valid) {
		cJSON_AddNumberToObject(j, "sm_mhz", st.sm_mhz);
		cJSON_AddNumberToObject(j, "sm_max_mhz", st.sm_max_mhz);
		cJSON_AddNumberToObject(j, "mem_mhz", st.mem_mhz);
		cJSON_AddNumberToObject(j, "temperature_c", st.temperature_c);
		cJSON_AddNumberToObject(j, "power_w", st.power_mw / 1000.0);
		cJSON_AddStringToObject(j, "throttle", ks_nvml_throttle_names(st.throttle));
	} else
		cJSON_AddStringToObject(j, "error", st.error);
	reply(j, NULL, 0);
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	for (;;) {
		ks_msg m;
		if (ks_proto_recv(FD, &m, 0, 1ull << 30) < 0)
			return 0; /* parent gone */
		if (m.type != KS_MSG_HELLO && m.type != KS_MSG_QUIT && !g_ready) {
			reply_error("init", CUDA_ERROR_NOT_INITIALIZED, "HELLO first", 0);
			ks_msg_clear(&m);
			continue;
		}
		switch (m.type) {
		case KS_MSG_HELLO:
			do_hello(m.json);
			break;
		case KS_MSG_HARNESS:
			do_harness(&m);
			break;
		case KS_MSG_LOAD:
			do_load(&m);
			break;
		case KS_MSG_UNLOAD:
			do_unload(&m);
			break;
		case KS_MSG_RUN:
			do_run(&m);
			break;
		case KS_MSG_TIME_START:
			do_time_start(&m);
			break;
		case KS_MSG_TIME_RUN:
			do_time_run(&m);
			break;
		case KS_MSG_TIME_VERIFY:
			do_time_verify(&m);
			break;
		case KS_MSG_TIME_END:
			time_end();
			reply(ok_reply(), NULL, 0);
			break;
		case KS_MSG_CALIBRATE:
			do_calibrate(&m);
			break;
		case KS_MSG_STATUS:
			do_status();
			break;
		case KS_MSG_QUIT:
			ks_msg_clear(&m);
			return 0;
		default:
			reply_error("request", CUDA_ERROR_INVALID_VALUE, "unknown request", 0);
		}
		ks_msg_clear(&m);
	}
}
