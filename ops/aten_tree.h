// ops/aten_tree.h — (internal) ATen's op tree as data: the child scopes PyTorch 1.13 records under an op on
// CPU (conv2d -> convolution -> _convolution -> mkldnn_convolution, rsub's sub, sum's sum.dim_IntList), declared
// per op and call in one table (ops/aten_tree.cpp) and emitted by the profiler at the op's own scope, so
// that a kernel's insides never shape a profile. Unobserved, nothing here runs.
//
// Design. A row is a function of the call (its typed arguments, its inputs and, after the kernel, its
// results) that describes the tree with AtenTree's verbs: open / close / leaf a child scope with the argument
// list ATen records, and work() where the kernel runs. Call variants (a dtype that differs, keepdim, a view
// that is possible, a number operand) are plain conditions in the row. The recorder runs the row twice:
// before the kernel (opening what precedes work(), leaving open the scopes work() sits in) and after it
// (recording what follows work(), which may read the results). Where a scope goes:
// - before work(): the ATen ops that enclose the op's whole call (conv's convolution -> _convolution ->
//   mkldnn_convolution, rsub's sub, sum.dim_IntList, to's _to_copy). The kernel's time, its allocations and
//   its own dispatched ops fall in them; a call that throws shows them.
// - after work(): the ATen ops a part of the kernel stands for (as_strided, fill_, copy_, _unsafe_view).
//   They take no time of their own (it counts in the scope around them), and a call that throws shows none.
// Argument lists are built only under record_shapes. Kernels keep scopes only around real work of their own.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/dispatch.h"
#include "core/record_function.h"

namespace tl::detail {

/// Describes an op call's ATen child scopes to the profiler's observer; one row of the table runs it.
/// Each verb acts only in the phase it belongs to (before the kernel or after it), so a row is written
/// once, top to bottom, in the order ATen records:
///   t.open("aten::_to_copy", [&] { return ScopeArgs{...}; });  // stays open: what follows nests in it
///   t.leaf("aten::copy_", ...);                                  // opened and closed
///   t.close();
///   if (!t.work()) return;                                       // the kernel runs here
///   t.leaf("aten::as_strided", [&] { return ScopeArgs{self, AttrValue(t.result().shape()), ...}; });
/// Without work(), the kernel runs after the row's last scope, inside the scopes it left open. What a row
/// computes before work() must not throw: the kernel has not checked the call yet.
class AtenTree {
 public:
  /// `outputs` is null before the kernel runs. `open` holds the ids of the scopes this call's row keeps
  /// open around the kernel: pushed before it, popped (and closed) after it.
  AtenTree(ScopeObserver& observer, const TensorList* outputs, std::vector<uint64_t>& open)
      : observer_(observer), outputs_(outputs), open_(open) {}
  AtenTree(const AtenTree&) = delete;
  AtenTree& operator=(const AtenTree&) = delete;

  /// Opens child scope `name` of the innermost open scope (the op's at first), with the arguments `args()`
  /// returns (ScopeArgs, called only when shapes are recorded); it stays open until close().
  template <typename ArgsFn>
  void open(const char* name, const ArgsFn& args) {
    if (!live()) return;
    const ScopeInputs inputs(args);
    open_.push_back(observer_.open_scope(name, RecordScope::Function, {}, &inputs));
  }
  /// Closes the innermost scope open() left open.
  void close() {
    if (!live()) return;
    observer_.close_scope(open_.back());
    open_.pop_back();
  }
  /// A scope with nothing inside: open then close.
  template <typename ArgsFn>
  void leaf(const char* name, const ArgsFn& args) {
    open(name, args);
    close();
  }
  /// The point at which the kernel runs, inside the scopes open then. Returns false before the kernel has
  /// run: the row returns, as what follows (which may read results) belongs to the call's second pass.
  [[nodiscard]] bool work() {
    worked_ = true;
    return outputs_ != nullptr;
  }
  /// The kernel's output `i`; only after work().
  const Tensor& result(size_t i = 0) const {
    TL_INTERNAL_ASSERT(worked_ && outputs_ != nullptr && i < outputs_->size(), "aten tree: a result read before work()");
    return (*outputs_)[i];
  }

 private:
  bool live() const { return worked_ == (outputs_ != nullptr); }

  ScopeObserver& observer_;
  const TensorList* outputs_;
  std::vector<uint64_t>& open_;
  bool worked_ = false;
};

// Subtrees several ops record, shared by the table's rows.

/// What ATen's Tensor::to records converting `from` to `dtype`: to, and when the dtype differs its
/// _to_copy -> copy_.
void to_children(AtenTree& t, const TensorType& from, DType dtype);
/// ATen's reshape of `t` to `size`: _reshape_alias where a view does (`view`), else a clone (its copy_) viewed
/// through _unsafe_view.
void reshape_children(AtenTree& t, const TensorType& x, const Shape& size, bool view);
/// The in-place fill ATen's factories record on the `empty` they made: zero_ without a value, else fill_ of it.
void fill_leaf(AtenTree& t, const TensorType& out, const std::optional<Scalar>& value);
/// What ATen's sum records inside itself around its reduction of `x` into a result of type `out` through a
/// keepdim-shaped view (`filled` sizes): as_strided (that view, when not keepdim), the `to` of an input
/// whose dtype is not the result's and fill_ (the zeroed accumulator).
void sum_children(AtenTree& t, const TensorType& x, const TensorType& out, bool keepdim, const Shape& filled);
/// What ATen's mean.dim records inside itself after its reduction of `x` over `dim` into `out` (`filled`:
/// out's keepdim sizes): sum into the result (sum.IntList_out, with sum_children), then an in-place division
/// by the element count `n` (scalar_div_children).
void mean_children(AtenTree& t, const TensorType& x, const AttrValue& dim, bool keepdim, const TensorType& out,
                   const Shape& filled, int64_t n);
/// What ATen's in-place division of `self` by a number records: div_.Scalar wraps the number in a 0-d
/// tensor for div_.Tensor, which converts that tensor (int64 or float64) to self's dtype where they differ.
void scalar_div_children(AtenTree& t, const TensorType& self, const AttrValue& divisor);

/// True when `call` runs its op's kernel and the op has a row (a decomposed call's tree is its ops').
bool has_aten_tree(const OpCall& call);
/// Runs the row of `call.op` (has_aten_tree): before its kernel with `outputs` null, after it with its
/// outputs; see AtenTree. `open` is the recorder's stack of the ids rows keep open.
void emit_aten_tree(const OpCall& call, const TensorList* outputs, ScopeObserver& observer,
                    std::vector<uint64_t>& open);

}  // namespace tl::detail
