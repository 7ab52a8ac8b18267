// fx/passes/optimize_for_inference.cpp — the graph rewrite: fold post-ops into convs, swap pools for
// their inference-layout versions, then insert layout conversions wherever a value crosses between a
// node that takes the inference layout and one that takes dense NCHW.
#include "fx/passes/optimize_for_inference.h"

#include "core/adaptive_threads.h"
#include "core/grad_mode.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>

#include "core/op_args.h"
#include "core/op_kind.h"
#include "fx/passes/fuse_conv_bn.h"
#include "fx/passes/inference_linear.h"
#include "fx/passes/inference_modules.h"
#include "fx/traced_shape.h"
#include "fx/tracer.h"
#include "nn/activation.h"
#include "ops/ops.h"

namespace tl::fx {
namespace {

bool single_call_site(const GraphModule& gm, const Node* n) {
  return gm.graph().find_nodes(Opcode::CallModule, n->target()).size() == 1;
}

/// The op a call_function / call_method node runs on tensors `inputs` (an operator with a number on the
/// left runs its reflected op; an `out=` the node leaves to the plan not counted), read off the node's resolved
/// call; nullptr for any other node.
const ResolvedCall* op_call(const Node* n, std::initializer_list<OpKind> ops, size_t inputs) {
  const ResolvedCall* c = n->call_if_resolved();
  if (c == nullptr || !c->op || std::find(ops.begin(), ops.end(), *c->op) == ops.end()) return nullptr;
  const bool planned_out = c->out_input >= 0 && c->inputs[static_cast<size_t>(c->out_input)] == nullptr;
  if (c->inputs.size() != inputs + (planned_out ? 1 : 0)) return nullptr;
  const auto end = c->inputs.begin() + static_cast<std::ptrdiff_t>(inputs);
  return std::all_of(c->inputs.begin(), end, [](const Node* in) { return in != nullptr; }) ? c : nullptr;
}

/// A ReLU module, the relu / relu_ op, or F.relu (a named call, in place or not: the fused conv writes a
/// result of its own either way) of one node.
bool is_relu(GraphModule& gm, const Node* n) {
  if (gm.module_at<nn::ReLU>(n)) return n->args().size() == 1;
  if (n->op() == Opcode::CallFunction && n->target() == "torch.nn.functional.relu")
    return n->args().size() == 1 && n->args()[0].is_node();
  return op_call(n, {OpKind::Relu, OpKind::Relu_}, 1) != nullptr;
}

/// GELU's exact form of one node: a GELU(approximate='none') module or the gelu op (F.gelu).
bool is_gelu(GraphModule& gm, const Node* n) {
  if (auto gelu = gm.module_at<nn::GELU>(n)) return n->args().size() == 1 && gelu->options().approximate == "none";
  const ResolvedCall* c = op_call(n, {OpKind::Gelu}, 1);
  return c && c->args.as<ArgsOf<OpKind::Gelu>>().approximate == "none";
}

/// A Linear module MkldnnLinear takes: exactly a Linear (a subclass may compute something else; torch.fx's pass
/// matches type(module) too), a float32 weight of non-empty sizes, one call site, the input its one argument.
bool foldable_linear(const GraphModule& gm, const Node* n, const nn::Linear& linear) {
  const Tensor& w = linear.parameter("weight");
  return typeid(linear) == typeid(nn::Linear) && single_call_site(gm, n) && n->args().size() == 1 &&
         n->kwargs().empty() && w.dtype() == DType::Float32 && w.numel() > 0;
}

/// A product MkldnnLinear computes: its input, weight and bias, and the module path the MkldnnLinear takes.
struct LinearCall {
  std::string target;
  Node* input;
  Tensor weight, bias;
};

/// Whether the module at `path` of `gm` holds nothing but `weight` and `bias` (as "weight" and "bias", the bias
/// possibly None), with no node calling it: an MkldnnLinear of the two may take its place.
bool holds_only(GraphModule& gm, const std::string& path, const Tensor& weight, const Tensor& bias) {
  const std::shared_ptr<nn::Module> m = gm.get_submodule(path);
  if (!m->named_children().empty() || !m->named_buffers(false).empty() ||
      !gm.graph().find_nodes(Opcode::CallModule, path).empty())
    return false;
  for (const auto& [name, t] : m->named_parameters(false))
    if (!(name == "weight" && t.is_same(weight)) && !(name == "bias" && (t.is_same(bias) || !t.defined()))) return false;
  return m->has_parameter("weight") && (!bias.defined() || m->has_parameter("bias"));
}

/// The module path for an MkldnnLinear of the linear op on the weight at `weight_path`: that path without its
/// "weight" ("attn.in_proj_weight" -> "attn.in_proj", "attn.out_proj.weight" -> "attn.out_proj"), where that path is
/// free or holds_only the weight and bias; "" otherwise.
std::string linear_target(GraphModule& gm, const std::string& weight_path, const Tensor& weight, const Tensor& bias) {
  constexpr std::string_view kWeight = "weight";
  if (!weight_path.ends_with(kWeight)) return "";
  std::string path = weight_path.substr(0, weight_path.size() - kWeight.size());
  while (!path.empty() && (path.back() == '.' || path.back() == '_')) path.pop_back();
  if (path.empty()) return "";
  const size_t dot = path.rfind('.');
  const std::shared_ptr<nn::Module> owner = gm.get_submodule(dot == std::string::npos ? "" : path.substr(0, dot));
  const std::string name = dot == std::string::npos ? path : path.substr(dot + 1);
  if (owner->has_parameter(name) || owner->has_buffer(name)) return "";
  return !owner->has_child(name) || holds_only(gm, path, weight, bias) ? path : "";
}

/// The product MkldnnLinear takes over at `n`: a foldable_linear module's call, or the linear op (torch.linear,
/// F.linear) on a float32 weight of non-empty sizes and a bias (or None) that get_attr nodes fetch, as
/// MultiheadAttention's projections are traced.
std::optional<LinearCall> linear_call(GraphModule& gm, Node* n) {
  if (auto linear = gm.module_at<nn::Linear>(n)) {
    if (!foldable_linear(gm, n, *linear) || !n->args()[0].is_node()) return std::nullopt;
    return LinearCall{n->target(), n->args()[0].node(), linear->parameter("weight"), linear->parameter("bias")};
  }
  const ResolvedCall* c = n->op() == Opcode::CallFunction ? n->call_if_resolved() : nullptr;
  if (c == nullptr || c->op != OpKind::Linear || c->inputs.size() != 3 || c->inputs[0] == nullptr) return std::nullopt;
  const Node *w = c->inputs[1], *b = c->inputs[2];
  if (w == nullptr || w->op() != Opcode::GetAttr || (b != nullptr && b->op() != Opcode::GetAttr)) return std::nullopt;
  const Tensor weight = gm.fetch_attr(w->target()), bias = b ? gm.fetch_attr(b->target()) : Tensor();
  if (weight.dtype() != DType::Float32 || weight.dim() != 2 || weight.numel() == 0) return std::nullopt;
  if (bias.defined() && (bias.dtype() != DType::Float32 || bias.dim() != 1 || bias.size(0) != weight.size(0)))
    return std::nullopt;
  std::string target = linear_target(gm, w->target(), weight, bias);
  if (target.empty()) return std::nullopt;
  return LinearCall{std::move(target), c->inputs[0], weight, bias};
}

/// add(a, b) of two different tensors with alpha 1 (operator.add, torch.add, iadd, add_).
bool is_tensor_add(const Node* n) {
  const ResolvedCall* c = op_call(n, {OpKind::Add, OpKind::Add_}, 2);
  return c && c->inputs[0] != c->inputs[1] && c->args.as<ArgsOf<OpKind::Add>>().alpha.to<double>() == 1.0;
}

/// The position of `in` among `n`'s arguments (its first, when it is passed twice).
size_t arg_position(const Node* n, const Node* in) {
  size_t i = 0;
  while (i < n->args().size() && !(n->args()[i].is_node() && n->args()[i].node() == in)) ++i;
  return i;
}

/// The single user of `n`, or nullptr.
Node* only_user(const Node* n) { return n->num_users() == 1 ? n->users()[0] : nullptr; }

/// The inference version of the module `n` calls when it is of one row's type, else nullptr.
using MakeInferenceModule = std::shared_ptr<InferenceModule> (*)(GraphModule& gm, const Node* n);

/// A row for modules of type `From`, made into their inference version by the stateless `make`.
template <typename From, typename Make>
constexpr MakeInferenceModule row(Make) {
  return [](GraphModule& gm, const Node* n) -> std::shared_ptr<InferenceModule> {
    auto m = gm.module_at<From>(n);
    return m ? Make{}(*m) : nullptr;
  };
}

/// Modules with a version that takes its input in the inference layout (blocked fp32 or NHWC bf16) and
/// gives its result in the same one; swapped in when the input already is in that layout. Adding such
/// a module is one row.
const MakeInferenceModule kLayoutModules[] = {
    row<nn::MaxPool2d>([](const nn::MaxPool2d& m) { return std::make_shared<MkldnnMaxPool2d>(m.options()); }),
    row<nn::AdaptiveAvgPool2d>(
        [](const nn::AdaptiveAvgPool2d& m) { return std::make_shared<MkldnnAdaptiveAvgPool2d>(m.output_size()); }),
};

class Rewriter {
 public:
  Rewriter(GraphModule& gm, DType dtype, const InferenceOptions& options)
      : gm_(gm), g_(gm.graph()), dtype_(dtype), options_(options) {}

