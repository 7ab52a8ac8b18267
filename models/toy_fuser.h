// models/toy_fuser.h — the conv-bn fuser tutorial's toy model `M`: Conv2d/BatchNorm2d pairs reached
// directly, through a Sequential and through a user module (WrappedBatchNorm). All layers are 1x1
// over one channel, so any (N, 1, H, W) input works.
#pragma once

#include <memory>
#include <string>

#include "nn/batch_norm.h"
#include "nn/container.h"
#include "nn/conv.h"
#include "nn/module.h"

namespace tl::models {

/// The tutorial's user-defined wrapper: forward(x) = mod(x), mod = BatchNorm2d(1).
class WrappedBatchNorm : public nn::Module {
 public:
  WrappedBatchNorm();

  Tensor forward(const Tensor& x) override { return mod(x); }
  std::string type_name() const override { return "WrappedBatchNorm"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<WrappedBatchNorm>(); }

  nn::ModuleHandle<nn::BatchNorm2d> mod;
};

/// Python's class M: conv1, bn1, conv2, nested = Sequential(BatchNorm2d(1), Conv2d(1, 1, 1)),
/// wrapped = WrappedBatchNorm(); forward applies them in that order. Prints as "M(...)".
class ToyFuserModel : public nn::Module {
 public:
  ToyFuserModel();

  Tensor forward(const Tensor& x) override;
  std::string type_name() const override { return "M"; }
  std::shared_ptr<nn::Module> clone() const override { return clone_as<ToyFuserModel>(); }

  nn::ModuleHandle<nn::Conv2d> conv1;
  nn::ModuleHandle<nn::BatchNorm2d> bn1;
  nn::ModuleHandle<nn::Conv2d> conv2;
  nn::ModuleHandle<nn::Sequential> nested;
  nn::ModuleHandle<WrappedBatchNorm> wrapped;
};

/// A new M (in training mode, as constructing it in Python gives; call eval() to fuse it).
std::shared_ptr<ToyFuserModel> toy_fuser_model();

}  // namespace tl::models
