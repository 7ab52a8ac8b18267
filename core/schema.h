// core/schema.h — each op's schema (core/op_list.h) parsed once: argument names, types, defaults and
// which are keyword-only. The tracer, code generation, the passes and the dispatch point's input
// checks all read it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/dispatch.h"

namespace tl {

struct SchemaArg {
  std::string name;
  std::string type;                   ///< "Tensor", "Tensor?", "Tensor[]", "int", "int[2]", "Scalar?", ...
  std::optional<AttrValue> default_;  ///< parsed default, when the schema gives one
  bool kwarg_only = false;            ///< declared after '*'

  bool is_tensor() const { return type.rfind("Tensor", 0) == 0 && type.find("[]") == std::string::npos; }
  bool is_tensor_list() const { return type.rfind("Tensor[]", 0) == 0; }
  bool is_optional() const { return !type.empty() && type.back() == '?'; }
  /// "int[2]" -> 2, "int[]" -> 0 (any length), other types -> -1.
  int list_length() const;
  /// The type without list, optional or alias marks: "int[2]" -> "int", "Tensor(a!)" -> "Tensor".
  std::string base_type() const;
};

struct Schema {
  std::string name;
  std::vector<SchemaArg> args;
};

/// The parsed schema of `op` (parsed once).
const Schema& schema_of(OpKind op);
/// The op whose Python name is `name` ("flatten", "add_"), if any.
std::optional<OpKind> op_by_name(const std::string& name);

}  // namespace tl
