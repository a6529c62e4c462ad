/* kscore compatibility headers: std::swap, shared by <utility> and <algorithm>. kscore's own so
 * that <algorithm> stays cheap (libcu++'s <cuda/std/utility> costs half a second per compile). */
#ifndef KSCORE_SWAP_H
#define KSCORE_SWAP_H

namespace std {
template <class T> __host__ __device__ constexpr void swap(T &a, T &b)
{
	T t(static_cast<T &&>(a));
	a = static_cast<T &&>(b);
	b = static_cast<T &&>(t);
}
template <class T, size_t N> __host__ __device__ constexpr void swap(T (&a)[N], T (&b)[N])
{
	for (size_t i = 0; i < N; ++i)
		swap(a[i], b[i]);
}
template <class I, class J> __host__ __device__ constexpr void iter_swap(I a, J b)
{
	swap(*a, *b);
}
}

#endif
