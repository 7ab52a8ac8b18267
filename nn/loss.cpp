// nn/loss.cpp — the loss modules: options checked at construction, forward through F.cross_entropy,
// F.nll_loss and F.mse_loss with the module's "weight" buffer.
#include "nn/loss.h"

#include "nn/functional.h"

namespace tl::nn {

Tensor Loss::operator()(const Tensor& input, const Tensor& target) {
  TensorList out = (*this)(TensorList{input, target});
  TL_CHECK(out.size() == 1, type_name(), ": forward returned ", out.size(), " tensors, expected 1");
  return std::move(out[0]);
}

TensorList Loss::forward(Inputs inputs) {
  check_inputs(inputs.tensors());
  return {forward(inputs[0], inputs[1])};
}

CrossEntropyLoss::CrossEntropyLoss(const CrossEntropyLossOptions& options) : options_(options) {
  functional::reduction_enum(options.reduction, "CrossEntropyLoss");
  TL_CHECK(options.label_smoothing >= 0.0 && options.label_smoothing <= 1.0,
           "CrossEntropyLoss: label_smoothing must be between 0.0 and 1.0, got ", options.label_smoothing);
  register_buffer("weight", options.weight);
}

Tensor CrossEntropyLoss::forward(const Tensor& input, const Tensor& target) {
  return functional::cross_entropy(input, target, buffer("weight"), options_.ignore_index, options_.reduction,
                                   options_.label_smoothing);
}

NLLLoss::NLLLoss(const NLLLossOptions& options) : options_(options) {
  functional::reduction_enum(options.reduction, "NLLLoss");
  register_buffer("weight", options.weight);
}

Tensor NLLLoss::forward(const Tensor& input, const Tensor& target) {
  return functional::nll_loss(input, target, buffer("weight"), options_.ignore_index, options_.reduction);
}

MSELoss::MSELoss(const MSELossOptions& options) : options_(options) {
  functional::reduction_enum(options.reduction, "MSELoss");
}

Tensor MSELoss::forward(const Tensor& input, const Tensor& target) {
  return functional::mse_loss(input, target, options_.reduction);
}

}  // namespace tl::nn
