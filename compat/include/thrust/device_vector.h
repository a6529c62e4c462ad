/* kscore compatibility header <thrust/device_vector.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
