// tests/nn/test_conv_pool.cpp — Conv1d, ConvTranspose1d/2d and the 1-d pools against PyTorch 1.13: values and
// autograd's gradients (tests/nn/gen_conv_pool_cases.py writes tests/ops/data/conv_pool_cases.json), default
// initialisation for a seed, repr, state_dict keys, FX leaf modules, autograd nodes and errors.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "fx/tracer.h"
#include "nn/layers.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/ops/loss_cases.h"
#include "tests/support/tensor_check.h"

namespace tl::nn {
namespace {

namespace F = functional;
using testing::OpCase;

int64_t num(const OpCase& c, const char* name) { return static_cast<int64_t>(c.numbers.at(name)); }
bool flag(const OpCase& c, const char* name) { return c.numbers.at(name) != 0; }
std::optional<int64_t> maybe(const OpCase& c, const char* name) {
  return c.numbers.count(name) ? std::optional<int64_t>(num(c, name)) : std::nullopt;
}
IntPair pair_of(const OpCase& c, const char* name) {
  const std::vector<int64_t>& v = c.lists.at(name);
  return IntPair(v[0], v[1]);
}
F::Padding1d padding_of(const OpCase& c) {
  if (c.strings.count("padding")) return c.strings.at("padding");
  return num(c, "padding");
}
F::Padding2d padding2d_of(const OpCase& c) {
  if (c.strings.count("padding")) return c.strings.at("padding");
  return pair_of(c, "padding");
}

/// Puts the case's weight and bias into a layer's parameters (as the generator's module uses them).
void set_parameters(Module& m, const Tensor& weight, const Tensor& bias) {
  m.register_parameter("weight", weight);
  m.register_parameter("bias", bias);
}

/// The case's call on its inputs (leaves that require grad): its outputs, the first one differentiable.
TensorList run_case(const OpCase& c, const Tensor& x, const Tensor& w, const Tensor& b) {
  if (c.op == "conv1d") return {F::conv1d(x, w, b, num(c, "stride"), padding_of(c), num(c, "dilation"), num(c, "groups"))};
  if (c.op == "Conv1d") {
    Conv1d conv({.in_channels = 4, .out_channels = 6, .kernel_size = num(c, "kernel_size"), .padding = padding_of(c),
                 .dilation = num(c, "dilation"), .padding_mode = c.strings.at("padding_mode")});
    set_parameters(conv, w, b);
    return {conv(x)};
  }
  if (c.op == "conv2d")
    return {F::conv2d(x, w, b, 1, padding2d_of(c), pair_of(c, "dilation"), num(c, "groups"))};
  if (c.op == "Conv2d") {
    Conv2d conv({.in_channels = 4, .out_channels = 6, .kernel_size = pair_of(c, "kernel_size"),
                 .padding = padding2d_of(c), .dilation = pair_of(c, "dilation"),
                 .padding_mode = c.strings.at("padding_mode")});
    set_parameters(conv, w, b);
    return {conv(x)};
  }
  if (c.op == "conv_transpose2d")
    return {F::conv_transpose2d(x, w, b, pair_of(c, "stride"), pair_of(c, "padding"), pair_of(c, "output_padding"),
                                num(c, "groups"), pair_of(c, "dilation"))};
  if (c.op == "conv_transpose1d")
    return {F::conv_transpose1d(x, w, b, num(c, "stride"), num(c, "padding"), num(c, "output_padding"),
                                num(c, "groups"), num(c, "dilation"))};
  if (c.op == "ConvTranspose2d") {
    ConvTranspose2d up({.in_channels = 2, .out_channels = 3, .kernel_size = 3, .stride = 2, .padding = 1});
    set_parameters(up, w, b);
    return {up.forward(x, Shape(c.lists.at("output_size")))};
  }
  if (c.op == "max_pool1d") {
    auto [values, indices] = F::max_pool1d_with_indices(x, num(c, "kernel_size"), maybe(c, "stride"),
                                                        num(c, "padding"), num(c, "dilation"), flag(c, "ceil_mode"));
    return {values, indices};
  }
  if (c.op == "avg_pool1d")
    return {F::avg_pool1d(x, num(c, "kernel_size"), maybe(c, "stride"), num(c, "padding"), flag(c, "ceil_mode"),
                          flag(c, "count_include_pad"))};
  if (c.op == "adaptive_avg_pool1d") return {F::adaptive_avg_pool1d(x, num(c, "output_size"))};
  REQUIRE(c.op == "adaptive_max_pool1d");
  auto [values, indices] = F::adaptive_max_pool1d_with_indices(x, num(c, "output_size"));
  return {values, indices};
}

Tensor leaf(const OpCase& c, const char* name) {
  if (!c.inputs.count(name) || !c.inputs.at(name).defined()) return {};
  return c.inputs.at(name).clone().requires_grad_();
}

TEST_CASE("conv1d / conv_transpose1d / conv_transpose2d / the 1-d pools / conv2d's padding strings and modes: values and gradients as PyTorch's") {
  int checked = 0;
  for (const OpCase& c : testing::op_cases("conv_pool_cases.json")) {
    if (c.op.rfind("init_", 0) == 0) continue;
    CAPTURE(c.name);
    const Tensor x = leaf(c, "input"), w = leaf(c, "conv_weight"), b = leaf(c, "bias");
    const TensorList got = run_case(c, x, w, b);
    REQUIRE(got.size() == c.expected.size());
    const double rtol = c.expected[0].dtype() == DType::Float64 ? 1e-10 : 1e-4;
    for (size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].dtype() == c.expected[i].dtype());
      CHECK_TENSOR_CLOSE(got[i], c.expected[i], rtol, rtol);
    }
    (got[0] * c.inputs.at("out_weight")).sum().backward();
    CHECK_TENSOR_CLOSE(x.grad(), c.grads.at("input"), rtol, rtol);
    if (w.defined()) CHECK_TENSOR_CLOSE(w.grad(), c.grads.at("conv_weight"), rtol, rtol);
    if (b.defined()) CHECK_TENSOR_CLOSE(b.grad(), c.grads.at("bias"), rtol, rtol);
    ++checked;
  }
  CHECK(checked == 51);
}

