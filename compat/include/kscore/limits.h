/* kscore compatibility headers: std::numeric_limits for the arithmetic types, constexpr and usable
 * in device code (what <limits> gives under nvcc with --expt-relaxed-constexpr). Written here
 * rather than taken from libcu++ because <cuda/std/limits> costs a tenth of a second per compile
 * and this header is pre-included in every one. cuda::std::numeric_limits is a separate template
 * and stays available through <cuda/std/limits>. */
#ifndef KSCORE_LIMITS_H
#define KSCORE_LIMITS_H

#include <kscore/cfloat.h>

namespace std {

enum float_round_style {
	round_indeterminate = -1,
	round_toward_zero = 0,
	round_to_nearest = 1,
	round_toward_infinity = 2,
	round_toward_neg_infinity = 3
};

enum float_denorm_style { denorm_indeterminate = -1, denorm_absent = 0, denorm_present = 1 };

/* Types that are not arithmetic: every member is zero or false, as the standard says. */
template <class T> struct numeric_limits {
	static constexpr bool is_specialized = false;
	static constexpr bool is_signed = false, is_integer = false, is_exact = false;
	static constexpr bool has_infinity = false, has_quiet_NaN = false, has_signaling_NaN = false;
	static constexpr float_denorm_style has_denorm = denorm_absent;
	static constexpr bool has_denorm_loss = false, is_iec559 = false, is_bounded = false;
	static constexpr bool is_modulo = false, traps = false, tinyness_before = false;
	static constexpr float_round_style round_style = round_toward_zero;
	static constexpr int digits = 0, digits10 = 0, max_digits10 = 0, radix = 0;
	static constexpr int min_exponent = 0, min_exponent10 = 0, max_exponent = 0, max_exponent10 = 0;
	__host__ __device__ static constexpr T min() noexcept { return T(); }
	__host__ __device__ static constexpr T max() noexcept { return T(); }
	__host__ __device__ static constexpr T lowest() noexcept { return T(); }
	__host__ __device__ static constexpr T epsilon() noexcept { return T(); }
	__host__ __device__ static constexpr T round_error() noexcept { return T(); }
	__host__ __device__ static constexpr T infinity() noexcept { return T(); }
	__host__ __device__ static constexpr T quiet_NaN() noexcept { return T(); }
	__host__ __device__ static constexpr T signaling_NaN() noexcept { return T(); }
	__host__ __device__ static constexpr T denorm_min() noexcept { return T(); }
};

template <class T> struct numeric_limits<const T> : numeric_limits<T> {};
template <class T> struct numeric_limits<volatile T> : numeric_limits<T> {};
template <class T> struct numeric_limits<const volatile T> : numeric_limits<T> {};

/* Integers: two's complement; digits excludes the sign bit. */
#define KSCORE_INT_LIMITS(T, SIGNED, MIN, MAX, DIGITS, DIGITS10)                                 \
	template <> struct numeric_limits<T> {                                                   \
		static constexpr bool is_specialized = true;                                     \
		static constexpr bool is_signed = SIGNED, is_integer = true, is_exact = true;    \
		static constexpr bool has_infinity = false, has_quiet_NaN = false;               \
		static constexpr bool has_signaling_NaN = false;                                 \
		static constexpr float_denorm_style has_denorm = denorm_absent;                  \
		static constexpr bool has_denorm_loss = false, is_iec559 = false;                \
		static constexpr bool is_bounded = true, is_modulo = !SIGNED, traps = false;     \
		static constexpr bool tinyness_before = false;                                   \
		static constexpr float_round_style round_style = round_toward_zero;              \
		static constexpr int digits = DIGITS, digits10 = DIGITS10, max_digits10 = 0;     \
		static constexpr int radix = 2;                                                  \
		static constexpr int min_exponent = 0, min_exponent10 = 0;                       \
		static constexpr int max_exponent = 0, max_exponent10 = 0;                       \
		__host__ __device__ static constexpr T min() noexcept { return MIN; }            \
		__host__ __device__ static constexpr T max() noexcept { return MAX; }            \
		__host__ __device__ static constexpr T lowest() noexcept { return MIN; }         \
		__host__ __device__ static constexpr T epsilon() noexcept { return 0; }          \
		__host__ __device__ static constexpr T round_error() noexcept { return 0; }      \
		__host__ __device__ static constexpr T infinity() noexcept { return 0; }         \
		__host__ __device__ static constexpr T quiet_NaN() noexcept { return 0; }        \
		__host__ __device__ static constexpr T signaling_NaN() noexcept { return 0; }    \
		__host__ __device__ static constexpr T denorm_min() noexcept { return 0; }       \
	}

KSCORE_INT_LIMITS(bool, false, false, true, 1, 0);
KSCORE_INT_LIMITS(char, true, (char)(-128), (char)127, 7, 2);
KSCORE_INT_LIMITS(signed char, true, (signed char)(-128), (signed char)127, 7, 2);
KSCORE_INT_LIMITS(unsigned char, false, (unsigned char)0, (unsigned char)255, 8, 2);
KSCORE_INT_LIMITS(wchar_t, true, (wchar_t)(-2147483647 - 1), (wchar_t)2147483647, 31, 9);
KSCORE_INT_LIMITS(char16_t, false, (char16_t)0, (char16_t)65535, 16, 4);
KSCORE_INT_LIMITS(char32_t, false, (char32_t)0, (char32_t)4294967295u, 32, 9);
KSCORE_INT_LIMITS(short, true, (short)(-32768), (short)32767, 15, 4);
KSCORE_INT_LIMITS(unsigned short, false, (unsigned short)0, (unsigned short)65535, 16, 4);
KSCORE_INT_LIMITS(int, true, -2147483647 - 1, 2147483647, 31, 9);
KSCORE_INT_LIMITS(unsigned int, false, 0u, 4294967295u, 32, 9);
KSCORE_INT_LIMITS(long, true, -9223372036854775807L - 1, 9223372036854775807L, 63, 18);
KSCORE_INT_LIMITS(unsigned long, false, 0ul, 18446744073709551615ul, 64, 19);
KSCORE_INT_LIMITS(long long, true, -9223372036854775807LL - 1, 9223372036854775807LL, 63, 18);
KSCORE_INT_LIMITS(unsigned long long, false, 0ull, 18446744073709551615ull, 64, 19);
#undef KSCORE_INT_LIMITS

/* IEEE 754 binary32 and binary64. */
#define KSCORE_FP_LIMITS(T, U, P, INF, QNAN, SNAN)                                           \
	template <> struct numeric_limits<T> {                                                   \
		static constexpr bool is_specialized = true;                                     \
		static constexpr bool is_signed = true, is_integer = false, is_exact = false;    \
		static constexpr bool has_infinity = true, has_quiet_NaN = true;                 \
		static constexpr bool has_signaling_NaN = true;                                  \
		static constexpr float_denorm_style has_denorm = denorm_present;                 \
		static constexpr bool has_denorm_loss = false, is_iec559 = true;                 \
		static constexpr bool is_bounded = true, is_modulo = false, traps = false;       \
		static constexpr bool tinyness_before = false;                                   \
		static constexpr float_round_style round_style = round_to_nearest;               \
		static constexpr int digits = P##_MANT_DIG, digits10 = P##_DIG;                  \
		static constexpr int max_digits10 = P##_DECIMAL_DIG, radix = 2;                  \
		static constexpr int min_exponent = P##_MIN_EXP;                                 \
		static constexpr int min_exponent10 = P##_MIN_10_EXP;                            \
		static constexpr int max_exponent = P##_MAX_EXP;                                 \
		static constexpr int max_exponent10 = P##_MAX_10_EXP;                           \
		__host__ __device__ static constexpr T min() noexcept { return P##_MIN; }        \
		__host__ __device__ static constexpr T max() noexcept { return P##_MAX; }        \
		__host__ __device__ static constexpr T lowest() noexcept { return -P##_MAX; }    \
		__host__ __device__ static constexpr T epsilon() noexcept { return P##_EPSILON; }\
		__host__ __device__ static constexpr T round_error() noexcept { return 0.5; }    \
		__host__ __device__ static constexpr T infinity() noexcept                       \
		{ return __builtin_bit_cast(T, (U)INF); }                                        \
		__host__ __device__ static constexpr T quiet_NaN() noexcept                      \
		{ return __builtin_bit_cast(T, (U)QNAN); }                                       \
		__host__ __device__ static constexpr T signaling_NaN() noexcept                  \
		{ return __builtin_bit_cast(T, (U)SNAN); }                                       \
		__host__ __device__ static constexpr T denorm_min() noexcept { return P##_TRUE_MIN; } \
	}

KSCORE_FP_LIMITS(float, unsigned int, FLT, 0x7f800000u, 0x7fc00000u, 0x7fa00000u);
KSCORE_FP_LIMITS(double, unsigned long long, DBL, 0x7ff0000000000000ull, 0x7ff8000000000000ull,
		 0x7ff4000000000000ull);
#undef KSCORE_FP_LIMITS

}

#endif
