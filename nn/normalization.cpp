// nn/normalization.cpp — LayerNorm and GroupNorm, as torch.nn's: F.layer_norm / F.group_norm with the module's
// parameters.
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

GroupNorm::GroupNorm(const GroupNormOptions& options) : options_(options) {
  const GroupNormOptions& o = options_;
  TL_CHECK(o.num_groups > 0 && o.num_channels >= 0 && o.num_channels % o.num_groups == 0,
           "GroupNorm: num_channels must be divisible by num_groups, got num_channels=", o.num_channels,
           " and num_groups=", o.num_groups);
  TL_CHECK(o.eps >= 0.0, "GroupNorm: eps must be non-negative, got ", o.eps);
  register_parameter("weight", o.affine ? empty({o.num_channels}) : Tensor());
  register_parameter("bias", o.affine ? empty({o.num_channels}) : Tensor());
  reset_parameters();
}

void GroupNorm::reset_parameters() {
  if (!options_.affine) return;
  init::ones_(parameter("weight"));
  init::zeros_(parameter("bias"));
}

Tensor GroupNorm::forward(const Tensor& input) {
  return functional::group_norm(input, options_.num_groups, parameter("weight"), parameter("bias"), options_.eps);
}

std::string GroupNorm::extra_repr() const {
  const GroupNormOptions& o = options_;
  return std::to_string(o.num_groups) + ", " + std::to_string(o.num_channels) + ", eps=" + py_float(o.eps) +
         ", affine=" + py_bool(o.affine);
}

}  // namespace tl::nn
