/* kscore compatibility header <thrust/device_new_allocator.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
