/* kscore compatibility headers: what <math.h> and <cmath> give device code under nvcc.
 *
 * The math functions themselves are NVRTC built-ins in the global namespace (sqrtf, expf, fmaxf and
 * their float/double overloads); this adds the <math.h> macros and puts the standard <cmath> names
 * into namespace std, so that std::sqrt(x) and std::isnan(x) mean what they mean under nvcc.
 * Using-declarations only: no libcu++ header is parsed, so the cost is nil. */
#ifndef KSCORE_CMATH_H
#define KSCORE_CMATH_H

#ifndef INFINITY
#define INFINITY (__builtin_bit_cast(float, 0x7f800000u))
#endif
#ifndef NAN
#define NAN (__builtin_bit_cast(float, 0x7fc00000u))
#endif
#ifndef HUGE_VALF
#define HUGE_VALF INFINITY
#endif
#ifndef HUGE_VAL
#define HUGE_VAL (__builtin_bit_cast(double, 0x7ff0000000000000ull))
#endif
#ifndef MAXFLOAT
#define MAXFLOAT 3.40282346638528859811704183484516925e+38F
#endif

/* The XSI constants glibc defines by default (g++ sets _GNU_SOURCE), as double literals. */
#ifndef M_PI
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#endif

/* Mixed argument types. nvcc sees the host's <cmath>, whose templates (std::pow(T, U) and its
 * kin, brought into the global namespace by <math.h>) promote mixed arithmetic arguments to double:
 * pow(float, double) and pow(2, n) resolve to them, and so does fmax(int, int), a constexpr host
 * template that device code may call because PyTorch's extension build passes nvcc
 * --expt-relaxed-constexpr. NVRTC has only the float and double overloads, which are ambiguous
 * for these arguments (and rejects both that option and __host__ functions), so kscore gives
 * device code the same promotion. It applies only where those overloads cannot decide: an integer
 * with a float keeps resolving to the float overload, as it did, so no code that compiled changes
 * its precision. The trailing parameter pack (always empty) makes these the least specialized
 * candidates, so an exact template of the source's own or of libcu++ (cuda::std::pow) still wins,
 * and the cast arguments call the built-in double overload, never these again. */
namespace __kscore_math {
template <class T> struct kind { static constexpr int v = 0; }; /* not arithmetic */
template <> struct kind<float> { static constexpr int v = 1; };
template <> struct kind<double> { static constexpr int v = 2; };
#define KSCORE_INTEGER_KIND(T)                                                                     \
	template <> struct kind<T> { static constexpr int v = 3; };
KSCORE_INTEGER_KIND(bool) KSCORE_INTEGER_KIND(char) KSCORE_INTEGER_KIND(signed char)
KSCORE_INTEGER_KIND(unsigned char) KSCORE_INTEGER_KIND(wchar_t) KSCORE_INTEGER_KIND(char16_t)
KSCORE_INTEGER_KIND(char32_t) KSCORE_INTEGER_KIND(short) KSCORE_INTEGER_KIND(unsigned short)
KSCORE_INTEGER_KIND(int) KSCORE_INTEGER_KIND(unsigned) KSCORE_INTEGER_KIND(long)
KSCORE_INTEGER_KIND(unsigned long) KSCORE_INTEGER_KIND(long long) KSCORE_INTEGER_KIND(unsigned long long)
#undef KSCORE_INTEGER_KIND
template <bool B> struct double_if {};
template <> struct double_if<true> { typedef double type; };
template <class A, class B, class... Extra>
struct promoted : double_if<sizeof...(Extra) == 0 && kind<A>::v && kind<B>::v &&
			    !(kind<A>::v == kind<B>::v && kind<A>::v < 3) &&
			    !((kind<A>::v == 1 && kind<B>::v == 3) || (kind<A>::v == 3 && kind<B>::v == 1))> {};
}
#define KSCORE_PROMOTE2(f)                                                                         \
	template <class A, class B, class... E>                                                    \
	__host__ __device__ inline typename __kscore_math::promoted<A, B, E...>::type f(A a, B b, E...) \
	{                                                                                          \
		return f((double)a, (double)b);                                                    \
	}
KSCORE_PROMOTE2(pow) KSCORE_PROMOTE2(fmax) KSCORE_PROMOTE2(fmin) KSCORE_PROMOTE2(fdim)
KSCORE_PROMOTE2(fmod) KSCORE_PROMOTE2(atan2) KSCORE_PROMOTE2(hypot) KSCORE_PROMOTE2(copysign)
KSCORE_PROMOTE2(nextafter) KSCORE_PROMOTE2(remainder)
#undef KSCORE_PROMOTE2

namespace std {
using ::abs; using ::labs; using ::llabs; using ::fabs; using ::fabsf;
using ::sqrt; using ::sqrtf; using ::cbrt; using ::cbrtf;
using ::exp; using ::expf; using ::exp2; using ::exp2f; using ::expm1; using ::expm1f;
using ::log; using ::logf; using ::log2; using ::log2f; using ::log10; using ::log10f;
using ::log1p; using ::log1pf; using ::logb; using ::logbf; using ::ilogb; using ::ilogbf;
using ::pow; using ::powf;
using ::sin; using ::sinf; using ::cos; using ::cosf; using ::tan; using ::tanf;
using ::asin; using ::asinf; using ::acos; using ::acosf; using ::atan; using ::atanf;
using ::atan2; using ::atan2f;
using ::sinh; using ::sinhf; using ::cosh; using ::coshf; using ::tanh; using ::tanhf;
using ::asinh; using ::asinhf; using ::acosh; using ::acoshf; using ::atanh; using ::atanhf;
using ::erf; using ::erff; using ::erfc; using ::erfcf; using ::tgamma; using ::tgammaf;
using ::lgamma; using ::lgammaf;
using ::floor; using ::floorf; using ::ceil; using ::ceilf; using ::round; using ::roundf;
using ::trunc; using ::truncf; using ::rint; using ::rintf; using ::nearbyint; using ::nearbyintf;
using ::lround; using ::lroundf; using ::llround; using ::llroundf;
using ::lrint; using ::lrintf; using ::llrint; using ::llrintf;
using ::fmod; using ::fmodf; using ::remainder; using ::remainderf; using ::remquo; using ::remquof;
using ::fmin; using ::fminf; using ::fmax; using ::fmaxf; using ::fdim; using ::fdimf;
using ::fma; using ::fmaf; using ::hypot; using ::hypotf;
using ::frexp; using ::frexpf; using ::ldexp; using ::ldexpf; using ::modf; using ::modff;
using ::scalbn; using ::scalbnf; using ::scalbln; using ::scalblnf;
using ::nextafter; using ::nextafterf; using ::copysign; using ::copysignf; using ::nan; using ::nanf;
using ::isnan; using ::isinf; using ::isfinite; using ::signbit;
typedef float float_t;
typedef double double_t;
}

#endif
