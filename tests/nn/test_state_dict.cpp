// tests/nn/test_state_dict.cpp — state_dict names and order (PyTorch's), aliasing, and
// load_state_dict: dtype conversion, identity kept, strict errors in one message, nothing changed
// on failure, strict=false reporting.
#include <doctest/doctest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "core/generator.h"
#include "nn/init.h"
#include "nn/layers.h"
#include "ops/ops.h"
#include "tests/support/tensor_check.h"

namespace tl::nn {
namespace {

/// conv(bias=False) -> bn -> Sequential(fc): the kinds of entries a state dict meets.
class Net : public Module {
 public:
  explicit Net(int64_t out_features = 4) {
    register_module("conv", std::make_shared<Conv2d>(Conv2dOptions{.in_channels = 1, .out_channels = 2,
                                                                   .kernel_size = 1, .bias = false}));
    register_module("bn", std::make_shared<BatchNorm2d>(2));
    register_module("head", std::make_shared<Sequential>(std::make_shared<Linear>(2, out_features)));
    register_buffer("scale", ones({1}));
  }
  std::string type_name() const override { return "Net"; }
};

std::vector<std::string> keys_of(const StateDict& dict) {
  std::vector<std::string> out;
  for (const auto& [k, t] : dict) out.push_back(k);
  return out;
}

TEST_CASE("state_dict: own entries (params then buffers) before the children's, None skipped") {
  Net net;
  CHECK(keys_of(net.state_dict()) ==
        std::vector<std::string>{"scale", "conv.weight", "bn.weight", "bn.bias", "bn.running_mean", "bn.running_var",
                                 "bn.num_batches_tracked", "head.0.weight", "head.0.bias"});
  const StateDict dict = net.state_dict();
  CHECK(dict[1].second.is_same(net.get_parameter("conv.weight")));
  CHECK(dict[6].second.dtype() == DType::Int64);
}

TEST_CASE("state_dict: a module registered twice appears under both names, as in PyTorch") {
  Sequential seq;
  auto fc = std::make_shared<Linear>(1, 1);
  seq.append(fc);
  seq.append(fc);
  CHECK(keys_of(seq.state_dict()) == std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias"});
}

TEST_CASE("load_state_dict: copies values into the same tensors, converting dtype") {
  manual_seed(3);
  Net source, target;
  init::constant_(source.get_buffer("bn.num_batches_tracked"), 7);
  const Tensor weight_before = target.get_parameter("conv.weight");

  StateDict dict = source.state_dict();
  dict[2].second = dict[2].second.to(DType::Float64);  // bn.weight as float64
  const IncompatibleKeys keys = target.load_state_dict(dict);
  CHECK(keys.missing_keys.empty());
  CHECK(keys.unexpected_keys.empty());
  CHECK(target.get_parameter("conv.weight").is_same(weight_before));
  CHECK(target.get_parameter("bn.weight").dtype() == DType::Float32);
  const StateDict loaded = target.state_dict();
  const StateDict expected = source.state_dict();
  for (size_t i = 0; i < loaded.size(); ++i) {
    INFO(loaded[i].first);
    CHECK_TENSOR_CLOSE(loaded[i].second, expected[i].second, 0.0, 0.0);
  }
  CHECK(target.get_buffer("bn.num_batches_tracked").item<int64_t>() == 7);
}

TEST_CASE("load_state_dict: parameters that require grad are written as data, staying leaves") {
  Linear source(2, 3), target(2, 3);
  CHECK(target.get_parameter("weight").requires_grad());  // as nn.Parameter
  target.load_state_dict(source.state_dict());
  CHECK_TENSOR_CLOSE(target.get_parameter("weight"), source.get_parameter("weight"), 0.0, 0.0);
  CHECK(target.get_parameter("weight").requires_grad());
  CHECK(target.get_parameter("weight").is_leaf());
}

TEST_CASE("load_state_dict: every problem in one error worded like PyTorch's, and nothing changes") {
  Net target;
  const StateDict before = target.state_dict();
  std::vector<Tensor> snapshot;
  for (const auto& [k, t] : before) snapshot.push_back(t.clone());

  Net wider(10);
  StateDict dict = wider.state_dict();
  dict.erase(dict.begin() + 2);  // bn.weight
  dict.erase(dict.begin());      // scale
  dict.emplace_back("head.1.weight", zeros({1}));
  dict.emplace_back("extra", zeros({1}));
  CHECK_THROWS_WITH_AS(
      target.load_state_dict(dict),
      "Error(s) in loading state_dict for Net:\n"
      "\tMissing key(s) in state_dict: \"scale\", \"bn.weight\". \n"
      "\tUnexpected key(s) in state_dict: \"head.1.weight\", \"extra\". \n"
      "\tsize mismatch for head.0.weight: copying a param with shape [10, 2] from checkpoint, the shape in current "
      "model is [4, 2].\n"
      "\tsize mismatch for head.0.bias: copying a param with shape [10] from checkpoint, the shape in current model "
      "is [4].",
      Error);
  const StateDict after = target.state_dict();
  REQUIRE(after.size() == snapshot.size());
  for (size_t i = 0; i < after.size(); ++i) {
    INFO(after[i].first);
    CHECK(after[i].second.is_same(before[i].second));
    CHECK_TENSOR_CLOSE(after[i].second, snapshot[i], 0.0, 0.0);
  }
}

TEST_CASE("load_state_dict: strict=false loads what matches and returns the rest; size mismatch still throws") {
  Net source, target;
  init::constant_(source.get_parameter("conv.weight"), 0.25);
  StateDict dict = {{"conv.weight", source.get_parameter("conv.weight")}, {"stray", zeros({2})}};
  const IncompatibleKeys keys = target.load_state_dict(dict, /*strict=*/false);
  CHECK(keys.unexpected_keys == std::vector<std::string>{"stray"});
  // Everything but the loaded weight, and bn.num_batches_tracked, which loads as 0 (PyTorch's _NormBase).
  CHECK(keys.missing_keys == std::vector<std::string>{"scale", "bn.weight", "bn.bias", "bn.running_mean",
                                                      "bn.running_var", "head.0.weight", "head.0.bias"});
  CHECK_TENSOR_CLOSE(target.get_parameter("conv.weight"), full({2, 1, 1, 1}, 0.25), 0.0, 0.0);

  StateDict bad = {{"scale", zeros({3})}};
  CHECK_THROWS_WITH_AS(target.load_state_dict(bad, false),
                       "Error(s) in loading state_dict for Net:\n\tsize mismatch for scale: copying a param with shape "
                       "[3] from checkpoint, the shape in current model is [1].",
                       Error);
  StateDict none = {{"scale", Tensor()}};
  CHECK_THROWS_WITH_AS(target.load_state_dict(none, false),
                       doctest::Contains("cannot copy None from checkpoint into scale"), Error);
}

TEST_CASE("load_state_dict: a batch norm's missing num_batches_tracked loads as 0, not as a missing key") {
  // PyTorch 1.13 on a dict without version metadata: `All keys matched`, num_batches_tracked == 0.
  Net source, target;
  init::constant_(target.get_buffer("bn.num_batches_tracked"), 5);
  StateDict dict;
  for (const auto& [key, t] : source.state_dict())
    if (key != "bn.num_batches_tracked") dict.emplace_back(key, t);
  const IncompatibleKeys keys = target.load_state_dict(dict);
  CHECK(keys.missing_keys.empty());
  CHECK(keys.unexpected_keys.empty());
  CHECK(target.get_buffer("bn.num_batches_tracked").item<int64_t>() == 0);
  // Any other missing buffer is still missing, and a strict load then changes nothing.
  init::constant_(target.get_buffer("bn.num_batches_tracked"), 5);
  StateDict partial;
  for (const auto& [key, t] : source.state_dict())
    if (key != "bn.running_mean" && key != "bn.num_batches_tracked") partial.emplace_back(key, t);
  CHECK_THROWS_WITH_AS(target.load_state_dict(partial),
                       "Error(s) in loading state_dict for Net:\n\tMissing key(s) in state_dict: \"bn.running_mean\". ",
                       Error);
  CHECK(target.get_buffer("bn.num_batches_tracked").item<int64_t>() == 5);
}

TEST_CASE("load_state_dict: a repeated key keeps its last tensor, like building a dict") {
  Linear fc(1, 1, false);
  StateDict dict = {{"weight", full({1, 1}, 1.0)}, {"weight", full({1, 1}, 2.0)}};
  fc.load_state_dict(dict);
  CHECK(fc.parameter("weight").item<double>() == 2.0);
}

// Deprecated names keep working, with a warning, for one version (CHANGELOG.md says what replaces them).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
TEST_CASE("deprecated: NamedTensors is StateDict for one more version") {
  static_assert(std::is_same_v<NamedTensors, StateDict>);
  Linear fc(2, 1, false);
  NamedTensors dict = fc.state_dict();
  CHECK(dict.size() == 1);
  CHECK(dict[0].first == "weight");
}
#pragma GCC diagnostic pop

}  // namespace
}  // namespace tl::nn
