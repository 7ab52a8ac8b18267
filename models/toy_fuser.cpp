// models/toy_fuser.cpp — the fuser tutorial's M and WrappedBatchNorm, registered in its order.
#include "models/toy_fuser.h"

#include "nn/layers.h"

namespace tl::models {

WrappedBatchNorm::WrappedBatchNorm() { register_module("mod", std::make_shared<nn::BatchNorm2d>(1)); }

ToyFuserModel::ToyFuserModel() {
  register_module("conv1", std::make_shared<nn::Conv2d>(1, 1, 1));
  register_module("bn1", std::make_shared<nn::BatchNorm2d>(1));
  register_module("conv2", std::make_shared<nn::Conv2d>(1, 1, 1));
  register_module("nested", std::make_shared<nn::Sequential>(std::make_shared<nn::BatchNorm2d>(1),
                                                            std::make_shared<nn::Conv2d>(1, 1, 1)));
  register_module("wrapped", std::make_shared<WrappedBatchNorm>());
}

Tensor ToyFuserModel::forward(const Tensor& input) {
  Tensor x = submodule("conv1")(input);
  x = submodule("bn1")(x);
  x = submodule("conv2")(x);
  x = submodule("nested")(x);
  return submodule("wrapped")(x);
}

std::shared_ptr<ToyFuserModel> toy_fuser_model() { return std::make_shared<ToyFuserModel>(); }

}  // namespace tl::models
