// ao/quantization/pattern.cpp — object types of nodes and the chain matcher of match_utils.is_match.
#include "ao/quantization/pattern.h"

#include <unordered_set>

#include "ao/nn/intrinsic.h"
#include "ao/quantization/observer.h"

namespace tl::ao::quantization {

std::string python_class_name(const tl::nn::Module& module) {
  if (dynamic_cast<const ObserverBase*>(&module) != nullptr)
    return "torch.ao.quantization.observer." + module.type_name();
  if (dynamic_cast<const nn::intrinsic::ConvReLU2d*>(&module) != nullptr ||
      dynamic_cast<const nn::intrinsic::LinearReLU*>(&module) != nullptr ||
      dynamic_cast<const nn::intrinsic::BNReLU2d*>(&module) != nullptr)
    return "torch.ao.nn.intrinsic." + module.type_name();
  return "torch.nn." + module.type_name();
}

std::string object_type_of(const fx::GraphModule& gm, const fx::Node& n) {
  switch (n.op()) {
    case fx::Opcode::CallModule: return python_class_name(*gm.get_submodule(n.target()));
    case fx::Opcode::CallFunction:
    case fx::Opcode::CallMethod: return n.target();
    default: return "";
  }
}

bool is_observer_node(const fx::GraphModule& gm, const fx::Node* n) {
  return n->op() == fx::Opcode::CallModule &&
         dynamic_cast<const ObserverBase*>(gm.get_submodule(n->target()).get()) != nullptr;
}

std::optional<PatternMatch> match_at(const fx::GraphModule& gm, fx::Node* n, const BackendPatternConfig& config) {
  PatternMatch match{.config = &config, .nodes = {}};
  for (size_t i = 0; i < config.pattern.size(); ++i) {
    if (i > 0 && n->num_users() > 1) return std::nullopt;
    if (object_type_of(gm, *n) != config.pattern[i]) return std::nullopt;
    match.nodes.push_back(n);
    if (i + 1 == config.pattern.size()) break;
    if (n->args().size() != 1 || !n->args()[0].is_node()) return std::nullopt;
    n = n->args()[0].node();
  }
  return match;
}

std::vector<PatternMatch> find_matches(const fx::GraphModule& gm, const std::vector<const BackendPatternConfig*>& patterns) {
  std::vector<PatternMatch> matches;
  std::unordered_set<const fx::Node*> matched;
  const std::vector<fx::Node*> nodes = gm.graph().node_list();
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
    if (matched.count(*it) != 0) continue;
    for (const BackendPatternConfig* config : patterns) {
      std::optional<PatternMatch> m = match_at(gm, *it, *config);
      if (!m) continue;
      for (fx::Node* node : m->nodes) matched.insert(node);
      matches.push_back(std::move(*m));
      break;
    }
  }
  return matches;
}

}  // namespace tl::ao::quantization
