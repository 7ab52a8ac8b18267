// fx/tracer.cpp — the tracing session: a dispatch hook that records ops on proxies and a module
// hook that records leaf-module calls, both installed only on the tracing thread.
#include "fx/tracer.h"

#include <algorithm>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "core/named_call.h"
#include "core/op_args.h"
#include "fx/getitem.h"
#include "fx/schema.h"
#include "fx/traced_shape.h"
#include "fx/wrap.h"
#include "nn/module_hook.h"

namespace tl::fx {
namespace {

// fx::KeywordArguments' names for the next op recorded on this thread; null when none.
thread_local const std::vector<std::string>* t_keywords = nullptr;

// Records the shape and dtype of `real` (a traced example's value) on `n`.
void record_meta(Node* n, const Tensor& real) {
  if (real.defined()) n->meta()["tensor_meta"] = TensorMeta{real.shape(), real.dtype()};
}

// A traced value: a node, or an element of a multi-output node whose operator.getitem is made only when
// the element is first used, as Python's `x.max(1)[0]` makes one getitem and none for the unused index.
class ProxyNode : public ProxyTag {
 public:
  ProxyNode(Node* node, std::string context, Tensor real)
      : node_(node), context_(std::move(context)), real_(std::move(real)) {}
  ProxyNode(Node* tuple, int64_t index, std::string context, Tensor real)
      : tuple_(tuple), index_(index), context_(std::move(context)), real_(std::move(real)) {}
  /// The node this value is; an element's getitem is made now (at the graph's insertion point) if not yet.
  Node* node() {
    if (node_ == nullptr) {
      node_ = tuple_->graph().getitem(tuple_, index_);
      record_meta(node_, real_);
    }
    return node_;
  }
  /// The example's value (tracing with example inputs), else undefined.
  const Tensor& real() const { return real_; }
  /// Makes the proxy stand for `node`: Python rebinds `x` in `x += y`, which FX records as `x + y`.
  void rebind(Node* node) { node_ = node; }
  std::string describe() const override {
    const std::string value = node_ ? "%" + node_->name() : "element " + std::to_string(index_) + " of %" + tuple_->name();
    return "symbolic tracing: " + value + " is a traced value (a Proxy) in " + context_ +
           "; tracing records operations without running them, so reading its data (data(), item(), printing) "
           "or branching on it is not possible — trace with example inputs, or mark the module as a leaf";
  }

 private:
  Node* node_ = nullptr;
  Node* tuple_ = nullptr;  // with index_: the element this proxy is, until node_ is made
  int64_t index_ = 0;
  std::string context_;
  Tensor real_;
};

ProxyNode* proxy_of(const Tensor& t) { return t.defined() ? dynamic_cast<ProxyNode*>(t.proxy()) : nullptr; }

Node* node_of(const Tensor& t) {
  ProxyNode* p = proxy_of(t);
  return p ? p->node() : nullptr;
}

bool any_proxy(std::span<const Tensor> ts) {
  return std::any_of(ts.begin(), ts.end(), [](const Tensor& t) { return proxy_of(t) != nullptr; });
}

class TraceSession : public DispatchHook, public nn::ModuleHook {
 public:
  TraceSession(const Tracer& tracer, nn::Module& root, Graph& graph, bool with_examples)
      : tracer_(tracer), root_(root), graph_(graph), with_examples_(with_examples) {
    for (const auto& [path, m] : root.named_modules()) paths_.emplace(m.get(), path);
    for (const auto& [name, t] : root.named_parameters()) attributes_.emplace_back(t, name);
    for (const auto& [name, t] : root.named_buffers()) attributes_.emplace_back(t, name);
    context_.push_back(root.type_name() + ".forward");
  }

  std::vector<std::pair<std::string, Tensor>> constants;

  // Both hook interfaces name their callbacks before/after; the op-level ones keep their defaults.
  using DispatchHook::after;
  using DispatchHook::before;

  /// The traced value of `n`; `real` is its example value (or undefined).
  Tensor proxy(Node* n, const Tensor& real) {
    record_meta(n, real);
    return make_proxy(std::make_shared<ProxyNode>(n, context_.back(), real));
  }

