/* kscore compatibility header <float.h>: see kscore/prelude.h (pre-included; this keeps the include valid). */
extern "C++" {
#include <kscore/prelude.h>
}
