/* kscore compatibility header <thrust/set_operations.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
