// nn/normalization.cpp — LayerNorm, as torch.nn.LayerNorm: F.layer_norm with the module's parameters.
#include "nn/normalization.h"

#include "nn/functional.h"
#include "nn/init.h"
#include "nn/repr.h"

namespace tl::nn {

LayerNorm::LayerNorm(const LayerNormOptions& options) : options_(options) {
  const LayerNormOptions& o = options_;
  for (int64_t d : o.normalized_shape)
    TL_CHECK(d >= 0, "LayerNorm: normalized_shape must not have a negative size, got ", o.normalized_shape);
  TL_CHECK(o.eps >= 0.0, "LayerNorm: eps must be non-negative, got ", o.eps);
  register_parameter("weight", o.elementwise_affine ? empty(o.normalized_shape) : Tensor());
  register_parameter("bias", o.elementwise_affine ? empty(o.normalized_shape) : Tensor());
  reset_parameters();
}

void LayerNorm::reset_parameters() {
  if (!options_.elementwise_affine) return;
  init::ones_(parameter("weight"));
  init::zeros_(parameter("bias"));
}

Tensor LayerNorm::forward(const Tensor& input) {
  return functional::layer_norm(input, options_.normalized_shape, parameter("weight"), parameter("bias"), options_.eps);
}

std::string LayerNorm::extra_repr() const {
  const LayerNormOptions& o = options_;
  return py_tuple(o.normalized_shape) + ", eps=" + py_float(o.eps) +
         ", elementwise_affine=" + py_bool(o.elementwise_affine);
}

}  // namespace tl::nn
