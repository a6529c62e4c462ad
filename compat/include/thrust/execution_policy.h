/* kscore compatibility header <thrust/execution_policy.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