TEST_CASE("Conv1d, ConvTranspose1d, ConvTranspose2d: the default initialisation draws PyTorch's numbers") {
  int checked = 0;
  for (const OpCase& c : testing::op_cases("conv_pool_cases.json")) {
    if (c.op.rfind("init_", 0) != 0) continue;
    CAPTURE(c.name);
    manual_seed(static_cast<uint64_t>(c.numbers.at("seed")));
    const std::vector<int64_t>& k = c.lists.at("kernel_size");
    const int64_t in = num(c, "in_channels"), out = num(c, "out_channels"), groups = num(c, "groups");
    std::shared_ptr<Module> m;
    if (c.op == "init_Conv1d")
      m = std::make_shared<Conv1d>(Conv1dOptions{.in_channels = in, .out_channels = out, .kernel_size = k[0],
                                                 .groups = groups});
    else if (c.op == "init_ConvTranspose1d")
      m = std::make_shared<ConvTranspose1d>(
          ConvTranspose1dOptions{.in_channels = in, .out_channels = out, .kernel_size = k[0], .groups = groups});
    else
      m = std::make_shared<ConvTranspose2d>(ConvTranspose2dOptions{
          .in_channels = in, .out_channels = out, .kernel_size = IntPair(k[0], k[1]), .groups = groups});
    CHECK_TENSOR_CLOSE(m->parameter("weight"), c.expected[0], 0, 0);
    CHECK_TENSOR_CLOSE(m->parameter("bias"), c.expected[1], 0, 0);
    ++checked;
  }
  CHECK(checked == 5);
}

