#include "run/device.h"
#include "util/jsonutil.h"

#include <string.h>

static int num(const cJSON *j, const char *k)
{
	return (int)ks_json_num_or(j, k, 0);
}

void ks_device_parse(ks_device_info *info, const cJSON *j)
{
	double mem = 0;
	memset(info, 0, sizeof(*info));
	ks_json_str_copy(info->name, sizeof(info->name), j, "name");
	ks_json_str_copy(info->uuid, sizeof(info->uuid), j, "uuid");
	ks_json_str_copy(info->pci_bus_id, sizeof(info->pci_bus_id), j, "pci_bus_id");
	info->driver_version = num(j, "driver_version");
	info->cc_major = num(j, "cc_major");
	info->cc_minor = num(j, "cc_minor");
	info->sm_count = num(j, "sm_count");
	info->l2_bytes = num(j, "l2_bytes");
	info->max_shared_per_block = num(j, "max_shared_per_block");
	info->clock_khz = num(j, "clock_khz");
	info->memory_clock_khz = num(j, "memory_clock_khz");
	info->memory_bus_bits = num(j, "memory_bus_bits");
	info->ecc = num(j, "ecc");
	info->persisting_l2_max = num(j, "persisting_l2_max");
	info->device_count = num(j, "device_count");
	ks_json_num(&mem, j, "memory_bytes", 0);
	info->memory_bytes = (uint64_t)mem;
}
