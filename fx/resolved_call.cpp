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
      if (!n.op_kind()) {
        if (const WrappedFunction* wrapped = find_wrapped(n.target())) {
          TL_CHECK(n.kwargs().empty(), "GraphModule: '", n.name(), "' calls the wrapped function ", n.target(),
                   ", which takes positional arguments only");
          c.wrapped = wrapped;
          for (const Argument& a : n.args())
            if (a.is_node()) c.inputs.push_back(a.node());
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
