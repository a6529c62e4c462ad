/* kscore compatibility header <thrust/allocate_unique.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
