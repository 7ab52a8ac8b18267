// nn/linear.cpp — Linear: PyTorch's default initialisation and repr, forward through F.linear.
#include "nn/linear.h"

#include <cmath>

#include "nn/functional.h"
#include "nn/init.h"
#include "nn/repr.h"

namespace tl::nn {

Linear::Linear(const LinearOptions& options) : options_(options) {
  TL_CHECK(options.in_features >= 0 && options.out_features >= 0,
           "Linear: feature counts must be non-negative, got in_features=", options.in_features,
           " and out_features=", options.out_features);
  register_parameter("weight", empty({options.out_features, options.in_features}));
  register_parameter("bias", options.bias ? empty({options.out_features}) : Tensor());
  reset_parameters();
}

void Linear::reset_parameters() {
  const Tensor& weight = parameter("weight");
  init::kaiming_uniform_(weight, std::sqrt(5.0));
  const Tensor& bias = parameter("bias");
  if (!bias.defined()) return;
  const int64_t fan_in = init::calculate_fan_in_and_fan_out(weight).first;
  const double bound = fan_in > 0 ? 1.0 / std::sqrt(static_cast<double>(fan_in)) : 0.0;
  init::uniform_(bias, -bound, bound);
}

Tensor Linear::forward(const Tensor& input) {
  return functional::linear(input, parameter("weight"), parameter("bias"));
}

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(options_.in_features) + ", out_features=" +
         std::to_string(options_.out_features) + ", bias=" + py_bool(parameter("bias").defined());
}

}  // namespace tl::nn
