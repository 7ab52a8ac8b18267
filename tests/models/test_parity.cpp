// tests/models/test_parity.cpp — torchless against PyTorch 1.13 on the same weights: torchvision's
// resnet18/resnet50 state dicts load with nn::load and give the same eval-mode logits (rtol 1e-4,
// atol 1e-4), and on a mismatch the stage that differs is named; a training-mode BatchNorm2d gives the
// same output and running statistics; one resnet18 training step gives PyTorch's loss, parameter
// gradients and running statistics, and two SGD-with-momentum steps its parameters.
// tests/parity/export_torchvision.py writes the reference files into
// $TL_PARITY_DIR (meson runs it first as the test 'parity_export'); without PyTorch these test cases
// are skipped, with the reason on stderr.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "models/resnet.h"
#include "nn/batch_norm.h"
#include "nn/functional.h"
#include "nn/serialize.h"
#include "ops/ops.h"
#include "optim/sgd.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

constexpr double kRtol = 1e-4, kAtol = 1e-4;
// torchvision ResNet's top-level children in forward order; "fc" gets the flattened avgpool output.
constexpr const char* kStages[] = {"conv1",  "bn1",    "relu",   "maxpool", "layer1",
                                   "layer2", "layer3", "layer4", "avgpool", "fc"};

struct ParitySource {
  std::string dir;
  std::string skip_reason;  ///< empty: PyTorch is there, so the files must be too
};

const ParitySource& parity_source() {
  static const ParitySource source = [] {
    const char* env = std::getenv("TL_PARITY_DIR");
    if (env == nullptr || *env == '\0') {
      return ParitySource{"",
                          "TL_PARITY_DIR is not set; `meson test` sets it and runs 'parity_export' "
                          "(tests/parity/export_torchvision.py) first"};
    }
    std::ifstream note(std::string(env) + "/SKIPPED");
    std::string reason;
    if (note) std::getline(note, reason);
    return ParitySource{env, reason};
  }();
  return source;
}

// Runs while the test cases register, so doctest counts them as skipped (not passed); says why once.
bool skip_parity() {
  static const bool skip = [] {
    const std::string& reason = parity_source().skip_reason;
    if (!reason.empty()) std::cerr << "[parity] SKIPPED: " << reason << "\n";
    return !reason.empty();
  }();
  return skip;
}

std::string parity_file(const std::string& name) {
  const std::string path = parity_source().dir + "/" + name;
  REQUIRE_MESSAGE(std::filesystem::exists(path), path,
                  " is missing although PyTorch is installed: run `meson test parity_export` "
                  "(tests/parity/export_torchvision.py) first");
  return path;
}

std::map<std::string, Tensor> load_named(const std::string& path) {
  std::map<std::string, Tensor> out;
  for (auto& [name, t] : nn::load_safetensors(path)) out.emplace(name, t);
  return out;
}

// The largest absolute and relative differences (relative where |expected| > atol), and the
// largest share of the allowed tolerance atol + rtol * |expected| any element uses.
struct Difference {
  double max_abs = 0, max_rel = 0, tolerance_used = 0;
};

Difference difference(const Tensor& actual, const Tensor& expected) {
  Difference d;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    const double a = testing::element_at(actual, i), e = testing::element_at(expected, i);
    const double diff = std::fabs(a - e);
    d.max_abs = std::max(d.max_abs, diff);
    if (std::fabs(e) > kAtol) d.max_rel = std::max(d.max_rel, diff / std::fabs(e));
    d.tolerance_used = std::max(d.tolerance_used, diff / (kAtol + kRtol * std::fabs(e)));
  }
  return d;
}

// Each stage gets PyTorch's input to it, so a mismatch points at one layer, not an accumulation.
void check_stages(nn::Module& model, const std::map<std::string, Tensor>& io) {
  Tensor input = io.at("input");
  for (const std::string stage : kStages) {
    Tensor x = input.clone();  // ReLU(inplace=True) would overwrite the reference
    if (stage == "fc") x = flatten(x, 1);
    const Tensor out = (*model.get_submodule(stage))(x);
    const Tensor& expected = io.at("stage." + stage);
    INFO("stage '", stage, "' given PyTorch's input");
    CHECK_TENSOR_CLOSE(out, expected, kRtol, kAtol);
    input = expected;
  }
}

void check_resnet(const std::string& arch, const std::shared_ptr<models::ResNet>& model) {
  nn::load(*model, parity_file(arch + ".safetensors"));
  model->eval();
  const std::map<std::string, Tensor> io = load_named(parity_file(arch + "_io.safetensors"));
  const Tensor logits = (*model)(io.at("input"));
  const Tensor& expected = io.at("output");
  REQUIRE(logits.shape() == expected.shape());
  const Difference d = difference(logits, expected);
  MESSAGE(arch, " logits ", logits.shape(), " vs PyTorch: max abs diff ", d.max_abs, ", max rel diff ",
          d.max_rel, ", worst element uses ", d.tolerance_used * 100, "% of the tolerance (rtol ", kRtol,
          ", atol ", kAtol, ")");
  const std::string mismatch = testing::compare_tensors(logits, expected, kRtol, kAtol);
  CHECK_MESSAGE(mismatch.empty(), arch, " logits: ", mismatch);
  // Only then (it costs a second forward): name the stages that differ.
  if (!mismatch.empty()) check_stages(*model, io);
}