  /// Conv2d [-> add] [-> ReLU] into MkldnnConv2d, Linear [-> GELU] into MkldnnLinear, modules of kLayoutModules
  /// after convs into their inference versions.
  void fold() {
    for (Node* n : g_.node_list()) {
      if (n->erased()) continue;
      // A conv whose input is padded first (padding_mode, an odd "same") stays as it is.
      if (auto conv = gm_.module_at<nn::Conv2d>(n); conv && single_call_site(gm_, n) && n->args().size() == 1 &&
                                                   nn::symmetric_zero_padding(conv->options())) {
        fold_conv(n, *conv);
      } else if (auto fuses = gm_.module_at<FusesQuantizedAdd>(n);
                 fuses && options_.fuse_add && single_call_site(gm_, n) && n->args().size() == 1) {
        fold_quantized_add(n, *fuses);
      } else if (const auto linear = options_.inference_linear ? linear_call(gm_, n) : std::nullopt) {
        fold_linear(n, *linear);
      } else if (options_.inference_pools && takes_inference_layout(n)) {
        for (MakeInferenceModule make : kLayoutModules) {
          if (auto m = make(gm_, n)) {
            replace_module(n, std::move(m));
            break;
          }
        }
      }
    }
  }

  /// Inserts to_mkldnn / to_dense where a value crosses layouts.
  void convert_layouts() {
    for (Node* n : g_.node_list()) {
      if (n->erased()) continue;
      auto inference = gm_.module_at<InferenceModule>(n);
      const bool takes_blocked = inference != nullptr && inference->takes_inference_layout();
      for (Node* in : n->all_input_nodes()) {
        const bool is_blocked = channels_.count(in) > 0;
        if (takes_blocked && !is_blocked) {
          const size_t index = arg_position(n, in);
          if (inference->reads_dense(index)) continue;
          n->replace_input_with(in, to_mkldnn(in, inference->input_channels(index)));
        } else if (!takes_blocked && is_blocked) {
          n->replace_input_with(in, to_dense(in));
        }
      }
    }
  }

