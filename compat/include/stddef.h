/* kscore compatibility header <stddef.h>: size_t, ptrdiff_t, NULL and offsetof (libcu++). */
extern "C++" {
#include <kscore/prelude.h>
#include <cuda/std/cstddef>
}
