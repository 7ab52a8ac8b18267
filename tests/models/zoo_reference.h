// tests/models/zoo_reference.h — the checks every torchvision family's suite runs against
// tests/reference/zoo_classic.json.gz (tests/reference/make_zoo_classic_references.py): print(model),
// state_dict keys and shapes, parameter count, eval logits on seeded weights and calibrated BatchNorm
// statistics, and torch.fx's graph and code.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "nn/module.h"
#include "tests/support/zoo_references.h"

namespace tl::testing {

/// One builder's entry of zoo_classic.json, with its family's odd input size.
struct ZooCase {
  std::string family, builder;
  nlohmann::json data;
  int64_t height = 0, width = 0;
  int64_t num_classes = 0;
  uint64_t seed = 0;
};

/// The entry of `builder` in `family`; fails the test (REQUIRE) if absent.
ZooCase zoo_case(const std::string& family, const std::string& builder);

/// A model built by the generator's rule, with the inputs drawn after it.
struct SeededModel {
  std::shared_ptr<nn::Module> model;
  Tensor x_odd;  ///< (3, 3, H, W)
  Tensor x_224;  ///< (3, 3, 224, 224) when asked for, else undefined
};

/// The generator's rule: manual_seed(c.seed); `build()` (torchvision's draws); calibrate_batch_norms on
/// (2, 3, H, W) in float64, back to float32; eval(); x_odd = randn(3, 3, H, W); with `at_224`, x_224 = randn(3, 3, 224, 224).
SeededModel build_seeded(const ZooCase& c, const std::function<std::shared_ptr<nn::Module>()>& build, bool at_224);

/// CHECKs repr (byte for byte), state_dict keys, order and shapes, and the parameter count.
void check_structure(const nn::Module& model, const ZooCase& c);

/// CHECKs the logits of x[:1] and x for x_odd and (when defined) x_224, each within 1e-4 of the largest
/// |PyTorch logit|.
void check_logits(const SeededModel& m, const ZooCase& c);

/// build_seeded (without 224x224), then check_structure and check_logits: one builder's whole check.
SeededModel check_builder(const ZooCase& c, const std::function<std::shared_ptr<nn::Module>()>& build);

/// CHECKs fx::symbolic_trace(model)'s graph and code against torch.fx's.
void check_trace(const std::shared_ptr<nn::Module>& model, const ZooCase& c);

/// make_zoo_inception_vit_references.py's head_rule: a ViT's heads.head starts at zeros (its logits would be 0), so
/// its weight[i, j] = 0.02 sin(0.37 (i * in + j) + 1) and bias[i] = 0.01 cos(0.5 i), in double.
void apply_vit_head_rule(nn::Module& model);

/// make_zoo_modern_references.py's layer_norm_rule: the k-th LayerNorm (LayerNorm2d included, named_modules order),
/// element c: weight 1 + 0.2 sin(0.5c + 3k), bias 0.1 cos(0.9c + k); the j-th CNBlock's layer_scale, channel c:
/// 0.5 + 0.25 sin(0.3c + j). Without it a ConvNeXt's blocks start scaled by 1e-6 (wrong blocks could still give
/// PyTorch's logits).
void apply_layer_norm_rule(nn::Module& model);

/// CHECKs that load_state_dict(other) throws, naming its first missing key, and changes no tensor of `model`.
void check_refuses_state_dict(nn::Module& model, const nn::StateDict& other, const std::string& first_missing_key);

}  // namespace tl::testing
