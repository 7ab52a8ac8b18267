// tests/ops/test_registry.cpp — dispatch::call's input checks against the parsed schema: a missing or
// undefined tensor is a tl::Error naming the op and argument, trailing optional tensors may be left out.
#include <doctest/doctest.h>

#include "core/dispatch.h"
#include "core/generator.h"
#include "core/op_kind.h"
#include "core/warning.h"
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


// PyTorch 1.13's texts (aten/src/ATen/MemoryOverlap.cpp), checked for every written tensor at the dispatch point.
constexpr const char* kInternalOverlap =
    ": unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
    "Please clone() the tensor before performing the operation.";
constexpr const char* kInputOverlap =
    ": unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory "
    "location. Please clone() the tensor before performing the operation.";

std::string overlap_error(const char* op, const char* text) { return std::string(op) + text; }

TEST_CASE("dispatch: scatter_, scatter_add_ and index_add_ refuse an input that shares the written tensor's memory") {
  const Tensor index = tensor({0, 1, 0, 1, 0, 1}, DType::Int64).reshape({2, 3});
  Tensor x = arange(0, 6, 1, DType::Float32).reshape({2, 3});
  const Tensor before = x.clone();
  CHECK_THROWS_WITH_AS(x.scatter_(0, index, x), overlap_error("scatter_", kInputOverlap).c_str(), Error);
  CHECK_THROWS_WITH_AS(x.scatter_add_(0, index, x), overlap_error("scatter_add_", kInputOverlap).c_str(), Error);
  CHECK_THROWS_WITH_AS(x.index_add_(0, tensor({1, 0}, DType::Int64), x),
                       overlap_error("index_add_", kInputOverlap).c_str(), Error);
  // part of self as the source, and self as its own index
  CHECK_THROWS_WITH_AS(x.index_add_(0, tensor({1}, DType::Int64), x.slice(0, 1, 2)),
                       overlap_error("index_add_", kInputOverlap).c_str(), Error);
  Tensor ints = zeros({2, 3}, DType::Int64);
  CHECK_THROWS_WITH_AS(ints.scatter_(0, ints, zeros({2, 3}, DType::Int64)),
                       overlap_error("scatter_", kInputOverlap).c_str(), Error);
  CHECK_TENSOR_CLOSE(x, before, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(ints, zeros({2, 3}, DType::Int64), 0.0, 0.0);
  // A pointwise op may read the very elements it writes, as PyTorch's TensorIterator allows.
  CHECK_TENSOR_CLOSE(x.clone().add_(x), before * 2, 0.0, 0.0);
}

TEST_CASE("dispatch: an in-place write to an expanded tensor is refused before the generator moves") {
  manual_seed(3);
  const std::vector<uint8_t> state = default_generator().get_state();
  Tensor expanded = zeros({3}).expand({2, 3});
  CHECK_THROWS_WITH_AS(expanded.bernoulli_(0.5), overlap_error("bernoulli_", kInternalOverlap).c_str(), Error);
  CHECK_THROWS_WITH_AS(expanded.uniform_(), overlap_error("uniform_", kInternalOverlap).c_str(), Error);
  CHECK_THROWS_WITH_AS(expanded.normal_(), overlap_error("normal_", kInternalOverlap).c_str(), Error);
  CHECK_THROWS_WITH_AS(expanded.scatter_(0, zeros({1, 3}, DType::Int64), ones({1, 3})),
                       overlap_error("scatter_", kInternalOverlap).c_str(), Error);
  CHECK_THROWS_WITH_AS(expanded.clamp_(0, 1), overlap_error("clamp_", kInternalOverlap).c_str(), Error);
  CHECK(default_generator().get_state() == state);
  CHECK_TENSOR_CLOSE(expanded, zeros({2, 3}), 0.0, 0.0);
  // a stride-0 dimension of size 1, or an empty tensor, has no two elements in one place
  CHECK_TENSOR_CLOSE(zeros({3}).expand({1, 3}).add_(1), ones({1, 3}), 0.0, 0.0);
  CHECK(zeros({0}).expand({2, 0}).uniform_().numel() == 0);
}

TEST_CASE("dispatch: masked_fill_ on an expanded tensor warns, as PyTorch 1.13 deprecates it, and fills") {
  std::vector<std::string> warnings;
  const WarningHandler previous = set_warning_handler([&](const std::string& w) { warnings.push_back(w); });
  Tensor base = zeros({3});
  base.expand({2, 3}).masked_fill_(tensor({true, false, true}, DType::Bool), 2.0);
  set_warning_handler(previous);
  CHECK(warnings == std::vector<std::string>{
                        "Use of masked_fill_ on expanded tensors is deprecated. Please clone() the tensor before "
                        "performing this operation. This also applies to advanced indexing e.g. tensor[mask] = scalar"});
  CHECK_TENSOR_CLOSE(base, tensor({2.0f, 0.0f, 2.0f}), 0.0, 0.0);
}

TEST_CASE("dispatch: index_put_ on an expanded tensor warns too (x[idx] = v), and writes") {
  std::vector<std::string> warnings;
  const WarningHandler previous = set_warning_handler([&](const std::string& w) { warnings.push_back(w); });
  Tensor base = zeros({1});
  Tensor expanded = base.expand({3});
  expanded.index_put_({tensor({2})}, tensor({5.0}));
  set_warning_handler(previous);
  CHECK(warnings == std::vector<std::string>{
                        "Use of index_put_ on expanded tensors is deprecated. Please clone() the tensor before "
                        "performing this operation. This also applies to advanced indexing e.g. tensor[indices] = tensor"});
  CHECK(base.item<float>() == 5.0f);
}

}  // namespace
}  // namespace tl
