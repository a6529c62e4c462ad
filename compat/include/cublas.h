/* kscore compatibility header <cublas.h>, a stand-in: cuBLAS is a host library, see kscore/cublas.h. */
#include <kscore/cublas.h>
