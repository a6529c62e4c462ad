/* kscore compatibility header <thrust/device_reference.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
