/* kscore compatibility header <thrust/sequence.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
