/* kscore compatibility header <thrust/device_make_unique.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
