// core/print.cpp — PyTorch-style tensor printing (placeholder replaced below).
#include <ostream>

#include "core/tensor.h"

namespace tl {
std::ostream& operator<<(std::ostream& os, const Tensor& t) { return os << "tensor(" << t.shape() << ")"; }
}  // namespace tl
