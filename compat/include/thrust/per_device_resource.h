/* kscore compatibility header <thrust/per_device_resource.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
