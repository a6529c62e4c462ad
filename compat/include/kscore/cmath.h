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
