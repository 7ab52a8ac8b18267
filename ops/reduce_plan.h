// ops/reduce_plan.h — the geometry of a reduction (internal to ops/): which dims are kept, which are
// reduced, both coalesced, and a counter that walks strided offsets; the lanes along one dim that sorts
// and scans walk. Outputs are always contiguous.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core/boxing.h"
#include "core/parallel.h"
#include "core/tensor.h"

namespace tl::detail {

/// One (coalesced) dimension of the input: its size and its input stride in elements.
struct ReduceDim {
  int64_t size;
  int64_t stride;
};

/// Input offsets of a reduction, split into the output space (kept dims) and the reduction space.
/// Both lists are outermost first and never empty (a missing space is one dim of size 1).
struct ReducePlan {
  std::vector<ReduceDim> kept;     ///< logical order: output element o is their row-major index
  std::vector<ReduceDim> reduced;  ///< innermost last; logical order unless reordered by stride
  int64_t num_out = 1;
  int64_t red_n = 1;
};

/// Plans the reduction of `x` over the dims flagged in `reduce` (one flag per dim of x). With
/// `reorder` the reduced dims are walked by decreasing stride (sum-like ops whose result does not
/// depend on the order); without it their row-major order is kept (arg-reductions report it).
ReducePlan make_reduce_plan(const Tensor& x, const std::vector<bool>& reduce, bool reorder);

/// Drops size-1 dims and merges neighbours contiguous with each other (outermost first); the
/// result walks the same offsets in the same order and is never empty ({1, 0} when nothing is left).
std::vector<ReduceDim> coalesce(const std::vector<ReduceDim>& dims);

/// The output shape: reduced dims removed, or kept as size 1 with `keepdim`.
Shape reduced_shape(const Shape& sizes, const std::vector<bool>& reduce, bool keepdim);

/// The dims a sum or mean of `x` reduces, one flag per dim: those in `dim` (wrapped; an empty list or
/// None means all). Throws tl::Error, naming `op`, for a dim out of range or listed twice.
std::vector<bool> reduced_dims(const Tensor& x, const std::optional<IntList>& dim, const char* op);

/// Walks a row-major index over `dims`, keeping the matching strided offset. `dims` must outlive
/// the counter and have no zero size.
class OffsetCounter {
 public:
  /// Starts at row-major index `linear`.
  OffsetCounter(std::span<const ReduceDim> dims, int64_t linear) : dims_(dims) {
    if (dims.size() > kInline) heap_.resize(dims.size());
    digits_ = dims.size() > kInline ? heap_.data() : inline_;
    for (size_t d = dims_.size(); d-- > 0;) {
      digits_[d] = linear % dims_[d].size;
      linear /= dims_[d].size;
      offset_ += digits_[d] * dims_[d].stride;
    }
  }
  OffsetCounter(const OffsetCounter&) = delete;
  OffsetCounter& operator=(const OffsetCounter&) = delete;

  int64_t offset() const { return offset_; }
  /// Moves to the next row-major index (wraps to 0 after the last).
  void advance() {
    for (size_t d = dims_.size(); d-- > 0;) {
      offset_ += dims_[d].stride;
      if (++digits_[d] < dims_[d].size) return;
      offset_ -= dims_[d].stride * dims_[d].size;
      digits_[d] = 0;
    }
  }

 private:
  // Counters are made per output row in hot loops: small ranks must not allocate.
  static constexpr size_t kInline = 8;
  std::span<const ReduceDim> dims_;
  int64_t inline_[kInline];
  std::vector<int64_t> heap_;
  int64_t* digits_;
  int64_t offset_ = 0;
};

/// Calls fn(p) for a pointer to each element of `t` (T its element type): in row-major logical order, or
/// with `memory_order` by decreasing stride, the order in which ATen's TensorIterator visits a lone output
/// (and so draws a random fill's numbers).
template <typename T, typename Fn>
void for_each_element(const Tensor& t, bool memory_order, Fn fn) {
  T* base = t.data<T>();
  const int64_t n = t.numel();
  if (t.is_contiguous()) {
    for (int64_t i = 0; i < n; ++i) fn(base + i);
    return;
  }
  std::vector<ReduceDim> dims;
  for (int64_t d = 0; d < t.dim(); ++d) dims.push_back({t.size(d), t.stride(d)});
  if (memory_order)
    std::stable_sort(dims.begin(), dims.end(), [](const ReduceDim& a, const ReduceDim& b) { return a.stride > b.stride; });
  OffsetCounter at(dims, 0);
  for (int64_t i = 0; i < n; ++i, at.advance()) fn(base + at.offset());
}

/// `x` seen along one dim: lanes of `n` elements spaced by `stride` (a 0-dim x is one lane of one element).
struct Lanes {
  int64_t dim = 0, n = 1, stride = 0;
  int64_t inner = 1;  ///< product of the sizes after dim: the lane stride of a contiguous result
  /// Position of element j of lane o in a contiguous result with m elements along dim.
  int64_t out_pos(int64_t o, int64_t m, int64_t j) const { return o / inner * m * inner + o % inner + j * inner; }
};

/// The lanes of `x` along `dim` (wrapped; throws tl::Error naming `op` when out of range).
inline Lanes lanes_of(const Tensor& x, int64_t dim, const char* op) {
  Lanes l;
  l.dim = wrap_dim(dim, x.dim(), op);
  if (x.dim() == 0) return l;
  l.n = x.size(l.dim);
  l.stride = x.stride(l.dim);
  for (int64_t d = l.dim + 1; d < x.dim(); ++d) l.inner *= x.size(d);
  return l;
}

/// Calls f(lane, offset) for every lane of `x` along `dim`: `lane` is the row-major index over the other
/// dims, `offset` the lane's first element. Parallel over lanes, each costing about `work` element steps;
/// f must not throw.
template <typename F>
void for_each_lane(const Tensor& x, int64_t dim, int64_t work, const F& f) {
  std::vector<bool> along(static_cast<size_t>(x.dim()), false);
  if (x.dim() > 0) along[static_cast<size_t>(dim)] = true;
  const ReducePlan plan = make_reduce_plan(x, along, false);
  if (plan.num_out == 0 || plan.red_n == 0) return;
  parallel_for(0, plan.num_out, std::max<int64_t>(1, kGrainSize / std::max<int64_t>(work, 1)), [&](int64_t b, int64_t e) {
    OffsetCounter lanes(plan.kept, b);
    for (int64_t o = b; o < e; ++o, lanes.advance()) f(o, lanes.offset());
  });
}

}  // namespace tl::detail
