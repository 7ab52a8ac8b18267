// nn/padding.h — the padding layers of torch.nn (ZeroPad2d, ConstantPad1d/2d, ReflectionPad1d/2d,
// ReplicationPad1d/2d): no parameters, forward is F.pad with the layer's mode, amounts and value.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>

#include "nn/functional.h"
#include "nn/module.h"

namespace tl::nn {

/// A layer's padding: one int for every side (`2` is (2, 2) or (2, 2, 2, 2)), or N values as F.pad takes
/// them, (left, right) or (left, right, top, bottom); throws tl::Error for another count.
template <size_t N>
struct PadAmounts {
  PadAmounts(int64_t all) { values.fill(all); }  // NOLINT: 2 reads as every side
  PadAmounts(std::initializer_list<int64_t> each) {  // NOLINT: {1, 2} reads as (left, right)
    TL_CHECK(each.size() == N, "padding: expected ", N, " values, got ", each.size());
    std::copy(each.begin(), each.end(), values.begin());
  }
  std::array<int64_t, N> values{};
};

/// What every padding layer is: F.pad(input, padding, mode, value), printed as PyTorch prints it.
class PadLayer : public Module {
 public:
  Tensor forward(const Tensor& input) override;
  std::string extra_repr() const override;
  bool is_leaf() const override { return true; }

  /// (left, right[, top, bottom]), as F.pad takes it.
  const Shape& padding() const { return padding_; }
  /// 0 except for ConstantPad1d/2d.
  double value() const { return value_; }

 protected:
  PadLayer(std::string mode, Shape padding, double value = 0.0);

 private:
  std::string mode_;
  Shape padding_;
  double value_;
};

/// nn.ZeroPad2d(padding): constant 0 on the last two dims.
class ZeroPad2d : public PadLayer {
 public:
  explicit ZeroPad2d(PadAmounts<4> padding);
  std::string extra_repr() const override;
  std::shared_ptr<Module> clone() const override { return clone_as<ZeroPad2d>(); }
};

/// nn.ConstantPad1d(padding, value): `value` on the last dim.
class ConstantPad1d : public PadLayer {
 public:
  ConstantPad1d(PadAmounts<2> padding, double value);
  std::shared_ptr<Module> clone() const override { return clone_as<ConstantPad1d>(); }
};

/// nn.ConstantPad2d(padding, value): `value` on the last two dims.
class ConstantPad2d : public PadLayer {
 public:
  ConstantPad2d(PadAmounts<4> padding, double value);
  std::shared_ptr<Module> clone() const override { return clone_as<ConstantPad2d>(); }
};

/// nn.ReflectionPad1d(padding): input (C, W) or (N, C, W), each pad smaller than W.
class ReflectionPad1d : public PadLayer {
 public:
  explicit ReflectionPad1d(PadAmounts<2> padding);
  std::shared_ptr<Module> clone() const override { return clone_as<ReflectionPad1d>(); }
};

/// nn.ReflectionPad2d(padding): input (C, H, W) or (N, C, H, W), each pad smaller than its dim.
class ReflectionPad2d : public PadLayer {
 public:
  explicit ReflectionPad2d(PadAmounts<4> padding);
  std::shared_ptr<Module> clone() const override { return clone_as<ReflectionPad2d>(); }
};

/// nn.ReplicationPad1d(padding): input (C, W) or (N, C, W), the edge value repeated.
class ReplicationPad1d : public PadLayer {
 public:
  explicit ReplicationPad1d(PadAmounts<2> padding);
  std::shared_ptr<Module> clone() const override { return clone_as<ReplicationPad1d>(); }
};

/// nn.ReplicationPad2d(padding): input (C, H, W) or (N, C, H, W), the edge values repeated.
class ReplicationPad2d : public PadLayer {
 public:
  explicit ReplicationPad2d(PadAmounts<4> padding);
  std::shared_ptr<Module> clone() const override { return clone_as<ReplicationPad2d>(); }
};

}  // namespace tl::nn
