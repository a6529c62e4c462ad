/* kscore compatibility headers: thrust's host side.
 *
 * thrust's algorithms and containers launch kernels and allocate memory from the host; under NVRTC
 * their headers do not even compile ("a function explicitly marked as a __host__ function is not
 * allowed in JIT mode"). kscore replaces those headers with this stand-in, so that an include
 * kept from a host wrapper compiles, and a use in device code fails with the message below.
 * thrust's device-side headers (tuple.h, pair.h, functional.h, random.h, iterator/...) are
 * thrust's own; <thrust/complex.h> is kscore's, on top of cuda::std::complex. */
#ifndef KSCORE_THRUST_H
#define KSCORE_THRUST_H

#include <kscore/host_only.h>

namespace thrust {
KSCORE_HOST_ONLY_TEMPLATE(kscore_thrust_algorithm, "kscore: thrust's algorithms and memory functions "
	"launch kernels and allocate from the host; kscore compiles device code only (NVRTC): use "
	"cub's block- and warp-level primitives (<cub/cub.cuh>) or a loop in the kernel");
KSCORE_HOST_ONLY_TEMPLATE(device_vector, "kscore: thrust::device_vector (<thrust/device_vector.h>) "
	"is host-only and cannot be used in device code: take a pointer argument");
KSCORE_HOST_ONLY_TEMPLATE(host_vector, "kscore: thrust::host_vector (<thrust/host_vector.h>) is "
	"host-only and cannot be used in device code");
KSCORE_HOST_ONLY_TEMPLATE(universal_vector, "kscore: thrust::universal_vector is host-only and "
	"cannot be used in device code");
KSCORE_HOST_ONLY_TEMPLATE(device_ptr, "kscore: thrust::device_ptr (<thrust/device_ptr.h>) is not "
	"available: use a raw pointer");
KSCORE_HOST_ONLY_TEMPLATE(device_reference, "kscore: thrust::device_reference is not available: "
	"use a raw pointer");

/* Execution policies exist so that a call names its policy; the call itself fails as above. */
struct kscore_execution_policy {};
static constexpr kscore_execution_policy seq{}, device{}, host{}, cpp{}, omp{}, tbb{};
namespace cuda {
static constexpr kscore_execution_policy par{}, par_nosync{};
}

#define KSCORE_THRUST_ALGORITHM(name)                                                         \
	template <class... A> __host__ __device__ kscore_thrust_algorithm<A...> name(A &&...)
KSCORE_THRUST_ALGORITHM(adjacent_difference); KSCORE_THRUST_ALGORITHM(all_of);
KSCORE_THRUST_ALGORITHM(any_of); KSCORE_THRUST_ALGORITHM(none_of);
KSCORE_THRUST_ALGORITHM(binary_search); KSCORE_THRUST_ALGORITHM(lower_bound);
KSCORE_THRUST_ALGORITHM(upper_bound); KSCORE_THRUST_ALGORITHM(equal_range);
KSCORE_THRUST_ALGORITHM(copy); KSCORE_THRUST_ALGORITHM(copy_if); KSCORE_THRUST_ALGORITHM(copy_n);
KSCORE_THRUST_ALGORITHM(count); KSCORE_THRUST_ALGORITHM(count_if); KSCORE_THRUST_ALGORITHM(equal);
KSCORE_THRUST_ALGORITHM(exclusive_scan); KSCORE_THRUST_ALGORITHM(exclusive_scan_by_key);
KSCORE_THRUST_ALGORITHM(inclusive_scan); KSCORE_THRUST_ALGORITHM(inclusive_scan_by_key);
KSCORE_THRUST_ALGORITHM(fill); KSCORE_THRUST_ALGORITHM(fill_n); KSCORE_THRUST_ALGORITHM(find);
KSCORE_THRUST_ALGORITHM(find_if); KSCORE_THRUST_ALGORITHM(find_if_not);
KSCORE_THRUST_ALGORITHM(for_each); KSCORE_THRUST_ALGORITHM(for_each_n);
KSCORE_THRUST_ALGORITHM(gather); KSCORE_THRUST_ALGORITHM(gather_if);
KSCORE_THRUST_ALGORITHM(generate); KSCORE_THRUST_ALGORITHM(generate_n);
KSCORE_THRUST_ALGORITHM(inner_product); KSCORE_THRUST_ALGORITHM(is_partitioned);
KSCORE_THRUST_ALGORITHM(is_sorted); KSCORE_THRUST_ALGORITHM(is_sorted_until);
KSCORE_THRUST_ALGORITHM(max_element); KSCORE_THRUST_ALGORITHM(min_element);
KSCORE_THRUST_ALGORITHM(minmax_element); KSCORE_THRUST_ALGORITHM(merge);
KSCORE_THRUST_ALGORITHM(merge_by_key); KSCORE_THRUST_ALGORITHM(mismatch);
KSCORE_THRUST_ALGORITHM(partition); KSCORE_THRUST_ALGORITHM(partition_copy);
KSCORE_THRUST_ALGORITHM(stable_partition); KSCORE_THRUST_ALGORITHM(reduce);
KSCORE_THRUST_ALGORITHM(reduce_by_key); KSCORE_THRUST_ALGORITHM(remove);
KSCORE_THRUST_ALGORITHM(remove_if); KSCORE_THRUST_ALGORITHM(remove_copy);
KSCORE_THRUST_ALGORITHM(remove_copy_if); KSCORE_THRUST_ALGORITHM(replace);
KSCORE_THRUST_ALGORITHM(replace_if); KSCORE_THRUST_ALGORITHM(replace_copy);
KSCORE_THRUST_ALGORITHM(replace_copy_if); KSCORE_THRUST_ALGORITHM(reverse);
KSCORE_THRUST_ALGORITHM(reverse_copy); KSCORE_THRUST_ALGORITHM(scatter);
KSCORE_THRUST_ALGORITHM(scatter_if); KSCORE_THRUST_ALGORITHM(sequence);
KSCORE_THRUST_ALGORITHM(set_difference); KSCORE_THRUST_ALGORITHM(set_intersection);
KSCORE_THRUST_ALGORITHM(set_symmetric_difference); KSCORE_THRUST_ALGORITHM(set_union);
KSCORE_THRUST_ALGORITHM(shuffle); KSCORE_THRUST_ALGORITHM(shuffle_copy);
KSCORE_THRUST_ALGORITHM(sort); KSCORE_THRUST_ALGORITHM(sort_by_key);
KSCORE_THRUST_ALGORITHM(stable_sort); KSCORE_THRUST_ALGORITHM(stable_sort_by_key);
KSCORE_THRUST_ALGORITHM(swap_ranges); KSCORE_THRUST_ALGORITHM(tabulate);
KSCORE_THRUST_ALGORITHM(transform); KSCORE_THRUST_ALGORITHM(transform_if);
KSCORE_THRUST_ALGORITHM(transform_reduce); KSCORE_THRUST_ALGORITHM(transform_inclusive_scan);
KSCORE_THRUST_ALGORITHM(transform_exclusive_scan); KSCORE_THRUST_ALGORITHM(uninitialized_copy);
KSCORE_THRUST_ALGORITHM(uninitialized_copy_n); KSCORE_THRUST_ALGORITHM(uninitialized_fill);
KSCORE_THRUST_ALGORITHM(uninitialized_fill_n); KSCORE_THRUST_ALGORITHM(unique);
KSCORE_THRUST_ALGORITHM(unique_by_key); KSCORE_THRUST_ALGORITHM(unique_copy);
KSCORE_THRUST_ALGORITHM(unique_count); KSCORE_THRUST_ALGORITHM(raw_pointer_cast);
KSCORE_THRUST_ALGORITHM(device_pointer_cast); KSCORE_THRUST_ALGORITHM(device_malloc);
KSCORE_THRUST_ALGORITHM(device_free); KSCORE_THRUST_ALGORITHM(device_new);
KSCORE_THRUST_ALGORITHM(device_delete); KSCORE_THRUST_ALGORITHM(malloc);
KSCORE_THRUST_ALGORITHM(free); KSCORE_THRUST_ALGORITHM(get_temporary_buffer);
KSCORE_THRUST_ALGORITHM(return_temporary_buffer); KSCORE_THRUST_ALGORITHM(swap);
#undef KSCORE_THRUST_ALGORITHM
}

#endif
