// tests/nn/test_spatial.cpp — F.pad, F.interpolate, F.unfold / F.fold, F.adaptive_max_pool2d and F.avg_pool2d's
// options against PyTorch 1.13 (values and autograd's gradients, tests/nn/gen_spatial_cases.py), their errors,
// and the layers over them (Upsample, the padding layers, Unfold, Fold, AdaptiveMaxPool2d): forward, repr.
#include <doctest/doctest.h>

#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "nn/layers.h"
#include "ops/ops.h"
#include "tests/ops/loss_cases.h"
#include "tests/support/tensor_check.h"

namespace tl::nn {
namespace {

namespace F = functional;
using testing::OpCase;

IntPair pair_of(const std::vector<int64_t>& v) { return IntPair(v[0], v[1]); }

/// The case's call: its outputs (the first one differentiable in its input).
TensorList run_case(const OpCase& c, const Tensor& x) {
  const auto list = [&](const char* name) { return c.lists.at(name); };
  const auto has = [&](const char* name) { return c.numbers.count(name) > 0; };
  if (c.op.rfind("pad_", 0) == 0) {
    const std::vector<int64_t> pad = list("pad");
    const std::optional<double> value = has("value") ? std::optional<double>(c.numbers.at("value")) : std::nullopt;
    return {F::pad(x, Shape(pad), c.op.substr(4), value)};
  }
  if (c.op.rfind("interpolate_", 0) == 0) {
    F::InterpolateFuncOptions o{.mode = c.op.substr(12)};
    if (c.lists.count("size")) o.size = list("size");
    if (has("scale_h")) o.scale_factor = std::vector<double>{c.numbers.at("scale_h"), c.numbers.at("scale_w")};
    if (has("align_corners")) o.align_corners = c.numbers.at("align_corners") != 0;
    if (has("recompute_scale_factor")) o.recompute_scale_factor = c.numbers.at("recompute_scale_factor") != 0;
    return {F::interpolate(x, o)};
  }
  if (c.op == "unfold")
    return {F::unfold(x, pair_of(list("kernel_size")), pair_of(list("dilation")), pair_of(list("padding")),
                      pair_of(list("stride")))};
  if (c.op == "fold")
    return {F::fold(x, pair_of(list("output_size")), pair_of(list("kernel_size")), pair_of(list("dilation")),
                    pair_of(list("padding")), pair_of(list("stride")))};
  if (c.op == "adaptive_max_pool2d") {
    const std::tuple<Tensor, Tensor> pooled = F::adaptive_max_pool2d_with_indices(x, pair_of(list("output_size")));
    return {std::get<0>(pooled), std::get<1>(pooled)};
  }
  REQUIRE(c.op == "avg_pool2d");
  const std::optional<int64_t> divisor =
      has("divisor_override") ? std::optional<int64_t>(static_cast<int64_t>(c.numbers.at("divisor_override")))
                              : std::nullopt;
  return {F::avg_pool2d(x, pair_of(list("kernel_size")), pair_of(list("stride")), pair_of(list("padding")),
                        c.numbers.at("ceil_mode") != 0, c.numbers.at("count_include_pad") != 0, divisor)};
}

TEST_CASE("F::pad / interpolate / unfold / fold / adaptive_max_pool2d / avg_pool2d: values and gradients as PyTorch's") {
  int checked = 0;
  for (const OpCase& c : testing::op_cases("spatial_cases.json")) {
    CAPTURE(c.name);
    const Tensor x = c.inputs.at("input").clone().requires_grad_();
    const TensorList got = run_case(c, x);
    REQUIRE(got.size() == c.expected.size());
    const double rtol = c.expected[0].dtype() == DType::Float64 ? 1e-12 : 1e-5;
    for (size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].dtype() == c.expected[i].dtype());
      CHECK_TENSOR_CLOSE(got[i], c.expected[i], rtol, rtol);
    }
    (got[0] * c.inputs.at("weight")).sum().backward();
    CHECK_TENSOR_CLOSE(x.grad(), c.grads.at("input"), rtol, rtol);
    ++checked;
  }
  CHECK(checked == 54);
}

