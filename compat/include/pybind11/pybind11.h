/* kscore compatibility header <pybind11/pybind11.h>, a stand-in: host-only (a PyTorch extension's wrapper), see
 * kscore/torch.h. */
#include <kscore/torch.h>