  /// The traced value of `t`'s get_attr node when `t` is a parameter of the traced module (made at the first
  /// read, shared by later ones), else `t`: fx::getattr.
  Tensor parameter_proxy(const Tensor& t) {
    if (!t.defined() || !t.is_parameter() || proxy_of(t) != nullptr) return t;
    for (const auto& [known, name] : attributes_) {
      if (!known.is_same(t)) continue;
      auto [it, inserted] = parameter_proxies_.try_emplace(name);
      if (inserted) it->second = proxy(get_attr(name, t), with_examples_ ? t : Tensor());
      return it->second;
    }
    return t;
  }

  /// Whether `t` is a parameter or buffer of the traced module (or a constant of the trace).
  bool is_attribute(const Tensor& t) const {
    return t.defined() && std::any_of(attributes_.begin(), attributes_.end(), [&](const auto& a) { return a.first.is_same(t); });
  }

  /// A tensor as an FX argument: its node, a get_attr of the parameter/buffer/constant, or None.
  Argument argument(const Tensor& t) {
    if (!t.defined()) return Argument();
    if (Node* n = node_of(t)) return Argument(n);
    for (const auto& [known, name] : attributes_)
      if (known.is_same(t)) return Argument(get_attr(name, t));
    const std::string name = "_tensor_constant" + std::to_string(constants.size());
    constants.emplace_back(name, t);
    attributes_.emplace_back(t, name);
    return Argument(get_attr(name, t));
  }

  bool intercept(const OpCall& call, TensorList& outputs) override {
    if (!any_proxy(call.inputs)) return false;  // nothing traced flows in: compute it now
    // A graph cannot hold a torch.Generator: torch.fx's create_arg raises NotImplementedError for one.
    const auto generator = op_info(call.op).generator;
    TL_CHECK(generator == nullptr || generator(call.args) == nullptr, "symbolic tracing: ", op_info(call.op).aten_name,
             " in ", context_.back(), " was given generator=, an argument of type: <class 'torch._C.Generator'>, which "
             "a graph cannot hold (torch.fx raises NotImplementedError); draw from the default generator, or mark the "
             "module as a leaf");
    if (const std::optional<OpKind> plain = out_of_place_operator(call)) {
      // torch.fx's Proxy has no in-place operators, so Python runs `x += y` as `x = x + y`: FX records
      // operator.add, and x stands for its result from then on.
      TensorList result;
      intercept(OpCall{*plain, CallStyle::Operator, call.inputs, call.args}, result);
      proxy_of(call.inputs[0])->rebind(node_of(result[0]));
      outputs = {call.inputs[0]};
      return true;
    }
    std::vector<Argument> inputs;
    for (const Tensor& t : call.inputs) inputs.push_back(argument(t));
    std::vector<Argument> args;
    Kwargs kwargs;
    static const std::vector<std::string> kNoKeywords;
    const std::vector<std::string>& keywords = t_keywords != nullptr ? *t_keywords : kNoKeywords;
    t_keywords = nullptr;  // for this op only
    to_fx_args(call.op, inputs, call.attrs(), args, kwargs, call.style, keywords);
    Node* n = call.style == CallStyle::Method ? graph_.call_method(call.op, args, kwargs)
                                              : graph_.call_function(call.op, args, kwargs, call.style);
    TensorList real;
    if (with_examples_) real = op_info(call.op).run(real_inputs(call.inputs), call.args);
    const size_t count = with_examples_ ? real.size() : expected_outputs(call);
    real.resize(count);
    if (count == 1) {
      outputs = {proxy(n, real[0])};
      rebind_written(call, n);
      return true;
    }
    for (size_t i = 0; i < count; ++i)
      outputs.push_back(make_proxy(std::make_shared<ProxyNode>(n, static_cast<int64_t>(i), context_.back(), real[i])));
    return true;
  }

  /// A traced tensor the op writes (relu_'s self, an out= argument) stands for the op's node from then on, as
  /// the C++ value does after the write: later reads depend on the write, so no pass drops it or hands the op
  /// a copy (a layout change) whose update nobody reads.
  void rebind_written(const OpCall& call, Node* n) {
    for (size_t i : schema_of(call.op).written_inputs(call.inputs.size()))
      if (ProxyNode* p = proxy_of(call.inputs[i])) p->rebind(n);
  }

