// fx/resolved_call.cpp — reading a node's call off its opcode, target and arguments.
#include "fx/resolved_call.h"

#include <functional>

#include "core/schema.h"
#include "fx/node.h"
#include "fx/schema.h"
#include "fx/wrap.h"

namespace tl::fx {

CallStyle call_style(const Node& n) {
  if (n.op() == Opcode::CallMethod) return CallStyle::Method;
  if (n.target().rfind("operator.", 0) != 0) return CallStyle::Function;
  const std::vector<Argument>& a = n.args();
  const bool reflected = a.size() == 2 && !a[0].is_node() && !a[0].is_list() && !a[0].is_none() && a[1].is_node();
  return reflected ? CallStyle::ReflectedOperator : CallStyle::Operator;
}

OpKind call_op(const Node& n) {
  TL_CHECK(n.op_kind().has_value(), "call_function: no op behind target '", n.target(), "'");
  if (call_style(n) != CallStyle::ReflectedOperator) return *n.op_kind();
  const std::optional<OpKind> reflected = reflected_op(*n.op_kind());
  TL_CHECK(reflected.has_value(), "'", n.name(), "': ", n.target(), " with a number first (", repr_arg(n.args()[0]),
           ") has no reflected op; put the tensor first");
  return *reflected;
}

std::vector<Node*> result_nodes(const Node& output) {
  TL_CHECK(output.args().size() == 1, "GraphModule: the output node needs one argument, got ", output.args().size());
  std::vector<Node*> out;
  const std::function<void(const Argument&)> add = [&](const Argument& a) {
    if (a.is_list()) {
      for (const Argument& item : a.as_list().items) add(item);
      return;
    }
    TL_CHECK(a.is_node() || a.is_none(), "GraphModule: the graph returns the constant ", format_arg(a),
             "; forward() returns tensors, so each result must be a node or None");
    out.push_back(a.node());
  };
  add(output.args()[0]);
  return out;
}

TensorList call_named(const Node& n, const ResolvedCall& c, std::span<const Tensor> inputs) {
  size_t next = 0;
  const auto resolve = [&](Node* in) {
    TL_INTERNAL_ASSERT(next < inputs.size(), "'", n.name(), "' reads '", in->name(), "' beyond its ", inputs.size(),
                       " inputs");
    return inputs[next++];
  };
  std::vector<ScopeArg> args;
  for (const Argument& a : n.args()) args.push_back(boxed_argument(a, resolve, n.target()));
  std::vector<KeywordArg> kwargs;
  for (const auto& [name, a] : n.kwargs()) kwargs.push_back(KeywordArg{name, boxed_argument(a, resolve, n.target())});
  TL_INTERNAL_ASSERT(c.named != nullptr && next == inputs.size(), "'", n.name(), "' is not a named call of ",
                     inputs.size(), " inputs");
  return run_named_call(*c.named, NamedCall{n.target(), args, kwargs});
}

ResolvedCall resolve_call(const Node& n) {
  ResolvedCall c;
  c.style = call_style(n);
  switch (n.op()) {
    case Opcode::Placeholder:
    case Opcode::GetAttr: break;
    case Opcode::CallModule:
      TL_CHECK(n.kwargs().empty(), "GraphModule: call_module '", n.target(), "' takes no keyword arguments, got ",
               n.kwargs().size());
      for (const Argument& a : n.args()) {
        TL_CHECK(a.is_node(), "GraphModule: call_module '", n.target(), "' has a non-tensor argument ", repr_arg(a));
        c.inputs.push_back(a.node());
      }
      break;
    case Opcode::CallFunction:
    case Opcode::CallMethod: {
      if (n.target() == "operator.getitem") {
        TL_CHECK(n.args().size() == 2 && n.args()[0].is_node() && n.kwargs().empty(), "GraphModule: getitem '",
                 n.name(), "' needs (node, key), got ", format_arg(Argument::list(n.args(), true)));
        c.inputs.push_back(n.args()[0].node());
        c.key = GetItemKey::parse(n.args()[1], c.inputs, n.name());
        break;
      }
      if (!n.op_kind() && n.op() == Opcode::CallFunction) {
        if (const NamedFunction* named = find_named_function(n.target())) {
          const WrappedFunction* wrapped = find_wrapped(n.target());
          TL_CHECK(n.kwargs().empty() || wrapped == nullptr || !wrapped->params.empty(), "GraphModule: '", n.name(),
                   "' calls the wrapped function ", n.target(), ", which takes positional arguments only");
          c.named = named;
          // Boxed once here with no values, so an argument no named call takes is refused now.
          const auto add = [&](const Argument& a) {
            boxed_argument(a, [&](Node* in) { c.inputs.push_back(in); return Tensor(); }, n.target());
          };
          for (const Argument& a : n.args()) add(a);
          for (const auto& [name, a] : n.kwargs()) add(a);
          break;
        }
      }
      c.op = call_op(n);
      OpArguments a = from_fx_args(*c.op, n.args(), n.kwargs(), [](Node*) { return Tensor(); }, c.style);
      c.args = op_info(*c.op).unbox(a.attrs);
      c.inputs = std::move(a.input_nodes);
      // The schema's `out` is its last tensor argument: when the node passes none, a hook may supply it.
      if (schema_of(*c.op).out_index() >= 0) c.out_input = static_cast<int64_t>(c.inputs.size()) - 1;
      break;
    }
    case Opcode::Output: c.inputs = result_nodes(n); break;
  }
  return c;
}

}  // namespace tl::fx
