// nn/loss.h — the loss modules of torch.nn, called as criterion(input, target) (or of three inputs:
// CosineEmbeddingLoss, MarginRankingLoss, TripletMarginLoss). Options are PyTorch's constructor arguments;
// a weight is a buffer ("weight", "pos_weight"; None when not given), so state_dict, clone and to(dtype)
// carry it.
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


/// A loss of one reduction option: L1Loss, SmoothL1Loss (beta), HuberLoss (delta), KLDivLoss (log_target).
struct L1LossOptions {
  std::string reduction = "mean";
};

/// Throws tl::Error at construction for a bad reduction.
class L1Loss : public Loss {
 public:
  explicit L1Loss(const L1LossOptions& options = {});
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  std::string type_name() const override { return "L1Loss"; }
  std::shared_ptr<Module> clone() const override { return clone_as<L1Loss>(); }
  const L1LossOptions& options() const { return options_; }

 private:
  L1LossOptions options_;
};

struct SmoothL1LossOptions {
  std::string reduction = "mean";
  double beta = 1.0;  ///< >= 0; 0 is L1Loss
};

/// Throws tl::Error at construction for a bad reduction or a negative beta.
class SmoothL1Loss : public Loss {
 public:
  explicit SmoothL1Loss(const SmoothL1LossOptions& options = {});
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  std::string type_name() const override { return "SmoothL1Loss"; }
  std::shared_ptr<Module> clone() const override { return clone_as<SmoothL1Loss>(); }
  const SmoothL1LossOptions& options() const { return options_; }

 private:
  SmoothL1LossOptions options_;
};

struct HuberLossOptions {
  std::string reduction = "mean";
  double delta = 1.0;  ///< > 0
};

/// Throws tl::Error at construction for a bad reduction or a delta <= 0.
class HuberLoss : public Loss {
 public:
  explicit HuberLoss(const HuberLossOptions& options = {});
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  std::string type_name() const override { return "HuberLoss"; }
  std::shared_ptr<Module> clone() const override { return clone_as<HuberLoss>(); }
  const HuberLossOptions& options() const { return options_; }

 private:
  HuberLossOptions options_;
};

struct BCELossOptions {
  Tensor weight;  ///< broadcast to the target's shape, or undefined
  std::string reduction = "mean";
};

/// input probabilities, target of its shape. Throws tl::Error at construction for a bad reduction.
class BCELoss : public Loss {
 public:
  explicit BCELoss(const BCELossOptions& options = {});
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  std::string type_name() const override { return "BCELoss"; }
  std::shared_ptr<Module> clone() const override { return clone_as<BCELoss>(); }
  const BCELossOptions& options() const { return options_; }

 private:
  BCELossOptions options_;
};

struct BCEWithLogitsLossOptions {
  Tensor weight;  ///< broadcast to the target's shape, or undefined
  std::string reduction = "mean";
  Tensor pos_weight;  ///< the positives' weight, one per class (the last dim), or undefined
};

/// input logits, target of its shape. Throws tl::Error at construction for a bad reduction.
class BCEWithLogitsLoss : public Loss {
 public:
  explicit BCEWithLogitsLoss(const BCEWithLogitsLossOptions& options = {});
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  std::string type_name() const override { return "BCEWithLogitsLoss"; }
  std::shared_ptr<Module> clone() const override { return clone_as<BCEWithLogitsLoss>(); }
  const BCEWithLogitsLossOptions& options() const { return options_; }

 private:
  BCEWithLogitsLossOptions options_;
};

struct KLDivLossOptions {
  std::string reduction = "mean";  ///< also "batchmean"
  bool log_target = false;
};

/// input log-probabilities. Throws tl::Error at construction for a bad reduction.
class KLDivLoss : public Loss {
 public:
  explicit KLDivLoss(const KLDivLossOptions& options = {});
  using Loss::forward;
  Tensor forward(const Tensor& input, const Tensor& target) override;
  std::string type_name() const override { return "KLDivLoss"; }
  std::shared_ptr<Module> clone() const override { return clone_as<KLDivLoss>(); }
  const KLDivLossOptions& options() const { return options_; }

 private:
  KLDivLossOptions options_;
};

/// Base of the losses of three inputs, named by arg_names (forward_signature); a leaf for symbolic tracing.
class ThreeInputLoss : public Module {
 public:
  using Module::operator();
  using Module::forward;
  /// criterion(a, b, c), through Module's one call path (hooks see it).
  Tensor operator()(const Tensor& a, const Tensor& b, const Tensor& c);
  TensorList forward(Inputs inputs) override;
  virtual Tensor forward(const Tensor& a, const Tensor& b, const Tensor& c) = 0;
  bool is_leaf() const override { return true; }
  std::string extra_repr() const override { return ""; }

 protected:
  ThreeInputLoss() = default;
  ThreeInputLoss(const ThreeInputLoss&) = default;
};

struct CosineEmbeddingLossOptions {
  double margin = 0.0;
  std::string reduction = "mean";
};

/// criterion(input1, input2, target). Throws tl::Error at construction for a bad reduction.
class CosineEmbeddingLoss : public ThreeInputLoss {
 public:
  explicit CosineEmbeddingLoss(const CosineEmbeddingLossOptions& options = {});
  using ThreeInputLoss::forward;
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) override;
  ForwardSignature forward_signature() const override { return {.arg_names = {"input1", "input2", "target"}}; }
  std::string type_name() const override { return "CosineEmbeddingLoss"; }
  std::shared_ptr<Module> clone() const override { return clone_as<CosineEmbeddingLoss>(); }
  const CosineEmbeddingLossOptions& options() const { return options_; }

 private:
  CosineEmbeddingLossOptions options_;
};

struct MarginRankingLossOptions {
  double margin = 0.0;
  std::string reduction = "mean";
};

/// criterion(input1, input2, target). Throws tl::Error at construction for a bad reduction.
class MarginRankingLoss : public ThreeInputLoss {
 public:
  explicit MarginRankingLoss(const MarginRankingLossOptions& options = {});
  using ThreeInputLoss::forward;
  Tensor forward(const Tensor& input1, const Tensor& input2, const Tensor& target) override;
  ForwardSignature forward_signature() const override { return {.arg_names = {"input1", "input2", "target"}}; }
  std::string type_name() const override { return "MarginRankingLoss"; }
  std::shared_ptr<Module> clone() const override { return clone_as<MarginRankingLoss>(); }
  const MarginRankingLossOptions& options() const { return options_; }

 private:
  MarginRankingLossOptions options_;
};

struct TripletMarginLossOptions {
  double margin = 1.0;
  double p = 2.0;
  double eps = 1e-6;
  bool swap = false;
  std::string reduction = "mean";
};

/// criterion(anchor, positive, negative). Throws tl::Error at construction for a bad reduction.
class TripletMarginLoss : public ThreeInputLoss {
 public:
  explicit TripletMarginLoss(const TripletMarginLossOptions& options = {});
  using ThreeInputLoss::forward;
  Tensor forward(const Tensor& anchor, const Tensor& positive, const Tensor& negative) override;
  ForwardSignature forward_signature() const override { return {.arg_names = {"anchor", "positive", "negative"}}; }
  std::string type_name() const override { return "TripletMarginLoss"; }
  std::shared_ptr<Module> clone() const override { return clone_as<TripletMarginLoss>(); }
  const TripletMarginLossOptions& options() const { return options_; }

 private:
  TripletMarginLossOptions options_;
};

}  // namespace tl::nn
