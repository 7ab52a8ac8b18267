// tests/support/zoo_references.h — checking a torchvision-zoo model against what
// tests/reference/make_zoo_mobile_references.py wrote for it (print(model), state_dict keys, shapes and
// initial values, eval logits, FX code), with the BatchNorm and input rules that script applies.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "nn/module.h"

namespace tl::testing {

/// True (and says why on stderr, once) unless TL_ZOO_ALL_VARIANTS=1: the variants that draw 70M-140M
/// initial weights each (a minute per family at our normal_ speed) are skipped by default; every family
/// keeps its first builder, at 224x224 and at its odd size.
bool skip_heavy_variants();

/// True (and says why on stderr, once) in the sanitizer build's run (TL_SANITIZED_RUN=1, which tests/meson.build
/// sets with -Db_sanitize): there the sweeps over every family and the large variants, most of this suite's time
/// and 5-10x slower instrumented, keep a few families that between them run each kind of layer; the release run
/// keeps them all.
bool reduced_for_sanitizer();

/// The number of parameter elements, as sum(p.numel() for p in model.parameters()).
int64_t parameter_count(const nn::Module& model);
/// tests/reference/<dir>/<name>_<what>.txt, e.g. zoo_reference("zoo_mobile", "mobilenet_v2", "repr").
std::string zoo_reference(const std::string& dir, const std::string& name, const std::string& what);
/// Sets every BatchNorm2d (the k-th in named_modules order, channel c) as the script's bn_rule:
/// running_mean 0.1 sin(0.7c + k), running_var 1 + 0.25 (1 + cos(0.3c + 2k)), weight 1 + 0.2 sin(0.5c + 3k),
/// bias 0.1 cos(0.9c + k).
void apply_bn_rule(nn::Module& model);
/// (n, 3, size, size): sample s, element j (row-major over C, H, W) is sin(0.05 j + s), as input_rule.
Tensor zoo_input(int64_t n, int64_t size);
/// "" when the state_dict has the reference's keys in order, their shapes, and per tensor the sum and
/// sum of squares PyTorch's freshly seeded model had (1e-6 relative: equal draws); else what differs.
std::string state_dict_mismatch(const nn::Module& model, const std::string& reference);
/// Runs `model` (in eval mode, BN rule applied by the caller) on every case of the logits reference
/// (size, batch) and returns "" when each output is within rtol of the maximum |reference|, else the
/// first case that is not, with its worst difference. `max_size` skips cases larger than it.
std::string logits_mismatch(nn::Module& model, const std::string& reference, double rtol = 1e-4,
                            int64_t max_size = 1 << 30);

/// The whole check of one builder: after manual_seed(0), `make()` has `parameters` parameter elements, its
/// print(model) equals tests/reference/<dir>/<name>_repr.txt, its state_dict <name>_state_dict.txt (keys,
/// shapes, initial values), and, with the BN rule in eval mode, its logits <name>_logits.txt. "" when all
/// hold, else each difference on a line of its own.
std::string zoo_model_mismatch(const std::string& dir, const std::string& name,
                               const std::function<std::shared_ptr<nn::Module>()>& make, int64_t parameters);

/// The `field v v ...` lines of tests/reference/<dir>/<name>_train.txt (a model's training-mode output tuple,
/// make_zoo_inception_vit_references.py), each as an (n, classes) tensor, in file order.
std::vector<std::pair<std::string, Tensor>> output_fields_reference(const std::string& dir, const std::string& name,
                                                                    int64_t n, int64_t classes);
/// Every call_module target of an FX graph's text (`call_module[target=a.b]`), in node order.
std::vector<std::string> module_calls(const std::string& graph_text);

}  // namespace tl::testing
