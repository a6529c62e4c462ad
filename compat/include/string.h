/* kscore compatibility header <string.h>: memcpy and memset are NVRTC built-ins. */
extern "C++" {
#include <kscore/prelude.h>
}