TEST_CASE("Conv1d, ConvTranspose1d/2d and the 1-d pools: repr and state_dict keys as PyTorch's") {
  CHECK(repr(ConvTranspose2d({.in_channels = 4, .out_channels = 8, .kernel_size = 3, .stride = 2,
                              .output_padding = 1})) ==
        "ConvTranspose2d(4, 8, kernel_size=(3, 3), stride=(2, 2), output_padding=(1, 1))");
  CHECK(repr(Conv1d(4, 8, 3)) == "Conv1d(4, 8, kernel_size=(3,), stride=(1,))");
  CHECK(repr(MaxPool1d({.kernel_size = 2})) == "MaxPool1d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)");
  CHECK(repr(Conv1d({.in_channels = 4, .out_channels = 8, .kernel_size = 3, .stride = 2, .padding = 1, .dilation = 2,
                     .groups = 2, .bias = false, .padding_mode = "reflect"})) ==
        "Conv1d(4, 8, kernel_size=(3,), stride=(2,), padding=(1,), dilation=(2,), groups=2, bias=False, "
        "padding_mode=reflect)");
  CHECK(repr(Conv1d({.in_channels = 4, .out_channels = 8, .kernel_size = 3, .padding = "same"})) ==
        "Conv1d(4, 8, kernel_size=(3,), stride=(1,), padding=same)");
  CHECK(repr(ConvTranspose1d({.in_channels = 4, .out_channels = 8, .kernel_size = 3, .stride = 2, .padding = 1,
                              .output_padding = 1, .groups = 2, .bias = false, .dilation = 2})) ==
        "ConvTranspose1d(4, 8, kernel_size=(3,), stride=(2,), padding=(1,), dilation=(2,), output_padding=(1,), "
        "groups=2, bias=False)");
  CHECK(repr(ConvTranspose2d(2, 3, IntPair(2, 3))) == "ConvTranspose2d(2, 3, kernel_size=(2, 3), stride=(1, 1))");
  CHECK(repr(MaxPool1d({.kernel_size = 3, .stride = 2, .padding = 1, .dilation = 2, .ceil_mode = true})) ==
        "MaxPool1d(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True)");
  CHECK(repr(AvgPool1d(3)) == "AvgPool1d(kernel_size=(3,), stride=(3,), padding=(0,))");
  CHECK(repr(AvgPool1d({.kernel_size = 3, .stride = 2, .padding = 1, .ceil_mode = true})) ==
        "AvgPool1d(kernel_size=(3,), stride=(2,), padding=(1,))");
  CHECK(repr(AdaptiveAvgPool1d(5)) == "AdaptiveAvgPool1d(output_size=5)");
  CHECK(repr(AdaptiveMaxPool1d(5)) == "AdaptiveMaxPool1d(output_size=5)");
  CHECK(repr(Conv2d({.in_channels = 4, .out_channels = 8, .kernel_size = 3, .padding = "same"})) ==
        "Conv2d(4, 8, kernel_size=(3, 3), stride=(1, 1), padding=same)");
  CHECK(repr(Conv2d({.in_channels = 4, .out_channels = 8, .kernel_size = {3, 2}, .padding = {1, 2}, .bias = false,
                     .padding_mode = "circular"})) ==
        "Conv2d(4, 8, kernel_size=(3, 2), stride=(1, 1), padding=(1, 2), bias=False, padding_mode=circular)");
  CHECK(repr(Conv2d({.in_channels = 4, .out_channels = 8, .kernel_size = 3, .padding = "valid"})) ==
        "Conv2d(4, 8, kernel_size=(3, 3), stride=(1, 1), padding=valid)");

  Sequential seq(std::make_shared<Conv1d>(4, 8, 3), std::make_shared<MaxPool1d>(2),
                 std::make_shared<ConvTranspose1d>(ConvTranspose1dOptions{.in_channels = 8, .out_channels = 4,
                                                                          .kernel_size = 2, .bias = false}));
  std::vector<std::string> keys;
  for (const auto& [k, t] : seq.state_dict()) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"0.weight", "0.bias", "2.weight"});
}

// gen_conv_pool_cases.py's Sequence: every new layer reached as a leaf (call_module).
class Sequence : public Module {
 public:
  Sequence() {
    register_module("conv", std::make_shared<Conv1d>(Conv1dOptions{.in_channels = 4, .out_channels = 8,
                                                                   .kernel_size = 3, .padding = 1}));
    register_module("pool", std::make_shared<MaxPool1d>(2));
    register_module("avg", std::make_shared<AvgPool1d>(2));
    register_module("up", std::make_shared<ConvTranspose1d>(
                              ConvTranspose1dOptions{.in_channels = 8, .out_channels = 4, .kernel_size = 2, .stride = 2}));
    register_module("adaptive", std::make_shared<AdaptiveAvgPool1d>(3));
    register_module("amax", std::make_shared<AdaptiveMaxPool1d>(3));
    register_module("deconv", std::make_shared<ConvTranspose2d>(ConvTranspose2dOptions{
                                  .in_channels = 4, .out_channels = 2, .kernel_size = 3, .stride = 2, .output_padding = 1}));
  }
  std::string type_name() const override { return "Sequence"; }
  using Module::forward;
  Tensor forward(const Tensor& x) override {
    const Tensor a = submodule("up")(submodule("avg")(submodule("pool")(submodule("conv")(x))));
    const Tensor pooled = submodule("adaptive")(a);  // one call a statement: C++ leaves the operands' order open
    const Tensor y = pooled + submodule("amax")(x);
    return submodule("deconv")(y.unsqueeze(2));
  }
};

