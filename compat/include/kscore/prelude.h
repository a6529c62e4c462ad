/* kscore compatibility headers: pre-included in every compile (NVRTC --pre-include).
 *
 * Under nvcc, cuda_runtime.h is included implicitly and brings <math.h>, <stdlib.h>, <stdio.h> and
 * the standard integer types; models write code that relies on it (int64_t, FLT_MAX, INFINITY,
 * M_PI, std::numeric_limits, std::min without an include). This header gives device code the
 * same names, and nothing costly: libcu++'s <cuda/std/cstdint> (a few small files), then kscore's
 * own definitions. It must stay light: every compile pays for it. */
#ifndef KSCORE_PRELUDE_H
#define KSCORE_PRELUDE_H

#define KSCORE_COMPAT 1

#include <cuda/std/cstdint>
#include <kscore/cfloat.h>
#include <kscore/cmath.h>
#include <kscore/limits.h>
#include <kscore/minmax.h>

namespace std {
using ::size_t; using ::ptrdiff_t;
typedef decltype(nullptr) nullptr_t;
using ::int8_t; using ::int16_t; using ::int32_t; using ::int64_t;
using ::uint8_t; using ::uint16_t; using ::uint32_t; using ::uint64_t;
using ::int_least8_t; using ::int_least16_t; using ::int_least32_t; using ::int_least64_t;
using ::uint_least8_t; using ::uint_least16_t; using ::uint_least32_t; using ::uint_least64_t;
using ::int_fast8_t; using ::int_fast16_t; using ::int_fast32_t; using ::int_fast64_t;
using ::uint_fast8_t; using ::uint_fast16_t; using ::uint_fast32_t; using ::uint_fast64_t;
using ::intptr_t; using ::uintptr_t; using ::intmax_t; using ::uintmax_t;
}

#endif