  /// A named call (core/named_call.h) with a traced tensor among its arguments: one call_function node whose
  /// target is its qualified name, its arguments as the caller wrote them; x[key] is operator.getitem's node.
  bool intercept_call(const NamedCall& call, TensorList& outputs) override {
    bool traced = false;
    const auto is_traced = [&](const ScopeArg& a) {
      if (const Tensor* t = std::get_if<Tensor>(&a)) traced = traced || proxy_of(*t) != nullptr;
      if (const auto* key = std::get_if<std::vector<indexing::TensorIndex>>(&a))
        for (const indexing::TensorIndex& i : *key)
          traced = traced || (i.kind() == indexing::TensorIndex::Kind::Tensor && i.tensor().is_proxy());
    };
    for (const ScopeArg& a : call.args) is_traced(a);
    for (const KeywordArg& k : call.kwargs) is_traced(k.value);
    if (!traced) return false;  // nothing traced flows in: compute it now
    const auto tensor_argument = [&](const Tensor& t) { return argument(t); };
    std::vector<Argument> args;
    for (const ScopeArg& a : call.args) args.push_back(named_call_argument(a, tensor_argument));
    Kwargs kwargs;
    for (const KeywordArg& k : call.kwargs) kwargs.emplace_back(k.name, named_call_argument(k.value, tensor_argument));
    const bool getitem = call.target == "operator.getitem" && args.size() == 2 && kwargs.empty();
    Node* n = getitem ? graph_.getitem(args[0].node(), args[1])
                      : graph_.create_node(Opcode::CallFunction, std::string(call.target), std::move(args), std::move(kwargs));
    Tensor real;
    if (with_examples_) {
      std::vector<ScopeArg> real_args(call.args.begin(), call.args.end());
      std::vector<KeywordArg> real_kwargs(call.kwargs.begin(), call.kwargs.end());
      for (ScopeArg& a : real_args) to_real(a);
      for (KeywordArg& k : real_kwargs) to_real(k.value);
      real = run_named_call(NamedCall{call.target, real_args, real_kwargs}).at(0);
    }
    outputs = {proxy(n, real)};
    rebind_inplace(call, n);
    return true;
  }

  /// A torch.nn.functional call with inplace=True (F.relu(x, inplace=True)) writes its first argument, which
  /// stands for the call's node from then on, as rebind_written does for an op's written tensor.
  void rebind_inplace(const NamedCall& call, Node* n) {
    const auto inplace = std::find_if(call.kwargs.begin(), call.kwargs.end(), [](const KeywordArg& k) {
      const AttrValue* v = std::get_if<AttrValue>(&k.value);
      return k.name == "inplace" && v != nullptr && std::holds_alternative<bool>(*v) && std::get<bool>(*v);
    });
    if (inplace == call.kwargs.end() || call.args.empty()) return;
    if (const Tensor* t = std::get_if<Tensor>(&call.args.front()))
      if (ProxyNode* p = proxy_of(*t)) p->rebind(n);
  }

  void before(nn::Module& m, const TensorList&) override {
    auto it = paths_.find(&m);
    const std::string where = it == paths_.end() || it->second.empty() ? "" : " (module '" + it->second + "')";
    context_.push_back(m.type_name() + ".forward" + where);
    record_scopes();
    scopes_.push_back(it == paths_.end() ? scopes_.back() : it->second);
  }

  void after(nn::Module&, const TensorList*) override {
    context_.pop_back();
    record_scopes();
    scopes_.pop_back();
  }

  /// Records kModuleScope on the nodes made since the last call: they were made in the innermost module call.
  void record_scopes() {
    Node* n = scoped_ != nullptr ? scoped_->next() : (graph_.size() > 0 ? *graph_.nodes().begin() : nullptr);
    for (; n != nullptr; n = n->next()) {
      n->meta()[kModuleScope] = scopes_.back();
      scoped_ = n;
    }
  }

