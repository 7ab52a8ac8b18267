// core/schema.h — each op's schema (core/native_functions.toml) parsed once: argument names, types, defaults,
// which are keyword-only, alias and mutation marks, the returns and the op's tags. The tracer, code
// generation, the passes, the profiler and the dispatch point's input checks all read it.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/dispatch.h"

namespace tl {

struct SchemaArg {
  std::string name;
  std::string type;                   ///< "Tensor", "Tensor?", "Tensor[]", "Tensor?[]", "int", "int[2]", ...
  /// Parsed default, when the schema gives one. Lists (int[], int[2], bool[3]) are a Shape: a bool
  /// list, which AttrValue has no alternative for, holds 1 for True and 0 for False, and so does
  /// the attribute a caller passes for it (convolution_backward's output_mask {1, 1, 0}).
  std::optional<AttrValue> default_;
  bool kwarg_only = false;            ///< declared after '*'
  std::string alias_set;              ///< "a" for `Tensor(a)` / `Tensor(a!)`, empty when it aliases nothing
  bool is_write = false;              ///< `Tensor(a!)`: the op writes this argument

  bool is_tensor() const { return type.rfind("Tensor", 0) == 0 && type.find("[]") == std::string::npos; }
  /// `Tensor[]`, or `Tensor?[]` (aten::index's indices), whose entries may be None (undefined).
  bool is_tensor_list() const { return type.rfind("Tensor[]", 0) == 0 || type.rfind("Tensor?[]", 0) == 0; }
  bool is_optional() const { return !type.empty() && type.back() == '?'; }
  /// `Tensor?[]`: a list whose entries may be None.
  bool has_optional_entries() const { return type.rfind("Tensor?[]", 0) == 0; }
  /// "int[2]" -> 2, "bool[3]" -> 3, "int[]" -> 0 (any length), other types -> -1.
  int list_length() const;
  /// The type without list, optional or alias marks: "int[2]" -> "int", "Tensor(a!)" -> "Tensor".
  std::string base_type() const;
};

/// Tags of an op row, as native_functions.yaml names them.
enum class OpTag : uint8_t {
  Pointwise = 1,              ///< elementwise; a binary one takes a number as its second operand
  NondeterministicSeeded = 2,  ///< draws from the random generator
  /// No tensor input may share memory with a written one, not even all of it (ATen's assert_no_overlap):
  /// the op reads its inputs out of position (scatter_, index_add_). Without the tag a written tensor may
  /// be an input itself but not overlap one partly, as TensorIterator allows.
  NoOverlap = 4,
  /// A written tensor whose elements share memory (expanded) warns rather than throws: PyTorch 1.13
  /// deprecates it (masked_fill_) where every other op refuses it.
  ExpandedWriteWarns = 8,
  /// The kernel takes quantized tensors (ATen's QuantizedCPU dispatch entry): views, int_repr, dequantize,
  /// the quantized kernels. dispatch::call refuses a quantized input to any other op.
  Quantized = 16
};

struct Schema {
  std::string name;           ///< the Python name, shared by an op's overloads ("pow")
  std::string overload_name;  ///< native_functions.yaml's overload ("Scalar" in pow.Scalar), empty for the first
  std::vector<SchemaArg> args;
  std::vector<SchemaArg> returns;  ///< unnamed returns have an empty name
  uint8_t tags = 0;
  /// Indices into `args` of the arguments the op writes (`Tensor(a!)`: an in-place op's self, an `out=` result).
  std::vector<size_t> written_args;
  /// `Tensor(a) self -> Tensor(a)`: the result may be a view of the first tensor input (view, t, expand).
  bool returns_view_of_self = false;

  bool has_tag(OpTag tag) const { return (tags & static_cast<uint8_t>(tag)) != 0; }
  /// The op writes one of its arguments (an in-place op or an `out=` result).
  bool is_mutable() const { return !written_args.empty(); }
  /// Exactly one Tensor comes back (not a tuple, a list or a bool).
  bool returns_one_tensor() const { return returns.size() == 1 && returns[0].is_tensor(); }
  /// The index of the keyword-only written `out` argument, or -1.
  int out_index() const;
  /// Where each tensor argument's inputs sit in a call's span of `num_inputs` tensors, in schema order:
  /// one input each, and a list argument (Tensor[] / Tensor?[]) takes what the others leave, so
  /// index_put_(self, indices, values) reads self, then the indices, then values last. Returns one
  /// [begin, end) per tensor argument; fewer inputs than the arguments need leave trailing ones empty.
  std::vector<std::pair<size_t, size_t>> tensor_slots(size_t num_inputs) const;
  /// The positions, in a call's span of `num_inputs` tensors, of the tensors the op writes: the one answer that
  /// dispatch's overlap checks and version bumps, autograd's in-place history and the tracer's rebinding read.
  std::vector<size_t> written_inputs(size_t num_inputs) const;
};

/// Parses one schema string of the op list's form, with its tags ("pointwise, ..."); schema_of()
/// holds every row's. A malformed schema is an internal error (the op list is ours).
Schema parse_schema(const std::string& schema, const std::string& tags = "");
/// The parsed schema of `op` (parsed once).
const Schema& schema_of(OpKind op);
/// The op whose Python name is `name` ("flatten", "add_"), if any: of several overloads, the first row.
std::optional<OpKind> op_by_name(const std::string& name);

}  // namespace tl
