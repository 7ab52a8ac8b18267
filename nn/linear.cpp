// nn/linear.cpp — Linear and Bilinear: PyTorch's default initialisation and repr, forward through F.linear /
// F.bilinear.
#include "nn/linear.h"

#include <cmath>
#include <utility>

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

Bilinear::Bilinear(const BilinearOptions& options) : options_(options) {
  const BilinearOptions& o = options_;
  TL_CHECK(o.in1_features >= 0 && o.in2_features >= 0 && o.out_features >= 0,
           "Bilinear: feature counts must be non-negative, got in1_features=", o.in1_features,
           ", in2_features=", o.in2_features, " and out_features=", o.out_features);
  register_parameter("weight", empty({o.out_features, o.in1_features, o.in2_features}));
  register_parameter("bias", o.bias ? empty({o.out_features}) : Tensor());
  reset_parameters();
}

void Bilinear::reset_parameters() {
  // As PyTorch: bound = 1 / sqrt(weight.size(1)), the weight drawn first.
  const double bound = 1.0 / std::sqrt(static_cast<double>(options_.in1_features));
  init::uniform_(parameter("weight"), -bound, bound);
  if (parameter("bias").defined()) init::uniform_(parameter("bias"), -bound, bound);
}

Tensor Bilinear::operator()(const Tensor& input1, const Tensor& input2) {
  TensorList out = (*this)(TensorList{input1, input2});
  TL_CHECK(out.size() == 1, type_name(), ": forward returned ", out.size(), " tensors, expected 1");
  return std::move(out[0]);
}

TensorList Bilinear::forward(Inputs inputs) {
  check_inputs(inputs.tensors());
  return {forward(inputs[0], inputs[1])};
}

Tensor Bilinear::forward(const Tensor& input1, const Tensor& input2) {
  return functional::bilinear(input1, input2, parameter("weight"), parameter("bias"));
}

std::string Bilinear::extra_repr() const {
  const BilinearOptions& o = options_;
  return "in1_features=" + std::to_string(o.in1_features) + ", in2_features=" + std::to_string(o.in2_features) +
         ", out_features=" + std::to_string(o.out_features) + ", bias=" + py_bool(parameter("bias").defined());
}

}  // namespace tl::nn
