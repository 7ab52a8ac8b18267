// nn/batch_norm.cpp — BatchNorm1d / BatchNorm2d and InstanceNorm2d, following torch.nn.modules.batchnorm's
// _BatchNorm.forward for the choice between batch and running statistics and for the momentum /
// num_batches_tracked rules, and instancenorm's _InstanceNorm.forward.
#include "nn/batch_norm.h"

#include "nn/functional.h"
#include "nn/init.h"
#include "nn/repr.h"

namespace tl::nn {

NormBase::NormBase(const BatchNormOptions& options, const char* who) : options_(options) {
  const BatchNormOptions& o = options_;
  TL_CHECK(o.num_features >= 0, who, ": num_features must be non-negative, got ", o.num_features);
  TL_CHECK(o.eps >= 0.0, who, ": eps must be non-negative, got ", o.eps);
  register_parameter("weight", o.affine ? empty({o.num_features}) : Tensor());
  register_parameter("bias", o.affine ? empty({o.num_features}) : Tensor());
  register_buffer("running_mean", o.track_running_stats ? empty({o.num_features}) : Tensor());
  register_buffer("running_var", o.track_running_stats ? empty({o.num_features}) : Tensor());
  register_buffer("num_batches_tracked", o.track_running_stats ? empty({}, DType::Int64) : Tensor());
  reset_parameters();
}

void NormBase::reset_running_stats() {
  if (!options_.track_running_stats) return;
  init::zeros_(buffer("running_mean"));
  init::ones_(buffer("running_var"));
  init::zeros_(buffer("num_batches_tracked"));
}

void NormBase::reset_parameters() {
  reset_running_stats();
  if (!options_.affine) return;
  init::ones_(parameter("weight"));
  init::zeros_(parameter("bias"));
}

Tensor NormBase::missing_state(const std::string& name) const {
  return name == "num_batches_tracked" ? zeros({}, DType::Int64) : Tensor();
}

double NormBase::momentum_factor() {
  double factor = options_.momentum.value_or(0.0);
  if (is_training() && options_.track_running_stats) {
    Tensor& batches = buffer("num_batches_tracked");
    if (batches.defined()) {
      batches.add_(1);
      if (!options_.momentum) factor = 1.0 / batches.item<double>();
    }
  }
  return factor;
}

std::string NormBase::extra_repr() const {
  const BatchNormOptions& o = options_;
  return std::to_string(o.num_features) + ", eps=" + py_float(o.eps) +
         ", momentum=" + (o.momentum ? py_float(*o.momentum) : "None") + ", affine=" + py_bool(o.affine) +
         ", track_running_stats=" + py_bool(o.track_running_stats);
}

Tensor BatchNormBase::forward(const Tensor& input) {
  // A symbolic-tracing proxy may not know its shape; the traced op is checked when it runs.
  if (!input.is_proxy()) check_input_dim(input);
  const Tensor& running_mean = buffer("running_mean");
  const Tensor& running_var = buffer("running_var");
  const bool training = is_training();
  const double factor = momentum_factor();
  // Batch statistics normalise in training and when there are no running statistics to use; the
  // running statistics are handed over (and so updated in training) unless they are not tracked.
  const bool batch_stats = training || (!running_mean.defined() && !running_var.defined());
  const bool pass_running = !training || options().track_running_stats;
  return functional::batch_norm(input, pass_running ? running_mean : Tensor(), pass_running ? running_var : Tensor(),
                                parameter("weight"), parameter("bias"), batch_stats, factor, options().eps);
}

void BatchNorm1d::check_input_dim(const Tensor& input) const {
  TL_CHECK(input.dim() == 2 || input.dim() == 3, "BatchNorm1d: expected 2D or 3D input (got ", input.dim(),
           "D input)");
}

void BatchNorm2d::check_input_dim(const Tensor& input) const {
  TL_CHECK(input.dim() == 4, "BatchNorm2d: expected 4D input (got ", input.dim(), "D input)");
}

InstanceNorm2d::InstanceNorm2d(const InstanceNormOptions& o)
    : NormBase(BatchNormOptions{.num_features = o.num_features, .eps = o.eps, .momentum = o.momentum,
                                .affine = o.affine, .track_running_stats = o.track_running_stats},
               "InstanceNorm2d") {}

Tensor InstanceNorm2d::forward(const Tensor& input) {
  const BatchNormOptions& o = options();
  if (!input.is_proxy()) {
    TL_CHECK(input.dim() == 3 || input.dim() == 4, "InstanceNorm2d: expected 3D or 4D input (got ", input.dim(),
             "D input)");
    const int64_t feature_dim = input.dim() - 3;
    TL_CHECK(!o.affine || input.size(feature_dim) == o.num_features, "InstanceNorm2d: expected input's size at dim=",
             feature_dim, " to match num_features (", o.num_features, "), but got: ", input.size(feature_dim), ".");
    if (input.dim() == 3) return forward(input.unsqueeze(0)).squeeze(0);
  }
  return functional::instance_norm(input, buffer("running_mean"), buffer("running_var"), parameter("weight"),
                                   parameter("bias"), is_training() || !o.track_running_stats,
                                   o.momentum.value_or(0.1), o.eps);
}

}  // namespace tl::nn
