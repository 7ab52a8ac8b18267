// nn/linear.cpp — Linear: PyTorch's default initialisation and repr, forward through F.linear.
#include "nn/linear.h"

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

void Linear::reset_parameters() { init::default_weight_and_bias_(parameter("weight"), parameter("bias")); }

Tensor Linear::forward(const Tensor& input) {
  return functional::linear(input, parameter("weight"), parameter("bias"));
}

std::string Linear::extra_repr() const {
  return "in_features=" + std::to_string(options_.in_features) + ", out_features=" +
         std::to_string(options_.out_features) + ", bias=" + py_bool(parameter("bias").defined());
}

}  // namespace tl::nn
