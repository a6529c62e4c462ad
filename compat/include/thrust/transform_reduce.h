/* kscore compatibility header <thrust/transform_reduce.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
