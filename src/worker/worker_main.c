/* kscore-worker: the GPU worker process. It loads the CUDA driver at run time, executes plans sent
 * by the scoring process over fd 3 (see proto.h and plan.h) and sends back buffer contents. One
 * worker runs golden kernels; another runs candidates and is killed and replaced whenever a
 * candidate hangs, crashes it or leaves a sticky CUDA error (DESIGN §4.3). A worker never sees
 * expected outputs: comparison happens in the scoring process. Its stdout and stderr are a pipe
 * the scoring process drains (device printf lands there), stdin is /dev/null.
 *
 * This file is the process: device set-up, modules, status and the dispatch loop. Running plans,
 * timing sessions and calibration are worker_exec.c, worker_time.c and worker_calib.c, the replies
 * worker_reply.c (worker_int.h). */
#include "worker/worker_int.h"
#include "util/errors.h"
#include "util/jsonutil.h"
#include "util/mem.h"
#include "worker/nvml.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int attr(wk_ctx *w, CUdevice d, CUdevice_attribute a)
{
	int v = 0;
	w->cu.cuDeviceGetAttribute(&v, a, d);
	return v;
}

/* The description of device d (of `count` the driver sees) that HELLO and the first reply give;
 * none of it needs a context. */
static cJSON *describe(wk_ctx *w, CUdevice d, int count)
{
	char name[256] = "", pci[64] = "", uuid[64] = "";
	size_t total = 0;
	int drv = 0, i;
	CUuuid u;
	cJSON *j = wk_ok_reply();

	w->cu.cuDriverGetVersion(&drv);
	w->cu.cuDeviceGetName(name, sizeof(name), d);
	w->cu.cuDeviceTotalMem(&total, d);
	w->cu.cuDeviceGetPCIBusId(pci, sizeof(pci), d);
	if (w->cu.cuDeviceGetUuid(&u, d) == CUDA_SUCCESS) {
		const unsigned char *b = (const unsigned char *)u.bytes;
		int o = snprintf(uuid, sizeof(uuid), "GPU-");
		for (i = 0; i < 16; i++)
			o += snprintf(uuid + o, sizeof(uuid) - (size_t)o, "%02x%s", b[i],
				      (i == 3 || i == 5 || i == 7 || i == 9) ? "-" : "");
	}
	cJSON_AddStringToObject(j, "name", name);
	cJSON_AddStringToObject(j, "uuid", uuid);
	cJSON_AddStringToObject(j, "pci_bus_id", pci);
	cJSON_AddNumberToObject(j, "device_count", count);
	cJSON_AddNumberToObject(j, "driver_version", drv);
	cJSON_AddNumberToObject(j, "cc_major", attr(w, d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR));
	cJSON_AddNumberToObject(j, "cc_minor", attr(w, d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
	cJSON_AddNumberToObject(j, "sm_count", attr(w, d, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
	cJSON_AddNumberToObject(j, "memory_bytes", (double)total);
	cJSON_AddNumberToObject(j, "l2_bytes", attr(w, d, CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
	cJSON_AddNumberToObject(j, "max_shared_per_block",
				attr(w, d, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
	cJSON_AddNumberToObject(j, "clock_khz", attr(w, d, CU_DEVICE_ATTRIBUTE_CLOCK_RATE));
	cJSON_AddNumberToObject(j, "memory_clock_khz", attr(w, d, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE));
	cJSON_AddNumberToObject(j, "memory_bus_bits",
				attr(w, d, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH));
	cJSON_AddNumberToObject(j, "ecc", attr(w, d, CU_DEVICE_ATTRIBUTE_ECC_ENABLED));
	cJSON_AddNumberToObject(j, "persisting_l2_max",
				attr(w, d, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE));
	return j;
}

/* Device `dev` (as this process counts them), or an "init" error reply naming the ordinal the
 * scorer knows it by, after which the process exits. */
static CUdevice device_or_exit(wk_ctx *w, double dev, double ordinal, int *count)
{
	CUdevice d = 0;
	CUresult r;
	*count = 0;
	w->cu.cuDeviceGetCount(count);
	if (*count <= 0 || dev < 0 || dev >= *count) {
		char m[160];
		if (ordinal != dev)
			snprintf(m, sizeof(m), "no CUDA device %d (the driver sees none as CUDA_VISIBLE_DEVICES=%.40s)",
				 (int)ordinal, getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "");
		else
			snprintf(m, sizeof(m), "no CUDA device %d (the driver sees %d)", (int)dev, *count);
		wk_reply_error("init", CUDA_ERROR_NO_DEVICE, m, 0);
		_exit(0);
	}
	if ((r = w->cu.cuDeviceGet(&d, (int)dev)) != CUDA_SUCCESS) {
		wk_reply_error("init", r, ks_cu_error(&w->cu, r), 0);
		_exit(0);
	}
	return d;
}

/* The driver loaded and initialised before the first request, and said so in a reply of its own:
 * the slow part of a start (the process, a sanitizer's own start, cuInit) is then done before the
 * scoring process takes its GPU's gate for HELLO, which creates the context (worker.h,
 * ks_worker_start). Given the device HELLO will name (argv: DEVICE ORDINAL), the reply describes
 * it, so that the scorer can compile for it while the context is made. A failure is the
 * process's one reply, and it exits. */
static void init_driver(wk_ctx *w, int argc, char **argv)
{
	CUresult r;
	char *end = NULL, *end2 = NULL;
	long dev = -1, ordinal = -1;
	int count = 0;
	CUdevice d;
	if (ks_cu_load(&w->cu) < 0) {
		wk_reply_error("driver", CUDA_ERROR_NOT_FOUND, ks_error_msg(), 0);
		_exit(0);
	}
	if ((r = w->cu.cuInit(0)) != CUDA_SUCCESS) {
		wk_reply_error("init", r, ks_cu_error(&w->cu, r), 0);
		_exit(0);
	}
	if (argc >= 4) {
		dev = strtol(argv[2], &end, 10);
		ordinal = strtol(argv[3], &end2, 10);
	}
	if (argc < 4 || *end || *end2 || dev < 0 || dev > 1023 || ordinal < 0 || ordinal > 1023) {
		wk_reply(wk_ok_reply(), NULL, 0);
		return;
	}
	/* two statements: the count is known only once device_or_exit has returned */
	d = device_or_exit(w, (double)dev, (double)ordinal, &count);
	wk_reply(describe(w, d, count), NULL, 0);
}

static void do_hello(wk_ctx *w, const cJSON *req)
{
	double dev = 0, ordinal = 0;
	int count = 0;
	CUresult r;

	ks_json_num(&dev, req, "device", 0);
	ordinal = dev;
	ks_json_num(&ordinal, req, "ordinal", 0);
	w->dev = device_or_exit(w, dev, ordinal, &count);
	if ((r = w->cu.cuDevicePrimaryCtxRetain(&w->ctx, w->dev)) != CUDA_SUCCESS ||
	    (r = w->cu.cuCtxSetCurrent(w->ctx)) != CUDA_SUCCESS ||
	    (r = w->cu.cuStreamCreate(&w->stream, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS ||
	    (r = w->cu.cuMemAlloc(&w->sum, 8 * WK_MAX_SUMS)) != CUDA_SUCCESS) {
		wk_reply_error("init", r, ks_cu_error(&w->cu, r), 0);
		_exit(0);
	}
	wk_reply(describe(w, w->dev, count), NULL, 0);
	w->ready = 1;
}

/* Loads the image of a load request (one CUBIN, or a bundle: lang/image.h) into modules and
 * resolves its kernels ("funcs", flat across the bundle's parts) into fns. On failure nothing stays
 * loaded. */
static int load_module(wk_ctx *w, CUmodule *mods, int *nmod, CUfunction *fns, int *nfn, const ks_msg *m,
		       char *err, size_t errlen, CUresult *code)
{
	const cJSON *funcs = cJSON_GetObjectItemCaseSensitive(m->json, "funcs"), *f = NULL;
	char log[4096] = "";
	CUjit_option opts[2] = { CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES };
	void *vals[2] = { log, (void *)(uintptr_t)sizeof(log) };
	ks_image_part parts[KS_IMAGE_MAX_PARTS];
	size_t np = 0, p;
	uint32_t k;
	CUresult r;

	*nfn = 0;
	*nmod = 0;
	if (!m->blob || !cJSON_IsArray(funcs) || cJSON_GetArraySize(funcs) > KS_PROTO_MAX_FUNCS ||
	    ks_image_parts(parts, &np, m->blob, (size_t)m->blob_len, (uint32_t)cJSON_GetArraySize(funcs)) < 0) {
		snprintf(err, errlen, "bad load request%s%s", ks_error_msg()[0] ? ": " : "", ks_error_msg());
		*code = CUDA_ERROR_INVALID_VALUE;
		return -1;
	}
	f = funcs->child;
	for (p = 0; p < np; p++) {
		if ((r = w->cu.cuModuleLoadDataEx(&mods[p], parts[p].data, 2, opts, vals)) != CUDA_SUCCESS) {
			snprintf(err, errlen, "%s%s%s%s", np > 1 ? "a CUBIN of the bundle: " : "", ks_cu_error(&w->cu, r),
				 log[0] ? ": " : "", log);
			*code = r;
			goto fail;
		}
		(*nmod)++;
		for (k = 0; k < parts[p].nnames; k++, f = f->next) {
			if (!cJSON_IsString(f) ||
			    (r = w->cu.cuModuleGetFunction(&fns[*nfn], mods[p], f->valuestring)) != CUDA_SUCCESS) {
				snprintf(err, errlen, "kernel \"%s\" is not in the module: %s",
					 cJSON_IsString(f) ? f->valuestring : "?", ks_cu_error(&w->cu, r));
				*code = r;
				goto fail;
			}
			(*nfn)++;
		}
	}
	return 0;
fail:
	while (*nmod > 0)
		w->cu.cuModuleUnload(mods[--*nmod]);
	*nfn = 0;
	return -1;
}

static void do_harness(wk_ctx *w, const ks_msg *m)
{
	char err[8192];
	CUresult code = CUDA_SUCCESS;
	int n = 0, nmod = 0;
	if (load_module(w, &w->hmod, &nmod, w->hk, &n, m, err, sizeof(err), &code) < 0 || n != KS_HK_COUNT) {
		wk_reply_error("harness", code, n != KS_HK_COUNT && !code ? "harness kernels missing" : err, 0);
		return;
	}
	wk_reply(wk_ok_reply(), NULL, 0);
}

static void do_load(wk_ctx *w, const ks_msg *m)
{
	char err[8192];
	CUresult code = CUDA_SUCCESS;
	wk_module *s = NULL;
	cJSON *j, *fa;
	int i, k;

	for (i = 0; i < KS_PROTO_MAX_MODULES; i++)
		if (!w->mods[i].used) {
			s = &w->mods[i];
			break;
		}
	if (!s) {
		wk_reply_error("load", CUDA_ERROR_INVALID_VALUE, "too many modules loaded", 0);
		return;
	}
	if (load_module(w, s->mod, &s->nmod, s->fn, &s->nfn, m, err, sizeof(err), &code) < 0) {
		wk_reply_error("load", code, err, ks_cu_error_is_sticky(code));
		return;
	}
	s->used = 1;
	j = wk_ok_reply();
	cJSON_AddNumberToObject(j, "module", i);
	fa = cJSON_AddArrayToObject(j, "funcs");
	for (k = 0; k < s->nfn; k++) {
		cJSON *o = cJSON_CreateObject();
		int v = 0;
#define FATTR(key, a)                                                                              \
	v = 0;                                                                                     \
	w->cu.cuFuncGetAttribute(&v, a, s->fn[k]);                                                    \
	cJSON_AddNumberToObject(o, key, v);
		FATTR("registers", CU_FUNC_ATTRIBUTE_NUM_REGS)
		FATTR("shared_static", CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
		FATTR("local_bytes", CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
		FATTR("const_bytes", CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES)
		FATTR("max_threads", CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)
#undef FATTR
		if (w->cu.cuFuncGetParamInfo) {
			cJSON *ps = cJSON_AddArrayToObject(o, "params");
			size_t pi, off, sz;
			for (pi = 0; pi < 256; pi++) {
				if (w->cu.cuFuncGetParamInfo(s->fn[k], pi, &off, &sz) != CUDA_SUCCESS)
					break;
				cJSON_AddItemToArray(ps, cJSON_CreateNumber((double)sz));
			}
		}
		cJSON_AddItemToArray(fa, o);
	}
	wk_reply(j, NULL, 0);
}

static void do_unload(wk_ctx *w, const ks_msg *m)
{
	double id = -1;
	ks_json_num(&id, m->json, "module", 0);
	if (id >= 0 && id < KS_PROTO_MAX_MODULES && w->mods[(int)id].used) {
		int k;
		for (k = 0; k < w->mods[(int)id].nmod; k++)
			w->cu.cuModuleUnload(w->mods[(int)id].mod[k]);
		memset(&w->mods[(int)id], 0, sizeof(w->mods[0]));
	}
	wk_reply(wk_ok_reply(), NULL, 0);
}

static void do_status(wk_ctx *w)
{
	char pci[64] = "";
	ks_gpu_status st;
	cJSON *j = wk_ok_reply();
	w->cu.cuDeviceGetPCIBusId(pci, sizeof(pci), w->dev);
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
	wk_reply(j, NULL, 0);
}

int main(int argc, char **argv)
{
	/* everything the process owns; the driver releases the device when the process exits */
	wk_ctx *w = ks_calloc(1, sizeof(*w));
	int quit = 0;

	init_driver(w, argc, argv);
	while (!quit) {
		ks_msg m;
		if (ks_proto_recv(WK_FD, &m, 0, 1ull << 30) < 0)
			break; /* parent gone */
		if (m.type != KS_MSG_HELLO && m.type != KS_MSG_QUIT && !w->ready) {
			wk_reply_error("init", CUDA_ERROR_NOT_INITIALIZED, "HELLO first", 0);
			ks_msg_clear(&m);
			continue;
		}
		switch (m.type) {
		case KS_MSG_HELLO:
			do_hello(w, m.json);
			break;
		case KS_MSG_HARNESS:
			do_harness(w, &m);
			break;
		case KS_MSG_LOAD:
			do_load(w, &m);
			break;
		case KS_MSG_UNLOAD:
			do_unload(w, &m);
			break;
		case KS_MSG_RUN:
			wk_do_run(w, &m);
			break;
		case KS_MSG_TIME_START:
			wk_time_start(w, &m);
			break;
		case KS_MSG_TIME_RUN:
			wk_time_run(w, &m);
			break;
		case KS_MSG_TIME_VERIFY:
			wk_time_verify(w, &m);
			break;
		case KS_MSG_TIME_CHECK:
			wk_time_check(w, &m);
			break;
		case KS_MSG_TIME_END:
			wk_time_end(w);
			wk_reply(wk_ok_reply(), NULL, 0);
			break;
		case KS_MSG_CALIBRATE:
			wk_calibrate(w, &m);
			break;
		case KS_MSG_STATUS:
			do_status(w);
			break;
		case KS_MSG_QUIT:
			/* the context goes before the reply: the scoring process holds its GPU's gate
			 * until then, and waits for the process's exit (a sanitizer's report) after */
			if (w->ready)
				w->cu.cuDevicePrimaryCtxRelease(w->dev);
			w->ready = 0;
			wk_reply(wk_ok_reply(), NULL, 0);
			quit = 1;
			break;
		default:
			wk_reply_error("request", CUDA_ERROR_INVALID_VALUE, "unknown request", 0);
		}
		ks_msg_clear(&m);
	}
	ks_free(w);
	return 0;
}
