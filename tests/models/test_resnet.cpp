// tests/models/test_resnet.cpp — the ResNet family against torchvision 0.14: repr (the reference
// file, byte for byte), parameter counts, state_dict names and order, module count, initialisation,
// forward shapes, path errors and a checkpoint with the wrong head; resnet101 and resnet152 as the zoo's
// heavy variants (tests/reference/zoo_classic.json.gz, with TL_ZOO_ALL_VARIANTS=1).
#include <doctest/doctest.h>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "models/resnet.h"
#include "nn/layers.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/models/zoo_reference.h"
#include "tests/support/reference_files.h"
#include "tests/support/tensor_check.h"

namespace tl::models {
namespace {

using testing::read_reference;

// Building a ResNet draws every weight twice (Conv2d's default, then torchvision's init), so the
// tests share one instance of each; a test that changes one restores it (or works on a clone).
ResNet& shared_resnet18() {
  static const std::shared_ptr<ResNet> model = resnet18();
  return *model;
}

ResNet& shared_resnet50() {
  static const std::shared_ptr<ResNet> model = resnet50();
  return *model;
}

int64_t parameter_count(const nn::Module& m) {
  int64_t n = 0;
  for (const Tensor& p : m.parameters()) n += p.numel();
  return n;
}

std::vector<std::string> keys_of(const nn::StateDict& dict) {
  std::vector<std::string> out;
  for (const auto& [k, t] : dict) out.push_back(k);
  return out;
}

double sample_std(const Tensor& t) {
  double sum = 0, sum_sq = 0;
  for (int64_t i = 0; i < t.numel(); ++i) {
    const double v = testing::element_at(t, i);
    sum += v;
    sum_sq += v * v;
  }
  const double mean = sum / static_cast<double>(t.numel());
  return std::sqrt(sum_sq / static_cast<double>(t.numel()) - mean * mean);
}

TEST_CASE("resnet18: print(model) equals torchvision's, byte for byte") {
  const std::string expected = read_reference("resnet18_repr.txt");
  std::ostringstream os;
  os << shared_resnet18();
  CHECK(os.str() == expected);
}

TEST_CASE("resnet: parameter counts, module counts and state_dict sizes equal torchvision's") {
  const ResNet &r18 = shared_resnet18(), &r50 = shared_resnet50();
  auto r34 = resnet34();
  CHECK(parameter_count(r18) == 11689512);
  CHECK(parameter_count(*r34) == 21797672);
  CHECK(parameter_count(r50) == 25557032);
  CHECK(r18.named_parameters().size() == 62);
  CHECK(r18.named_buffers().size() == 60);
  CHECK(r18.named_modules().size() == 68);
  CHECK(r34->named_modules().size() == 116);
  CHECK(r50.named_modules().size() == 151);
  CHECK(r18.state_dict().size() == 122);
  CHECK(r34->state_dict().size() == 218);
  CHECK(r50.state_dict().size() == 320);
}

TEST_CASE("resnet: state_dict names and order equal torchvision's") {
  const std::vector<std::string> keys = keys_of(shared_resnet18().state_dict());
  const std::vector<std::string> head(keys.begin(), keys.begin() + 14);
  CHECK(head == std::vector<std::string>{"conv1.weight", "bn1.weight", "bn1.bias", "bn1.running_mean",
                                         "bn1.running_var", "bn1.num_batches_tracked", "layer1.0.conv1.weight",
                                         "layer1.0.bn1.weight", "layer1.0.bn1.bias", "layer1.0.bn1.running_mean",
                                         "layer1.0.bn1.running_var", "layer1.0.bn1.num_batches_tracked",
                                         "layer1.0.conv2.weight", "layer1.0.bn2.weight"});
  const std::vector<std::string> tail(keys.end() - 8, keys.end());
  CHECK(tail == std::vector<std::string>{"layer4.1.conv2.weight", "layer4.1.bn2.weight", "layer4.1.bn2.bias",
                                         "layer4.1.bn2.running_mean", "layer4.1.bn2.running_var",
                                         "layer4.1.bn2.num_batches_tracked", "fc.weight", "fc.bias"});
  std::vector<std::string> block;
  for (const std::string& k : keys)
    if (k.rfind("layer2.0.", 0) == 0) block.push_back(k.substr(9));
  CHECK(block == std::vector<std::string>{"conv1.weight", "bn1.weight", "bn1.bias", "bn1.running_mean",
                                          "bn1.running_var", "bn1.num_batches_tracked", "conv2.weight", "bn2.weight",
                                          "bn2.bias", "bn2.running_mean", "bn2.running_var", "bn2.num_batches_tracked",
                                          "downsample.0.weight", "downsample.1.weight", "downsample.1.bias",
                                          "downsample.1.running_mean", "downsample.1.running_var",
                                          "downsample.1.num_batches_tracked"});

  std::vector<std::string> bottleneck;
  for (const std::string& k : keys_of(shared_resnet50().state_dict()))
    if (k.rfind("layer1.0.", 0) == 0 && k.find("weight") != std::string::npos) bottleneck.push_back(k.substr(9));
  CHECK(bottleneck == std::vector<std::string>{"conv1.weight", "bn1.weight", "conv2.weight", "bn2.weight",
                                               "conv3.weight", "bn3.weight", "downsample.0.weight",
                                               "downsample.1.weight"});
}

TEST_CASE("resnet50: a Bottleneck prints like torchvision's (stride on conv2)") {
  CHECK(nn::repr(*shared_resnet50().get_submodule("layer2.0")) ==
        "Bottleneck(\n"
        "  (conv1): Conv2d(256, 128, kernel_size=(1, 1), stride=(1, 1), bias=False)\n"
        "  (bn1): BatchNorm2d(128, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n"
        "  (conv2): Conv2d(128, 128, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1), bias=False)\n"
        "  (bn2): BatchNorm2d(128, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n"
        "  (conv3): Conv2d(128, 512, kernel_size=(1, 1), stride=(1, 1), bias=False)\n"
        "  (bn3): BatchNorm2d(512, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n"
        "  (relu): ReLU(inplace=True)\n"
        "  (downsample): Sequential(\n"
        "    (0): Conv2d(256, 512, kernel_size=(1, 1), stride=(2, 2), bias=False)\n"
        "    (1): BatchNorm2d(512, eps=1e-05, momentum=0.1, affine=True, track_running_stats=True)\n"
        "  )\n"
        ")");
}

TEST_CASE("resnet: torchvision's initialisation") {
  const ResNet& r18 = shared_resnet18();
  // kaiming_normal_(mode="fan_out", nonlinearity="relu"): std = sqrt(2 / (out * kH * kW)).
  const Tensor w = r18.get_parameter("layer3.0.conv2.weight");  // 256 x 256 x 3 x 3, fan_out 2304
  CHECK(std::abs(sample_std(w) - std::sqrt(2.0 / 2304.0)) < 0.02 * std::sqrt(2.0 / 2304.0));
  CHECK_TENSOR_CLOSE(r18.get_parameter("layer1.1.bn2.weight"), ones({64}), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(r18.get_parameter("bn1.bias"), zeros({64}), 0.0, 0.0);
  // fc keeps Linear's default: U(-1/sqrt(512), 1/sqrt(512)).
  const Tensor fc = r18.get_parameter("fc.weight");
  double max_abs = 0;
  for (int64_t i = 0; i < fc.numel(); ++i) max_abs = std::max(max_abs, std::abs(testing::element_at(fc, i)));
  CHECK(max_abs <= 1.0 / std::sqrt(512.0));
  CHECK(max_abs > 0.99 / std::sqrt(512.0));

  auto zero = resnet18({.num_classes = 10, .zero_init_residual = true});
  CHECK(zero->get_parameter("fc.weight").shape() == Shape{10, 512});
  CHECK_TENSOR_CLOSE(zero->get_parameter("layer2.1.bn2.weight"), zeros({128}), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(zero->get_parameter("layer2.1.bn1.weight"), ones({128}), 0.0, 0.0);
  // Bottleneck blocks zero bn3 instead (a one-block-per-stage ResNet keeps this test cheap).
  ResNet bottleneck(ResNet::Block::Bottleneck, {1, 1, 1, 1}, {.num_classes = 10, .zero_init_residual = true});
  CHECK_TENSOR_CLOSE(bottleneck.get_parameter("layer4.0.bn3.weight"), zeros({2048}), 0.0, 0.0);
  CHECK_TENSOR_CLOSE(bottleneck.get_parameter("layer4.0.bn2.weight"), ones({512}), 0.0, 0.0);
}

TEST_CASE("resnet: paths name the missing component; the block structure is torchvision's") {
  const ResNet& r18 = shared_resnet18();
  CHECK_THROWS_WITH_AS(r18.get_submodule("layer9.0.conv1"),
                       "unknown module path: 'layer9' in 'layer9.0.conv1' (ResNet has no child 'layer9')", Error);
  CHECK_THROWS_WITH_AS(r18.get_submodule("layer1.2.conv1"),
                       "unknown module path: 'layer1.2' in 'layer1.2.conv1' (Sequential has no child '2')", Error);
  CHECK(r18.get_submodule("layer1.0.relu")->is_leaf());
  CHECK_FALSE(r18.get_submodule("layer1.0")->is_leaf());
  CHECK_FALSE(r18.get_submodule("layer1.0")->has_child("downsample"));
  CHECK(r18.get_submodule("layer2.0.downsample.1")->type_name() == "BatchNorm2d");
  const nn::ForwardSignature sig = r18.forward_signature();
  CHECK(sig.arg_names == std::vector<std::string>{"x"});
  CHECK(sig.arg_types == std::vector<std::string>{"torch.Tensor"});
  CHECK(sig.return_type == "torch.Tensor");
}

TEST_CASE("resnet: loading a checkpoint with another head reports the size mismatches in PyTorch's words") {
  // A copy of the shared model's tensors with a 10-class head (the failed load changes nothing).
  ResNet& r18 = shared_resnet18();
  nn::StateDict ten_classes = r18.state_dict();
  ten_classes[ten_classes.size() - 2].second = zeros({10, 512});
  ten_classes[ten_classes.size() - 1].second = zeros({10});
  CHECK_THROWS_WITH_AS(r18.load_state_dict(ten_classes),
                       "Error(s) in loading state_dict for ResNet:\n"
                       "\tsize mismatch for fc.weight: copying a param with shape [10, 512] from checkpoint, the shape "
                       "in current model is [1000, 512].\n"
                       "\tsize mismatch for fc.bias: copying a param with shape [10] from checkpoint, the shape in "
                       "current model is [1000].",
                       Error);
}

TEST_CASE("resnet18 and resnet50: eval forward gives (2, 1000) logits; clone computes the same") {
  manual_seed(5);
  const Tensor x = randn({2, 3, 64, 64});
  auto copy = shared_resnet18().clone();
  copy->eval();
  const Tensor y18 = (*copy)(x);
  CHECK(y18.shape() == Shape{2, 1000});
  auto copy_of_copy = copy->clone();
  CHECK_FALSE(copy_of_copy->is_training());
  CHECK_TENSOR_CLOSE((*copy_of_copy)(x), y18, 0.0, 0.0);

  ResNet& r50 = shared_resnet50();
  r50.eval();  // eval mode leaves every tensor as it is
  CHECK(r50(x).shape() == Shape{2, 1000});
  r50.train();
}

TEST_CASE("resnet: training-mode forward updates every BatchNorm's statistics once") {
  auto r18 = shared_resnet18().clone();
  (*r18)(randn({2, 3, 32, 32}));
  CHECK(r18->get_buffer("bn1.num_batches_tracked").item<int64_t>() == 1);
  CHECK(r18->get_buffer("layer4.1.bn2.num_batches_tracked").item<int64_t>() == 1);
  CHECK(r18->get_buffer("layer3.0.downsample.1.num_batches_tracked").item<int64_t>() == 1);
  CHECK_THROWS_AS((*r18)(randn({2, 4, 32, 32})), Error);  // wrong channel count: the kernel's error
}

TEST_CASE("resnet18: channels-last training gives the contiguous model's gradients, each laid out as its tensor") {
  // PyTorch's channels-last training: model.to(memory_format=torch.channels_last) and a channels-last input. The
  // contiguous model's gradients stay contiguous; the channels-last one's are laid out as its weights and input.
  manual_seed(6);
  auto model = shared_resnet18().clone();
  model->train();
  const auto channels_last = [](const Tensor& t) { return t.permute({0, 2, 3, 1}).contiguous().permute({0, 3, 1, 2}); };
  const std::vector<Tensor> params = model->parameters();
  const auto gradients = [&](const Tensor& input) {
    model->zero_grad(/*set_to_none=*/true);
    Tensor in = input.detach();
    in.requires_grad_();
    const Tensor y = (*model)(in);
    (y * y).sum().backward();
    std::vector<Tensor> grads;
    for (const Tensor& p : params) grads.push_back(p.grad());
    grads.push_back(in.grad());
    return grads;
  };
  const Tensor x = randn({2, 3, 64, 64});
  const std::vector<Tensor> plain = gradients(x);
  for (const Tensor& g : plain) CHECK(g.is_contiguous());
  {
    NoGradGuard no_grad;
    for (const Tensor& p : params)
      if (p.dim() == 4) p.set_data(channels_last(p));
  }
  const std::vector<Tensor> got = gradients(channels_last(x));
  for (size_t i = 0; i < params.size(); ++i) {
    INFO("parameter ", i, " ", params[i].shape());
    CHECK(got[i].strides() == params[i].strides());
    CHECK_TENSOR_CLOSE(got[i], plain[i], 1e-3, 1e-3);
  }
  CHECK(got.back().strides() == channels_last(x).strides());
  CHECK_TENSOR_CLOSE(got.back(), plain.back(), 1e-3, 1e-4);
}

TEST_CASE("resnet101 / resnet152: print(model), state_dict, parameters, logits and resnet101's FX trace equal torchvision's" *
          doctest::skip(testing::skip_heavy_variants())) {
  const testing::ZooCase deep = testing::zoo_case("resnet", "resnet101");
  const testing::SeededModel r101 = testing::build_seeded(deep, [] { return resnet101({.num_classes = 10}); }, true);
  testing::check_structure(*r101.model, deep);
  testing::check_logits(r101, deep);
  testing::check_trace(r101.model, deep);
  testing::check_builder(testing::zoo_case("resnet", "resnet152"), [] { return resnet152({.num_classes = 10}); });
}

}  // namespace
}  // namespace tl::models
