// nn/batch_norm.cpp — BatchNorm2d, following torch.nn.modules.batchnorm._BatchNorm.forward for the
// choice between batch and running statistics and for the momentum / num_batches_tracked rules.
#include "nn/batch_norm.h"

#include "nn/functional.h"
#include "nn/init.h"
#include "nn/repr.h"

namespace tl::nn {

BatchNorm2d::BatchNorm2d(const BatchNorm2dOptions& options) : options_(options) {
  const BatchNorm2dOptions& o = options_;
  TL_CHECK(o.num_features >= 0, "BatchNorm2d: num_features must be non-negative, got ", o.num_features);
  TL_CHECK(o.eps >= 0.0, "BatchNorm2d: eps must be non-negative, got ", o.eps);
  register_parameter("weight", o.affine ? empty({o.num_features}) : Tensor());
  register_parameter("bias", o.affine ? empty({o.num_features}) : Tensor());
  register_buffer("running_mean", o.track_running_stats ? empty({o.num_features}) : Tensor());
  register_buffer("running_var", o.track_running_stats ? empty({o.num_features}) : Tensor());
  register_buffer("num_batches_tracked", o.track_running_stats ? empty({}, DType::Int64) : Tensor());
  reset_parameters();
}

void BatchNorm2d::reset_running_stats() {
  if (!options_.track_running_stats) return;
  init::zeros_(buffer("running_mean"));
  init::ones_(buffer("running_var"));
  init::zeros_(buffer("num_batches_tracked"));
}

void BatchNorm2d::reset_parameters() {
  reset_running_stats();
  if (!options_.affine) return;
  init::ones_(parameter("weight"));
  init::zeros_(parameter("bias"));
}

Tensor BatchNorm2d::forward(const Tensor& input) {
  // A symbolic-tracing proxy may not know its shape; the traced op is checked when it runs.
  TL_CHECK(input.is_proxy() || input.dim() == 4, "BatchNorm2d: expected 4D input (got ", input.dim(), "D input)");
  const Tensor& running_mean = buffer("running_mean");
  const Tensor& running_var = buffer("running_var");
  const bool training = is_training();
  double factor = options_.momentum.value_or(0.0);
  if (training && options_.track_running_stats) {
    Tensor& batches = buffer("num_batches_tracked");
    if (batches.defined()) {
      batches.add_(1);
      if (!options_.momentum) factor = 1.0 / batches.item<double>();
    }
  }
  // Batch statistics normalise in training and when there are no running statistics to use; the
  // running statistics are handed over (and so updated in training) unless they are not tracked.
  const bool batch_stats = training || (!running_mean.defined() && !running_var.defined());
  const bool pass_running = !training || options_.track_running_stats;
  return functional::batch_norm(input, pass_running ? running_mean : Tensor(), pass_running ? running_var : Tensor(),
                                parameter("weight"), parameter("bias"), batch_stats, factor, options_.eps);
}

std::string BatchNorm2d::extra_repr() const {
  const BatchNorm2dOptions& o = options_;
  return std::to_string(o.num_features) + ", eps=" + py_float(o.eps) +
         ", momentum=" + (o.momentum ? py_float(*o.momentum) : "None") + ", affine=" + py_bool(o.affine) +
         ", track_running_stats=" + py_bool(o.track_running_stats);
}

}  // namespace tl::nn