  bool intercept(nn::Module& m, const TensorList& inputs, TensorList& outputs) override {
    // torch.fx records a leaf call on the traced module's own tensors too (swin v2's cpb_mlp on a buffer), their
    // get_attr nodes as arguments; a call on nothing traced or held computes now.
    if (!any_proxy(inputs) && std::none_of(inputs.begin(), inputs.end(), [&](const Tensor& t) { return is_attribute(t); }))
      return false;
    auto it = paths_.find(&m);
    TL_CHECK(it != paths_.end(), "symbolic_trace: a ", m.type_name(), " module called in ", context_.at(context_.size() - 2),
             " is not a submodule of the traced ", root_.type_name(), " (register it with register_module)");
    if (!tracer_.is_leaf_module(m, it->second)) return false;
    std::vector<Argument> args;
    for (const Tensor& t : inputs) args.push_back(argument(t));
    Node* n = graph_.call_module(it->second, std::move(args));
    TensorList real;
    if (with_examples_) real = m.forward(nn::Inputs(m, real_inputs(inputs)));
    TL_CHECK(!with_examples_ || real.size() == 1, "symbolic_trace: leaf module '", it->second, "' returned ",
             real.size(), " tensors; leaf modules must return one");
    outputs = {proxy(n, with_examples_ ? real[0] : Tensor())};
    return true;
  }

 private:
  Node* get_attr(const std::string& name, const Tensor& t) {
    Node* n = graph_.get_attr(name);
    if (with_examples_) record_meta(n, t);
    return n;
  }

  static TensorList real_inputs(std::span<const Tensor> inputs) {
    TensorList out;
    for (const Tensor& t : inputs) {
      const ProxyNode* p = proxy_of(t);
      out.push_back(p ? p->real() : t);
    }
    return out;
  }

  // A named call's argument with each traced tensor replaced by its example value.
  static void to_real(ScopeArg& a) {
    if (Tensor* t = std::get_if<Tensor>(&a)) {
      if (const ProxyNode* p = proxy_of(*t)) *t = p->real();
    } else if (auto* key = std::get_if<std::vector<indexing::TensorIndex>>(&a)) {
      for (indexing::TensorIndex& i : *key)
        if (i.kind() == indexing::TensorIndex::Kind::Tensor)
          if (const ProxyNode* p = dynamic_cast<const ProxyNode*>(i.tensor().proxy())) i = indexing::TensorIndex(p->real());
    }
  }

  static Tensor make_proxy(std::shared_ptr<ProxyNode> tag) {
    const Tensor& real = tag->real();
    if (real.defined()) return Tensor::make_proxy(std::move(tag), real.shape(), real.dtype(), real.strides());
    return Tensor::make_proxy(std::move(tag));
  }

  // The out-of-place op of an in-place Python operator (`x += y`: add) applied to a proxy.
  static std::optional<OpKind> out_of_place_operator(const OpCall& call) {
    const std::string_view py_operator = op_info(call.op).py_operator;
    if (call.style != CallStyle::Operator || !py_operator.starts_with('i') || !proxy_of(call.inputs[0]))
      return std::nullopt;
    const std::string_view name = op_name(call.op);
    return op_by_name(std::string(name.substr(0, name.size() - 1)));
  }

  static size_t expected_outputs(const OpCall& call) {
    switch (call.op) {
      case OpKind::Max: return static_cast<const ArgsOf<OpKind::Max>*>(call.args)->dim ? 2 : 1;
      case OpKind::Min: return static_cast<const ArgsOf<OpKind::Min>*>(call.args)->dim ? 2 : 1;
      case OpKind::Nonzero:
        TL_CHECK(!static_cast<const ArgsOf<OpKind::Nonzero>*>(call.args)->as_tuple,
                 "symbolic_trace: nonzero(as_tuple=True) returns one tensor per "
                 "dimension, which is unknown without example inputs; trace with example inputs");
        return 1;
      default: return 1;
    }
  }

