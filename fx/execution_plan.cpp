// fx/execution_plan.cpp — compiling a graph into steps, and the one loop that runs them.
#include "fx/execution_plan.h"

#include <unordered_map>

#include "fx/graph_module.h"
#include "fx/traced_shape.h"

namespace tl::fx {
namespace {

PlanStep compile_step(const GraphModule& gm, Node* n, const std::unordered_map<const Node*, int64_t>& slot_of) {
  PlanStep s;
  s.node = n;
  s.op = n->op();
  s.call = &n->call();
  if (n->op() == Opcode::CallModule)
    TL_CHECK(gm.get_submodule(n->target()).get() != &gm, "GraphModule: call_module '", n->name(),
             "' would call the GraphModule itself");
  for (Node* in : s.call->inputs) s.inputs.push_back(in ? slot_of.at(in) : -1);
  return s;
}

}  // namespace

NodeValue StepHooks::call_module(size_t, nn::Module& module, const TensorList& args, const Tensor&) {
  return call_result(module(args));
}

ExecutionPlan::ExecutionPlan(const GraphModule& gm) {
  gm.graph().lint(&gm);  // first: copy() asserts what lint reports as user errors (order, ownership)
  graph_ = gm.graph().copy();
  const Graph& graph = *graph_;
  std::unordered_map<const Node*, int64_t> slot_of;
  signature_.arg_names.clear();  // the default signature names one input, "x"
  for (Node* n : graph.nodes()) {
    PlanStep s = compile_step(gm, n, slot_of);
    if (n->op() == Opcode::Placeholder) {
      s.index = static_cast<int64_t>(placeholders_++);
      signature_.arg_names.push_back(n->target());
      signature_.arg_types.push_back(n->type_expr());
    }
    if (n->op() == Opcode::Output) signature_.return_type = n->type_expr();
    slot_of[n] = static_cast<int64_t>(steps_.size());
    steps_.push_back(std::move(s));
  }
  // Free each value right after its last use.
  for (const auto& [user, dead] : graph.last_uses())
    for (const Node* d : dead) steps_[static_cast<size_t>(slot_of.at(user))].frees.push_back(slot_of.at(d));
}

TensorList ExecutionPlan::run(const GraphModule& gm, std::span<const Tensor> inputs, StepHooks* hooks) const {
  StepHooks plain;
  StepHooks& h = hooks ? *hooks : plain;
  TL_CHECK(inputs.size() == placeholders_, gm.type_name(), ".forward: expected ", placeholders_, " inputs, got ",
           inputs.size());
  for (const PlanStep& s : steps_)
    if (s.op == Opcode::Placeholder) check_traced_shape(*s.node, inputs[static_cast<size_t>(s.index)], gm.type_name() + ".forward");
  std::vector<NodeValue> slots(steps_.size());
  TensorList args;
  for (size_t i = 0; i < steps_.size(); ++i) {
    const PlanStep& s = steps_[i];
    NodeValue v;
    try {
      auto gather_args = [&] {
        args.clear();
        for (int64_t in : s.inputs) args.push_back(in < 0 ? Tensor() : slots[static_cast<size_t>(in)].tensor());
      };
      switch (s.op) {
        case Opcode::Placeholder: v = inputs[static_cast<size_t>(s.index)]; break;
        case Opcode::GetAttr: v = gm.fetch_attr(s.node->target()); break;
        case Opcode::CallModule:
          gather_args();
          v = h.call_module(i, *gm.get_submodule(s.node->target()), args, h.out_for(i));
          break;
        case Opcode::CallFunction:
        case Opcode::CallMethod: {
          const ResolvedCall& c = *s.call;
          if (c.named) {
            gather_args();
            v = call_result(call_named(*s.node, c, args));
            break;
          }
          if (!c.op) {  // operator.getitem
            args.clear();
            for (size_t k = 1; k < s.inputs.size(); ++k) args.push_back(slots[static_cast<size_t>(s.inputs[k])].tensor("getitem"));
            v = getitem(slots[static_cast<size_t>(s.inputs[0])], c.key, args);
            break;
          }
          gather_args();
          if (c.out_input >= 0 && !args[static_cast<size_t>(c.out_input)].defined())
            args[static_cast<size_t>(c.out_input)] = h.out_for(i);
          v = call_result(dispatch::call(c.args, args, c.style));
          break;
        }
        case Opcode::Output: {
          std::vector<const NodeValue*> results;
          for (int64_t in : s.inputs) results.push_back(in < 0 ? nullptr : &slots[static_cast<size_t>(in)]);
          return flatten_results(results);
        }
      }
    } catch (const Error& e) {
      throw with_node_context(*s.node, e);
    }
    h.produced(i, v);
    slots[i] = std::move(v);
    for (int64_t dead : s.frees) slots[static_cast<size_t>(dead)] = NodeValue();
  }
  TL_INTERNAL_ASSERT(false, "graph has no output node");
  return {};
}

}  // namespace tl::fx
