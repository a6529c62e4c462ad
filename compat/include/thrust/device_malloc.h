/* kscore compatibility header <thrust/device_malloc.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