TEST_CASE("parity: resnet18 loaded from a torchvision state dict gives PyTorch's logits" *
          doctest::skip(skip_parity())) {
  check_resnet("resnet18", models::resnet18());
}

TEST_CASE("parity: resnet50 loaded from a torchvision state dict gives PyTorch's logits" *
          doctest::skip(skip_parity())) {
  check_resnet("resnet50", models::resnet50());
}

TEST_CASE("parity: training-mode BatchNorm2d output and running statistics" * doctest::skip(skip_parity())) {
  auto bn = std::make_shared<nn::BatchNorm2d>(5);
  nn::load(*bn, parity_file("batch_norm2d_state.safetensors"));
  bn->train();
  const std::map<std::string, Tensor> io = load_named(parity_file("batch_norm2d_train_io.safetensors"));
  const Tensor out = (*bn)(io.at("input"));
  const Difference d = difference(out, io.at("output"));
  MESSAGE("batch_norm2d (train) vs PyTorch: max abs diff ", d.max_abs, ", max rel diff ", d.max_rel);
  CHECK_TENSOR_CLOSE(out, io.at("output"), 1e-5, 1e-5);
  CHECK_TENSOR_CLOSE(bn->buffer("running_mean"), io.at("running_mean"), 1e-6, 1e-6);
  CHECK_TENSOR_CLOSE(bn->buffer("running_var"), io.at("running_var"), 1e-6, 1e-6);
  CHECK(bn->buffer("num_batches_tracked").item<int64_t>() == io.at("num_batches_tracked").item<int64_t>());
}

// Gradients and updated parameters: within 1e-4 relative to the tensor's largest magnitude (a gradient's
// small elements are sums of cancelling terms whose fp32 rounding differs between implementations).
void check_relative(const std::string& what, const Tensor& actual, const Tensor& expected, double& worst) {
  REQUIRE_MESSAGE(actual.defined(), what, " is undefined");
  REQUIRE(actual.shape() == expected.shape());
  double scale = 0, err = 0;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    scale = std::max(scale, std::fabs(testing::element_at(expected, i)));
    err = std::max(err, std::fabs(testing::element_at(actual, i) - testing::element_at(expected, i)));
  }
  const double rel = scale > 0 ? err / scale : err;
  worst = std::max(worst, rel);
  CHECK_MESSAGE(rel <= 1e-4, what, ": max |diff| ", err, " is ", rel, " of max |PyTorch| ", scale);
}

TEST_CASE("parity: one resnet18 training step gives PyTorch's gradients, statistics and SGD updates" *
          doctest::skip(skip_parity())) {
  auto model = models::resnet18();
  nn::load(*model, parity_file("resnet18.safetensors"));
  model->train();
  const std::map<std::string, Tensor> ref = load_named(parity_file("resnet18_train.safetensors"));
  const Tensor& x = ref.at("input");
  const Tensor& target = ref.at("target");
  std::vector<Tensor> params;
  for (const auto& [name, p] : model->named_parameters()) params.push_back(p);
  optim::SGD sgd(params, {.lr = 0.1, .momentum = 0.9, .weight_decay = 1e-4});
  double worst_grad = 0, worst_step = 0;
  for (int step = 0; step < 2; ++step) {
    sgd.zero_grad();
    const Tensor loss = nn::functional::cross_entropy((*model)(x), target);
    loss.backward();
    if (step == 0) {
      CHECK_TENSOR_CLOSE(loss.reshape({1}), ref.at("loss"), 1e-5, 1e-5);
      for (const auto& [name, p] : model->named_parameters()) check_relative("grad of " + name, p.grad(), ref.at("grad." + name), worst_grad);
      for (const auto& [name, b] : model->named_buffers()) {
        if (b.dtype() == DType::Int64) CHECK(b.item<int64_t>() == ref.at("after." + name).item<int64_t>());
        else CHECK_TENSOR_CLOSE(b, ref.at("after." + name), 1e-5, 1e-5);
      }
    }
    sgd.step();
  }
  for (const auto& [name, p] : model->named_parameters()) check_relative(name + " after two steps", p, ref.at("step2." + name), worst_step);
  MESSAGE("resnet18 training step vs PyTorch: worst parameter gradient differs by ", worst_grad,
          " of its largest magnitude; worst parameter after two SGD steps by ", worst_step);
}

}  // namespace
}  // namespace tl