  const Tracer& tracer_;
  nn::Module& root_;
  Graph& graph_;
  bool with_examples_;
  std::unordered_map<const nn::Module*, std::string> paths_;
  std::vector<std::pair<Tensor, std::string>> attributes_;
  std::unordered_map<std::string, Tensor> parameter_proxies_;  ///< fx::getattr's, by target
  std::vector<std::string> context_;
  std::vector<std::string> scopes_{""};  ///< the module calls being traced, innermost last ("" the root)
  Node* scoped_ = nullptr;               ///< the last node record_scopes reached
};

// The session tracing on this thread, for fx::getattr; null when none.
thread_local TraceSession* t_session = nullptr;

// Makes `session` this thread's tracing session for its lifetime, restoring the one before.
class SessionGuard {
 public:
  explicit SessionGuard(TraceSession* session) : previous_(t_session) { t_session = session; }
  ~SessionGuard() { t_session = previous_; }
  SessionGuard(const SessionGuard&) = delete;
  SessionGuard& operator=(const SessionGuard&) = delete;

 private:
  TraceSession* previous_;
};

}  // namespace

bool Tracer::is_leaf_module(const nn::Module& m, const std::string&) const { return m.is_leaf(); }

TracedGraph Tracer::trace(nn::Module& root, const std::optional<TensorList>& example_inputs) {
  auto graph = std::make_unique<Graph>();
  TraceSession session(*this, root, *graph, example_inputs.has_value());
  const nn::ForwardSignature sig = root.forward_signature();
  if (example_inputs)
    TL_CHECK(example_inputs->size() == sig.arg_names.size(), "symbolic_trace: ", root.type_name(), ".forward takes ",
             sig.arg_names.size(), " input(s), got ", example_inputs->size(), " example input(s)");
  // Retracing a GraphModule keeps its placeholders' fixed shapes: the graph still computes only for them.
  const auto* traced_root = dynamic_cast<const GraphModule*>(&root);
  const std::vector<Node*> root_placeholders =
      traced_root ? traced_root->graph().find_nodes(Opcode::Placeholder) : std::vector<Node*>{};
  TensorList proxies;
  for (size_t i = 0; i < sig.arg_names.size(); ++i) {
    Node* p = graph->placeholder(sig.arg_names[i], i < sig.arg_types.size() ? sig.arg_types[i] : "");
    if (i < root_placeholders.size())
      if (auto it = root_placeholders[i]->meta().find(kTracedShape); it != root_placeholders[i]->meta().end())
        p->meta()[kTracedShape] = it->second;
    proxies.push_back(session.proxy(p, example_inputs ? (*example_inputs)[i] : Tensor()));
  }
  TensorList results;
  {
    dispatch::HookGuard op_guard(&session);
    nn::ModuleHookGuard module_guard(&session);
    SessionGuard session_guard(&session);
    results = root.forward(nn::Inputs(root, proxies));
  }
  std::vector<Argument> outs;
  for (const Tensor& t : results) outs.push_back(session.argument(t));
  graph->output(outs.size() == 1 ? outs[0] : Argument::list(std::move(outs), /*is_tuple=*/true), sig.return_type);
  session.record_scopes();
  return {std::move(graph), std::move(session.constants)};
}

Tensor getattr(const Tensor& t) { return t_session != nullptr ? t_session->parameter_proxy(t) : t; }

KeywordArguments::KeywordArguments(std::vector<std::string> names) : names_(std::move(names)), previous_(t_keywords) {
  t_keywords = &names_;
}
KeywordArguments::~KeywordArguments() { t_keywords = previous_; }

std::shared_ptr<GraphModule> symbolic_trace(const std::shared_ptr<nn::Module>& root) {
  TL_CHECK(root != nullptr, "symbolic_trace: module is null");
  TracedGraph traced = Tracer().trace(*root);
  return std::make_shared<GraphModule>(*root, std::move(traced.graph), root->type_name(), traced.constants);
}

std::shared_ptr<GraphModule> symbolic_trace(const std::shared_ptr<nn::Module>& root, const TensorList& example_inputs) {
  TL_CHECK(root != nullptr, "symbolic_trace: module is null");
  TracedGraph traced = Tracer().trace(*root, example_inputs);
  return std::make_shared<GraphModule>(*root, std::move(traced.graph), root->type_name(), traced.constants);
}

std::shared_ptr<GraphModule> graph_module_of(const std::shared_ptr<nn::Module>& module) {
  std::shared_ptr<GraphModule> gm = std::dynamic_pointer_cast<GraphModule>(module);
  return std::static_pointer_cast<GraphModule>((gm ? gm : symbolic_trace(module))->clone());
}

}  // namespace tl::fx
