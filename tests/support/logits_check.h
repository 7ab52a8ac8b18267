// tests/support/logits_check.h — comparing an optimized model's logits with eager's (the inference passes' tests).
#pragma once

#include <algorithm>
#include <cmath>

#include "core/tensor.h"
#include "tests/support/tensor_check.h"

namespace tl::testing {

/// sqrt(sum((actual - expected)^2) / sum(expected^2)): how far logits moved, one number (bf16 bounds).
inline double relative_error(const Tensor& actual, const Tensor& expected) {
  return std::sqrt((actual - expected).pow(2.0).sum().item<double>() / expected.pow(2.0).sum().item<double>());
}

/// The logits' scale: their largest magnitude, at least 1.
inline double logits_scale(const Tensor& expected) {
  return std::max(1.0, static_cast<double>(expected.abs().max().item<float>()));
}

}  // namespace tl::testing

/// CHECK logits within rtol 1e-4 and atol 1e-4 of their scale: the blocked kernels sum in another order than
/// eager's, so near-zero logits are compared against the scale.
#define CHECK_LOGITS_CLOSE(actual, expected) \
  CHECK_TENSOR_CLOSE(actual, expected, 1e-4, 1e-4 * ::tl::testing::logits_scale(expected))
