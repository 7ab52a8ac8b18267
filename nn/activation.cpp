// nn/activation.cpp — ReLU's forward through F.relu.
#include "nn/activation.h"

#include "nn/functional.h"

namespace tl::nn {

Tensor ReLU::forward(const Tensor& input) { return functional::relu(input, options_.inplace); }

}  // namespace tl::nn
