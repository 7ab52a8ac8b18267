// nn/loss.h — the loss modules: CrossEntropyLoss, NLLLoss, MSELoss (torch.nn's), called as
// criterion(input, target). Options are PyTorch's constructor arguments; a class weight is a buffer
// named "weight" (None when not given), so state_dict, clone and to(dtype) carry it.
#pragma once

#include <memory>
#include <string>

#include "nn/module.h"

namespace tl::nn {

/// Base of the losses: forward(input, target) -> the loss; a leaf for symbolic tracing.
class Loss : public Module {
 public:
  using Module::operator();
  using Module::forward;
  /// criterion(input, target), through Module's one call path (hooks see it).
  Tensor operator()(const Tensor& input, const Tensor& target);
  TensorList forward(Inputs inputs) override;
  virtual Tensor forward(const Tensor& input, const Tensor& target) = 0;
  ForwardSignature forward_signature() const override { return {.arg_names = {"input", "target"}}; }
  bool is_leaf() const override { return true; }
  std::string extra_repr() const override { return ""; }

 protected:
  Loss() = default;
  Loss(const Loss&) = default;
};

struct CrossEntropyLossOptions {
  Tensor weight;  ///< (C) or undefined
  int64_t ignore_index = -100;
  std::string reduction = "mean";  ///< "mean", "sum" or "none"
  double label_smoothing = 0.0;    ///< in [0, 1]
};

/// Throws tl::Error at construction for a bad reduction or label_smoothing.
class CrossEntropyLoss : public Loss {
 public:
  explicit CrossEntropyLoss(const CrossEntropyLossOptions& options = {});
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  std::string type_name() const override { return "CrossEntropyLoss"; }
  std::shared_ptr<Module> clone() const override { return clone_as<CrossEntropyLoss>(); }
  const CrossEntropyLossOptions& options() const { return options_; }

 private:
  CrossEntropyLossOptions options_;
};

struct NLLLossOptions {
  Tensor weight;  ///< (C) or undefined
  int64_t ignore_index = -100;
  std::string reduction = "mean";
};

/// Throws tl::Error at construction for a bad reduction.
class NLLLoss : public Loss {
 public:
  explicit NLLLoss(const NLLLossOptions& options = {});
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  std::string type_name() const override { return "NLLLoss"; }
  std::shared_ptr<Module> clone() const override { return clone_as<NLLLoss>(); }
  const NLLLossOptions& options() const { return options_; }

 private:
  NLLLossOptions options_;
};

struct MSELossOptions {
  std::string reduction = "mean";
};

/// Throws tl::Error at construction for a bad reduction.
class MSELoss : public Loss {
 public:
  explicit MSELoss(const MSELossOptions& options = {});
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  std::string type_name() const override { return "MSELoss"; }
  std::shared_ptr<Module> clone() const override { return clone_as<MSELoss>(); }
  const MSELossOptions& options() const { return options_; }

 private:
  MSELossOptions options_;
};

}  // namespace tl::nn
