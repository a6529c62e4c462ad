/* kscore compatibility header <thrust/for_each.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
