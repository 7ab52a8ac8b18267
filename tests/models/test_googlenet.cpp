// tests/models/test_googlenet.cpp — GoogLeNet against torchvision 0.14 (tests/reference/
// make_zoo_inception_vit_references.py): print(model), state_dict keys, shapes and seeded trunc_normal_
// initial values, eval logits at 67x67 and 224x224 (batch 1 and 3), training-mode GoogLeNetOutputs,
// transform_input, torch.fx's module calls, and the errors for a wrong input and another variant's checkpoint.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/generator.h"
#include "fx/graph_module.h"
#include "fx/tracer.h"
#include "models/googlenet.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/support/captured_warnings.h"
#include "tests/support/tensor_check.h"
#include "tests/support/zoo_references.h"

namespace tl::models {
namespace {

using testing::parameter_count;
using testing::zoo_reference;

const char* const kInitWarning =
    "The default weight initialization of GoogleNet will be changed in future releases of torchvision. If you wish "
    "to keep the old behavior (which leads to long initialization times due to scipy/scipy#11299), please set "
    "init_weights=True.";

TEST_CASE("googlenet: print, state_dict, seeded trunc_normal_ weights and eval logits at 67 and 224 equal torchvision's") {
  testing::CapturedWarnings warnings;
  CHECK(testing::zoo_model_mismatch("zoo_inception_vit", "googlenet", [] { return googlenet(); }, 13004888) == "");
  CHECK(warnings.messages == std::vector<std::string>{kInitWarning});
}

TEST_CASE("googlenet: training mode returns GoogLeNetOutputs (aux heads swapped as torchvision's), transform_input") {
  manual_seed(0);
  auto model = googlenet({.num_classes = 10, .init_weights = true, .dropout = 0.0, .dropout_aux = 0.0});
  testing::apply_bn_rule(*model);
  model->to(DType::Float64);  // as the generator: batch statistics over 2 values amplify fp32 rounding
  model->train();
  const GoogLeNetOutputs out = model->forward_outputs(testing::zoo_input(2, 67).to(DType::Float64));
  const auto expected = testing::output_fields_reference("zoo_inception_vit", "googlenet", 2, 10);
  REQUIRE(expected.size() == 3);
  CHECK(expected[0].first == "logits");
  CHECK(expected[1].first == "aux_logits2");
  CHECK(expected[2].first == "aux_logits1");
  const Tensor ours[] = {out.logits, out.aux_logits2, out.aux_logits1};
  for (size_t i = 0; i < 3; ++i) {
    INFO(expected[i].first);
    const double scale = tl::max(tl::abs(expected[i].second)).item<double>();
    CHECK_TENSOR_CLOSE(ours[i], expected[i].second.to(DType::Float64), 0.0, 1e-4 * scale);
  }
  const Tensor x = testing::zoo_input(2, 32).to(DType::Float64);
  CHECK((*model)(TensorList{x}).size() == 3);
  CHECK_THROWS_WITH_AS((*model)(x), "GoogLeNet: forward returned 3 outputs, but a single-tensor call expects one",
                       Error);

  manual_seed(0);
  auto transformed = googlenet({.num_classes = 10, .transform_input = true, .init_weights = true});
  testing::apply_bn_rule(*transformed);
  transformed->eval();
  CHECK(testing::logits_mismatch(*transformed,
                                 zoo_reference("zoo_inception_vit", "googlenet", "transform_input_logits")) == "");
  const GoogLeNetOutputs eval_out = transformed->forward_outputs(testing::zoo_input(1, 67));
  CHECK(eval_out.logits.shape() == Shape{1, 10});
  CHECK(!eval_out.aux_logits2.defined());
  CHECK(!eval_out.aux_logits1.defined());
}

TEST_CASE("googlenet: options as torchvision's (aux_logits=False, init_weights, dropout)") {
  testing::CapturedWarnings warnings;
  auto plain = googlenet({.aux_logits = false, .init_weights = false, .dropout = 0.5});
  CHECK(warnings.messages.empty());
  CHECK(parameter_count(*plain) == 6624904);
  CHECK(!plain->has_child("aux1"));
  CHECK(nn::repr(*plain->get_submodule("dropout")) == "Dropout(p=0.5, inplace=False)");
  // Without aux_logits training mode returns the logits alone.
  plain->train();
  CHECK(plain->forward(testing::zoo_input(2, 32)).shape() == Shape{2, 1000});
}

TEST_CASE("googlenet: symbolic_trace gives torch.fx's graph (training and eval mode)") {
  auto model = googlenet({.init_weights = false});
  // As built (training mode): the aux heads are traced. torch.fx then packs (fc, aux1_fc2, aux2_fc2) into a
  // GoogLeNetOutputs node and returns it; our graph returns the tuple of the same three nodes.
  const std::string train_graph = fx::symbolic_trace(model)->graph().str();
  const std::string expected_train = zoo_reference("zoo_inception_vit", "googlenet", "train_graph");
  CHECK(train_graph.substr(0, train_graph.rfind("\n    return ")) ==
        expected_train.substr(0, expected_train.rfind("\n    %goog_le_net_outputs : ")));
  CHECK(train_graph.ends_with("\n    return (fc, aux1_fc2, aux2_fc2)"));
  model->eval();
  CHECK(fx::symbolic_trace(model)->graph().str() + "\n" == zoo_reference("zoo_inception_vit", "googlenet", "graph"));
}

TEST_CASE("googlenet: a wrong channel count is refused naming the shapes; another variant's checkpoint loads nothing") {
  auto model = googlenet({.init_weights = false});
  model->eval();
  CHECK_THROWS_WITH_AS((*model)(zeros({1, 4, 32, 32})),
                       "conv2d: input [1, 4, 32, 32] has 4 channels but weight [64, 3, 7, 7] with groups=1 expects 3"
                       " (in module 'conv1.conv' (Conv2d) of GoogLeNet)",
                       Error);
  model->train();
  CHECK_THROWS_WITH_AS(model->forward(zeros({1, 3, 32, 32})),
                       "GoogLeNet: in training mode with aux_logits=True forward returns GoogLeNetOutputs (logits, "
                       "aux_logits2, aux_logits1); call forward_outputs(x) or model(TensorList{x})",
                       Error);
  auto plain = googlenet({.aux_logits = false, .init_weights = false});
  const Tensor before = model->get_parameter("conv1.conv.weight").clone();
  CHECK_THROWS_WITH_AS(model->load_state_dict(plain->state_dict()),
                       doctest::Contains("Error(s) in loading state_dict for GoogLeNet:\n\tMissing key(s) in "
                                         "state_dict: \"aux1.conv.conv.weight\""),
                       Error);
  CHECK_TENSOR_CLOSE(model->get_parameter("conv1.conv.weight"), before, 0.0, 0.0);
}

}  // namespace
}  // namespace tl::models
