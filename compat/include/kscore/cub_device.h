/* kscore compatibility headers: CUB's device-wide algorithms (cub::DeviceReduce, DeviceScan, ...)
 * launch kernels from the host and do not compile under NVRTC; kscore replaces their headers with
 * this stand-in, so that an include kept from a host wrapper compiles, and a use fails with the
 * message below. */
#ifndef KSCORE_CUB_DEVICE_H
#define KSCORE_CUB_DEVICE_H

#include <kscore/host_only.h>

namespace cub {
template <class KsArg = void> struct kscore_device_wide {
	static_assert(::kscore::always_false<KsArg>::value, "kscore: CUB's device-wide algorithms "
		"(cub::Device*) launch kernels from the host; kscore compiles device code only (NVRTC): "
		"use the block- and warp-level primitives (cub::BlockReduce, cub::WarpReduce, ...)");
};
using DeviceAdjacentDifference = kscore_device_wide<>;
using DeviceCopy = kscore_device_wide<>;
using DeviceFor = kscore_device_wide<>;
using DeviceHistogram = kscore_device_wide<>;
using DeviceMemcpy = kscore_device_wide<>;
using DeviceMerge = kscore_device_wide<>;
using DeviceMergeSort = kscore_device_wide<>;
using DevicePartition = kscore_device_wide<>;
using DeviceRadixSort = kscore_device_wide<>;
using DeviceReduce = kscore_device_wide<>;
using DeviceRunLengthEncode = kscore_device_wide<>;
using DeviceScan = kscore_device_wide<>;
using DeviceSegmentedRadixSort = kscore_device_wide<>;
using DeviceSegmentedReduce = kscore_device_wide<>;
using DeviceSegmentedSort = kscore_device_wide<>;
using DeviceSelect = kscore_device_wide<>;
using DeviceSpmv = kscore_device_wide<>;
using DeviceTransform = kscore_device_wide<>;
using DeviceTopK = kscore_device_wide<>;
using DeviceFind = kscore_device_wide<>;
}

#endif