TEST_CASE("symbolic_trace: the 1-d and transposed layers are leaves, the code as torch.fx's") {
  auto model = std::make_shared<Sequence>();
  auto traced = fx::symbolic_trace(model);
  CHECK(traced->code() ==
        "\n\n\ndef forward(self, x):\n"
        "    conv = self.conv(x)\n"
        "    pool = self.pool(conv);  conv = None\n"
        "    avg = self.avg(pool);  pool = None\n"
        "    up = self.up(avg);  avg = None\n"
        "    adaptive = self.adaptive(up);  up = None\n"
        "    amax = self.amax(x);  x = None\n"
        "    add = adaptive + amax;  adaptive = amax = None\n"
        "    unsqueeze = add.unsqueeze(2);  add = None\n"
        "    deconv = self.deconv(unsqueeze);  unsqueeze = None\n"
        "    return deconv\n"
        "    ");
  const Tensor x = randn({2, 4, 12});
  CHECK_TENSOR_CLOSE((*traced)(x), (*model)(x), 0, 0);
  CHECK((*traced)(x).shape() == Shape{2, 2, 4, 8});
}

TEST_CASE("conv1d / conv_transpose / the 1-d pools: autograd's nodes as PyTorch's") {
  const Tensor x = randn({2, 4, 9}).requires_grad_();
  CHECK(F::conv1d(x, randn({6, 4, 3})).grad_fn_name() == "ConvolutionBackward0");
  CHECK(F::conv_transpose1d(x, randn({4, 6, 3})).grad_fn_name() == "ConvolutionBackward0");
  CHECK(F::conv_transpose2d(x.unsqueeze(2), randn({4, 6, 3, 3})).grad_fn_name() == "ConvolutionBackward0");
  // The pools run the 2-d kernel and squeeze the added dim (squeeze.dim), as ATen does.
  CHECK(F::max_pool1d(x, 2).grad_fn_name() == "SqueezeBackward1");
  CHECK(F::avg_pool1d(x, 2).grad_fn_name() == "SqueezeBackward1");
  CHECK(F::adaptive_max_pool1d(x, 2).grad_fn_name() == "SqueezeBackward1");
  CHECK(F::adaptive_avg_pool1d(x, 2).grad_fn_name() == "SqueezeBackward1");
  CHECK(x.squeeze().grad_fn_name() == "SqueezeBackward0");
}

