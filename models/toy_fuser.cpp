// models/toy_fuser.cpp — the fuser tutorial's M and WrappedBatchNorm, registered in its order.
#include "models/toy_fuser.h"

#include "nn/layers.h"

namespace tl::models {

WrappedBatchNorm::WrappedBatchNorm() { mod = register_module("mod", std::make_shared<nn::BatchNorm2d>(1)); }

ToyFuserModel::ToyFuserModel() {
  conv1 = register_module("conv1", std::make_shared<nn::Conv2d>(1, 1, 1));
  bn1 = register_module("bn1", std::make_shared<nn::BatchNorm2d>(1));
  conv2 = register_module("conv2", std::make_shared<nn::Conv2d>(1, 1, 1));
  nested = register_module("nested", std::make_shared<nn::Sequential>(std::make_shared<nn::BatchNorm2d>(1),
                                                                      std::make_shared<nn::Conv2d>(1, 1, 1)));
  wrapped = register_module("wrapped", std::make_shared<WrappedBatchNorm>());
}

Tensor ToyFuserModel::forward(const Tensor& input) {
  Tensor x = conv1(input);
  x = bn1(x);
  x = conv2(x);
  x = nested(x);
  return wrapped(x);
}

std::shared_ptr<ToyFuserModel> toy_fuser_model() { return std::make_shared<ToyFuserModel>(); }

}  // namespace tl::models
