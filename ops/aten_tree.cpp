// ops/aten_tree.cpp — the table of ATen's op trees (ops/aten_tree.h): one row per op that records child
// scopes, each a description of PyTorch 1.13's CPU tree for that call (tests/reference/op_tree_*.txt).
#include "ops/aten_tree.h"

#include <array>

#include "core/op_args.h"
#include "core/op_kind.h"

namespace tl::detail {
namespace {

using Inputs = std::span<const Tensor>;

// ---- views ----

// The view each of ATen's view ops (permute, select, expand, ...) makes with as_strided inside itself.
void as_strided_view(const Tensor& self, AtenTree& t) {
  if (!t.work()) return;
  t.leaf("aten::as_strided", [&] {
    return ScopeArgs{self, AttrValue(t.result().shape()), AttrValue(t.result().strides()), AttrValue{}};
  });
}

template <typename Args>
void strided_view(Inputs in, const Args&, AtenTree& t) {
  as_strided_view(in[0], t);
}

// ATen's t() is transpose(0, 1) (transpose(0, 0) below two dimensions).
void t_(Inputs in, const NoArgs&, AtenTree& t) {
  const Tensor& self = in[0];
  t.open("aten::transpose", [&] { return ScopeArgs{self, AttrValue(int64_t{0}), AttrValue(int64_t{self.dim() < 2 ? 0 : 1})}; });
  as_strided_view(self, t);
  t.close();
}

// ATen's reshape (and flatten): _reshape_alias where a view can express the result, else a clone (the
// kernel's, dispatched) viewed through _unsafe_view; nothing when the result is self itself.
template <typename Args>
void reshape_(Inputs in, const Args&, AtenTree& t) {
  const Tensor& self = in[0];
  if (!t.work()) return;
  const Tensor& out = t.result();
  if (out.is_same(self)) return;
  if (out.storage() == self.storage()) {
    t.leaf("aten::_reshape_alias", [&] { return ScopeArgs{self, AttrValue(out.shape()), AttrValue(out.strides())}; });
    return;
  }
  t.leaf("aten::_unsafe_view", [&] { return ScopeArgs{TensorType{self.shape(), self.dtype()}, AttrValue(out.shape())}; });
}

// ---- the table ----

using Row = void (*)(const OpCall& call, AtenTree& t);

template <OpKind Op>
using RowFn = void (*)(Inputs inputs, const ArgsOf<Op>& args, AtenTree& t);

template <OpKind Op, RowFn<Op> Fn>
void typed(const OpCall& call, AtenTree& t) {
  Fn(call.inputs, *static_cast<const ArgsOf<Op>*>(call.args), t);
}

template <OpKind Op, RowFn<Op> Fn>
constexpr void add(std::array<Row, kNumOps>& rows) {
  rows[static_cast<size_t>(Op)] = &typed<Op, Fn>;
}

constexpr std::array<Row, kNumOps> kRows = [] {
  std::array<Row, kNumOps> rows{};
  add<OpKind::Permute, strided_view>(rows);
  add<OpKind::Transpose, strided_view>(rows);
  add<OpKind::Slice, strided_view>(rows);
  add<OpKind::Select, strided_view>(rows);
  add<OpKind::Expand, strided_view>(rows);
  add<OpKind::Squeeze, strided_view>(rows);
  add<OpKind::Unsqueeze, strided_view>(rows);
  add<OpKind::T, t_>(rows);
  add<OpKind::Reshape, reshape_>(rows);
  add<OpKind::Flatten, reshape_>(rows);
  return rows;
}();

}  // namespace

bool has_aten_tree(OpKind op) { return kRows[static_cast<size_t>(op)] != nullptr; }

void emit_aten_tree(const OpCall& call, const TensorList* outputs, ScopeObserver& observer, std::vector<uint64_t>& open) {
  AtenTree t(observer, outputs, open);
  kRows[static_cast<size_t>(call.op)](call, t);
}

}  // namespace tl::detail
