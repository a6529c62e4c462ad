/* kscore compatibility headers: std::min and std::max, usable in device code (nvcc allows the host
 * ones with --expt-relaxed-constexpr, which PyTorch extensions pass). Pre-included: a
 * submission that calls std::max having included only <cmath> compiles under nvcc too. */
#ifndef KSCORE_MINMAX_H
#define KSCORE_MINMAX_H

namespace std {
template <class T> __host__ __device__ constexpr const T &min(const T &a, const T &b)
{
	return b < a ? b : a;
}
template <class T, class C> __host__ __device__ constexpr const T &min(const T &a, const T &b, C less)
{
	return less(b, a) ? b : a;
}
template <class T> __host__ __device__ constexpr const T &max(const T &a, const T &b)
{
	return a < b ? b : a;
}
template <class T, class C> __host__ __device__ constexpr const T &max(const T &a, const T &b, C less)
{
	return less(a, b) ? b : a;
}
/* The list forms: the leftmost least (min) or greatest (max) element under `less`, as the standard
 * says. */
template <class T, class C> __host__ __device__ constexpr T min(initializer_list<T> l, C less)
{
	const T *m = l.begin();
	for (const T *p = l.begin(); p != l.end(); ++p)
		if (less(*p, *m))
			m = p;
	return *m;
}
template <class T, class C> __host__ __device__ constexpr T max(initializer_list<T> l, C less)
{
	const T *m = l.begin();
	for (const T *p = l.begin(); p != l.end(); ++p)
		if (less(*m, *p))
			m = p;
	return *m;
}
/* operator<, for the list forms without a comparison */
struct __kscore_less {
	template <class T> __host__ __device__ constexpr bool operator()(const T &a, const T &b) const
	{
		return a < b;
	}
};
template <class T> __host__ __device__ constexpr T min(initializer_list<T> l)
{
	return min(l, __kscore_less());
}
template <class T> __host__ __device__ constexpr T max(initializer_list<T> l)
{
	return max(l, __kscore_less());
}
}

#endif
