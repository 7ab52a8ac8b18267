// nn/dropout.cpp — Dropout and Dropout2d: probability check and repr, forward through F.dropout / F.dropout2d.
#include "nn/dropout.h"

#include "nn/functional.h"
#include "nn/repr.h"

namespace tl::nn {

DropoutBase::DropoutBase(const DropoutOptions& options, const char* who) : options_(options) {
  TL_CHECK(options.p >= 0.0 && options.p <= 1.0, who, ": dropout probability has to be between 0 and 1, but got ",
           options.p);
}

std::string DropoutBase::extra_repr() const {
  return "p=" + py_float(options_.p) + ", inplace=" + py_bool(options_.inplace);
}

Tensor Dropout::forward(const Tensor& input) {
  return functional::dropout(input, options().p, is_training(), options().inplace);
}

Tensor Dropout2d::forward(const Tensor& input) {
  return functional::dropout2d(input, options().p, is_training(), options().inplace);
}

}  // namespace tl::nn
