// models/my_module.h — the profiler tutorial's MyModule: Linear, then the indices of the mask
// elements above a threshold, with the two RecordFunction scopes the tutorial profiles.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "nn/module.h"

namespace tl::models {

struct MyModuleOptions {
  int64_t in_features = 500;
  int64_t out_features = 10;
  bool bias = true;
  /// How MASK INDICES finds the indices. false (the tutorial's first two acts): copy the mask to
  /// a new buffer, compare and scan it with plain loops outside the dispatcher, as
  /// np.argwhere(mask.cpu().numpy() > threshold) does; only the copy is a tensor op, the rest is
  /// the scope's self time. true (its third act): (mask > threshold).nonzero().
  bool use_nonzero = false;
};

/// forward({input, mask}) -> {out, hi_idx}: input (N, in_features), mask of any shape and floating
/// dtype; out = linear(input) (N, out_features); hi_idx (K, mask.dim()) int64 coordinates, in
/// row-major order, of the mask elements greater than out.sum(1).mean(). Children: linear.
class MyModule : public nn::Module {
 public:
  explicit MyModule(const MyModuleOptions& options = {});

  /// Throws tl::Error unless given exactly (input, mask).
  TensorList forward(nn::Inputs inputs) override;
  /// forward(self, input, mask): two inputs, so symbolic tracing makes two placeholders.
  nn::ForwardSignature forward_signature() const override { return {{"input", "mask"}, {}, ""}; }
  std::string type_name() const override { return "MyModule"; }
  std::string extra_repr() const override;
  std::shared_ptr<nn::Module> clone() const override { return clone_as<MyModule>(); }
  const MyModuleOptions& options() const { return options_; }

 private:
  MyModuleOptions options_;
};

/// The tutorial's inputs: input (batch, in_features) and mask (side, side, side), both uniform in
/// [0, 1); the mask is float64 in the tutorial's first act and float32 afterwards.
struct MyModuleInputs {
  Tensor input;
  Tensor mask;
};
MyModuleInputs my_module_inputs(DType mask_dtype, int64_t side = 500, int64_t batch = 128, int64_t in_features = 500);

}  // namespace tl::models
