/* kscore compatibility header <torch/torch.h>, a stand-in: host-only (a PyTorch extension's wrapper), see
 * kscore/torch.h. */
#include <kscore/torch.h>
