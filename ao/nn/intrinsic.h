// ao/nn/intrinsic.h — PyTorch 1.13's torch.ao.nn.intrinsic fused modules: a Sequential of the modules a fusion
// pattern matched (sharing them, as PyTorch's fuser methods do), called as one leaf so quantization treats the
// chain as one op.
#pragma once

#include <memory>
#include <string>

#include "nn/activation.h"
#include "nn/batch_norm.h"
#include "nn/container.h"
#include "nn/conv.h"
#include "nn/linear.h"

namespace tl::ao::nn::intrinsic {

/// torch.ao.nn.intrinsic.ConvReLU2d: relu(conv(x)); prints as PyTorch's, (0) the Conv2d and (1) the ReLU.
class ConvReLU2d : public tl::nn::Sequential {
 public:
  ConvReLU2d(std::shared_ptr<tl::nn::Conv2d> conv, std::shared_ptr<tl::nn::ReLU> relu)
      : tl::nn::Sequential(std::move(conv), std::move(relu)) {}
  std::string type_name() const override { return "ConvReLU2d"; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<ConvReLU2d>(); }
};

/// torch.ao.nn.intrinsic.LinearReLU: relu(linear(x)).
class LinearReLU : public tl::nn::Sequential {
 public:
  LinearReLU(std::shared_ptr<tl::nn::Linear> linear, std::shared_ptr<tl::nn::ReLU> relu)
      : tl::nn::Sequential(std::move(linear), std::move(relu)) {}
  std::string type_name() const override { return "LinearReLU"; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<LinearReLU>(); }
};

/// torch.ao.nn.intrinsic.BNReLU2d: relu(batch_norm(x)).
class BNReLU2d : public tl::nn::Sequential {
 public:
  BNReLU2d(std::shared_ptr<tl::nn::BatchNorm2d> bn, std::shared_ptr<tl::nn::ReLU> relu)
      : tl::nn::Sequential(std::move(bn), std::move(relu)) {}
  std::string type_name() const override { return "BNReLU2d"; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<tl::nn::Module> clone() const override { return clone_as<BNReLU2d>(); }
};

}  // namespace tl::ao::nn::intrinsic
