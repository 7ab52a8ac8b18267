// tests/models/test_bad_input.cpp — every torchvision family refuses bad input where torchvision 0.14 does: at forward
// (tests/models/data/bad_input.json, from tests/models/make_bad_input_cases.py) a too-small image, a 3-D input, a wrong
// channel count and a fixed-size model's other size, each in the module PyTorch raises in, named with the shapes, the
// model unchanged after; at construction the builders' arguments torchvision refuses, before any weight is drawn.
#include <doctest/doctest.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/generator.h"
#include "models/alexnet.h"
#include "models/convnext.h"
#include "models/densenet.h"
#include "models/efficientnet.h"
#include "models/googlenet.h"
#include "models/inception.h"
#include "models/maxvit.h"
#include "models/mnasnet.h"
#include "models/mobilenet.h"
#include "models/regnet.h"
#include "models/resnet.h"
#include "models/shufflenet.h"
#include "models/squeezenet.h"
#include "models/swin_transformer.h"
#include "models/vgg.h"
#include "models/vision_transformer.h"
#include "ops/ops.h"
#include "tests/models/zoo_reference.h"
#include "tests/support/json_cases.h"
#include "tests/support/tensor_check.h"
#include "tests/support/zoo_references.h"

namespace tl::models {
namespace {

using Json = nlohmann::json;

struct Family {
  const char* name;  ///< the generator's key
  std::function<std::shared_ptr<nn::Module>(int64_t num_classes)> make;
  /// Kept in the sanitizer run: cheap builders that between them have every kind of refusal (googlenet: BatchNorms
  /// that ran in training mode before a too-small pool refused).
  bool sanitized = false;
  /// Only with TL_ZOO_ALL_VARIANTS=1: 133M initial draws for one more too-small max pool (alexnet has one).
  bool heavy = false;
};

// The generator's models (its MODELS), with the generator's num_classes (10) unless told otherwise.
std::vector<Family> families() {
  using Ptr = std::shared_ptr<nn::Module>;
  return {
      {"alexnet", [](int64_t n) -> Ptr { return alexnet({.num_classes = n}); }},
      {"vgg11", [](int64_t n) -> Ptr { return vgg11({.num_classes = n, .init_weights = false}); }, false, true},
      {"squeezenet1_0", [](int64_t n) -> Ptr { return squeezenet1_0({.num_classes = n}); }, true},
      {"squeezenet1_1", [](int64_t n) -> Ptr { return squeezenet1_1({.num_classes = n}); }},
      {"resnet18", [](int64_t n) -> Ptr { return resnet18({.num_classes = n}); }},
      {"densenet121", [](int64_t n) -> Ptr { return densenet121({.num_classes = n}); }},
      {"googlenet", [](int64_t n) -> Ptr { return googlenet({.num_classes = n, .init_weights = false}); }, true},
      {"inception_v3", [](int64_t n) -> Ptr { return inception_v3({.num_classes = n, .init_weights = false}); }},
      {"mobilenet_v2", [](int64_t n) -> Ptr { return mobilenet_v2({.num_classes = n}); }},
      {"mobilenet_v3_small", [](int64_t n) -> Ptr { return mobilenet_v3_small({.num_classes = n}); }, true},
      {"mnasnet0_5", [](int64_t n) -> Ptr { return mnasnet0_5({.num_classes = n}); }},
      {"shufflenet_v2_x0_5", [](int64_t n) -> Ptr { return shufflenet_v2_x0_5({.num_classes = n}); }},
      {"efficientnet_b0", [](int64_t n) -> Ptr { return efficientnet_b0({.num_classes = n}); }},
      {"efficientnet_v2_s", [](int64_t n) -> Ptr { return efficientnet_v2_s({.num_classes = n}); }},
      {"regnet_x_400mf", [](int64_t n) -> Ptr { return regnet_x_400mf({.num_classes = n}); }},
      {"convnext_tiny", [](int64_t n) -> Ptr { return convnext_tiny({.num_classes = n}); }},
      {"swin_small",
       [](int64_t n) -> Ptr {
         return std::make_shared<SwinTransformer>(Shape{4, 4}, 16, Shape{2, 2}, Shape{2, 4}, Shape{3, 3},
                                                  SwinTransformerOptions{.num_classes = n}, false);
       },
       true},
      {"vit_small",
       [](int64_t n) -> Ptr {
         auto vit = std::make_shared<VisionTransformer>(8, 2, 2, 16, 32,
                                                        VisionTransformerOptions{.image_size = 32, .num_classes = n});
         testing::apply_vit_head_rule(*vit);  // a zero head would hide a changed encoder
         return vit;
       },
       true},
      {"maxvit_small",
       [](int64_t n) -> Ptr {
         return std::make_shared<MaxVit>(8, 2, Shape{8, 16}, Shape{1, 2}, 4, 0.1,
                                         MaxVitOptions{.input_size = {32, 32}, .num_classes = n});
       }},
  };
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

Shape shape_of(const Json& c) { return Shape(c.at("input").get<std::vector<int64_t>>()); }

// Where ours refuses earlier than PyTorch, with a message of its own: MaxVit checks its stem's output size against
// input_size before running anything (torchvision fails later, in a reshape).
bool refused_at_entry(const std::string& family, const Shape& input) {
  return family == "maxvit_small" && input.size() == 4 && input[1] == 3;
}

// CHECKs that `model` refuses case `c`. A too-small image or a wrong channel count: in the module PyTorch raised in
// (its path and class, which Module::operator() appends to the op's message, itself naming the shapes), or with
// torchvision's own text where PyTorch raised in the model's forward. A 3-D input: in a named module or naming its
// shape, wherever (our layers may refuse it before the one PyTorch reaches).
void check_refused(nn::Module& model, const std::string& family, const Json& c) {
  const Shape input = shape_of(c);
  CAPTURE(input);
  std::string message;
  try {
    (void)model(zeros(input));
  } catch (const Error& e) {
    message = e.what();
  }
  REQUIRE_MESSAGE(!message.empty(), "ran, where PyTorch raised: ", c.at("message").get<std::string>());
  CAPTURE(message);
  const std::string module = c.at("module").get<std::string>();
  std::ostringstream shape;
  shape << input;
  if (input.size() == 3) {
    CHECK((contains(message, " (in module '") || contains(message, shape.str())));
  } else if (refused_at_entry(family, input)) {
    CHECK(contains(message, std::to_string(input[2]) + "x" + std::to_string(input[3])));
  } else if (module.empty()) {
    CHECK(message == c.at("message").get<std::string>());
  } else {
    CHECK(contains(message, " (in module '" + module + "' (" + c.at("type").get<std::string>() + ") of " +
                                model.type_name() + ")"));
  }
}

TEST_CASE("zoo: each family refuses the inputs PyTorch refuses, in the module PyTorch raises in, and is unchanged after") {
  const Json& all = testing::json_cases("tests/models/data/bad_input.json");
  for (const Family& f : families()) {
    if ((testing::reduced_for_sanitizer() && !f.sanitized) || (f.heavy && testing::skip_heavy_variants())) continue;
    const std::string family = f.name;
    CAPTURE(family);
    const Json& entry = all.at("forward").at(family);
    // A model that runs at its smallest size runs at every larger one (up to the generator's 80).
    CHECK(entry.at("refused_above").empty());
    manual_seed(0);
    std::shared_ptr<nn::Module> model = f.make(10);
    model->eval();
    const Json& cases = entry.at("cases");
    REQUIRE_FALSE(cases.at(0).at("refused").get<bool>());
    const Shape good = shape_of(cases.at(0));  // (1, 3, s, s) at the smallest size s PyTorch runs
    const Tensor x = testing::zoo_input(1, good[2]);
    const Tensor before = (*model)(x);
    for (const Json& c : cases) {
      if (!c.at("refused").get<bool>()) {
        CHECK_NOTHROW((void)(*model)(zeros(shape_of(c))));
        continue;
      }
      check_refused(*model, family, c);
      // In training mode too (perhaps in an earlier BatchNorm, which batch statistics of one value refuse): the
      // BatchNorms that ran before the refusing layer get their statistics back.
      model->train();
      CHECK_THROWS_AS((void)(*model)(zeros(shape_of(c))), Error);
      model->eval();
    }
    CHECK_TENSOR_CLOSE((*model)(x), before, 0.0, 0.0);
  }
}

using Build = std::function<std::shared_ptr<nn::Module>()>;

// A builder call of the generator's BUILDS, and a part of our message (naming the argument and the values).
struct BuildCase {
  const char* name;
  Build build;
  const char* names = "";
};

std::vector<BuildCase> build_cases() {
  using Ptr = std::shared_ptr<nn::Module>;
  const auto small_swin = [](SwinTransformerOptions o, Shape depths, Shape heads) -> Ptr {
    return std::make_shared<SwinTransformer>(Shape{4, 4}, 16, depths, heads, Shape{3, 3}, o, false);
  };
  return {
      {"efficientnet_b0(dropout=0.1)", []() -> Ptr { return efficientnet_b0({.dropout = 0.1}); }},
      {"efficientnet_b5(norm_layer=BatchNorm2d)",
       []() -> Ptr { return efficientnet_b5({.norm_layer = ops::batch_norm2d()}); }},
      {"efficientnet_b0(norm_layer=BatchNorm2d, num_classes=10)",
       []() -> Ptr { return efficientnet_b0({.num_classes = 10, .norm_layer = ops::batch_norm2d()}); }},
      {"efficientnet_b0(stochastic_depth_prob=1.05, num_classes=10)",
       []() -> Ptr { return efficientnet_b0({.num_classes = 10, .stochastic_depth_prob = 1.05}); }},
      {"efficientnet_b0(stochastic_depth_prob=1.5)",
       []() -> Ptr { return efficientnet_b0({.stochastic_depth_prob = 1.5}); },
       "EfficientNet: stochastic_depth_prob=1.5 gives block 15 of 16 a drop probability of 1.40625"},
      {"efficientnet_b0(stochastic_depth_prob=-0.5)",
       []() -> Ptr { return efficientnet_b0({.stochastic_depth_prob = -0.5}); }, "stochastic_depth_prob=-0.5"},
      {"convnext_tiny(stochastic_depth_prob=1.5)",
       []() -> Ptr { return convnext_tiny({.stochastic_depth_prob = 1.5}); },
       "ConvNeXt: stochastic_depth_prob=1.5 gives block 17 of 18 a drop probability of 1.5"},
      {"swin_t(stochastic_depth_prob=0.1)", []() -> Ptr { return swin_t({.stochastic_depth_prob = 0.1}); }},
      {"SwinTransformer(depths=[1], heads=[2])",
       [small_swin]() -> Ptr { return small_swin({}, Shape{1}, Shape{2}); }, "divides by zero"},
      {"SwinTransformer(stochastic_depth_prob=1.5)",
       [small_swin]() -> Ptr { return small_swin({.stochastic_depth_prob = 1.5, .num_classes = 10}, {2, 2}, {2, 4}); },
       "SwinTransformer: stochastic_depth_prob=1.5"},
      {"MaxVit(stochastic_depth_prob=1.5)",
       []() -> Ptr {
         return std::make_shared<MaxVit>(8, 2, Shape{8, 16}, Shape{1, 2}, 4, 1.5,
                                         MaxVitOptions{.input_size = {32, 32}, .num_classes = 10});
       },
       "MaxVit: stochastic_depth_prob=1.5"},
      {"mobilenet_v2(round_nearest=0)", []() -> Ptr { return mobilenet_v2({.round_nearest = 0}); }, "round_nearest=0"},
      {"mobilenet_v2(round_nearest=-8, num_classes=10)",
       []() -> Ptr { return mobilenet_v2({.num_classes = 10, .round_nearest = -8}); }},
      {"mobilenet_v2(width_mult=-1, num_classes=10)",
       []() -> Ptr { return mobilenet_v2({.num_classes = 10, .width_mult = -1.0}); }},
      {"densenet121(drop_rate=1.5, num_classes=10)",
       []() -> Ptr { return densenet121({.num_classes = 10, .drop_rate = 1.5}); }, "DenseNet: drop_rate=1.5"},
      {"densenet121(drop_rate=-0.5, num_classes=10)",
       []() -> Ptr { return densenet121({.num_classes = 10, .drop_rate = -0.5}); }},
      {"regnet_x_400mf(stem_width=0)", []() -> Ptr { return regnet_x_400mf({.stem_width = 0}); }, "stem_width=0"},
      {"BlockParams.from_init_params(group_width=0)",
       []() -> Ptr {
         (void)regnet::BlockParams::from_init_params(16, 48, 27.89, 2.09, 0);
         return nullptr;
       },
       "group_width=0"},
      {"RegNet(widths [24, 56], group widths [8])",
       []() -> Ptr {
         return std::make_shared<RegNet>(regnet::BlockParams{{1, 1}, {24, 56}, {8}, {1.0, 1.0}, {2, 2}, std::nullopt},
                                         RegNetOptions{.num_classes = 10});
       }},
      {"RegNet(group widths [0])",
       []() -> Ptr {
         return std::make_shared<RegNet>(regnet::BlockParams{{1}, {24}, {0}, {1.0}, {2}, std::nullopt},
                                         RegNetOptions{.num_classes = 10});
       },
       "group width 0"},
      {"VisionTransformer(image_size=30, patch_size=8)",
       []() -> Ptr { return std::make_shared<VisionTransformer>(8, 2, 2, 16, 32, VisionTransformerOptions{.image_size = 30}); },
       "(image_size 30, patch_size 8)"},
      {"VisionTransformer(hidden_dim=15, num_heads=2)",
       []() -> Ptr { return std::make_shared<VisionTransformer>(8, 2, 2, 15, 32, VisionTransformerOptions{.image_size = 32}); },
       "(hidden_dim 15, num_heads 2)"},
  };
}

// CHECKs a builder call against torchvision's, and what it builds at 32x32 in eval mode. Where torchvision refuses the
// call: refused, before any weight is drawn (the default generator as it was), with Python's text where the refusal
// is Python's TypeError. Where torchvision builds a model each forward of which raises (a drop probability outside
// [0, 1]): refused at construction (naming the argument, before any draw) or at forward. Else built, with
// torchvision's parameter count, and it runs.
void check_build(const std::string& name, const Build& build, const std::string& names) {
  CAPTURE(name);
  const Json& expected = testing::json_cases("tests/models/data/bad_input.json").at("builders").at(name);
  const std::vector<uint8_t> generator = default_generator().get_state();
  std::shared_ptr<nn::Module> model;
  std::string message;
  try {
    model = build();
  } catch (const Error& e) {
    message = e.what();
  }
  CAPTURE(message);
  const bool generator_kept = default_generator().get_state() == generator;
  const Tensor x = zeros({1, 3, 32, 32});
  if (expected.at("refused").get<bool>()) {
    REQUIRE_MESSAGE(!message.empty(), "built, where torchvision raised ", expected.at("message").get<std::string>());
    CHECK(generator_kept);
    const std::string theirs = expected.at("message").get<std::string>();
    if (theirs.starts_with("TypeError: ")) CHECK(message == theirs.substr(11));
    CHECK(contains(message, names));
  } else if (expected.at("forward_refused").get<bool>()) {
    if (message.empty()) {
      REQUIRE(model);
      model->eval();
      CHECK_THROWS_AS((void)(*model)(x), Error);
    } else {
      CHECK(generator_kept);
      CHECK(contains(message, names));
    }
  } else {
    REQUIRE_MESSAGE(message.empty(), "refused, where torchvision builds it");
    if (!model) return;
    CHECK(testing::parameter_count(*model) == expected.at("parameters").get<int64_t>());
    model->eval();
    CHECK_NOTHROW((void)(*model)(x));
  }
}

TEST_CASE("zoo: the builders refuse the arguments torchvision refuses, before drawing any weight, and build the rest as "
          "torchvision") {
  for (const BuildCase& c : build_cases()) check_build(c.name, c.build, c.names);
  for (const Family& f : families()) {
    const std::string family = f.name;
    const auto make = f.make;
    check_build(family + "(num_classes=-1)", [make] { return make(-1); }, "num_classes must be non-negative, got -1");
    const bool zero_case =
        testing::json_cases("tests/models/data/bad_input.json").at("builders").contains(family + "(num_classes=0)");
    if (zero_case && (f.sanitized || !testing::reduced_for_sanitizer()))
      check_build(family + "(num_classes=0)", [make] { return make(0); }, "");
  }
}

}  // namespace
}  // namespace tl::models
