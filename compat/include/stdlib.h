/* kscore compatibility header <stdlib.h>: malloc, free and abs are NVRTC built-ins (device heap). */
extern "C++" {
#include <kscore/prelude.h>
}
#ifndef EXIT_SUCCESS
#define EXIT_SUCCESS 0
#define EXIT_FAILURE 1
#endif
