// nn/flatten.h — Flatten and Unflatten, torch.nn.Flatten / Unflatten: merge dims start_dim..end_dim (a view
// when possible), or split one dim into several (a view).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "nn/module.h"
#include "nn/repr.h"

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

struct UnflattenOptions {
  int64_t dim = 0;
  Shape sizes;  ///< one size may be -1 (inferred)
};

/// Input (*, S, *) with S at `dim` and prod(sizes) == S gives (*, sizes..., *); the op throws otherwise.
class Unflatten : public Module {
 public:
  explicit Unflatten(const UnflattenOptions& options) : options_(options) {}
  /// nn.Unflatten(dim, unflattened_size).
  Unflatten(int64_t dim, Shape sizes) : options_{.dim = dim, .sizes = std::move(sizes)} {}

  Tensor forward(const Tensor& input) override { return input.unflatten(options_.dim, options_.sizes); }
  std::string type_name() const override { return "Unflatten"; }
  std::string extra_repr() const override {
    return "dim=" + std::to_string(options_.dim) + ", unflattened_size=" + py_tuple(options_.sizes);
  }
  bool is_leaf() const override { return true; }
  std::shared_ptr<Module> clone() const override { return clone_as<Unflatten>(); }

  const UnflattenOptions& options() const { return options_; }

 private:
  UnflattenOptions options_;
};

}  // namespace tl::nn
