/* kscore compatibility header <thrust/complex.h>: thrust::complex is cuda::std::complex here.
 * thrust's own header does not compile under NVRTC (it converts to and from the host's
 * std::complex); libcu++'s complex has the same members, operators and functions. */
#ifndef KSCORE_THRUST_COMPLEX_H
#define KSCORE_THRUST_COMPLEX_H

#include <complex>

namespace thrust {
template <class T> using complex = cuda::std::complex<T>;
using std::abs; using std::arg; using std::norm; using std::conj; using std::proj; using std::polar;
using std::exp; using std::log; using std::log10; using std::sqrt; using std::pow;
using std::sin; using std::cos; using std::tan; using std::sinh; using std::cosh; using std::tanh;
}

#endif
