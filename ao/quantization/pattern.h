// ao/quantization/pattern.h — what quantization asks of an FX node: the object type it calls (named as a PyTorch
// script names it) and which BackendConfig chain ends at it, as torch.ao.quantization.fx.match_utils.is_match
// decides: by module type, not by target, which is why fx's SubgraphMatcher (targets) does not serve here.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ao/quantization/backend_config.h"
#include "fx/graph_module.h"

namespace tl::ao::quantization {

/// PyTorch's qualified name of a module's class: "torch.nn.Conv2d", "torch.ao.nn.intrinsic.ConvReLU2d",
/// "torch.ao.quantization.observer.HistogramObserver".
std::string python_class_name(const tl::nn::Module& module);

/// The object type `n` calls: its module's python_class_name for call_module, the target for
/// call_function ("operator.add", "torch.flatten") and call_method ("reshape"); "" for other opcodes.
std::string object_type_of(const fx::GraphModule& gm, const fx::Node& n);

/// Whether `n` calls an observer module (an activation_post_process node).
bool is_observer_node(const fx::GraphModule& gm, const fx::Node* n);

/// One chain found: `nodes` in the pattern's order (the last op first, the root last).
struct PatternMatch {
  const BackendPatternConfig* config = nullptr;
  std::vector<fx::Node*> nodes;
  fx::Node* last() const { return nodes.front(); }
  fx::Node* root() const { return nodes.back(); }
};

/// Whether the chain `config` ends at `n`: each op of the pattern is the object type of its node, a node
/// before the last has exactly one argument (the next node, which has no other user).
std::optional<PatternMatch> match_at(const fx::GraphModule& gm, fx::Node* n, const BackendPatternConfig& config);

/// find_matches: nodes visited from the graph's end, each node not yet in a match tried against `patterns`
/// in order; the first chain that matches claims all its nodes. Indexed by node.
std::vector<PatternMatch> find_matches(const fx::GraphModule& gm, const std::vector<const BackendPatternConfig*>& patterns);

}  // namespace tl::ao::quantization
