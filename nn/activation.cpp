// nn/activation.cpp — the activation modules' forwards through their functional forms, their reprs as
// PyTorch prints them and PReLU's parameter.
#include "nn/activation.h"

#include <sstream>

#include "nn/functional.h"
#include "nn/init.h"
#include "nn/repr.h"

namespace tl::nn {
namespace {

// A number as Python prints it: 1, 20, 2.0, 10.5.
std::string py_number(const Scalar& value) {
  std::ostringstream os;
  os << value;
  return os.str();
}

}  // namespace

Tensor ReLU::forward(const Tensor& input) { return functional::relu(input, options_.inplace); }
Tensor Hardswish::forward(const Tensor& input) { return functional::hardswish(input, inplace_); }
Tensor SiLU::forward(const Tensor& input) { return functional::silu(input, inplace_); }
Tensor Sigmoid::forward(const Tensor& input) { return tl::sigmoid(input); }
Tensor Tanh::forward(const Tensor& input) { return tl::tanh(input); }
Tensor Mish::forward(const Tensor& input) { return functional::mish(input, inplace_); }
Tensor Hardsigmoid::forward(const Tensor& input) { return functional::hardsigmoid(input, inplace_); }
Tensor ReLU6::forward(const Tensor& input) { return functional::relu6(input, options_.inplace); }
Tensor GELU::forward(const Tensor& input) { return functional::gelu(input, options_.approximate); }

Tensor LeakyReLU::forward(const Tensor& input) {
  return functional::leaky_relu(input, options_.negative_slope, options_.inplace);
}
std::string LeakyReLU::extra_repr() const {
  return "negative_slope=" + py_float(options_.negative_slope) + (options_.inplace ? ", inplace=True" : "");
}

Tensor ELU::forward(const Tensor& input) { return functional::elu(input, options_.alpha, options_.inplace); }
std::string ELU::extra_repr() const {
  return "alpha=" + py_float(options_.alpha) + (options_.inplace ? ", inplace=True" : "");
}

Tensor Softplus::forward(const Tensor& input) {
  return functional::softplus(input, options_.beta, options_.threshold);
}
std::string Softplus::extra_repr() const {
  return "beta=" + py_number(options_.beta) + ", threshold=" + py_number(options_.threshold);
}

Hardtanh::Hardtanh(const HardtanhOptions& options) : options_(options) {
  TL_CHECK(options.max_val.to<double>() > options.min_val.to<double>(), "Hardtanh: expected max_val > min_val, got min_val=",
           options.min_val, " and max_val=", options.max_val);
}
Tensor Hardtanh::forward(const Tensor& input) {
  return functional::hardtanh(input, options_.min_val, options_.max_val, options_.inplace);
}
std::string Hardtanh::extra_repr() const {
  return "min_val=" + py_number(options_.min_val) + ", max_val=" + py_number(options_.max_val) +
         (options_.inplace ? ", inplace=True" : "");
}

PReLU::PReLU(const PReLUOptions& options) : options_(options) {
  TL_CHECK(options.num_parameters >= 0, "PReLU: num_parameters must be non-negative, got ", options.num_parameters);
  register_parameter("weight", empty({options.num_parameters}));
  reset_parameters();
}
void PReLU::reset_parameters() { init::constant_(parameter("weight"), options_.init); }
Tensor PReLU::forward(const Tensor& input) { return functional::prelu(input, parameter("weight")); }

Tensor Softmax::forward(const Tensor& input) { return functional::softmax(input, dim_); }
Tensor LogSoftmax::forward(const Tensor& input) { return functional::log_softmax(input, dim_); }

}  // namespace tl::nn
