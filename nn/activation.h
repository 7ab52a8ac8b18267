// nn/activation.h — the activation modules of torch/nn/modules/activation.py: ReLU, ReLU6, LeakyReLU, PReLU,
// ELU, GELU, SiLU, Mish, Hardswish, Hardsigmoid, Hardtanh, Sigmoid, Tanh, Softplus (elementwise, any shape)
// and Softmax, LogSoftmax (along a dim). Each forwards to its functional form (nn/functional.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "core/scalar.h"
#include "nn/module.h"

namespace tl::nn {

struct ReLUOptions {
  bool inplace = false;
};

/// With inplace the input tensor is overwritten and returned (torchvision's ResNet uses it).
class ReLU : public Module {
 public:
  explicit ReLU(const ReLUOptions& options = {}) : options_(options) {}
  /// nn.ReLU(inplace).
  explicit ReLU(bool inplace) : options_{.inplace = inplace} {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "ReLU"; }
  std::string extra_repr() const override { return options_.inplace ? "inplace=True" : ""; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<ReLU>(); }

  const ReLUOptions& options() const { return options_; }

 private:
  ReLUOptions options_;
};

/// nn.Hardswish(inplace): x * relu6(x + 3) / 6. With inplace the input is overwritten and returned; the repr
/// does not show it, as PyTorch's does not.
class Hardswish : public Module {
 public:
  explicit Hardswish(bool inplace = false) : inplace_(inplace) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Hardswish"; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Hardswish>(); }

  bool inplace() const { return inplace_; }

 private:
  bool inplace_;
};

/// nn.SiLU(inplace): x * sigmoid(x). With inplace the input is overwritten and returned.
class SiLU : public Module {
 public:
  explicit SiLU(bool inplace = false) : inplace_(inplace) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "SiLU"; }
  std::string extra_repr() const override { return inplace_ ? "inplace=True" : ""; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<SiLU>(); }

  bool inplace() const { return inplace_; }

 private:
  bool inplace_;
};

/// nn.Sigmoid(): 1 / (1 + exp(-x)).
class Sigmoid : public Module {
 public:
  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Sigmoid"; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Sigmoid>(); }
};

/// nn.Tanh().
class Tanh : public Module {
 public:
  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Tanh"; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Tanh>(); }
};

/// nn.Mish(inplace): x * tanh(softplus(x)). With inplace the input is overwritten and returned.
class Mish : public Module {
 public:
  explicit Mish(bool inplace = false) : inplace_(inplace) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Mish"; }
  std::string extra_repr() const override { return inplace_ ? "inplace=True" : ""; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Mish>(); }

  bool inplace() const { return inplace_; }

 private:
  bool inplace_;
};

/// nn.Hardsigmoid(inplace): relu6(x + 3) / 6. With inplace the input is overwritten and returned; the repr
/// does not show it, as PyTorch's does not.
class Hardsigmoid : public Module {
 public:
  explicit Hardsigmoid(bool inplace = false) : inplace_(inplace) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Hardsigmoid"; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Hardsigmoid>(); }

  bool inplace() const { return inplace_; }

 private:
  bool inplace_;
};

struct ReLU6Options {
  bool inplace = false;
};

/// nn.ReLU6(inplace): hardtanh(x, 0, 6). With inplace the input is overwritten and returned.
class ReLU6 : public Module {
 public:
  explicit ReLU6(const ReLU6Options& options = {}) : options_(options) {}
  explicit ReLU6(bool inplace) : options_{.inplace = inplace} {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "ReLU6"; }
  std::string extra_repr() const override { return options_.inplace ? "inplace=True" : ""; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<ReLU6>(); }

  const ReLU6Options& options() const { return options_; }

 private:
  ReLU6Options options_;
};

struct GELUOptions {
  /// "none" (x * Phi(x)) or "tanh" (the tanh approximation); forward throws for anything else.
  std::string approximate = "none";
};

/// nn.GELU(approximate).
class GELU : public Module {
 public:
  explicit GELU(const GELUOptions& options = {}) : options_(options) {}
  explicit GELU(std::string approximate) : options_{.approximate = std::move(approximate)} {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "GELU"; }
  std::string extra_repr() const override { return "approximate='" + options_.approximate + "'"; }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<GELU>(); }

  const GELUOptions& options() const { return options_; }

 private:
  GELUOptions options_;
};

struct LeakyReLUOptions {
  double negative_slope = 1e-2;
  bool inplace = false;
};

