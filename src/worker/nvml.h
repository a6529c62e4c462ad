/* nvml: reads the GPU's clocks, temperature, power and throttle reasons through NVML, loaded at
 * run time from the driver's libnvidia-ml.so.1 (optional: where it is missing the status says so).
 * Read-only: kscore never changes clocks or any other setting of the GPU. */
#ifndef KS_NVML_H
#define KS_NVML_H

#include <stdint.h>

typedef struct {
	int valid;                     /* 0 when NVML is unavailable */
	unsigned sm_mhz, mem_mhz, sm_max_mhz;
	unsigned temperature_c;
	unsigned power_mw;
	unsigned long long throttle;   /* NVML clocks-event reason bits */
	char error[128];
} ks_gpu_status;

/* Fills *st for the device at PCI bus id `pci` ("0000:01:00.0"). Never fails; st->valid says. */
void ks_nvml_status(ks_gpu_status *st, const char *pci);

/* Names the throttle reason bits ("sw_power_cap, hw_slowdown"), "none" for 0. Static storage. */
const char *ks_nvml_throttle_names(unsigned long long bits);

#endif
