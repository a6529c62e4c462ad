/* kscore compatibility header <thrust/shuffle.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
