// tests/ops/nn_testing.h — helpers for the conv2d / batch_norm / pool / dropout tests: inputs laid out
// the ways a kernel must honour, and element access in double for the naive references.
#pragma once

#include <vector>

#include "core/tensor.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl::testing {

/// Every element in row-major order, as double (honours strides).
inline std::vector<double> to_doubles(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[i] = element_at(t, i);
  return v;
}

inline Tensor from_doubles(const std::vector<double>& v, const Shape& shape) { return from_vector<double>(v, shape); }

/// How an (N, C, H, W) input's memory is arranged.
enum class NchwLayout { Contiguous, ChannelsLast, Sliced };
inline constexpr NchwLayout kNchwLayouts[] = {NchwLayout::Contiguous, NchwLayout::ChannelsLast, NchwLayout::Sliced};

/// The strides of a dense (N, C, H, W) tensor in channels-last order.
inline Strides channels_last_strides(const Shape& s) { return {s[1] * s[2] * s[3], 1, s[3] * s[1], s[1]}; }

inline const char* layout_name(NchwLayout layout) {
  switch (layout) {
    case NchwLayout::Contiguous: return "contiguous";
    case NchwLayout::ChannelsLast: return "channels-last";
    case NchwLayout::Sliced: return "sliced";
  }
  return "?";
}

/// A random normal (N, C, H, W) tensor: contiguous, a permuted (N, H, W, C) buffer, or the odd
/// columns of a buffer twice as wide (stride 2 along W, non-zero storage offset).
inline Tensor random_nchw(const Shape& s, NchwLayout layout, DType dtype = DType::Float32) {
  switch (layout) {
    case NchwLayout::Contiguous: return randn(s, dtype);
    case NchwLayout::ChannelsLast: return randn({s[0], s[2], s[3], s[1]}, dtype).permute({0, 3, 1, 2});
    case NchwLayout::Sliced: return randn({s[0], s[1], s[2], 2 * s[3]}, dtype).slice(3, 1, 2 * s[3], 2);
  }
  return {};
}

}  // namespace tl::testing
