/* kscore compatibility header <cub/device/device_run_length_encode.cuh>, a stand-in: see kscore/cub_device.h. */
#include <kscore/cub_device.h>
