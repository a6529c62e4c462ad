/* kscore compatibility header <thrust/adjacent_difference.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
