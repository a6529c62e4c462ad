#include "worker/nvml.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/* The few NVML entry points used, with their stable C ABI (nvml.h is not part of every toolkit). */
typedef int (*init_fn)(void);
typedef int (*handle_fn)(const char *, void **);
typedef int (*clock_fn)(void *, int, unsigned *);
typedef int (*temp_fn)(void *, int, unsigned *);
typedef int (*power_fn)(void *, unsigned *);
typedef int (*reasons_fn)(void *, unsigned long long *);

void ks_nvml_status(ks_gpu_status *st, const char *pci)
{
	static void *lib;
	static int inited;
	init_fn init;
	handle_fn handle;
	clock_fn clock, maxclock;
	temp_fn temp;
	power_fn power;
	reasons_fn reasons;
	void *dev = NULL;

	memset(st, 0, sizeof(*st));
	if (!lib)
		lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(st->error, sizeof(st->error), "NVML unavailable");
		return;
	}
	*(void **)&init = dlsym(lib, "nvmlInit_v2");
	*(void **)&handle = dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2");
	*(void **)&clock = dlsym(lib, "nvmlDeviceGetClockInfo");
	*(void **)&maxclock = dlsym(lib, "nvmlDeviceGetMaxClockInfo");
	*(void **)&temp = dlsym(lib, "nvmlDeviceGetTemperature");
	*(void **)&power = dlsym(lib, "nvmlDeviceGetPowerUsage");
	*(void **)&reasons = dlsym(lib, "nvmlDeviceGetCurrentClocksEventReasons");
	if (!reasons)
		*(void **)&reasons = dlsym(lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
	if (!init || !handle || !clock || !temp) {
		snprintf(st->error, sizeof(st->error), "NVML lacks the needed entry points");
		return;
	}
	if (!inited && init() != 0) {
		snprintf(st->error, sizeof(st->error), "nvmlInit failed");
		return;
	}
	inited = 1;
	if (handle(pci, &dev) != 0) {
		snprintf(st->error, sizeof(st->error), "NVML does not know device %s", pci);
		return;
	}
	/* NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2, NVML_TEMPERATURE_GPU = 0 */
	clock(dev, 1, &st->sm_mhz);
	clock(dev, 2, &st->mem_mhz);
	if (maxclock)
		maxclock(dev, 1, &st->sm_max_mhz);
	temp(dev, 0, &st->temperature_c);
	if (power)
		power(dev, &st->power_mw);
	if (reasons)
		reasons(dev, &st->throttle);
	st->valid = 1;
}

const char *ks_nvml_throttle_names(unsigned long long bits)
{
	static const struct {
		unsigned long long bit;
		const char *name;
	} names[] = {
		{ 0x1ull, "gpu_idle" },          { 0x2ull, "application_clocks" },
		{ 0x4ull, "sw_power_cap" },      { 0x8ull, "hw_slowdown" },
		{ 0x10ull, "sync_boost" },       { 0x20ull, "sw_thermal" },
		{ 0x40ull, "hw_thermal" },       { 0x80ull, "hw_power_brake" },
		{ 0x100ull, "display_clocks" },
	};
	static _Thread_local char buf[256];
	size_t i, o = 0;
	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (bits & names[i].bit)
			o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", o ? ", " : "", names[i].name);
	return o ? buf : "none";
}
