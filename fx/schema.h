// fx/schema.h — the two translations between an op call (tensor inputs + attrs) and FX args/kwargs,
// read off each op's parsed schema (core/schema.h). Defaults are omitted when
// recording, as a user of torch.* would not have written them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "core/schema.h"
#include "fx/argument.h"

namespace tl::fx {

/// An op call's arguments as FX records them. `inputs` holds one Argument per tensor input (a Node,
/// or None for an undefined tensor), in the call's order. A ReflectedOperator call puts its two
/// operands in Python's order: rsub(x, 2.0) of `2.0 - x` records (2.0, x). The arguments named in `keywords`
/// are recorded as keywords, given or default, as Python code passing them so (`x.flatten(start_dim=1)`);
/// every argument after the first of them must be one of them (Python binds positions first).
void to_fx_args(OpKind op, const std::vector<Argument>& inputs, const Attrs& attrs,
                std::vector<Argument>& args, Kwargs& kwargs, CallStyle style = CallStyle::Function,
                const std::vector<std::string>& keywords = {});

/// Throws tl::Error, as Python's argument binding raises TypeError, unless each keyword of `kwargs`
/// names an argument of `op`'s schema, once, that the first `positional` arguments do not already
/// give: "aten::relu: got an unexpected keyword argument 'foo' (arguments: self)".
void check_keywords(OpKind op, size_t positional, const Kwargs& kwargs);

/// The reverse: FX args/kwargs whose node references were already resolved to tensors by
/// `resolve(i)` (the i-th node met, in order) back into kernel inputs and attrs. Throws tl::Error for
/// keywords the op does not take (check_keywords), missing arguments and values of the wrong type.
struct OpArguments {
  TensorList inputs;
  std::vector<Node*> input_nodes;  ///< the node behind each input (nullptr for None)
  Attrs attrs;
};
OpArguments from_fx_args(OpKind op, const std::vector<Argument>& args, const Kwargs& kwargs,
                         const std::function<Tensor(Node*)>& resolve, CallStyle style = CallStyle::Function);

/// The op Python runs for `op`'s operator with a number on the left (`2.0 - x`: rsub, `2 * x`: mul),
/// if it has one.
std::optional<OpKind> reflected_op(OpKind op);
/// The reverse: the op whose operator a reflected op stands for (rsub: sub; mul: mul).
OpKind unreflected_op(OpKind op);

/// An attribute value as an FX argument (ints, floats, bools, None, dtype, int lists).
Argument attr_to_argument(const AttrValue& v);

}  // namespace tl::fx