TEST_CASE("F::pad / interpolate / unfold / fold: autograd nodes are ATen's") {
  const Tensor x = randn({1, 2, 4, 5}).requires_grad_();
  CHECK(F::pad(x, {1, 2}).grad_fn_name() == "ConstantPadNdBackward0");
  CHECK(F::pad(x, {1, 2, 1, 0}, "reflect").grad_fn_name() == "ReflectionPad2DBackward0");
  CHECK(F::pad(x.select(0, 0), {1, 2}, "replicate").grad_fn_name() == "ReplicationPad1DBackward0");
  CHECK(F::unfold(x, 2).grad_fn_name() == "Im2ColBackward0");
  CHECK(F::fold(F::unfold(x, 2), IntPair(4, 5), 2).grad_fn_name() == "Col2ImBackward0");
  CHECK(F::adaptive_max_pool2d(x, 2).grad_fn_name() == "AdaptiveMaxPool2DBackward0");
}

TEST_CASE("F::pad: errors as PyTorch's, the input untouched") {
  const Tensor x = randn({1, 2, 4, 5});
  const Tensor before = x.clone();
  CHECK_THROWS_WITH_AS(F::pad(x, {1, 2, 3}), "pad: padding length must be divisible by 2", Error);
  CHECK_THROWS_WITH_AS(F::pad(x, Shape(std::vector<int64_t>(10, 1))),
                       "pad: padding length too large: 10 values for input [1, 2, 4, 5]", Error);
  CHECK_THROWS_WITH_AS(F::pad(x, {1, 1}, "foo"), "pad: unrecognised padding mode foo", Error);
  CHECK_THROWS_WITH_AS(F::pad(x, {1, 1}, "reflect", 2.0), "pad: padding mode \"reflect\" doesn't take in value argument",
                       Error);
  CHECK_THROWS_WITH_AS(F::pad(x, {5, 0, 0, 0}, "reflect"),
                       "reflection_pad2d: padding size should be less than the corresponding input dimension, but got: "
                       "padding (5, 0) at dimension 3 of input [1, 2, 4, 5]", Error);
  CHECK_THROWS_WITH_AS(F::pad(x, {0, 0, 0, -4}, "replicate"),
                       "replication_pad2d: input (H: 4, W: 5) is too small. Calculated output H: 0 W: 5", Error);
  CHECK_THROWS_WITH_AS(F::pad(x, {1, 1}, "replicate"),
                       "pad: mode \"replicate\" pads the last dim of a 2-D or 3-D input (2 values) or the last two of a "
                       "3-D or 4-D input (4 values), got 2 values for input [1, 2, 4, 5]", Error);
  CHECK_THROWS_WITH_AS(F::pad(x, {6, 0, 0, 0}, "circular"), "pad: padding value causes wrapping around more than once.",
                       Error);
  CHECK_THROWS_WITH_AS(F::pad(x.select(0, 0), {1, 1, 1, 1}, "circular"),
                       "pad: invalid padding size, expected 2 but got 4 for circular padding of input [2, 4, 5]", Error);
  CHECK_THROWS_WITH_AS(F::pad(x, {-3, -3}),
                       "constant_pad_nd: the input size 5, plus negative padding -3 and -3 resulted in a negative output "
                       "size, which is invalid. Check dimension 3 of your input.", Error);
  CHECK_THROWS_WITH_AS(F::pad(x.to(DType::Int64), {1, 1, 1, 1}, "reflect"),
                       "reflection_pad2d: expected a floating point dtype, got torch.int64", Error);
  CHECK_TENSOR_CLOSE(x, before, 0.0, 0.0);
  // constant padding keeps any dtype, the value converted to it as PyTorch does (2.7 -> 2)
  CHECK_TENSOR_CLOSE(F::pad(arange(3), {1, 1}, "constant", 2.7), from_vector<int64_t>({2, 0, 1, 2, 2}, {5}), 0.0, 0.0);
}

