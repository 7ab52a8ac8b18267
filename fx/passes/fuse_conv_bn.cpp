// fx/passes/fuse_conv_bn.cpp — the seed's fuser: match call_module(BatchNorm2d) on
// call_module(Conv2d), check legality, swap in the folded conv, reroute users, erase the BN node.
// Each folded weight is written once, out of place, into the copy that replaces its conv.
#include "fx/passes/fuse_conv_bn.h"

#include "core/grad_mode.h"
#include "fx/tracer.h"
#include "nn/clone_memo.h"
#include "ops/ops.h"

namespace tl::fx {
namespace {

/// How many call_module nodes call `module` (under any of its names).
size_t call_sites(const GraphModule& gm, const nn::Module* module) {
  size_t sites = 0;
  for (const Node* n : gm.graph().find_nodes(Opcode::CallModule)) sites += gm.get_submodule(n->target()).get() == module;
  return sites;
}

// Why this pair must stay unfused, or "" when folding it is legal.
std::string skip_reason(const GraphModule& gm, const Node* conv_node, const nn::BatchNorm2d& bn, const nn::Conv2d& conv) {
  if (conv_node->num_users() > 1)
    return "the conv output has " + std::to_string(conv_node->num_users()) + " users, not only the batch norm";
  const size_t sites = call_sites(gm, gm.get_submodule(conv_node->target()).get());
  if (sites > 1) return "the conv module is called at " + std::to_string(sites) + " call sites";
  if (!bn.options().track_running_stats || !bn.buffer("running_mean").defined())
    return "the batch norm has no running statistics";
  if (bn.options().num_features != conv.options().out_channels)
    return "the batch norm has " + std::to_string(bn.options().num_features) + " features but the conv " +
           std::to_string(conv.options().out_channels) + " output channels";
  return "";
}

}  // namespace

// PyTorch 1.13's fuse_conv_bn_weights, one rounding per tensor op in the conv's dtype and in its order
// (quantization then sees the same weights to the bit): r = rsqrt(var + eps), w' = w * (gamma * r),
// b' = (b - mean) * r * gamma + beta. The scaled weight is the copy's own: the conv's weight is read once,
// never copied and then rewritten.
std::shared_ptr<nn::Conv2d> fuse_conv_bn_eval(const nn::Conv2d& conv, const nn::BatchNorm2d& bn) {
  TL_CHECK(!conv.is_training() && !bn.is_training(), "fuse_conv_bn_eval: fusion is for inference; call eval() first");
  NoGradGuard no_grad;  // folding makes parameters; it is not part of any graph
  const Tensor& w = conv.parameter("weight");
  const DType dtype = w.dtype();
  const auto in_dtype = [&](const Tensor& t) { return t.to(dtype); };
  TL_CHECK(bn.buffer("running_var").defined() && bn.buffer("running_mean").defined(),
           "fuse_conv_bn_eval: the batch norm has no running statistics");
  const Tensor running_var = in_dtype(bn.buffer("running_var"));
  const Tensor running_mean = in_dtype(bn.buffer("running_mean"));
  const int64_t c = conv.options().out_channels;
  const Tensor gamma = bn.parameter("weight").defined() ? in_dtype(bn.parameter("weight")) : ones({c}, dtype);
  const Tensor beta = bn.parameter("bias").defined() ? in_dtype(bn.parameter("bias")) : zeros({c}, dtype);
  const Tensor& b = conv.parameter("bias");
  const Tensor bias = b.defined() ? in_dtype(b) : zeros({c}, dtype);
  const Tensor var_rsqrt = (running_var + full({c}, bn.options().eps, dtype)).rsqrt();  // eps rounded to dtype first
  nn::CloneMemo memo;
  memo.tensors.emplace_back(w, w * (gamma * var_rsqrt).view({c, 1, 1, 1}));
  auto fused = std::static_pointer_cast<nn::Conv2d>(nn::clone(conv, memo));
  fused->register_parameter("weight", fused->parameter("weight"), w.requires_grad());
  fused->register_parameter("bias", (bias - running_mean) * var_rsqrt * gamma + beta);
  return fused;
}

std::string FuseReport::str() const {
  std::string s = "fused " + std::to_string(fused.size()) + " conv-bn pair" + (fused.size() == 1 ? "" : "s") +
                  ", skipped " + std::to_string(skipped.size());
  for (const Pair& p : skipped) s += "\n  skipped " + p.conv + " -> " + p.bn + ": " + p.reason;
  return s;
}

std::shared_ptr<GraphModule> fuse_conv_bn(const std::shared_ptr<nn::Module>& module, FuseReport* report) {
  TL_CHECK(module != nullptr, "fuse_conv_bn: module is null");
  TL_CHECK(!module->is_training(), "fuse_conv_bn: fusion is for inference, but the ", module->type_name(),
           " is in training mode; call eval() first");
  // The pairs are chosen on a graph sharing the module's submodules; the copy then takes each fused conv
  // from the memo instead of copying the conv and folding afterwards.
  std::shared_ptr<GraphModule> shared = std::dynamic_pointer_cast<GraphModule>(module);
  if (!shared) shared = symbolic_trace(module);
  FuseReport local;
  FuseReport& rep = report ? *report : local;
  rep = {};
  nn::CloneMemo memo;
  std::vector<size_t> folded_bns;  // positions of the BatchNorm nodes folded away
  size_t position = 0;
  for (const Node* n : shared->graph().nodes()) {
    const size_t at = position++;
    auto bn = shared->module_at<nn::BatchNorm2d>(n);
    if (!bn || n->args().empty()) continue;
    const Node* conv_node = n->args()[0].node();
    auto conv = shared->module_at<nn::Conv2d>(conv_node);
    if (!conv) continue;
    TL_CHECK(!conv->is_training() && !bn->is_training(), "fuse_conv_bn: fusion is for inference, but ",
             conv->is_training() ? "conv '" + conv_node->target() + "' (Conv2d)" : "batch norm '" + n->target() + "' (BatchNorm2d)",
             " is in training mode; call eval() first");
    const std::string reason = skip_reason(*shared, conv_node, *bn, *conv);
    if (!reason.empty()) {
      rep.skipped.push_back({conv_node->target(), n->target(), reason});
      continue;
    }
    memo.modules[conv.get()] = fuse_conv_bn_eval(*conv, *bn);  // a conv called at this one site
    folded_bns.push_back(at);
    rep.fused.push_back({conv_node->target(), n->target(), ""});
  }
  auto gm = std::static_pointer_cast<GraphModule>(nn::clone(*shared, memo));
  Graph& g = gm->graph();
  const std::vector<Node*> nodes = g.node_list();  // the copy keeps the nodes' order
  for (size_t at : folded_bns) {
    Node* n = nodes[at];
    n->replace_all_uses_with(n->args()[0].node());
    g.erase_node(n);
  }
  g.lint(gm.get());
  gm->recompile();
  return gm;
}

}  // namespace tl::fx
