/* kscore compatibility header <cub/device/device_histogram.cuh>, a stand-in: see kscore/cub_device.h. */
#include <kscore/cub_device.h>
