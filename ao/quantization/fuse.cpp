// ao/quantization/fuse.cpp — fuse_fx: find the fusion chains, build each fused module, then rewrite the graph
// (the root node takes the chain's users; the chain's other nodes are erased).
#include "ao/quantization/fuse.h"

#include "ao/nn/intrinsic.h"
#include "ao/quantization/pattern.h"
#include "fx/passes/fuse_conv_bn.h"
#include "fx/tracer.h"

namespace tl::ao::quantization {
namespace {

using tl::nn::Module;

// The module a chain node calls, or for a functional relu a new ReLU(), as DefaultFuseHandler's get_modules.
std::shared_ptr<Module> module_of(const fx::GraphModule& gm, const fx::Node* n) {
  if (n->op() == fx::Opcode::CallModule) return gm.get_submodule(n->target());
  return std::make_shared<tl::nn::ReLU>();
}

template <class M>
std::shared_ptr<M> as(const std::shared_ptr<Module>& m) {
  auto typed = std::dynamic_pointer_cast<M>(m);
  TL_INTERNAL_ASSERT(typed != nullptr, "fuse_fx: a pattern matched a module of type ", m->type_name());
  return typed;
}

std::shared_ptr<tl::nn::Conv2d> folded(const fx::GraphModule& gm, const fx::Node* conv, const fx::Node* bn) {
  const auto c = as<tl::nn::Conv2d>(module_of(gm, conv));
  const auto b = as<tl::nn::BatchNorm2d>(module_of(gm, bn));
  TL_CHECK(!c->is_training() && !b->is_training(), "fuse_fx: Fusion only for eval! (", conv->target(), " and ",
           bn->target(), " are in training mode; call model.eval() before post-training quantization)");
  return fx::fuse_conv_bn_eval(*c, *b);
}

// The fuser method of `m`'s pattern (fuser_method_mappings.py), applied to its modules.
std::shared_ptr<Module> fused_module(const fx::GraphModule& gm, const PatternMatch& m) {
  const std::string& fused = m.config->fused_module;
  const std::vector<fx::Node*>& n = m.nodes;  // the last op first
  if (fused == "torch.nn.Conv2d") return folded(gm, n[1], n[0]);
  if (fused == "torch.ao.nn.intrinsic.ConvReLU2d") {
    auto conv = n.size() == 3 ? folded(gm, n[2], n[1]) : as<tl::nn::Conv2d>(module_of(gm, n[1]));
    return std::make_shared<nn::intrinsic::ConvReLU2d>(conv, as<tl::nn::ReLU>(module_of(gm, n[0])));
  }
  if (fused == "torch.ao.nn.intrinsic.LinearReLU")
    return std::make_shared<nn::intrinsic::LinearReLU>(as<tl::nn::Linear>(module_of(gm, n[1])),
                                                       as<tl::nn::ReLU>(module_of(gm, n[0])));
  TL_INTERNAL_ASSERT(fused == "torch.ao.nn.intrinsic.BNReLU2d", "fuse_fx: no fuser method for ", fused);
  return std::make_shared<nn::intrinsic::BNReLU2d>(as<tl::nn::BatchNorm2d>(module_of(gm, n[1])),
                                                   as<tl::nn::ReLU>(module_of(gm, n[0])));
}

// Whether a fuser method exists here for `config` (PyTorch's 1d / 3d fusions and transposed convs are not yet).
bool fusable(const BackendPatternConfig& config) {
  const std::string& f = config.fused_module;
  if (f == "torch.nn.Conv2d" || f == "torch.ao.nn.intrinsic.ConvReLU2d")
    return config.pattern.back() == "torch.nn.Conv2d";
  return f == "torch.ao.nn.intrinsic.LinearReLU" || f == "torch.ao.nn.intrinsic.BNReLU2d";
}

}  // namespace

std::shared_ptr<fx::GraphModule> fuse_fx(const std::shared_ptr<tl::nn::Module>& model,
                                         const BackendConfig& backend_config) {
  std::shared_ptr<fx::GraphModule> gm = fx::graph_module_of(model);
  std::vector<const BackendPatternConfig*> patterns;
  for (const BackendPatternConfig* c : sorted_patterns(backend_config)) {
    if (!c->fused_module.empty() && fusable(*c)) patterns.push_back(c);
  }
  const std::vector<PatternMatch> matches = find_matches(*gm, patterns);
  // Every fused module is built before the graph changes, so a refused fusion leaves nothing half done.
  std::vector<std::shared_ptr<Module>> fused;
  for (const PatternMatch& m : matches) fused.push_back(fused_module(*gm, m));
  fx::Graph& graph = gm->graph();
  for (size_t i = 0; i < matches.size(); ++i) {
    const PatternMatch& m = matches[i];
    gm->set_submodule(m.root()->target(), fused[i]);
    m.last()->replace_all_uses_with(m.root());
    for (size_t k = 0; k + 1 < m.nodes.size(); ++k) graph.erase_node(m.nodes[k]);
  }
  // A new GraphModule holds only the modules the fused graph calls, as PyTorch's GraphModule(model, graph).
  return std::make_shared<fx::GraphModule>(*gm, graph.copy());
}

}  // namespace tl::ao::quantization
