// nn/activation.cpp — the activation modules' forwards through their functional forms.
#include "nn/activation.h"

#include "nn/functional.h"

namespace tl::nn {

Tensor ReLU::forward(const Tensor& input) { return functional::relu(input, options_.inplace); }
Tensor Hardswish::forward(const Tensor& input) { return functional::hardswish(input); }
Tensor SiLU::forward(const Tensor& input) { return functional::silu(input); }

}  // namespace tl::nn
