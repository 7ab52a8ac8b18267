// nn/dropout.cpp — Dropout: probability check and repr, forward through F.dropout.
#include "nn/dropout.h"

#include "nn/functional.h"
#include "nn/repr.h"

namespace tl::nn {

Dropout::Dropout(const DropoutOptions& options) : options_(options) {
  TL_CHECK(options.p >= 0.0 && options.p <= 1.0, "Dropout: dropout probability has to be between 0 and 1, but got ",
           options.p);
}

Tensor Dropout::forward(const Tensor& input) {
  return functional::dropout(input, options_.p, is_training(), options_.inplace);
}

std::string Dropout::extra_repr() const {
  return "p=" + py_float(options_.p) + ", inplace=" + py_bool(options_.inplace);
}

}  // namespace tl::nn
