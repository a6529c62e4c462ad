/* kscore compatibility header <assert.h>: assert() in device code (libcu++). */
extern "C++" {
#include <cuda/std/cassert>
}