/// nn.LeakyReLU(negative_slope, inplace): x for x > 0, negative_slope * x otherwise. With inplace the
/// input is overwritten and returned; its backward then needs negative_slope >= 0.
class LeakyReLU : public Module {
 public:
  explicit LeakyReLU(const LeakyReLUOptions& options = {}) : options_(options) {}
  explicit LeakyReLU(double negative_slope, bool inplace = false)
      : options_{.negative_slope = negative_slope, .inplace = inplace} {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "LeakyReLU"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<LeakyReLU>(); }

  const LeakyReLUOptions& options() const { return options_; }

 private:
  LeakyReLUOptions options_;
};

struct ELUOptions {
  double alpha = 1.0;
  bool inplace = false;
};

/// nn.ELU(alpha, inplace): x for x > 0, alpha * (exp(x) - 1) otherwise. With inplace the input is
/// overwritten and returned; its backward then needs alpha >= 0.
class ELU : public Module {
 public:
  explicit ELU(const ELUOptions& options = {}) : options_(options) {}
  explicit ELU(double alpha, bool inplace = false) : options_{.alpha = alpha, .inplace = inplace} {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "ELU"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<ELU>(); }

  const ELUOptions& options() const { return options_; }

 private:
  ELUOptions options_;
};

/// beta and threshold are numbers as Python's: printed as given (1, 20; 2.0).
struct SoftplusOptions {
  Scalar beta = 1;
  Scalar threshold = 20;
};

/// nn.Softplus(beta, threshold): log(1 + exp(beta * x)) / beta, x itself where beta * x > threshold.
class Softplus : public Module {
 public:
  explicit Softplus(const SoftplusOptions& options = {}) : options_(options) {}
  explicit Softplus(const Scalar& beta, const Scalar& threshold = 20) : options_{.beta = beta, .threshold = threshold} {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Softplus"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Softplus>(); }

  const SoftplusOptions& options() const { return options_; }

 private:
  SoftplusOptions options_;
};

/// min_val and max_val are numbers as Python's: printed as given (-1.0, 1.0; -2, 3).
struct HardtanhOptions {
  Scalar min_val = -1.0;
  Scalar max_val = 1.0;
  bool inplace = false;
};

/// nn.Hardtanh(min_val, max_val, inplace): x clamped to [min_val, max_val]; with inplace the input is
/// overwritten and returned. Throws tl::Error at construction unless max_val > min_val, as PyTorch's
/// constructor asserts.
class Hardtanh : public Module {
 public:
  explicit Hardtanh(const HardtanhOptions& options = {});
  Hardtanh(const Scalar& min_val, const Scalar& max_val, bool inplace = false)
      : Hardtanh(HardtanhOptions{.min_val = min_val, .max_val = max_val, .inplace = inplace}) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Hardtanh"; }
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Hardtanh>(); }

  const HardtanhOptions& options() const { return options_; }

 private:
  HardtanhOptions options_;
};

struct PReLUOptions {
  /// 1 (one slope shared by all channels) or the input's channel count (dim 1).
  int64_t num_parameters = 1;
  double init = 0.25;
};

/// nn.PReLU(num_parameters, init): x for x > 0, weight * x otherwise. Parameter "weight"
/// (num_parameters), filled with init. Throws tl::Error at construction for num_parameters < 0.
class PReLU : public Module {
 public:
  explicit PReLU(const PReLUOptions& options = {});
  explicit PReLU(int64_t num_parameters, double init = 0.25)
      : PReLU(PReLUOptions{.num_parameters = num_parameters, .init = init}) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "PReLU"; }
  std::string extra_repr() const override { return "num_parameters=" + std::to_string(options_.num_parameters); }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<PReLU>(); }

  const PReLUOptions& options() const { return options_; }
  /// Fills weight with init again.
  void reset_parameters();

 private:
  PReLUOptions options_;
};

/// nn.Softmax(dim): exp(x) / sum(exp(x)) along dim (LibTorch's SoftmaxOptions: dim is required).
class Softmax : public Module {
 public:
  explicit Softmax(int64_t dim) : dim_(dim) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "Softmax"; }
  std::string extra_repr() const override { return "dim=" + std::to_string(dim_); }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Softmax>(); }

  int64_t dim() const { return dim_; }

 private:
  int64_t dim_;
};

/// nn.LogSoftmax(dim): log(softmax(x)) along dim, computed stably (dim is required, as LibTorch's).
class LogSoftmax : public Module {
 public:
  explicit LogSoftmax(int64_t dim) : dim_(dim) {}

  Tensor forward(const Tensor& input) override;
  std::string type_name() const override { return "LogSoftmax"; }
  std::string extra_repr() const override { return "dim=" + std::to_string(dim_); }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<LogSoftmax>(); }

  int64_t dim() const { return dim_; }

 private:
  int64_t dim_;
};

}  // namespace tl::nn