  /// The input channel count of the conv that reads the placeholder, or -1.
  int64_t input_channels() const {
    for (Node* n : g_.nodes()) {
      if (n->op() != Opcode::Placeholder) continue;
      for (Node* user : n->users()) {
        Node* reader = user->op_kind() == OpKind::ToMkldnn && user->num_users() > 0 ? user->users()[0] : user;
        if (auto inference = gm_.module_at<InferenceModule>(reader)) return inference->input_channels(0);
      }
    }
    return -1;
  }

 private:
  bool takes_inference_layout(const Node* n) const {
    return single_call_site(gm_, n) && n->args().size() == 1 && n->args()[0].is_node() &&
           channels_.count(n->args()[0].node()) > 0;
  }

  void fold_conv(Node* n, const nn::Conv2d& conv) {
    Node* last = n;  // the node whose users the fused conv takes over
    Node* residual = nullptr;
    std::vector<Node*> folded{n};
    Node* user = only_user(n);
    if (user && options_.fuse_relu && is_relu(gm_, user)) {
      last = user;
    } else if (user && options_.fuse_add && is_tensor_add(user)) {
      residual = user->args()[0].node() == n ? user->args()[1].node() : user->args()[0].node();
      last = user;
      if (Node* after = only_user(user); after && options_.fuse_relu && is_relu(gm_, after)) last = after;
    }
    for (Node* f = user; f && last != n; f = f == last ? nullptr : only_user(f)) folded.push_back(f);
    const bool relu = last != n && is_relu(gm_, last);
    gm_.set_submodule(n->target(), std::make_shared<MkldnnConv2d>(conv, residual != nullptr, relu, dtype_, options_.winograd));
    Node* fused = nullptr;
    {
      auto guard = g_.inserting_before(last);
      std::vector<Argument> args{n->args()[0]};
      if (residual) args.emplace_back(residual);
      fused = g_.call_module(n->target(), std::move(args));
    }
    last->replace_all_uses_with(fused);
    for (auto it = folded.rbegin(); it != folded.rend(); ++it) g_.erase_node(*it);
    channels_[fused] = conv.options().out_channels;
  }

