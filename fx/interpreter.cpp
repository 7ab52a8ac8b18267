// fx/interpreter.cpp — the default node semantics and the run loop with last-use freeing.
#include "fx/interpreter.h"

#include "fx/traced_shape.h"

namespace tl::fx {
Interpreter::Interpreter(std::shared_ptr<GraphModule> module) : module_(std::move(module)) {
  TL_CHECK(module_ != nullptr, "Interpreter: module is null");
}

void Interpreter::prepare() {
  module_->graph().lint(module_.get());
  last_uses_ = module_->graph().last_uses();
  modules_.clear();
  for (Node* n : module_->graph().nodes())
    if (n->op() == Opcode::CallModule) modules_.emplace(n, module_->get_submodule(n->target()));
}

Tensor Interpreter::run(const Tensor& input) {
  TensorList out = run(TensorList{input});
  TL_CHECK(out.size() == 1, "Interpreter::run: the graph returns ", out.size(), " tensors, not one");
  return out[0];
}

TensorList Interpreter::run(const TensorList& inputs) {
  const Graph& g = module_->graph();
  prepare();
  env_.clear();
  inputs_ = &inputs;
  next_input_ = 0;
  TensorList result;
  for (Node* n : g.nodes()) {
    NodeValue v;
    try {
      v = run_node(*n);
    } catch (const Error& e) {
      env_.clear();
      throw with_node_context(*n, e);
    }
    if (n->op() == Opcode::Output) result = v.tensors();
    else env_[n] = std::move(v);
    if (auto it = last_uses_.find(n); it != last_uses_.end())
      for (const Node* dead : it->second) env_.erase(dead);
  }
  TL_CHECK(next_input_ == inputs.size(), "Interpreter::run: got ", inputs.size(), " inputs but the graph has ",
           next_input_, " placeholders");
  env_.clear();
  return result;
}

NodeValue Interpreter::run_node(Node& n) {
  switch (n.op()) {
    case Opcode::Placeholder: return placeholder(n);
    case Opcode::GetAttr: return get_attr(n);
    case Opcode::CallFunction: return call_function(n);
    case Opcode::CallModule: return call_module(n);
    case Opcode::CallMethod: return call_method(n);
    case Opcode::Output: return output(n);
  }
  TL_INTERNAL_ASSERT(false, "unknown opcode");
  return {};
}

NodeValue Interpreter::placeholder(Node& n) {
  TL_CHECK(inputs_ && next_input_ < inputs_->size(), "Interpreter::run: missing input for placeholder '",
           n.target(), "' (got ", inputs_ ? inputs_->size() : 0, " inputs)");
  check_traced_shape(n, (*inputs_)[next_input_], "Interpreter::run");
  return (*inputs_)[next_input_++];
}

NodeValue Interpreter::get_attr(Node& n) { return module_->fetch_attr(n.target()); }

NodeValue Interpreter::call_function(Node& n) {
  const ResolvedCall& c = n.call();
  if (c.named) return call_result(call_named(n, c, fetch_inputs(n)));
  if (!c.op) {  // operator.getitem
    TensorList key_tensors;
    for (size_t i = 1; i < c.inputs.size(); ++i) key_tensors.push_back(env(c.inputs[i]).tensor("getitem"));
    return getitem(env(c.inputs.at(0)), c.key, key_tensors);
  }
  return call_result(dispatch::call(c.args, fetch_inputs(n), c.style));
}

NodeValue Interpreter::call_method(Node& n) { return call_function(n); }

NodeValue Interpreter::call_module(Node& n) {
  auto it = modules_.find(&n);
  const std::shared_ptr<nn::Module> m = it != modules_.end() ? it->second : module_->get_submodule(n.target());
  return call_result((*m)(fetch_inputs(n)));
}

NodeValue Interpreter::output(Node& n) {
  // One returned node is returned as its value, as FX's output() returns args[0] (ShapeProp records it).
  if (Node* single = n.args().size() == 1 ? n.args()[0].node() : nullptr) return env(single);
  std::vector<const NodeValue*> results;
  for (Node* in : n.call().inputs) results.push_back(in == nullptr ? nullptr : &env(in));
  return flatten_results(results);
}

const NodeValue& Interpreter::env(const Node* n) const {
  auto it = env_.find(n);
  TL_INTERNAL_ASSERT(it != env_.end(), "value of '", n->name(), "' is not available");
  return it->second;
}

TensorList Interpreter::fetch_inputs(const Node& n) const {
  TensorList out;
  for (Node* in : n.call().inputs) out.push_back(in == nullptr ? Tensor() : env(in).tensor(in->name().c_str()));
  return out;
}

OpArguments Interpreter::fetch_op_arguments(const Node& n) const {
  return from_fx_args(call_op(n), n.args(), n.kwargs(), [&](Node* in) { return env(in).tensor(in->name().c_str()); },
                      call_style(n));
}

TensorList Interpreter::fetch_tensor_args(const Node& n) const { return fetch_inputs(n); }

}  // namespace tl::fx
