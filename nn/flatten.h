// nn/flatten.h — Flatten, torch.nn.Flatten: merges dims start_dim..end_dim (a view when possible).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nn/module.h"

namespace tl::nn {

struct FlattenOptions {
  int64_t start_dim = 1;
  int64_t end_dim = -1;
};

/// Input (N, *) with the default dims gives (N, prod(*)); the op throws for dims out of range.
class Flatten : public Module {
 public:
  explicit Flatten(const FlattenOptions& options = {}) : options_(options) {}
  /// nn.Flatten(start_dim, end_dim).
  Flatten(int64_t start_dim, int64_t end_dim) : options_{.start_dim = start_dim, .end_dim = end_dim} {}

  Tensor forward(const Tensor& input) override { return input.flatten(options_.start_dim, options_.end_dim); }
  std::string type_name() const override { return "Flatten"; }
  std::string extra_repr() const override {
    return "start_dim=" + std::to_string(options_.start_dim) + ", end_dim=" + std::to_string(options_.end_dim);
  }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Flatten>(); }

  const FlattenOptions& options() const { return options_; }

 private:
  FlattenOptions options_;
};

}  // namespace tl::nn
