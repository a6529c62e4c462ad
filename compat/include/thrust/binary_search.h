/* kscore compatibility header <thrust/binary_search.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
