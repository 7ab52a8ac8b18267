// tests/models/test_inception.cpp — Inception3 (inception_v3) against torchvision 0.14 (tests/reference/
// make_zoo_inception_vit_references.py): print(model), state_dict keys, shapes and seeded trunc_normal_
// initial values, eval logits at 79x79 and 299x299 (batch 1 and 3), training-mode InceptionOutputs at
// 299x299, transform_input, torch.fx's module calls, and the errors for a wrong input and another variant's checkpoint.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "core/generator.h"
#include "fx/graph_module.h"
#include "fx/tracer.h"
#include "models/inception.h"
#include "nn/repr.h"
#include "ops/ops.h"
#include "tests/support/captured_warnings.h"
#include "tests/support/tensor_check.h"
#include "tests/support/zoo_references.h"

namespace tl::models {
namespace {

using testing::parameter_count;
using testing::zoo_reference;

TEST_CASE("inception_v3: print, state_dict, seeded trunc_normal_ weights and eval logits at 79 and 299 equal torchvision's") {
  testing::CapturedWarnings warnings;
  CHECK(testing::zoo_model_mismatch("zoo_inception_vit", "inception_v3", [] { return inception_v3(); }, 27161264) ==
        "");
  CHECK(warnings.messages ==
        std::vector<std::string>{
            "The default weight initialization of inception_v3 will be changed in future releases of torchvision. If "
            "you wish to keep the old behavior (which leads to long initialization times due to scipy/scipy#11299), "
            "please set init_weights=True."});
}

TEST_CASE("inception_v3: training mode returns InceptionOutputs; transform_input") {
  manual_seed(0);
  auto model = inception_v3({.num_classes = 10, .init_weights = true, .dropout = 0.0});
  testing::apply_bn_rule(*model);
  model->to(DType::Float64);  // as the generator: batch statistics over 2 values amplify fp32 rounding
  model->train();
  const InceptionOutputs out = model->forward_outputs(testing::zoo_input(2, 299).to(DType::Float64));
  const auto expected = testing::output_fields_reference("zoo_inception_vit", "inception_v3", 2, 10);
  REQUIRE(expected.size() == 2);
  CHECK(expected[0].first == "logits");
  CHECK(expected[1].first == "aux_logits");
  const Tensor ours[] = {out.logits, out.aux_logits};
  for (size_t i = 0; i < 2; ++i) {
    INFO(expected[i].first);
    const double scale = tl::max(tl::abs(expected[i].second)).item<double>();
    CHECK_TENSOR_CLOSE(ours[i], expected[i].second.to(DType::Float64), 0.0, 1e-4 * scale);
  }

  manual_seed(0);
  auto transformed = inception_v3({.num_classes = 10, .transform_input = true, .init_weights = true});
  testing::apply_bn_rule(*transformed);
  transformed->eval();
  CHECK(testing::logits_mismatch(*transformed,
                                 zoo_reference("zoo_inception_vit", "inception_v3", "transform_input_logits")) == "");
  const InceptionOutputs eval_out = transformed->forward_outputs(testing::zoo_input(1, 79));
  CHECK(eval_out.logits.shape() == Shape{1, 10});
  CHECK(!eval_out.aux_logits.defined());
}

TEST_CASE("inception_v3: options as torchvision's (aux_logits=False, init_weights, dropout)") {
  testing::CapturedWarnings warnings;
  auto plain = inception_v3({.num_classes = 10, .aux_logits = false, .init_weights = false, .dropout = 0.2});
  CHECK(warnings.messages.empty());
  CHECK(parameter_count(*plain) == 21806058);  // 23,834,568 with 1000 classes
  CHECK(!plain->has_child("AuxLogits"));
  CHECK(nn::repr(*plain->get_submodule("dropout")) == "Dropout(p=0.2, inplace=False)");
  plain->train();
  CHECK(plain->forward(testing::zoo_input(2, 75)).shape() == Shape{2, 10});
}

TEST_CASE("inception_v3: symbolic_trace gives torch.fx's graph (training and eval mode)") {
  auto model = inception_v3({.init_weights = false});
  // As built (training mode): the aux head is traced. torch.fx then packs (fc, aux_logits_fc) into an
  // InceptionOutputs node and returns it; our graph returns the tuple of the same two nodes.
  const std::string train_graph = fx::symbolic_trace(model)->graph().str();
  const std::string expected_train = zoo_reference("zoo_inception_vit", "inception_v3", "train_graph");
  CHECK(train_graph.substr(0, train_graph.rfind("\n    return ")) ==
        expected_train.substr(0, expected_train.rfind("\n    %inception_outputs : ")));
  CHECK(train_graph.ends_with("\n    return (fc, aux_logits_fc)"));
  model->eval();
  CHECK(fx::symbolic_trace(model)->graph().str() + "\n" == zoo_reference("zoo_inception_vit", "inception_v3", "graph"));
}

TEST_CASE("inception_v3: a wrong channel count is refused naming the shapes; another variant's checkpoint loads nothing") {
  auto model = inception_v3({.init_weights = false});
  model->eval();
  CHECK_THROWS_WITH_AS((*model)(zeros({1, 4, 80, 80})),
                       "conv2d: input [1, 4, 80, 80] has 4 channels but weight [32, 3, 3, 3] with groups=1 expects 3"
                       " (in module 'Conv2d_1a_3x3.conv' (Conv2d) of Inception3)",
                       Error);
  model->train();
  CHECK_THROWS_WITH_AS(model->forward(zeros({2, 3, 80, 80})),
                       "Inception3: in training mode with aux_logits=True forward returns InceptionOutputs (logits, "
                       "aux_logits); call forward_outputs(x) or model(TensorList{x})",
                       Error);
  auto plain = inception_v3({.aux_logits = false, .init_weights = false});
  const Tensor before = model->get_parameter("Conv2d_1a_3x3.conv.weight").clone();
  CHECK_THROWS_WITH_AS(model->load_state_dict(plain->state_dict()),
                       doctest::Contains("Error(s) in loading state_dict for Inception3:\n\tMissing key(s) in "
                                         "state_dict: \"AuxLogits.conv0.conv.weight\""),
                       Error);
  CHECK_TENSOR_CLOSE(model->get_parameter("Conv2d_1a_3x3.conv.weight"), before, 0.0, 0.0);
}

}  // namespace
}  // namespace tl::models
