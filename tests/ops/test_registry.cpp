// tests/ops/test_registry.cpp — dispatch::call's input checks against the parsed schema: a missing or
// undefined tensor is a tl::Error naming the op and argument, trailing optional tensors may be left out.
#include <doctest/doctest.h>

#include "core/dispatch.h"
#include "core/generator.h"
#include "core/op_kind.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

Attrs conv_attrs() {
  return Attrs{{"stride", Shape{1, 1}}, {"padding", Shape{0, 0}}, {"dilation", Shape{1, 1}}, {"groups", int64_t{1}}};
}

TEST_CASE("dispatch: a left-out trailing optional tensor is None") {
  manual_seed(0);
  const Tensor x = randn({1, 2, 5, 5}), w = randn({3, 2, 3, 3});
  const Tensor with_none = dispatch::call_single_output(OpKind::Conv2d, {x, w, Tensor()}, conv_attrs());
  const Tensor left_out = dispatch::call_single_output(OpKind::Conv2d, {x, w}, conv_attrs());
  CHECK_TENSOR_CLOSE(left_out, with_none, 0.0, 0.0);
}

TEST_CASE("dispatch: missing, undefined or extra tensors are errors naming the op") {
  const Tensor x = ones({2, 2});
  CHECK_THROWS_WITH_AS(dispatch::call_single_output(OpKind::Mean, {Tensor()}, Attrs{{"dim", std::monostate{}}}),
                       "mean: expected a tensor for 'self', got None", Error);
  CHECK_THROWS_WITH_AS(dispatch::call(OpKind::Mean, {}, Attrs{{"self", int64_t{5}}}),
                       "mean: missing tensor argument 'self'", Error);
  CHECK_THROWS_WITH_AS(dispatch::call_single_output(OpKind::Matmul, {x}, Attrs{{"other", int64_t{5}}}),
                       "matmul: missing tensor argument 'other'", Error);
  CHECK_THROWS_WITH_AS(dispatch::call_single_output(OpKind::Conv2d, {x}, conv_attrs()), "conv2d: missing tensor argument 'weight'",
                       Error);
  CHECK_THROWS_WITH_AS(dispatch::call_single_output(OpKind::Relu, {x, x}), "relu: got 2 tensor inputs, expected at most 1", Error);
  CHECK_THROWS_WITH_AS(dispatch::call_single_output(OpKind::Cat, {x, Tensor()}, Attrs{{"dim", int64_t{0}}}),
                       "cat: expected a tensor at position 1 of the list, got None", Error);
  // A Python operator's second operand may be a number.
  CHECK_TENSOR_CLOSE(dispatch::call_single_output(OpKind::Add, {x}, Attrs{{"other", int64_t{2}}}), full({2, 2}, 3.0), 0.0, 0.0);
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST_CASE("deprecated: dispatch::call1 is call_single_output for one more version") {
  const Tensor x = full({2, 2}, 1.0);
  CHECK_TENSOR_CLOSE(dispatch::call1(OpKind::Add, {x}, Attrs{{"other", int64_t{2}}}), full({2, 2}, 3.0), 0.0, 0.0);
}
#pragma GCC diagnostic pop

}  // namespace
}  // namespace tl
