/* device: plain descriptions of a GPU and of a compiled kernel, as a worker reports them, and the
 * reading of a GPU's description. Data only otherwise: the result model, the report and the timing
 * stage include this without pulling in the worker process layer (worker.h). */
#ifndef KS_DEVICE_H
#define KS_DEVICE_H

#include <stdint.h>

#include <cJSON.h>

typedef struct {
	char name[256], uuid[64], pci_bus_id[32];
	int driver_version;      /* e.g. 13000 */
	int cc_major, cc_minor, sm_count, l2_bytes, max_shared_per_block;
	int clock_khz, memory_clock_khz, memory_bus_bits, ecc, persisting_l2_max;
	uint64_t memory_bytes;
	int device_count;        /* devices the driver sees (after CUDA_VISIBLE_DEVICES) */
} ks_device_info;

/* Fills *info from a worker's description of its GPU (HELLO's reply, or its first reply; the
 * worker's describe in worker_main.c); what the description lacks is 0. */
void ks_device_parse(ks_device_info *info, const cJSON *j);

/* The largest device ordinal an option may name (--device, --devices). */
#define KS_DEVICE_MAX_ORDINAL 1023

#define KS_MAX_PARAMS 64

typedef struct {
	int registers, shared_static, local_bytes, const_bytes, max_threads;
	int nparams;             /* -1 when the driver cannot tell */
	int param_sizes[KS_MAX_PARAMS];
} ks_func_info;

#endif
