/* kscore compatibility header <thrust/universal_ptr.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
