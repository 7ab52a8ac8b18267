// fx/schema.h — the parsed form of each op's schema (core/op_list.h), and the two translations
// between an op call (tensor inputs + attrs) and FX args/kwargs. Defaults are omitted when
// recording, as a user of torch.* would not have written them.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "fx/argument.h"

namespace tl::fx {

struct SchemaArg {
  std::string name;
  std::string type;                   ///< "Tensor", "Tensor?", "Tensor[]", "int", "int[2]", "Scalar?", ...
  std::optional<AttrValue> default_;  ///< parsed default, when the schema gives one
  bool kwarg_only = false;            ///< declared after '*'

  bool is_tensor() const { return type.rfind("Tensor", 0) == 0 && type.find("[]") == std::string::npos; }
  bool is_tensor_list() const { return type.rfind("Tensor[]", 0) == 0; }
};

struct Schema {
  std::string name;
  std::vector<SchemaArg> args;
};

/// The parsed schema of `op` (parsed once).
const Schema& schema_of(OpKind op);
/// The op whose Python name is `name` ("flatten", "add_"), if any.
std::optional<OpKind> op_by_name(const std::string& name);

/// An op call's arguments as FX records them. `inputs` holds one Argument per tensor input (a Node,
/// or None for an undefined tensor), in the call's order.
void to_fx_args(OpKind op, const std::vector<Argument>& inputs, const Attrs& attrs,
                std::vector<Argument>& args, Kwargs& kwargs);

/// The reverse: FX args/kwargs whose node references were already resolved to tensors by
/// `resolve(i)` (the i-th node met, in order) back into kernel inputs and attrs.
struct OpArguments {
  TensorList inputs;
  std::vector<Node*> input_nodes;  ///< the node behind each input (nullptr for None)
  Attrs attrs;
};
OpArguments from_fx_args(OpKind op, const std::vector<Argument>& args, const Kwargs& kwargs,
                         const std::function<Tensor(Node*)>& resolve);

/// An attribute value as an FX argument (ints, floats, bools, None, dtype, int lists).
Argument attr_to_argument(const AttrValue& v);

}  // namespace tl::fx