  /// The product as one call_module of an MkldnnLinear at call.target, with a GELU that is its only user folded in;
  /// get_attr nodes left without users go.
  void fold_linear(Node* n, const LinearCall& call) {
    Node* user = only_user(n);
    const bool gelu = user != nullptr && is_gelu(gm_, user);
    Node* last = gelu ? user : n;
    gm_.set_submodule(call.target, std::make_shared<MkldnnLinear>(call.weight, call.bias, gelu));
    Node* fused = nullptr;
    {
      auto guard = g_.inserting_before(last);
      fused = g_.call_module(call.target, {call.input});
    }
    last->replace_all_uses_with(fused);
    std::vector<Node*> attrs;
    for (Node* in : n->all_input_nodes())
      if (in->op() == Opcode::GetAttr) attrs.push_back(in);
    if (gelu) g_.erase_node(user);
    g_.erase_node(n);
    for (Node* attr : attrs)
      if (attr->num_users() == 0) g_.erase_node(attr);
  }

  /// A quantized conv's result added to another value by torch.ops.quantized.add(_relu), its only user, with the
  /// qparams as get_attr nodes (as convert_fx writes them): one call_module (x, other) of the fused module.
  void fold_quantized_add(Node* n, const FusesQuantizedAdd& fuses) {
    Node* add = only_user(n);
    const ResolvedCall* c =
        add ? op_call(add, {OpKind::QuantizedAddTensorQparams, OpKind::QuantizedAddReluTensorQparams}, 4) : nullptr;
    if (c == nullptr || c->inputs[0] == c->inputs[1] || c->inputs[2]->op() != Opcode::GetAttr ||
        c->inputs[3]->op() != Opcode::GetAttr)
      return;
    std::shared_ptr<nn::Module> fused_module =
        fuses.with_quantized_add(*c->op == OpKind::QuantizedAddReluTensorQparams,
                                 gm_.fetch_attr(c->inputs[2]->target()).item<double>(),
                                 gm_.fetch_attr(c->inputs[3]->target()).item<int64_t>());
    if (!fused_module) return;
    Node* other = c->inputs[0] == n ? c->inputs[1] : c->inputs[0];
    gm_.set_submodule(n->target(), std::move(fused_module));
    Node* fused = nullptr;
    {
      auto guard = g_.inserting_before(add);
      fused = g_.call_module(n->target(), {n->args()[0], other});
    }
    add->replace_all_uses_with(fused);
    g_.erase_node(add);
    g_.erase_node(n);
  }