TEST_CASE("F::interpolate, F::unfold, F::fold, F::adaptive_max_pool2d: errors as PyTorch's") {
  const Tensor x = randn({1, 2, 4, 5});
  using Options = F::InterpolateFuncOptions;
  CHECK_THROWS_WITH_AS(F::interpolate(x, Options{.size = std::vector<int64_t>{2, 3}, .scale_factor = std::vector<double>{2}}),
                       "interpolate: only one of size or scale_factor should be defined", Error);
  CHECK_THROWS_WITH_AS(F::interpolate(x, Options{}), "interpolate: either size or scale_factor should be defined", Error);
  CHECK_THROWS_WITH_AS(F::interpolate(x, Options{.size = std::vector<int64_t>{2, 3, 4}}),
                       "interpolate: input and output must have the same number of spatial dimensions, but got input "
                       "with spatial dimensions of [4, 5] and output size of [2, 3, 4].", Error);
  CHECK_THROWS_WITH_AS(F::interpolate(x, Options{.size = std::vector<int64_t>{2, 3}, .recompute_scale_factor = true}),
                       "interpolate: recompute_scale_factor is not meaningful with an explicit size.", Error);
  CHECK_THROWS_WITH_AS(F::interpolate(x, Options{.size = std::vector<int64_t>{2}, .align_corners = true}),
                       "interpolate: align_corners option can only be set with the interpolating modes: linear | "
                       "bilinear | bicubic | trilinear", Error);
  CHECK_THROWS_WITH_AS(F::interpolate(x, Options{.size = std::vector<int64_t>{2}, .mode = "bicubic"}),
                       "interpolate: mode must be 'nearest' or 'bilinear', got 'bicubic'", Error);
  CHECK_THROWS_WITH_AS(F::interpolate(x.select(0, 0), Options{.size = std::vector<int64_t>{2}, .mode = "bilinear"}),
                       "interpolate: mode 'bilinear' needs 4-D input (N, C, H, W), got 3-D input [2, 4, 5]", Error);
  CHECK_THROWS_WITH_AS(F::interpolate(x, Options{.scale_factor = std::vector<double>{0.1}}),
                       "upsample_nearest2d: input and output sizes should be greater than 0, but got input (H: 4, W: 5) "
                       "output (H: 0, W: 0)", Error);
  CHECK_THROWS_WITH_AS(F::unfold(x, 7),
                       "im2col: given input with spatial size (4, 5), kernel_size=(7, 7), dilation=(1, 1), "
                       "padding=(0, 0), calculated shape of the array of sliding blocks as (-2, -1), but its components "
                       "must be at least one.", Error);
  CHECK_THROWS_WITH_AS(F::unfold(x, 2, 1, 0, 0),
                       "im2col: stride should be greater than zero, but got stride_height: 0 stride_width: 0", Error);
  CHECK_THROWS_WITH_AS(F::fold(randn({1, 7, 12}), IntPair(4, 5), 2),
                       "col2im: expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                       "got input.size(1)=7 and kernel_size=(2, 2).", Error);
  CHECK_THROWS_WITH_AS(F::fold(randn({1, 8, 3}), IntPair(4, 5), 2),
                       "col2im: given output_size=(4, 5), kernel_size=(2, 2), dilation=(1, 1), padding=(0, 0), "
                       "stride=(1, 1), expected size of input's dimension 2 to match the calculated number of sliding "
                       "blocks 3 * 4 = 12, but got input.size(2)=3.", Error);
  CHECK_THROWS_WITH_AS(F::adaptive_max_pool2d(x.select(0, 0).select(0, 0), 2),
                       "adaptive_max_pool2d: expected 3D or 4D tensor, but got: [4, 5]", Error);
  CHECK_THROWS_WITH_AS(F::adaptive_max_pool2d(zeros({1, 2, 0, 3}), 2),
                       "adaptive_max_pool2d: expected input to have non-zero size for non-batch dimensions, but input "
                       "has sizes [1, 2, 0, 3] with dimension 2 being empty", Error);
}

TEST_CASE("padding, resizing and block layers: forward is their F:: call, repr is PyTorch's") {
  const Tensor x = randn({1, 2, 4, 5});
  const auto repr_of = [](const Module& m) {
    std::ostringstream s;
    s << m;
    return s.str();
  };
  CHECK(repr_of(ZeroPad2d(2)) == "ZeroPad2d((2, 2, 2, 2))\n");
  CHECK(repr_of(ReflectionPad2d({1, 2, 3, 4})) == "ReflectionPad2d((1, 2, 3, 4))\n");
  CHECK(repr_of(ReplicationPad1d(3)) == "ReplicationPad1d((3, 3))\n");
  CHECK(repr_of(ReflectionPad1d(2)) == "ReflectionPad1d((2, 2))\n");
  CHECK(repr_of(ConstantPad2d(2, 3.5)) == "ConstantPad2d(padding=(2, 2, 2, 2), value=3.5)\n");
  CHECK(repr_of(Upsample(UpsampleOptions{.scale_factor = std::vector<double>{2}})) ==
        "Upsample(scale_factor=2.0, mode=nearest)\n");
  CHECK(repr_of(Upsample(UpsampleOptions{.size = std::vector<int64_t>{3, 4}, .mode = "bilinear"})) ==
        "Upsample(size=(3, 4), mode=bilinear)\n");
  CHECK(repr_of(Upsample(UpsampleOptions{.scale_factor = std::vector<double>{2, 3}, .mode = "bilinear",
                                         .align_corners = true})) == "Upsample(scale_factor=(2.0, 3.0), mode=bilinear)\n");
  CHECK(repr_of(Unfold(2)) == "Unfold(kernel_size=2, dilation=1, padding=0, stride=1)\n");
  CHECK(repr_of(Fold(FoldOptions{.output_size = {4, 5}, .kernel_size = {2, 3}, .stride = 2})) ==
        "Fold(output_size=(4, 5), kernel_size=(2, 3), dilation=1, padding=0, stride=2)\n");
  CHECK(repr_of(AdaptiveMaxPool2d(3)) == "AdaptiveMaxPool2d(output_size=3)\n");
  CHECK(repr_of(AvgPool2d(AvgPool2dOptions{.kernel_size = 2, .divisor_override = 3})) ==
        "AvgPool2d(kernel_size=2, stride=2, padding=0)\n");

  CHECK_TENSOR_CLOSE(ReflectionPad2d({1, 2, 3, 0})(x), F::pad(x, {1, 2, 3, 0}, "reflect"), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(ConstantPad1d({1, 2}, 0.5)(x), F::pad(x, {1, 2}, "constant", 0.5), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(ReplicationPad2d(1)(x), F::pad(x, {1, 1, 1, 1}, "replicate"), 0.0, 0.0);
  const UpsampleOptions up{.scale_factor = std::vector<double>{1.5}, .mode = "bilinear", .align_corners = true};
  CHECK_TENSOR_CLOSE(Upsample(up)(x), F::interpolate(x, up), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(Fold(IntPair(4, 5), 2)(Unfold(2)(x)), F::fold(F::unfold(x, 2), IntPair(4, 5), 2), 0.0, 0.0);
  AdaptiveMaxPool2d pool(IntPair(2, 3));
  const std::tuple<Tensor, Tensor> with_indices = pool.forward_with_indices(x);
  CHECK_TENSOR_CLOSE(pool(x), std::get<0>(with_indices), 0.0, 0.0);
  CHECK(std::get<1>(with_indices).dtype() == DType::Int64);
  CHECK_TENSOR_CLOSE(AvgPool2d(AvgPool2dOptions{.kernel_size = 3, .stride = 2, .padding = 1, .divisor_override = 4})(x),
                     F::avg_pool2d(x, 3, 2, 1, false, true, 4), 0.0, 0.0);
  CHECK_THROWS_WITH_AS(Upsample(UpsampleOptions{}), "Upsample: either size or scale_factor should be defined", Error);
  CHECK_THROWS_WITH_AS(ReflectionPad2d({1, 2, 3}), "padding: expected 4 values, got 3", Error);
  CHECK_THROWS_WITH_AS(AvgPool2d(AvgPool2dOptions{.kernel_size = 2, .divisor_override = 0}),
                       "AvgPool2d: divisor must be not zero", Error);
  const auto clone = Upsample(up).clone();
  CHECK(repr_of(*clone) == "Upsample(scale_factor=1.5, mode=bilinear)\n");
}

}  // namespace
}  // namespace tl::nn
