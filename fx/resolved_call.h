// fx/resolved_call.h — what an FX node calls, read off its opcode, target and arguments in one place,
// once, when the node is made or edited (torch.fx resolves a node's target once): the op, its call
// style and typed arguments, the nodes it reads in the kernel's order. Every executor and pass uses it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/boxing.h"
#include "core/dispatch.h"
#include "core/named_call.h"
#include "fx/getitem.h"

namespace tl::fx {

class Node;

/// A node's call, resolved. For placeholder and get_attr only `inputs` (empty) is set.
struct ResolvedCall {
  /// The op a call_function / call_method node runs: the node's op, or for an operator with a number
  /// on the left its reflected op (operator.sub(2.0, x): rsub). Empty for operator.getitem and the
  /// other opcodes.
  std::optional<OpKind> op;
  CallStyle style = CallStyle::Function;
  OpArgs args;  ///< the op's arguments struct, unboxed from args/kwargs and checked against its schema
  /// The nodes whose values the call reads, nullptr for None: an op's tensor inputs in the kernel's
  /// order, call_module's arguments, getitem's value then its key's nodes, the output's results flattened.
  std::vector<Node*> inputs;
  GetItemKey key;          ///< operator.getitem's key
  int64_t out_input = -1;  ///< position in `inputs` of the op's `out=` result (core/schema.h), or -1
  /// A call_function of a named call (core/named_call.h: torch.nn.functional.relu, a wrapped function): the
  /// function registered under the target, run by call_named with the node's args and kwargs, `inputs` being
  /// the nodes among them in order; `op` is then empty.
  const NamedFunction* named = nullptr;
};

/// Resolves `n`'s call. Throws tl::Error when its arguments cannot be called: an op's wrong or
/// missing argument (fx/schema.h's from_fx_args), a named call's argument it cannot box (a list of nodes), a
/// wrapped function given keyword arguments, a reflected
/// operator with no reflected op, a getitem without (node, key) or with a key no index takes, a call_module
/// with a non-tensor or keyword argument, an
/// output returning a constant. Node keeps the result (Node::call()).
ResolvedCall resolve_call(const Node& n);

/// Runs a named-call node `n` (resolved `c`): its args and kwargs boxed as the caller wrote them, the nodes
/// among them replaced by `inputs` (their values, in c.inputs' order).
TensorList call_named(const Node& n, const ResolvedCall& c, std::span<const Tensor> inputs);

/// How a node's op was spelled (function, method or Python operator), from its opcode and target; an
/// operator with a number on the left and a node on the right (operator.sub(2.0, x)) is reflected.
CallStyle call_style(const Node& n);
/// The op a call node runs: its op, or for a reflected operator the op Python runs for it
/// (operator.sub(2.0, x): rsub); throws when the operator has none (operator.lt(2, x)).
OpKind call_op(const Node& n);
/// What an output node returns, flattened in order: a node, or nullptr for None (an undefined tensor, as
/// an eager forward() returns it). Throws tl::Error for any other constant: forward() returns tensors only.
std::vector<Node*> result_nodes(const Node& output);

}  // namespace tl::fx
