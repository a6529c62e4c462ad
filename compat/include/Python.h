/* kscore compatibility header <Python.h>, a stand-in: host-only (a Python extension), see kscore/torch.h. */
#include <kscore/torch.h>
