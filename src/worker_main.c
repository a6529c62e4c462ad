/* kscore-worker: the GPU worker process. It loads the CUDA driver at run time, executes plans sent
 * by the scoring process over fd 3 (see proto.h and plan.h) and sends back buffer contents. One
 * worker runs golden kernels; another runs candidates and is killed and replaced whenever a
 * candidate hangs, crashes it or leaves a sticky CUDA error (DESIGN §4.3). A worker never sees
 * expected outputs: comparison happens in the scoring process. */
#include "cudadrv.h"
#include "errors.h"
#include "harness.h"
#include "jsonutil.h"
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
static CUdeviceptr g_sum; /* one u64 for checksums */
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
	    (r = cu.cuMemAlloc(&g_sum, 8)) != CUDA_SUCCESS) {
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

static CUresult checksum(CUdeviceptr data, uint64_t nbytes, uint64_t *out)
{
	void *p[] = { &data, &nbytes, &g_sum };
	CUresult r;
	*out = 0;
	if ((r = cu.cuMemsetD8Async(g_sum, 0, 8, g_stream)) != CUDA_SUCCESS)
		return r;
	if (nbytes && (r = launch_h(KS_HK_CHECKSUM, grid_for(nbytes / 8 + 1), p)) != CUDA_SUCCESS)
		return r;
	if ((r = cu.cuStreamSynchronize(g_stream)) != CUDA_SUCCESS)
		return r;
	return cu.cuMemcpyDtoH(out, g_sum, 8);
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

static void do_run(const ks_msg *m)
{
	const cJSON *pj = cJSON_GetObjectItemCaseSensitive(m->json, "plan");
	const cJSON *fetch = cJSON_GetObjectItemCaseSensitive(m->json, "fetch");
	ks_plan plan;
	dev_buf *bufs = NULL;
	module_slot *mod;
	CUevent e0 = NULL, e1 = NULL;
	CUresult r = CUDA_SUCCESS;
	const char *stage = "alloc";
	char err[1024] = "";
	unsigned char *blob = NULL;
	uint64_t blob_len = 0, off = 0;
	float ms = 0;
	double modid = -1;
	size_t i, k;
	cJSON *j, *ba;
	int *modes = NULL;

	if (ks_plan_from_json(&plan, pj) < 0) {
		reply_error("plan", CUDA_ERROR_INVALID_VALUE, ks_error_msg(), 0);
		return;
	}
	ks_json_num(&modid, m->json, "module", 1);
	if (modid < 0 || modid >= MAX_MODULES || !g_mods[(int)modid].used ||
	    !cJSON_IsArray(fetch) || (size_t)cJSON_GetArraySize(fetch) != plan.nbufs) {
		ks_plan_clear(&plan);
		reply_error("plan", CUDA_ERROR_INVALID_VALUE, "bad run request", 0);
		return;
	}
	mod = &g_mods[(int)modid];
	modes = ks_calloc(plan.nbufs + 1, sizeof(int));
	for (i = 0; i < plan.nbufs; i++)
		modes[i] = (int)cJSON_GetArrayItem(fetch, (int)i)->valuedouble;
	for (k = 0; k < plan.nkernels; k++) {
		if (plan.kernels[k].func >= (uint32_t)mod->nfn) {
			snprintf(err, sizeof(err), "kernel %s is not loaded", plan.kernels[k].name);
			goto fail;
		}
		if (check_params(&plan.kernels[k], mod->fn[plan.kernels[k].func], err, sizeof(err)) < 0) {
			stage = "launch";
			goto fail;
		}
	}
	bufs = ks_calloc(plan.nbufs + 1, sizeof(dev_buf));
	for (i = 0; i < plan.nbufs; i++) {
		const ks_plan_buf *b = &plan.bufs[i];
		uint64_t body = (b->bytes + 255) & ~255ull;
		bufs[i].total = 2ull * plan.guard + body;
		if ((r = cu.cuMemAlloc(&bufs[i].base, bufs[i].total)) != CUDA_SUCCESS) {
			snprintf(err, sizeof(err), "allocating %s (%llu bytes): %s", b->name,
				 (unsigned long long)bufs[i].total, ks_cu_error(&cu, r));
			goto fail;
		}
		if ((r = fill_pattern(bufs[i].base, bufs[i].total, GUARD_WORD, 8)) != CUDA_SUCCESS ||
		    (r = fill_buffer(&plan, b, bufs[i].base + plan.guard)) != CUDA_SUCCESS) {
			stage = "fill";
			snprintf(err, sizeof(err), "filling %s: %s", b->name, ks_cu_error(&cu, r));
			goto fail;
		}
	}
	stage = "fill";
	if ((r = cu.cuStreamSynchronize(g_stream)) != CUDA_SUCCESS) {
		snprintf(err, sizeof(err), "%s", ks_cu_error(&cu, r));
		goto fail;
	}
	stage = "launch";
	cu.cuEventCreate(&e0, CU_EVENT_DEFAULT);
	cu.cuEventCreate(&e1, CU_EVENT_DEFAULT);
	cu.cuEventRecord(e0, g_stream);
	for (k = 0; k < plan.nkernels; k++) {
		const ks_plan_kernel *pk = &plan.kernels[k];
		CUfunction f = mod->fn[pk->func];
		param_val vals[KS_LAUNCH_MAX_ARGS];
		void *ptrs[KS_LAUNCH_MAX_ARGS];
		size_t p;
		if (!pk->grid[0] || !pk->grid[1] || !pk->grid[2])
			continue; /* nothing to launch for an empty size */
		for (p = 0; p < pk->nparams; p++) {
			const ks_plan_param *pp = &pk->params[p];
			switch (pp->kind) {
			case KS_PARAM_BUF:
				vals[p].p = bufs[pp->buf].base + plan.guard;
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
			snprintf(err, sizeof(err), "launching %s (launch %zu, grid %ux%ux%u, block %ux%ux%u, "
				 "%u bytes shared): %s", pk->name, k + 1, pk->grid[0], pk->grid[1],
				 pk->grid[2], pk->block[0], pk->block[1], pk->block[2], pk->shared,
				 ks_cu_error(&cu, r));
			goto fail;
		}
	}
	cu.cuEventRecord(e1, g_stream);
	stage = "sync";
	if ((r = cu.cuStreamSynchronize(g_stream)) != CUDA_SUCCESS) {
		snprintf(err, sizeof(err), "%s", ks_cu_error(&cu, r));
		goto fail;
	}
	cu.cuEventElapsedTime(&ms, e0, e1);

	stage = "fetch";
	for (i = 0; i < plan.nbufs; i++) {
		if (modes[i] == 1)
			blob_len += bufs[i].total;
		else if (modes[i] == 2)
			blob_len += bufs[i].total - plan.bufs[i].bytes;
	}
	blob = ks_malloc(blob_len ? blob_len : 1);
	j = ok_reply();
	cJSON_AddNumberToObject(j, "ms", ms);
	ba = cJSON_AddArrayToObject(j, "bufs");
	for (i = 0; i < plan.nbufs; i++) {
		cJSON *o = cJSON_CreateObject();
		char cs[32];
		uint64_t body_end = plan.guard + plan.bufs[i].bytes;
		cJSON_AddNumberToObject(o, "off", (double)off);
		if (modes[i] == 1) {
			r = cu.cuMemcpyDtoH(blob + off, bufs[i].base, bufs[i].total);
			off += bufs[i].total;
		} else if (modes[i] >= 2) {
			if (modes[i] == 2) {
				r = cu.cuMemcpyDtoH(blob + off, bufs[i].base, plan.guard);
				if (r == CUDA_SUCCESS)
					r = cu.cuMemcpyDtoH(blob + off + plan.guard, bufs[i].base + body_end,
							    bufs[i].total - body_end);
				off += bufs[i].total - plan.bufs[i].bytes;
			}
			if (r == CUDA_SUCCESS)
				r = checksum(bufs[i].base + plan.guard, plan.bufs[i].bytes, &bufs[i].checksum);
			snprintf(cs, sizeof(cs), "%llu", (unsigned long long)bufs[i].checksum);
			cJSON_AddStringToObject(o, "checksum", cs);
		}
		cJSON_AddNumberToObject(o, "total", (double)bufs[i].total);
		cJSON_AddItemToArray(ba, o);
		if (r != CUDA_SUCCESS) {
			cJSON_Delete(j);
			snprintf(err, sizeof(err), "reading back %s: %s", plan.bufs[i].name, ks_cu_error(&cu, r));
			goto fail;
		}
	}
	for (i = 0; i < plan.nbufs; i++)
		cu.cuMemFree(bufs[i].base);
	cu.cuEventDestroy(e0);
	cu.cuEventDestroy(e1);
	reply(j, blob, blob_len);
	ks_free(blob);
	ks_free(bufs);
	ks_free(modes);
	ks_plan_clear(&plan);
	return;
fail:
	if (!err[0])
		snprintf(err, sizeof(err), "%s", ks_cu_error(&cu, r));
	{
		int sticky = ks_cu_error_is_sticky(r);
		if (!sticky && bufs)
			for (i = 0; i < plan.nbufs; i++)
				if (bufs[i].base)
					cu.cuMemFree(bufs[i].base);
		if (e0)
			cu.cuEventDestroy(e0);
		if (e1)
			cu.cuEventDestroy(e1);
		ks_free(blob);
		ks_free(bufs);
		ks_free(modes);
		ks_plan_clear(&plan);
		reply_error(stage, r, err, sticky);
	}
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
		case KS_MSG_QUIT:
			ks_msg_clear(&m);
			return 0;
		default:
			reply_error("request", CUDA_ERROR_INVALID_VALUE, "unknown request", 0);
		}
		ks_msg_clear(&m);
	}
}
