// tests/ops/test_conv_shape.cpp — conv_output_size against the formula the Conv2d and MaxPool2d docs
// give (real division, then floor or ceil), sizes PyTorch 1.13 prints, ceil_mode's dropped last window,
// and the errors naming the values.
#include <doctest/doctest.h>

#include <array>
#include <cmath>

#include "core/error.h"
#include "ops/conv_shape.h"

namespace tl {
namespace {

using Pair = std::array<int64_t, 2>;

/// The docs' formula on one axis, in real arithmetic: floor (or ceil) of
/// (in + 2 * padding - dilation * (kernel - 1) - 1) / stride + 1; with ceil_mode a last window that
/// starts at or beyond in + padding is dropped.
int64_t documented_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode) {
  const double x = static_cast<double>(in + 2 * p - d * (k - 1) - 1) / static_cast<double>(s) + 1.0;
  auto out = static_cast<int64_t>(ceil_mode ? std::ceil(x) : std::floor(x));
  if (ceil_mode && (out - 1) * s >= in + p) --out;
  return out;
}

TEST_CASE("conv_output_size: sizes PyTorch prints") {
  // ResNet18's conv1 (7x7, stride 2, padding 3) and max pool (3x3, stride 2, padding 1) on 224x224.
  CHECK(conv_output_size("conv2d", {1, 3, 224, 224}, {7, 7}, {2, 2}, {3, 3}, {1, 1}) == Pair{112, 112});
  CHECK(conv_output_size("max_pool2d", {1, 64, 112, 112}, {3, 3}, {2, 2}, {1, 1}, {1, 1}) == Pair{56, 56});
  // Dilation 2 widens a 3x3 kernel to 5x5; a non-square input with per-axis arguments.
  CHECK(conv_output_size("conv2d", {2, 4, 9, 12}, {3, 3}, {1, 2}, {0, 1}, {2, 2}) == Pair{5, 5});
  // MaxPool2d(2, 2, ceil_mode=True) on 5x5 is 3x3 (floor: 2x2).
  CHECK(conv_output_size("max_pool2d", {1, 2, 5, 5}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, true) == Pair{3, 3});
  CHECK(conv_output_size("max_pool2d", {1, 2, 5, 5}, {2, 2}, {2, 2}, {0, 0}, {1, 1}, false) == Pair{2, 2});
  // MaxPool2d(2, 3, padding=1, ceil_mode=True) on 8x8: the ceil window would start in the right
  // padding, so PyTorch drops it (3, not 4).
  CHECK(conv_output_size("max_pool2d", {3, 2, 8, 8}, {2, 2}, {3, 3}, {1, 1}, {1, 1}, true) == Pair{3, 3});
  // A blocked (N, C / 16, H, W, 16) activation: H and W are still dims 2 and 3.
  CHECK(conv_output_size("mkldnn_max_pool2d", {1, 4, 7, 9, 16}, {3, 3}, {2, 2}, {1, 1}, {1, 1}) == Pair{4, 5});
}

TEST_CASE("conv_output_size: matches the documented formula over a sweep") {
  for (int64_t in = 1; in <= 12; ++in)
    for (int64_t k = 1; k <= 5; ++k)
      for (int64_t s = 1; s <= 4; ++s)
        for (int64_t p = 0; p <= k / 2; ++p)
          for (int64_t d = 1; d <= 3; ++d)
            for (bool ceil_mode : {false, true}) {
              const int64_t expected = documented_size(in, k, s, p, d, ceil_mode);
              CAPTURE(in);
              CAPTURE(k);
              CAPTURE(s);
              CAPTURE(p);
              CAPTURE(d);
              CAPTURE(ceil_mode);
              if (expected <= 0) {
                CHECK_THROWS_AS(conv_output_size("op", {1, 1, in, 8}, {k, 1}, {s, 1}, {p, 0}, {d, 1}, ceil_mode),
                                Error);
              } else {
                CHECK(conv_output_size("op", {1, 1, in, in + k}, {k, k}, {s, s}, {p, p}, {d, 1}, ceil_mode) ==
                      Pair{expected, documented_size(in + k, k, s, p, 1, ceil_mode)});
              }
            }
}

TEST_CASE("conv_output_size: errors name the op and the values") {
  CHECK_THROWS_WITH_AS(conv_output_size("conv2d", {1, 4, 4, 4}, {5, 5}, {1, 1}, {0, 0}, {1, 1}),
                       "conv2d: input [1, 4, 4, 4] is too small for kernel_size [5, 5] (stride [1, 1], padding [0, 0], "
                       "dilation [1, 1]): output size would be [0, 0]",
                       Error);
  // The size PyTorch's formula gives, rounded toward -infinity, even when it is negative.
  CHECK_THROWS_WITH_AS(conv_output_size("max_pool2d", {1, 1, 2, 9}, {3, 3}, {1, 1}, {0, 0}, {4, 1}),
                       doctest::Contains("output size would be [-6, 7]"), Error);
  CHECK_THROWS_WITH_AS(conv_output_size("conv2d", {1, 1, 5, 5}, {3, 3}, {0, 1}, {0, 0}, {1, 1}),
                       "conv2d: stride must be positive, got [0, 1]", Error);
  CHECK_THROWS_WITH_AS(conv_output_size("conv2d", {1, 1, 5, 5}, {3, 0}, {1, 1}, {0, 0}, {1, 1}),
                       "conv2d: kernel_size must be positive, got [3, 0]", Error);
  CHECK_THROWS_WITH_AS(conv_output_size("avg_pool2d", {1, 1, 5, 5}, {3, 3}, {1, 1}, {-1, 0}, {1, 1}),
                       "avg_pool2d: padding must be non-negative, got [-1, 0]", Error);
  CHECK_THROWS_WITH_AS(conv_output_size("conv2d", {1, 1, 5, 5}, {3, 3}, {1, 1}, {0, 0}, {1, 0}),
                       "conv2d: dilation must be positive, got [1, 0]", Error);
}

}  // namespace
}  // namespace tl
