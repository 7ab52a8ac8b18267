// tests/ops/test_layer_norm.cpp — native_layer_norm_backward's parameter gradients: grad_weight, summed straight
// from grad and input, has the bits of the products grad * (x - mean) * rstd summed over the rows by sum().
#include <doctest/doctest.h>

#include <cstdint>
#include <tuple>

#include "core/generator.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

TEST_CASE("layer_norm backward: grad_weight and grad_bias have the bits of sum() over the rows") {
  manual_seed(5);
  struct Case {
    Shape shape;
    Shape normalized;
  };
  // Rows of 1000 in blocks, odd and multi-dim rows, rows of one element (sums down the rows, in blocks too).
  const Case cases[] = {{{700, 1000}, {1000}}, {{3, 5, 7}, {7}},  {{6, 4, 5, 9}, {5, 9}},
                        {{1, 33}, {33}},       {{300, 1}, {1}},   {{2, 20000, 1}, {1}}};
  for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
    for (const Case& c : cases) {
      CAPTURE(c.shape);
      CAPTURE(dtype);
      const Tensor x = (randn(c.shape) * 3 + 1).to(dtype), dy = randn(c.shape).to(dtype);
      const Tensor w = randn(c.normalized).to(dtype), b = randn(c.normalized).to(dtype);
      const auto [y, mean, rstd] = native_layer_norm(x, c.normalized, w, b, 1e-5);
      const auto [dx, dw, db] = native_layer_norm_backward(dy, x, c.normalized, mean, rstd, w, b, {true, true, true});
      Shape rows;
      for (int64_t d = 0; d < x.dim() - static_cast<int64_t>(c.normalized.size()); ++d) rows.push_back(d);
      // In the arithmetic type: float for bfloat16.
      const DType acc = dtype == DType::BFloat16 ? DType::Float32 : dtype;
      const Tensor products = dy.to(acc) * ((x.to(acc) - mean.to(acc)) * rstd.to(acc));
      CHECK_TENSOR_CLOSE(dw, products.sum(rows).to(dtype), 0, 0);
      CHECK_TENSOR_CLOSE(db, dy.sum(rows), 0, 0);
    }
  }
}

}  // namespace
}  // namespace tl
