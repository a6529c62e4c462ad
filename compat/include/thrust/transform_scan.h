/* kscore compatibility header <thrust/transform_scan.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
