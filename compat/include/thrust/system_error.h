/* kscore compatibility header <thrust/system_error.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