TEST_CASE("Conv1d / ConvTranspose / the 1-d pools: errors as PyTorch's, the module and input untouched") {
  Conv1d conv(4, 6, 3);
  const Tensor weight = conv.parameter("weight").clone();
  CHECK_THROWS_WITH_AS(conv(randn({1, 4, 3, 5})), "conv1d: expected 2-D (C, L) or 3-D (N, C, L) input, got [1, 4, 3, 5]",
                       Error);
  CHECK_THROWS_WITH_AS(conv(randn({4})), "conv1d: expected 2-D (C, L) or 3-D (N, C, L) input, got [4]", Error);
  CHECK_TENSOR_CLOSE(conv.parameter("weight"), weight, 0, 0);
  CHECK_THROWS_WITH_AS(Conv1d({.in_channels = 4, .out_channels = 6, .kernel_size = 3, .stride = 2, .padding = "same"}),
                       "Conv1d: padding='same' is not supported for strided convolutions", Error);
  CHECK_THROWS_WITH_AS(Conv1d({.in_channels = 4, .out_channels = 6, .kernel_size = 3, .padding = "full"}),
                       "Conv1d: invalid padding string 'full', should be one of {'valid', 'same'}", Error);
  CHECK_THROWS_WITH_AS(Conv1d({.in_channels = 4, .out_channels = 6, .kernel_size = 3, .padding_mode = "mirror"}),
                       "Conv1d: padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got "
                       "padding_mode='mirror'", Error);
  CHECK_THROWS_WITH_AS(Conv1d({.in_channels = 4, .out_channels = 6, .kernel_size = 3, .groups = 4}),
                       "Conv1d: out_channels must be divisible by groups, got out_channels=6 and groups=4", Error);
  CHECK_THROWS_WITH_AS(F::conv1d(randn({1, 4, 9}), randn({6, 4, 3}), {}, 2, "same"),
                       "conv1d: padding='same' is not supported for strided convolutions", Error);
  CHECK_THROWS_WITH_AS(Conv2d({.in_channels = 4, .out_channels = 6, .kernel_size = 3, .stride = 2, .padding = "same"}),
                       "Conv2d: padding='same' is not supported for strided convolutions", Error);
  CHECK_THROWS_WITH_AS(Conv2d({.in_channels = 4, .out_channels = 6, .kernel_size = 3, .padding = "full"}),
                       "Conv2d: invalid padding string 'full', should be one of {'valid', 'same'}", Error);
  CHECK_THROWS_WITH_AS(Conv2d({.in_channels = 4, .out_channels = 6, .kernel_size = 3, .padding_mode = "mirror"}),
                       "Conv2d: padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got "
                       "padding_mode='mirror'", Error);
  CHECK_THROWS_WITH_AS(F::conv2d(randn({1, 4, 5, 5}), randn({6, 4, 3, 3}), {}, 2, "same"),
                       "conv2d: padding='same' is not supported for strided convolutions", Error);
  CHECK_THROWS_WITH_AS(tl::conv1d(randn({1, 4, 9}), randn({6, 4, 3}), {}, {1, 1}),
                       "conv1d: expected stride to be a single integer value or a list of 1 values to match the "
                       "convolution dimensions, but got stride=[1, 1]", Error);

  ConvTranspose2d up({.in_channels = 2, .out_channels = 3, .kernel_size = 3, .stride = 2, .padding = 1});
  const Tensor up_weight = up.parameter("weight").clone();
  const Tensor img = randn({1, 2, 5, 5});
  const Tensor img_before = img.clone();
  CHECK_THROWS_WITH_AS(up.forward(img, {11, 9}),
                       "ConvTranspose2d: requested an output size of [11, 9], but valid sizes range from [9, 9] to "
                       "[10, 10] (for an input of [5, 5])", Error);
  CHECK_THROWS_WITH_AS(up.forward(img, {9}), "ConvTranspose2d: for 4D input, output_size must have 2 or 4 elements (got 1)",
                       Error);
  CHECK_THROWS_WITH_AS(up(randn({2, 5})), "conv_transpose2d: expected 3-D (C, H, W) or 4-D (N, C, H, W) input, got [2, 5]",
                       Error);
  CHECK_TENSOR_CLOSE(up.parameter("weight"), up_weight, 0, 0);
  CHECK_TENSOR_CLOSE(img, img_before, 0, 0);
  ConvTranspose2d bad({.in_channels = 2, .out_channels = 3, .kernel_size = 3, .stride = 2, .output_padding = 2});
  CHECK_THROWS_WITH_AS(bad(img), "conv_transpose2d: output padding must be smaller than either stride or dilation, but "
                                 "got output_padding_height: 2 output_padding_width: 2 stride_height: 2 stride_width: 2 "
                                 "dilation_height: 1 dilation_width: 1", Error);
  CHECK_THROWS_WITH_AS(F::conv_transpose1d(randn({1, 3, 5}), randn({2, 3, 3})),
                       "conv_transpose1d: input [1, 3, 1, 5] has 3 channels but weight [2, 3, 1, 3] expects 2", Error);

  CHECK_THROWS_WITH_AS(MaxPool1d(2)(randn({1, 2, 3, 4})),
                       "max_pool1d: expected 2-D (C, L) or 3-D (N, C, L) input, got [1, 2, 3, 4]", Error);
  CHECK_THROWS_WITH_AS(F::max_pool1d(randn({1, 2, 8}), 2, 2, 2),
                       "max_pool1d: padding 2 should be at most half of kernel_size 2", Error);
  CHECK_THROWS_WITH_AS(AvgPool1d(2)(randn({5})), "avg_pool1d: expected 2-D (C, L) or 3-D (N, C, L) input, got [5]", Error);
  CHECK_THROWS_WITH_AS(tl::avg_pool1d(randn({1, 2, 8}), {2, 2}),
                       "avg_pool1d: argument 'kernel_size' should contain one int, got [2, 2]", Error);
  CHECK_THROWS_WITH_AS(AdaptiveMaxPool1d(2)(randn({2, 2, 2, 2})),
                       "adaptive_max_pool1d: expected 2-D (C, L) or 3-D (N, C, L) input, got [2, 2, 2, 2]", Error);
}

TEST_CASE("max_pool1d: with and without grad mode the same maxima; MaxPool1d::forward_with_indices") {
  const Tensor x = randn({2, 3, 11});
  const Tensor plain = F::max_pool1d(x, 3, 2, 1, 1, true);
  const Tensor tracked = F::max_pool1d(x.clone().requires_grad_(), 3, 2, 1, 1, true);
  CHECK_TENSOR_CLOSE(plain, tracked.detach(), 0, 0);
  auto [values, indices] = MaxPool1d({.kernel_size = 3, .stride = 2, .padding = 1, .ceil_mode = true}).forward_with_indices(x);
  CHECK_TENSOR_CLOSE(values, plain, 0, 0);
  CHECK_TENSOR_CLOSE(x.gather(2, indices), plain, 0, 0);
  CHECK(F::max_pool1d(x.select(0, 0), 2).shape() == Shape{3, 5});
}

}  // namespace
}  // namespace tl::nn
