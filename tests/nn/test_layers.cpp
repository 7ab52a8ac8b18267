// tests/nn/test_layers.cpp — each layer's forward equals its op called with the layer's tensors and
// options; parameter shapes and defaults; BatchNorm2d's mode rules; input errors; containers.
#include <doctest/doctest.h>

#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "core/generator.h"
#include "nn/init.h"
#include "nn/layers.h"
#include "nn/module_hook.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl::nn {
namespace {

TEST_CASE("Conv2d: parameters and forward equal conv2d over an option sweep") {
  manual_seed(1);
  struct Case {
    Conv2dOptions options;
    Shape input;
  };
  const std::vector<Case> cases = {
      {{.in_channels = 3, .out_channels = 5, .kernel_size = 3}, {2, 3, 7, 9}},
      {{.in_channels = 4, .out_channels = 6, .kernel_size = {3, 1}, .stride = 2, .padding = {1, 0}, .bias = false},
       {1, 4, 8, 5}},
      {{.in_channels = 4, .out_channels = 8, .kernel_size = 3, .stride = {1, 2}, .padding = 2, .dilation = 2,
        .groups = 2},
       {2, 4, 9, 11}},
      {{.in_channels = 2, .out_channels = 2, .kernel_size = 1}, {0, 2, 3, 3}},
  };
  for (const Case& c : cases) {
    Conv2d conv(c.options);
    const Conv2dOptions& o = c.options;
    CHECK(conv.parameter("weight").shape() ==
          Shape{o.out_channels, o.in_channels / o.groups, o.kernel_size.h(), o.kernel_size.w()});
    CHECK(conv.parameter("bias").defined() == o.bias);
    const Tensor x = randn(c.input);
    const Tensor expected = tl::conv2d(x, conv.parameter("weight"), conv.parameter("bias"), o.stride.shape(),
                                       o.padding.zeros()->shape(), o.dilation.shape(), o.groups);
    CHECK_TENSOR_CLOSE(conv(x), expected, 0.0, 0.0);
  }
}

TEST_CASE("Conv2d: option and input errors") {
  CHECK_THROWS_WITH_AS(Conv2d(Conv2dOptions{.in_channels = 3, .out_channels = 4, .kernel_size = 1, .groups = 2}),
                       "Conv2d: in_channels must be divisible by groups, got in_channels=3 and groups=2", Error);
  CHECK_THROWS_WITH_AS(Conv2d(Conv2dOptions{.in_channels = 2, .out_channels = 3, .kernel_size = 1, .groups = 2}),
                       "Conv2d: out_channels must be divisible by groups, got out_channels=3 and groups=2", Error);
  CHECK_THROWS_WITH_AS(Conv2d(Conv2dOptions{.in_channels = 2, .out_channels = 2, .kernel_size = 0}),
                       "Conv2d: kernel_size must be positive, got (0, 0)", Error);
  CHECK_THROWS_WITH_AS(Conv2d(Conv2dOptions{.in_channels = 2, .out_channels = 2, .kernel_size = 1, .stride = {1, 0}}),
                       "Conv2d: stride must be positive, got (1, 0)", Error);
  Conv2d conv(3, 4, 3);
  CHECK_THROWS_WITH_AS(conv(zeros({3, 8})), "conv2d: expected 3-D (C, H, W) or 4-D (N, C, H, W) input, got [3, 8]",
                       Error);
  CHECK_THROWS_AS(conv(zeros({1, 5, 8, 8})), Error);  // channel count: the kernel's own error
}

TEST_CASE("BatchNorm2d: buffers, defaults and eval forward equal batch_norm with the running stats") {
  BatchNorm2d bn(BatchNorm2dOptions{.num_features = 3, .eps = 1e-3});
  CHECK(bn.buffer("num_batches_tracked").dtype() == DType::Int64);
  CHECK(bn.buffer("num_batches_tracked").dim() == 0);
  init::normal_(bn.parameter("weight"));
  init::normal_(bn.parameter("bias"));
  init::uniform_(bn.buffer("running_mean"), -1, 1);
  init::uniform_(bn.buffer("running_var"), 0.5, 2);
  bn.eval();
  const Tensor x = randn({2, 3, 4, 5});
  const Tensor expected = tl::batch_norm(x, bn.parameter("weight"), bn.parameter("bias"), bn.buffer("running_mean"),
                                         bn.buffer("running_var"), false, 0.1, 1e-3, true);
  CHECK_TENSOR_CLOSE(bn(x), expected, 0.0, 0.0);
  CHECK(bn.buffer("num_batches_tracked").item<int64_t>() == 0);
}

TEST_CASE("BatchNorm2d: training uses batch stats, updates running stats with momentum, counts batches") {
  BatchNorm2d bn(BatchNorm2dOptions{.num_features = 2, .momentum = 0.25});
  // The op updates mean0 / var0 in place exactly as it must update the module's buffers.
  const Tensor mean0 = bn.buffer("running_mean").clone(), var0 = bn.buffer("running_var").clone();
  const Tensor x = randn({3, 2, 4, 4});
  const Tensor out = bn(x);
  const Tensor expected =
      tl::batch_norm(x, bn.parameter("weight"), bn.parameter("bias"), mean0, var0, true, 0.25, 1e-5, true);
  CHECK_TENSOR_CLOSE(out, expected, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(bn.buffer("running_mean"), mean0, 0.0, 0.0);
  CHECK_TENSOR_CLOSE(bn.buffer("running_var"), var0, 0.0, 0.0);
  bn(x);
  CHECK(bn.buffer("num_batches_tracked").item<int64_t>() == 2);
}

TEST_CASE("BatchNorm2d: momentum=None averages cumulatively (factor 1 / num_batches_tracked)") {
  BatchNorm2d bn(BatchNorm2dOptions{.num_features = 2, .momentum = std::nullopt});
  const Tensor a = randn({2, 2, 3, 3}), b = randn({2, 2, 3, 3});
  bn(a);
  bn(b);
  // The first batch replaces the initial stats (factor 1), the second averages in with factor 1/2.
  const Tensor mean = zeros({2}), var = ones({2});
  tl::batch_norm(a, {}, {}, mean, var, true, 1.0, 1e-5, true);
  tl::batch_norm(b, {}, {}, mean, var, true, 0.5, 1e-5, true);
  CHECK_TENSOR_CLOSE(bn.buffer("running_mean"), mean, 1e-6, 1e-7);
  CHECK_TENSOR_CLOSE(bn.buffer("running_var"), var, 1e-6, 1e-7);
}

TEST_CASE("BatchNorm2d: without running stats or affine, eval still normalises with batch stats") {
  BatchNorm2d bn(BatchNorm2dOptions{.num_features = 3, .affine = false, .track_running_stats = false});
  CHECK(bn.named_parameters().empty());
  CHECK(bn.named_buffers().empty());
  bn.eval();
  const Tensor x = randn({2, 3, 2, 2});
  CHECK_TENSOR_CLOSE(bn(x), tl::batch_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5, true), 0.0, 0.0);
}

TEST_CASE("BatchNorm2d: input errors") {
  BatchNorm2d bn(4);
  CHECK_THROWS_WITH_AS(bn(zeros({2, 4, 3})), "BatchNorm2d: expected 4D input (got 3D input)", Error);
  bn.eval();
  CHECK_THROWS_AS(bn(zeros({1, 3, 2, 2})), Error);  // channel count: the kernel's own error
}

TEST_CASE("ReLU: forward equals relu; inplace overwrites and returns its input") {
  const Tensor x = randn({3, 4});
  ReLU relu;
  CHECK_TENSOR_CLOSE(relu(x), tl::relu(x), 0.0, 0.0);
  const Tensor y = x.clone();
  ReLU inplace(true);
  const Tensor out = inplace(y);
  CHECK(out.storage() == y.storage());
  CHECK_TENSOR_CLOSE(y, tl::relu(x), 0.0, 0.0);
}

// An activation module without options: its forward is its functional form's and its op's; it prints as PyTorch's.
template <typename Activation>
void check_activation(Tensor (*functional)(const Tensor&, bool), Tensor (*op)(const Tensor&), const std::string& printed) {
  const Tensor x = randn({3, 4}) * 4;
  Activation module;
  CHECK_TENSOR_CLOSE(module(x), op(x), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(functional(x, false), op(x), 0.0, 0.0);
  std::ostringstream os;
  os << module;
  CHECK(os.str() == printed);
}

TEST_CASE("Hardswish: forward equals F.hardswish and the op; prints as nn.Hardswish()") {
  check_activation<Hardswish>(functional::hardswish, tl::hardswish, "Hardswish()\n");
}

TEST_CASE("SiLU: forward equals F.silu and the op; prints as nn.SiLU()") {
  check_activation<SiLU>(functional::silu, tl::silu, "SiLU()\n");
}

TEST_CASE("pooling layers: forward equals the ops; stride defaults to kernel_size") {
  const Tensor x = randn({2, 3, 9, 8});
  MaxPool2d max_pool(MaxPool2dOptions{.kernel_size = 3, .stride = 2, .padding = 1, .ceil_mode = true});
  CHECK_TENSOR_CLOSE(max_pool(x), tl::max_pool2d(x, {3, 3}, {2, 2}, {1, 1}, {1, 1}, true), 0.0, 0.0);
  MaxPool2d max_default(IntPair(2, 3));
  CHECK(*max_default.options().stride == IntPair(2, 3));
  CHECK_TENSOR_CLOSE(max_default(x), tl::max_pool2d(x, {2, 3}, {2, 3}), 0.0, 0.0);

  AvgPool2d avg(AvgPool2dOptions{.kernel_size = {3, 2}, .padding = 1, .count_include_pad = false});
  CHECK_TENSOR_CLOSE(avg(x), tl::avg_pool2d(x, {3, 2}, {3, 2}, {1, 1}, false, false), 0.0, 0.0);

  AdaptiveAvgPool2d adaptive(IntPair(1, 1));
  CHECK(adaptive(x).shape() == Shape{2, 3, 1, 1});
  CHECK_TENSOR_CLOSE(adaptive(x), tl::adaptive_avg_pool2d(x, {1, 1}), 0.0, 0.0);
  CHECK_THROWS_WITH_AS(adaptive(zeros({3, 9})),
                       "adaptive_avg_pool2d: expected 3-D (C, H, W) or 4-D (N, C, H, W) input, got [3, 9]", Error);
  CHECK_THROWS_WITH_AS(max_pool(zeros({9})),
                       "max_pool2d: expected 3-D (C, H, W) or 4-D (N, C, H, W) input, got [9]", Error);
  CHECK_THROWS_WITH_AS(MaxPool2d(0), "MaxPool2d: kernel_size must be positive, got 0", Error);
}

TEST_CASE("Conv2d and pooling layers take an unbatched (C, H, W) input as a batch of one, as PyTorch 1.13") {
  const Tensor x = randn({3, 9, 8});
  const Tensor batch = x.unsqueeze(0);
  Conv2d conv(Conv2dOptions{.in_channels = 3, .out_channels = 4, .kernel_size = 3, .padding = 1});
  MaxPool2d max_pool(MaxPool2dOptions{.kernel_size = 3, .stride = 2, .padding = 1, .ceil_mode = true});
  AvgPool2d avg(AvgPool2dOptions{.kernel_size = {3, 2}, .padding = 1, .count_include_pad = false});
  AdaptiveAvgPool2d adaptive(IntPair(2, 3));
  for (Module* m : std::initializer_list<Module*>{&conv, &max_pool, &avg, &adaptive}) {
    CAPTURE(m->type_name());
    const Tensor y = (*m)(x);
    CHECK(y.dim() == 3);
    CHECK_TENSOR_CLOSE(y, (*m)(batch).squeeze(0), 0.0, 0.0);
  }
}

TEST_CASE("Conv2d: an unbatched input's gradients equal those of a batch of one") {
  Conv2d conv(Conv2dOptions{.in_channels = 3, .out_channels = 4, .kernel_size = 3, .stride = 2});
  const Tensor x = randn({3, 9, 8}).requires_grad_();
  conv(x).sum().backward();
  const Tensor gx = x.grad(), gw = conv.parameter("weight").grad().clone(), gb = conv.parameter("bias").grad().clone();
  for (const char* name : {"weight", "bias"}) conv.parameter(name).mutable_grad() = Tensor();
  const Tensor xb = x.detach().unsqueeze(0).requires_grad_();
  conv(xb).sum().backward();
  CHECK(gx.shape() == Shape{3, 9, 8});
  CHECK_TENSOR_CLOSE(gx, xb.grad().squeeze(0), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(gw, conv.parameter("weight").grad(), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(gb, conv.parameter("bias").grad(), 0.0, 0.0);
}

TEST_CASE("Linear: parameters and forward equal linear; the kernel rejects a wrong feature count") {
  Linear fc(5, 3);
  CHECK(fc.parameter("weight").shape() == Shape{3, 5});
  CHECK(fc.parameter("bias").shape() == Shape{3});
  const Tensor x = randn({4, 5});
  CHECK_TENSOR_CLOSE(fc(x), tl::linear(x, fc.parameter("weight"), fc.parameter("bias")), 0.0, 0.0);
  Linear no_bias(5, 2, /*bias=*/false);
  CHECK_FALSE(no_bias.parameter("bias").defined());
  CHECK_TENSOR_CLOSE(no_bias(x), tl::linear(x, no_bias.parameter("weight")), 0.0, 0.0);
  CHECK_THROWS_AS(fc(randn({4, 6})), Error);
}

TEST_CASE("Flatten, Identity and Dropout") {
  const Tensor x = randn({2, 3, 4, 5});
  CHECK(Flatten()(x).shape() == Shape{2, 60});
  CHECK_TENSOR_CLOSE(Flatten()(x), tl::flatten(x, 1), 0.0, 0.0);
  CHECK(Flatten(1, 2)(x).shape() == Shape{2, 12, 5});
  Identity identity;
  CHECK(identity(x).is_same(x));

  Dropout dropout(0.3);
  manual_seed(42);
  const Tensor dropped = dropout(x);
  manual_seed(42);
  CHECK_TENSOR_CLOSE(dropped, tl::dropout(x, 0.3, true), 0.0, 0.0);
  dropout.eval();
  CHECK_TENSOR_CLOSE(dropout(x), x, 0.0, 0.0);
  CHECK_THROWS_WITH_AS(Dropout(1.5), "Dropout: dropout probability has to be between 0 and 1, but got 1.5", Error);
}

TEST_CASE("functional: F's argument order and defaults map onto the ops") {
  namespace F = functional;
  const Tensor x = randn({2, 3, 6, 6});
  const Tensor mean = randn({3}), var = ones({3}), weight = randn({3});
  CHECK_TENSOR_CLOSE(F::batch_norm(x, mean, var, weight), tl::batch_norm(x, weight, {}, mean, var, false, 0.1, 1e-5, true),
                     0.0, 0.0);
  CHECK_TENSOR_CLOSE(F::max_pool2d(x, 2), tl::max_pool2d(x, {2, 2}, {2, 2}), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(F::avg_pool2d(x, {3, 2}, 1), tl::avg_pool2d(x, {3, 2}, {1, 1}), 0.0, 0.0);
  const Tensor w = randn({4, 3, 3, 3});
  CHECK_TENSOR_CLOSE(F::conv2d(x, w, {}, 2, 1), tl::conv2d(x, w, {}, {2, 2}, {1, 1}), 0.0, 0.0);

  const Tensor y = x.clone();
  manual_seed(8);
  const Tensor out = F::dropout(y, 0.5, /*training=*/true, /*inplace=*/true);
  manual_seed(8);
  CHECK(out.is_same(y));
  CHECK_TENSOR_CLOSE(y, tl::dropout(x, 0.5, true), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(F::dropout(x, 0.5, /*training=*/false), x, 0.0, 0.0);
  CHECK_THROWS_WITH_AS(F::dropout(x, -0.1), "dropout: probability has to be between 0 and 1, but got -0.1", Error);
}

TEST_CASE("Sequential: names, indexing, append, iteration and a forward that chains through operator()") {
  auto conv = std::make_shared<Conv2d>(2, 3, 1);
  auto relu = std::make_shared<ReLU>();
  Sequential seq(conv, relu);
  CHECK(seq.size() == 2);
  CHECK(seq[0] == conv);
  CHECK(seq[-1] == relu);
  CHECK_THROWS_WITH_AS(seq[2], "Sequential: index 2 is out of range (size 2)", Error);
  CHECK_THROWS_WITH_AS(seq[-3], "Sequential: index -3 is out of range (size 2)", Error);
  seq.append(std::make_shared<Flatten>());
  std::vector<std::string> types;
  for (const auto& m : seq) types.push_back(m->type_name());
  CHECK(types == std::vector<std::string>{"Conv2d", "ReLU", "Flatten"});
  CHECK(seq.has_child("2"));

  struct Counter : ModuleHook {
    int calls = 0;
    void before(Module&, const TensorList&) override { ++calls; }
  } counter;
  const Tensor x = randn({2, 2, 3, 3});
  Tensor out;
  {
    ModuleHookGuard guard(&counter);
    out = seq(x);
  }
  CHECK(counter.calls == 4);
  CHECK_TENSOR_CLOSE(out, tl::relu((*conv)(x)).flatten(1), 0.0, 0.0);
  CHECK(Sequential()(x).is_same(x));
}

TEST_CASE("Sequential: named construction, a module used twice runs twice; ModuleList is not callable") {
  auto relu = std::make_shared<ReLU>();
  Sequential named(std::vector<Module::NamedModule>{{"first", relu}, {"second", relu}});
  CHECK(named.size() == 2);
  CHECK(named.get_submodule("second") == relu);
  CHECK(named.named_children().size() == 1);

  ModuleList list({std::make_shared<Identity>(), std::make_shared<ReLU>()});
  CHECK(list.size() == 2);
  CHECK(list[1]->type_name() == "ReLU");
  CHECK_THROWS_WITH_AS(list(zeros({1})), "Module [ModuleList] is missing the required \"forward\" function", Error);
}

TEST_CASE("layers: clone copies options and tensors deeply") {
  Conv2d conv(Conv2dOptions{.in_channels = 2, .out_channels = 4, .kernel_size = 3, .stride = 2, .bias = false});
  auto copy = std::dynamic_pointer_cast<Conv2d>(conv.clone());
  REQUIRE(copy != nullptr);
  CHECK(copy->options().stride == IntPair(2));
  CHECK_TENSOR_CLOSE(copy->parameter("weight"), conv.parameter("weight"), 0.0, 0.0);
  init::zeros_(copy->parameter("weight"));
  CHECK(tl::testing::element_at(conv.parameter("weight"), 0) != 0.0);

  Sequential seq(std::make_shared<BatchNorm2d>(2), std::make_shared<Dropout>(0.1));
  auto seq_copy = std::dynamic_pointer_cast<Sequential>(seq.clone());
  REQUIRE(seq_copy != nullptr);
  CHECK((*seq_copy)[0] != seq[0]);
  CHECK((*seq_copy)[1]->extra_repr() == "p=0.1, inplace=False");
}

}  // namespace
}  // namespace tl::nn
