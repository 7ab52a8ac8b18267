// ops/testing.h — torch.testing.assert_close: throws tl::Error carrying PyTorch 1.13's
// message byte for byte (attribute mismatch, or mismatch count and greatest differences with indices).
#pragma once

#include <optional>
#include <utility>

#include "core/tensor.h"

namespace tl::testing {

/// torch.testing's default (rtol, atol) for `dtype`: float32 (1.3e-6, 1e-5), float64 (1e-7, 1e-7),
/// bfloat16 (0.016, 1e-5); integers and bool (0, 0), i.e. exact equality.
std::pair<double, double> default_tolerances(DType dtype);

struct AssertCloseOptions {
  /// Both or neither; when omitted, the looser default of the two dtypes.
  std::optional<double> rtol;
  std::optional<double> atol;
  bool equal_nan = false;
  bool check_dtype = true;   ///< false: compare in the promoted dtype
  bool check_stride = false;
};

/// Checks shape, stride (if asked), dtype (if asked), then every element with
/// |actual - expected| <= atol + rtol * |expected| (equal values, infinities included, always pass);
/// when neither side is floating the values compare exactly in int64, not through float64.
/// An undefined tensor stands for None: two pass, one against a tensor throws "None mismatch: ..."
/// naming which side is undefined. A negative (or NaN) rtol or atol throws tl::Error naming it.
/// Throws tl::Error with PyTorch's text, e.g. "Tensor-likes are not close!\n\nMismatched elements:
/// 3 / 12 (25.0%)\nGreatest absolute difference: 2.0 at index (2, 3) (up to 1e-05 allowed)\n...";
/// "Scalars are not close!" for 0-dim tensors, "are not equal!" when rtol = atol = 0.
void assert_close(const Tensor& actual, const Tensor& expected, const AssertCloseOptions& options = {});

}  // namespace tl::testing
