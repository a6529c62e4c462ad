/* kscore compatibility header <stdio.h>: printf is an NVRTC built-in (device printf); files and
 * streams do not exist in device code, so nothing else is declared. */
extern "C++" {
#include <kscore/prelude.h>
}

/* An opaque FILE, so that host declarations that mention it (cusparse.h) compile. */
struct _IO_FILE;
typedef struct _IO_FILE FILE;