  void replace_module(Node* n, std::shared_ptr<nn::Module> module) {
    gm_.set_submodule(n->target(), std::move(module));
    channels_[n] = channels_.at(n->args()[0].node());
  }

  Node* to_mkldnn(Node* in, int64_t channels) {
    if (auto it = mkldnn_of_.find(in); it != mkldnn_of_.end()) return it->second;
    auto guard = g_.inserting_after(in);
    std::vector<Argument> args{in};
    if (dtype_ != DType::Float32) args.emplace_back(dtype_);
    Node* converted = g_.call_function(OpKind::ToMkldnn, std::move(args));
    channels_[converted] = channels;
    return mkldnn_of_[in] = converted;
  }

  Node* to_dense(Node* in) {
    if (auto it = dense_of_.find(in); it != dense_of_.end()) return it->second;
    auto guard = g_.inserting_after(in);
    Node* converted = g_.call_function(OpKind::ToDense, {in, Argument(channels_.at(in))});
    return dense_of_[in] = converted;
  }

  GraphModule& gm_;
  Graph& g_;
  DType dtype_;
  const InferenceOptions& options_;
  std::map<const Node*, int64_t> channels_;  ///< nodes whose value is in the inference layout
  std::map<const Node*, Node*> mkldnn_of_, dense_of_;
};

/// The placeholders' and the output's type annotations of `from`, onto the same nodes of `to`.
void copy_annotations(const Graph& from, Graph& to) {
  const std::vector<Node*> a = from.find_nodes(Opcode::Placeholder), b = to.find_nodes(Opcode::Placeholder);
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) b[i]->set_type_expr(a[i]->type_expr());
  if (from.output_node() && to.output_node()) to.output_node()->set_type_expr(from.output_node()->type_expr());
}

}  // namespace

std::shared_ptr<InferenceGraphModule> optimize_for_inference(const std::shared_ptr<nn::Module>& module,
                                                             const InferenceOptions& options) {
  TL_CHECK(module != nullptr, "optimize_for_inference: module is null");
  TL_CHECK(!module->is_training(), "optimize_for_inference: the ", module->type_name(),
           " is in training mode; call eval() first");
  // The load sampler's first reading: by the first forward the module knows how busy the machine is.
  adaptive_num_threads();
  // Folded and packed weights are inference constants: no autograd history, no gradient.
  NoGradGuard no_grad;
  // A forward reading its input's shape (shufflenet, vit, maxvit) is traced on the example shape, fixed.
  const std::shared_ptr<GraphModule> source = trace_for_shape(module, options.example_input_shape);
  std::shared_ptr<GraphModule> gm = options.fold_conv_bn ? fuse_conv_bn(source) : graph_module_of(source);
  Rewriter rewriter(*gm, options.precision == InferencePrecision::BFloat16 ? DType::BFloat16 : DType::Float32,
                    options);
  if (options.inference_layouts) {
    rewriter.fold();
    rewriter.convert_layouts();
  }
  gm->graph().lint(gm.get());
  gm->recompile();
  // Retracing names every node afresh after its target (layer1_0_conv2, not layer1_0_conv2_1).
  TracedGraph traced = Tracer().trace(*gm);
  copy_annotations(gm->graph(), *traced.graph);
  auto optimized = std::make_shared<InferenceGraphModule>(*gm, std::move(traced.graph), gm->type_name(),
                                                          InferenceInputSpec{rewriter.input_channels()}, traced.constants);
  if (!options.example_input_shape.empty())
    optimized->forward(nn::Inputs(*optimized, TensorList{zeros(options.example_input_shape)}));
  return optimized;
}

}  // namespace tl::fx
