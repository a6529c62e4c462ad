/* kscore compatibility header <thrust/uninitialized_copy.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
