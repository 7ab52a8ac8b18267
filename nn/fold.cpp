// nn/fold.cpp — Unfold and Fold: F.unfold / F.fold with the layer's window, repr as PyTorch's (arguments
// in the form given: "kernel_size=2" or "(2, 3)").
#include "nn/fold.h"

namespace tl::nn {
namespace {

std::string window_repr(const IntPair& kernel_size, const IntPair& dilation, const IntPair& padding,
                        const IntPair& stride) {
  return "kernel_size=" + kernel_size.repr() + ", dilation=" + dilation.repr() + ", padding=" + padding.repr() +
         ", stride=" + stride.repr();
}

}  // namespace

Unfold::Unfold(const UnfoldOptions& options) : options_(options) {}

Tensor Unfold::forward(const Tensor& input) {
  const UnfoldOptions& o = options_;
  return functional::unfold(input, o.kernel_size, o.dilation, o.padding, o.stride);
}

std::string Unfold::extra_repr() const {
  const UnfoldOptions& o = options_;
  return window_repr(o.kernel_size, o.dilation, o.padding, o.stride);
}

Fold::Fold(const FoldOptions& options) : options_(options) {}

Tensor Fold::forward(const Tensor& input) {
  const FoldOptions& o = options_;
  return functional::fold(input, o.output_size, o.kernel_size, o.dilation, o.padding, o.stride);
}

std::string Fold::extra_repr() const {
  const FoldOptions& o = options_;
  return "output_size=" + o.output_size.repr() + ", " + window_repr(o.kernel_size, o.dilation, o.padding, o.stride);
}

}  // namespace tl::nn
