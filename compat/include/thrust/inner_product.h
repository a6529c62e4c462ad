/* kscore compatibility header <thrust/inner_product.h>, a stand-in: host-side thrust, see kscore/thrust.h. */
#include <kscore/thrust.h>
