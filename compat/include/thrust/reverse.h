/* kscore compatibility header <thrust/reverse.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
