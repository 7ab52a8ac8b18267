// tests/ops/nn_references.h — naive double-precision references for conv2d and batch_norm, and the
// conv2d parameter sweep, shared by the per-op tests and the float64 kernel tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/tensor.h"
#include "tests/ops/nn_testing.h"

namespace tl::testing {

struct ConvCase {
  Shape input;  // (N, C_in, H, W)
  int64_t out_channels;
  Shape kernel, stride, padding, dilation;
  int64_t groups;
  bool bias;
};

inline const ConvCase kConvCases[] = {
    {{1, 3, 7, 7}, 4, {3, 3}, {1, 1}, {0, 0}, {1, 1}, 1, true},
    {{2, 3, 9, 6}, 5, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 1, false},
    {{3, 4, 8, 5}, 6, {2, 3}, {1, 2}, {1, 0}, {1, 1}, 2, true},      // grouped, non-square kernel
    {{2, 6, 7, 7}, 6, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 6, true},      // depthwise
    {{1, 4, 9, 9}, 8, {3, 3}, {2, 2}, {1, 1}, {1, 1}, 4, false},     // depthwise, multiplier 2
    {{2, 3, 11, 10}, 4, {3, 3}, {1, 1}, {2, 2}, {2, 2}, 1, true},    // dilated
    {{1, 5, 6, 8}, 7, {1, 1}, {1, 1}, {0, 0}, {1, 1}, 1, true},      // 1x1
    {{2, 2, 7, 9}, 3, {5, 1}, {3, 1}, {2, 0}, {1, 3}, 1, true},      // asymmetric everything
    {{1, 3, 5, 5}, 2, {5, 5}, {1, 1}, {0, 0}, {1, 1}, 1, true},      // kernel covers the input
    {{1, 16, 9, 9}, 32, {3, 3}, {1, 1}, {1, 1}, {1, 1}, 1, true},    // channels oneDNN blocks by 16
    {{3, 3, 13, 13}, 8, {7, 7}, {2, 2}, {3, 3}, {1, 1}, 1, false},   // ResNet stem, scaled down
};

/// Direct loops in double: out[n][o][i][j] = bias[o] + sum over the group's channels and the window.
inline Tensor reference_conv2d(const Tensor& x, const Tensor& w, const Tensor& b, const Shape& stride, const Shape& padding,
                        const Shape& dilation, int64_t groups) {
  const std::vector<double> in = to_doubles(x), wt = to_doubles(w);
  const std::vector<double> bias = b.defined() ? to_doubles(b) : std::vector<double>(w.size(0), 0.0);
  const int64_t N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
  const int64_t O = w.size(0), Cg = w.size(1), KH = w.size(2), KW = w.size(3), Og = O / groups;
  const int64_t OH = (H + 2 * padding[0] - dilation[0] * (KH - 1) - 1) / stride[0] + 1;
  const int64_t OW = (W + 2 * padding[1] - dilation[1] * (KW - 1) - 1) / stride[1] + 1;
  std::vector<double> out;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t i = 0; i < OH; ++i)
        for (int64_t j = 0; j < OW; ++j) {
          double s = bias[o];
          for (int64_t c = 0; c < Cg; ++c)
            for (int64_t kh = 0; kh < KH; ++kh)
              for (int64_t kw = 0; kw < KW; ++kw) {
                const int64_t h = i * stride[0] - padding[0] + kh * dilation[0];
                const int64_t v = j * stride[1] - padding[1] + kw * dilation[1];
                if (h < 0 || h >= H || v < 0 || v >= W) continue;
                const int64_t channel = (o / Og) * Cg + c;
                s += in[((n * C + channel) * H + h) * W + v] * wt[((o * Cg + c) * KH + kh) * KW + kw];
              }
          out.push_back(s);
        }
  return from_doubles(out, {N, O, OH, OW});
}

inline Shape weight_shape(const ConvCase& c) { return {c.out_channels, c.input[1] / c.groups, c.kernel[0], c.kernel[1]}; }

struct BatchNormReference {
  Tensor out, running_mean, running_var;
};

/// Per channel c of x (N, C, *): y = (x - mean) / sqrt(var + eps) * weight + bias, where mean/var
/// are the running ones in inference and the batch's (biased var) in training; in training the
/// running stats become (1 - m) * running + m * batch (unbiased var).
inline BatchNormReference reference_batch_norm(const Tensor& x, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                               const Tensor& running_var, bool training, double momentum, double eps) {
  const std::vector<double> in = to_doubles(x);
  const int64_t N = x.size(0), C = x.size(1), S = x.numel() / std::max<int64_t>(1, N * C);
  std::vector<double> rm = running_mean.defined() ? to_doubles(running_mean) : std::vector<double>(C, 0.0);
  std::vector<double> rv = running_var.defined() ? to_doubles(running_var) : std::vector<double>(C, 1.0);
  const std::vector<double> w = weight.defined() ? to_doubles(weight) : std::vector<double>(C, 1.0);
  const std::vector<double> b = bias.defined() ? to_doubles(bias) : std::vector<double>(C, 0.0);
  std::vector<double> out(in.size());
  for (int64_t c = 0; c < C; ++c) {
    double mean = rm[c], var = rv[c];
    if (training) {
      double sum = 0, squares = 0;
      for (int64_t n = 0; n < N; ++n)
        for (int64_t s = 0; s < S; ++s) sum += in[(n * C + c) * S + s];
      mean = sum / static_cast<double>(N * S);
      for (int64_t n = 0; n < N; ++n)
        for (int64_t s = 0; s < S; ++s) squares += std::pow(in[(n * C + c) * S + s] - mean, 2);
      var = squares / static_cast<double>(N * S);
      rm[c] = (1 - momentum) * rm[c] + momentum * mean;
      rv[c] = (1 - momentum) * rv[c] + momentum * squares / static_cast<double>(N * S - 1);
    }
    for (int64_t n = 0; n < N; ++n)
      for (int64_t s = 0; s < S; ++s) {
        const int64_t i = (n * C + c) * S + s;
        out[i] = (in[i] - mean) / std::sqrt(var + eps) * w[c] + b[c];
      }
  }
  return {from_doubles(out, x.shape()), from_doubles(rm, {C}), from_doubles(rv, {C})};
}

}  // namespace tl::testing
