// ops/sort.cpp — sort, argsort, topk and kthvalue along one dim, value_selecting_reduction_backward
// (their gradient: grad put back at the selected indices) and unique. Each lane along `dim` is ordered
// apart as (value, index) pairs; NaN orders above +inf, as in PyTorch: ascending sorts put it last, topk
// takes it first.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <utility>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "ops/reduce_plan.h"
#include "ops/vector_kernels.h"

namespace tl::kernels {
namespace {

using detail::Lanes;
using detail::lanes_of;

// The type values are compared in (bfloat16 compares as float).
template <typename T>
using value_t = std::conditional_t<std::is_same_v<T, BFloat16>, float, T>;

template <typename V>
struct Entry {
  V value;
  int64_t index;
};

// a < b with NaN above everything (NaNs equal among themselves); branch-free, so that topk's block of tests
// vectorises.
template <typename V>
[[gnu::always_inline]] inline bool nan_last_less(V a, V b) {
  if constexpr (std::is_floating_point_v<V>) return ((a == a) & (b != b)) | (a < b);
  else return a < b;
}

// Strict weak orders of entries by value alone: ascending (`kAscending`) or descending, NaN largest.
template <typename V>
auto value_order(bool ascending) {
  return [ascending](const Entry<V>& a, const Entry<V>& b) {
    return ascending ? nan_last_less(a.value, b.value) : nan_last_less(b.value, a.value);
  };
}

// A lane's n values, `step` apart from `first`, as entries in `lane`.
template <typename T>
void load_lane(const T* first, int64_t step, int64_t n, std::vector<Entry<value_t<T>>>& lane) {
  lane.resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) lane[j] = {static_cast<value_t<T>>(first[j * step]), j};
}

// Orders every lane of x and writes m entries per lane: `order(first, step, lane)` leaves the result of the lane
// whose values start at `first`, `step` apart, in the first m entries of `lane` (a sort, a partial sort, ...),
// costing about `work` element steps (the split over threads follows it).
template <typename T, typename Order>
void select_lanes(const Tensor& x, const Lanes& l, int64_t m, int64_t work, Tensor& values, Tensor& indices,
                  const Order& order) {
  using V = value_t<T>;
  const T* src = x.numel() > 0 ? x.data<T>() : nullptr;
  T* dst = values.numel() > 0 ? values.data<T>() : nullptr;
  int64_t* idx = indices.numel() > 0 ? indices.data<int64_t>() : nullptr;
  detail::for_each_lane(x, l.dim, work, [&](int64_t o, int64_t offset) {
    thread_local std::vector<Entry<V>> lane;
    order(src + offset, l.stride, lane);
    for (int64_t j = 0; j < m; ++j) {
      dst[l.out_pos(o, m, j)] = static_cast<T>(lane[j].value);
      idx[l.out_pos(o, m, j)] = lane[j].index;
    }
  });
}

// A float's key for sort's order as an unsigned integer: ascending keys for ascending values, 0.0 and -0.0 one key,
// every NaN the largest (complemented when descending: then NaN first).
inline uint32_t sort_key(float x, bool descending) {
  const uint32_t u = std::bit_cast<uint32_t>(x == 0.0f ? 0.0f : x);
  const uint32_t key = x != x ? 0xffffffffu : u ^ ((u >> 31) != 0 ? 0xffffffffu : 0x80000000u);
  return descending ? ~key : key;
}

// A stable sort of a float lane (n values `step` apart from `first`) into `lane`, as std::stable_sort by
// value_order sorts it: a least-significant-digit radix sort of the keys, a byte per pass (a pass whose byte is
// the same for every key is skipped), carrying each value's index.
void radix_sort_lane(const float* first, int64_t step, int64_t n, bool descending, std::vector<Entry<float>>& lane) {
  thread_local std::vector<uint32_t> keys, keys_out;
  thread_local std::vector<int64_t> at, at_out;
  keys.resize(static_cast<size_t>(n));
  keys_out.resize(static_cast<size_t>(n));
  at.resize(static_cast<size_t>(n));
  at_out.resize(static_cast<size_t>(n));
  std::array<std::array<int64_t, 256>, 4> counts{};
  for (int64_t j = 0; j < n; ++j) {
    const uint32_t key = sort_key(first[j * step], descending);
    keys[j] = key;
    at[j] = j;
    for (int b = 0; b < 4; ++b) ++counts[b][(key >> (8 * b)) & 0xff];
  }
  for (int b = 0; b < 4; ++b) {
    if (counts[b][(keys[0] >> (8 * b)) & 0xff] == n) continue;
    int64_t start = 0;
    for (int64_t& c : counts[b]) start += std::exchange(c, start);
    for (int64_t j = 0; j < n; ++j) {
      const int64_t to = counts[b][(keys[j] >> (8 * b)) & 0xff]++;
      keys_out[to] = keys[j];
      at_out[to] = at[j];
    }
    keys.swap(keys_out);
    at.swap(at_out);
  }
  lane.resize(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) lane[j] = {first[at[j] * step], at[j]};
}

// topk's order: a before b when larger (kLargest) or smaller, NaN largest (value_order's).
template <bool kLargest, typename V>
[[gnu::always_inline]] inline bool top_before(V a, V b) {
  return kLargest ? nan_last_less(b, a) : nan_last_less(a, b);
}

// The first k entries of a lane of n in topk's order, found as PyTorch 1.13's CPU kernel finds them, so that ties
// come back at its indices: std::partial_sort when k * 64 <= n, else std::nth_element (then a sort of the first
// k - 1, when sorted). The partial sort is libstdc++'s written out: a heap of the first k, which a later entry
// enters only when it comes before the top; a block of values none of which does is passed over in one
// vectorised test.
template <bool kLargest, typename T, typename Step>
void top_of_lane(const T* first, Step step, int64_t n, int64_t k, bool sorted, std::vector<Entry<value_t<T>>>& lane) {
  using V = value_t<T>;
  const auto before = [](const Entry<V>& a, const Entry<V>& b) { return top_before<kLargest>(a.value, b.value); };
  if (k * 64 > n) {
    load_lane(first, step, n, lane);
    std::nth_element(lane.begin(), lane.begin() + (k - 1), lane.end(), before);
    if (sorted) std::sort(lane.begin(), lane.begin() + (k - 1), before);
    return;
  }
  load_lane(first, step, k, lane);
  lane.emplace_back();  // where std::pop_heap puts the top an entry replaces
  std::make_heap(lane.begin(), lane.begin() + k, before);
  constexpr int64_t kBlock = 32;
  for (int64_t j = k; j < n;) {
    if (j + kBlock <= n) {
      const V top = lane[0].value;
      const T* block = first + j * step;
      int any = 0;  // an int reduction under omp simd: GCC unrolled a bool one into scalar tests
#pragma omp simd reduction(| : any)
      for (int64_t b = 0; b < kBlock; ++b) any |= top_before<kLargest>(static_cast<V>(block[b * step]), top);
      if (any == 0) {
        j += kBlock;
        continue;
      }
    }
    for (const int64_t stop = std::min(n, j + kBlock); j < stop; ++j) {
      const V v = static_cast<V>(first[j * step]);
      if (!top_before<kLargest>(v, lane[0].value)) continue;
      lane[k] = {v, j};
      std::pop_heap(lane.begin(), lane.begin() + k + 1, before);
    }
  }
  std::sort_heap(lane.begin(), lane.begin() + k, before);
}

// The (k + 1)-th smallest of a lane's entries moved to lane[k], NaN largest, as ATen's quick_select_template
// (PyTorch 1.13's CPU kthvalue) moves it: median-of-three pivots and Hoare partitions with the same swaps, so that
// of tied values the one at PyTorch's index is chosen.
template <typename V>
void quick_select(std::vector<Entry<V>>& lane, int64_t k) {
  const auto after = [](const Entry<V>& a, const Entry<V>& b) { return nan_last_less(b.value, a.value); };
  const auto swap = [&lane](int64_t a, int64_t b) { std::swap(lane[a], lane[b]); };
  int64_t lo = 0, hi = static_cast<int64_t>(lane.size()) - 1;
  while (hi > lo) {
    if (hi == lo + 1) {
      if (after(lane[lo], lane[hi])) swap(lo, hi);
      return;
    }
    swap(lo + (hi - lo) / 2, lo + 1);
    if (after(lane[lo + 1], lane[hi])) swap(lo + 1, hi);
    if (after(lane[lo], lane[hi])) swap(lo, hi);
    if (after(lane[lo + 1], lane[lo])) swap(lo + 1, lo);
    const Entry<V> pivot = lane[lo];  // lane[lo + 1] <= pivot <= lane[hi]: both scans stop inside [lo, hi]
    int64_t i = lo + 1, j = hi;
    while (true) {
      do ++i;
      while (after(pivot, lane[i]));
      do --j;
      while (after(lane[j], pivot));
      if (j < i) break;
      swap(i, j);
    }
    swap(lo, j);
    if (j <= k) lo = i;
    if (j >= k) hi = j - 1;
  }
}

// A result of x's shape with `m` elements along the lanes' dim (removed when `keep` is false).
Shape lane_shape(const Tensor& x, const Lanes& l, int64_t m, bool keep) {
  Shape shape = x.shape();
  if (x.dim() == 0) return shape;
  if (keep) shape[l.dim] = m;
  else shape.erase(l.dim);
  return shape;
}

// A contiguous copy of `t` (itself when contiguous), read without dispatch.
Tensor dense(const Tensor& t) {
  if (t.is_contiguous()) return t;
  Tensor copy = Tensor::allocate(t.shape(), t.dtype());
  detail::copy_elements(copy, t);
  return copy;
}

// unique's rows: `flat` is (rows, cols), contiguous; rows compare element by element, NaN above +inf
// for the order and never equal to anything (each NaN is a value of its own, as NaN != NaN).
template <typename T>
struct Rows {
  using V = value_t<T>;
  const T* data;
  int64_t cols;
  bool less(int64_t a, int64_t b) const {
    for (int64_t k = 0; k < cols; ++k) {
      const V l = data[a * cols + k], r = data[b * cols + k];
      if (nan_last_less(l, r)) return true;
      if (nan_last_less(r, l)) return false;
    }
    return false;
  }
  bool equal(int64_t a, int64_t b) const {
    for (int64_t k = 0; k < cols; ++k)
      if (!(static_cast<V>(data[a * cols + k]) == static_cast<V>(data[b * cols + k]))) return false;
    return true;
  }
};

// The runs of equal rows of `flat` (rows, cols) visited in `order`: each run's first row, each row's
// run (inverse) and each run's length (counts).
struct RowRuns {
  std::vector<int64_t> first, inverse, counts;
};

// unique over the rows of `flat` (rows, cols): the rows sorted first when `sort` is set (stably, so of
// equal rows such as -0.0 and 0.0 the first one stands for them), else runs of consecutive rows.
RowRuns row_runs(const Tensor& flat, bool sort, const char* op) {
  const int64_t rows = flat.size(0);
  RowRuns r;
  r.inverse.resize(static_cast<size_t>(rows));
  std::vector<int64_t> order(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i) order[i] = i;
  TL_DISPATCH_ALL_TYPES(flat.dtype(), op, [&] {
    const Rows<scalar_t> x{flat.numel() > 0 ? flat.data<scalar_t>() : nullptr, flat.size(1)};
    if (sort) std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return x.less(a, b); });
    for (int64_t i = 0; i < rows; ++i) {
      if (i == 0 || !x.equal(order[i - 1], order[i])) {
        r.first.push_back(order[i]);
        r.counts.push_back(0);
      }
      r.inverse[order[i]] = static_cast<int64_t>(r.first.size()) - 1;
      ++r.counts.back();
    }
  });
  return r;
}

Tensor int64_tensor(const std::vector<int64_t>& v, const Shape& shape) {
  Tensor out = Tensor::allocate(shape, DType::Int64);
  if (!v.empty()) std::copy(v.begin(), v.end(), out.data<int64_t>());
  return out;
}

// (values, inverse, counts) of `self` along `dim` (every element, as rows of one, when dim is empty):
// values keep self's other dims, inverse has self's shape (without dim) or dim's size (with one); the
// inverse and counts not asked for are empty.
std::tuple<Tensor, Tensor, Tensor> unique_impl(const Tensor& self, std::optional<int64_t> dim, bool sort,
                                               bool return_inverse, bool return_counts, const char* op) {
  const int64_t d = dim ? wrap_dim(*dim, self.dim(), op) : 0;
  Shape perm;  // dim first, the others in order
  perm.push_back(d);
  for (int64_t k = 0; k < self.dim(); ++k)
    if (k != d) perm.push_back(k);
  const Tensor moved = dim ? self.permute(perm) : self.reshape({self.numel()});
  const int64_t rows = moved.dim() > 0 ? moved.size(0) : 1;
  const Tensor flat = dense(moved).reshape({rows, rows == 0 ? 0 : moved.numel() / rows});
  const RowRuns r = row_runs(flat, sort, op);
  Shape values_shape = moved.shape();
  values_shape[0] = static_cast<int64_t>(r.first.size());
  Tensor values = flat.index_select(0, int64_tensor(r.first, {static_cast<int64_t>(r.first.size())}))
                      .reshape(values_shape);
  if (dim) {
    Shape back(static_cast<size_t>(self.dim()));
    for (int64_t k = 0; k < self.dim(); ++k) back[perm[k]] = k;
    values = values.permute(back).contiguous();
  }
  const Shape inverse_shape = dim ? Shape{rows} : self.shape();
  Tensor inverse = return_inverse ? int64_tensor(r.inverse, inverse_shape) : tl::empty({0}, DType::Int64);
  Tensor counts = return_counts ? int64_tensor(r.counts, {static_cast<int64_t>(r.counts.size())})
                                : tl::empty({0}, DType::Int64);
  return {values, inverse, counts};
}

// unique_dim's checks, ATen's: a 0-size dim gives self with empty inverse and counts, another 0-size dim
// has no rows to compare.
void check_unique_dim(const Tensor& self, int64_t dim, const char* op) {
  TL_CHECK(self.dim() > 0, op, ": Dimension specified as ", dim, " but tensor has no dimensions");
  const int64_t d = wrap_dim(dim, self.dim(), op);
  const int64_t zero_dims = std::count(self.shape().begin(), self.shape().end(), 0);
  TL_CHECK(self.size(d) == 0 ? zero_dims == 1 : zero_dims == 0, op,
           self.size(d) == 0 ? ": Number of zero sized dimensions is more than one, so unique cannot be applied"
                             : ": There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
}

}  // namespace

std::tuple<Tensor, Tensor> sort(const Tensor& self, const SortArgs& args) {
  const Lanes l = lanes_of(self, args.dim, "sort");
  Tensor values = Tensor::allocate(self.shape(), self.dtype()), indices = Tensor::allocate(self.shape(), DType::Int64);
  // As PyTorch 1.13's CPU sort: stable=True a stable sort (ties keep their order; a radix sort for float lanes of
  // 256 and more), stable=False std::sort with the same order (introsort: ties in a lane of more than 16 come out
  // in the order its partitions leave them, which PyTorch's indices show).
  TL_DISPATCH_ALL_TYPES(self.dtype(), "sort", [&] {
    const auto order = [&](const scalar_t* first, int64_t step, auto& lane) {
      if (!args.stable) {
        load_lane(first, step, l.n, lane);
        return std::sort(lane.begin(), lane.end(), value_order<value_t<scalar_t>>(!args.descending));
      }
      if constexpr (std::is_same_v<scalar_t, float>) {
        if (l.n >= 256) return radix_sort_lane(first, step, l.n, args.descending, lane);
      }
      load_lane(first, step, l.n, lane);
      std::stable_sort(lane.begin(), lane.end(), value_order<value_t<scalar_t>>(!args.descending));
    };
    select_lanes<scalar_t>(self, l, l.n, l.n * 8, values, indices, order);
  });
  return {values, indices};
}

Tensor argsort(const Tensor& self, const ArgsortArgs& args) {
  return tl::sort(self, args.dim, args.descending).indices;
}

std::tuple<Tensor, Tensor> topk(const Tensor& self, const TopkArgs& args) {
  const Lanes l = lanes_of(self, args.dim, "topk");
  TL_CHECK(args.k >= 0 && args.k <= l.n, "topk: selected index k out of range (k = ", args.k, ", dimension ", l.dim,
           " has size ", l.n, ")");
  const Shape shape = lane_shape(self, l, args.k, true);
  Tensor values = Tensor::allocate(shape, self.dtype()), indices = Tensor::allocate(shape, DType::Int64);
  if (args.k == 0) return {values, indices};
  TL_DISPATCH_NUMERIC_TYPES(self.dtype(), "topk", [&] {
    // A scan of the lane, mostly vectorised, unless k * 64 > n (then nth_element's few passes).
    const int64_t work = args.k * 64 <= l.n ? l.n : l.n * 4;
    const auto order = [&](const scalar_t* first, int64_t step, auto& lane) {
      detail::at_vector_width([&] {
        const auto top = [&](auto largest, auto stride) {
          top_of_lane<decltype(largest)::value>(first, stride, l.n, args.k, args.sorted, lane);
        };
        if (args.largest && step == 1) top(std::true_type{}, std::integral_constant<int64_t, 1>{});
        else if (args.largest) top(std::true_type{}, step);
        else if (step == 1) top(std::false_type{}, std::integral_constant<int64_t, 1>{});
        else top(std::false_type{}, step);
      });
    };
    select_lanes<scalar_t>(self, l, args.k, work, values, indices, order);
  });
  return {values, indices};
}

std::tuple<Tensor, Tensor> kthvalue(const Tensor& self, const KthvalueArgs& args) {
  const Lanes l = lanes_of(self, args.dim, "kthvalue");
  TL_CHECK(self.dim() == 0 || l.n > 0, "kthvalue(): Expected reduction dim ", l.dim, " to have non-zero size");
  TL_CHECK(args.k >= 1 && args.k <= l.n, "kthvalue(): selected number k out of range for dimension ", l.dim,
           " (k = ", args.k, ", size ", l.n, ")");
  const Shape shape = lane_shape(self, l, 1, args.keepdim);
  Tensor values = Tensor::allocate(shape, self.dtype()), indices = Tensor::allocate(shape, DType::Int64);
  TL_DISPATCH_NUMERIC_TYPES(self.dtype(), "kthvalue", [&] {
    const auto order = [&](const scalar_t* first, int64_t step, auto& lane) {
      load_lane(first, step, l.n, lane);
      quick_select(lane, args.k - 1);
      std::iter_swap(lane.begin(), lane.begin() + (args.k - 1));
    };
    // A lane counts as n element steps, as ATen's kthvalue counts it: the select's few passes are branchy but
    // short, and at 10 lanes of 1000 a second thread cost more than it saved.
    select_lanes<scalar_t>(self, l, 1, l.n, values, indices, order);
  });
  return {values, indices};
}

// grad (the selected values' gradient) written into zeros of `sizes` at `indices` along dim; the indices
// of one lane are distinct, so each position gets at most one value (a scatter, as ATen's).
Tensor value_selecting_reduction_backward(const Tensor& grad, const Tensor& indices,
                                          const ValueSelectingReductionBackwardArgs& args) {
  const char* op = "value_selecting_reduction_backward";
  const int64_t rank = static_cast<int64_t>(args.sizes.size());
  const int64_t dim = wrap_dim(args.dim, rank, op);
  TL_CHECK(indices.dtype() == DType::Int64, op, ": expected int64 indices, got ", indices.dtype());
  TL_CHECK(grad.shape() == indices.shape(), op, ": expected grad and indices of the same size, got ", grad.shape(),
           " and ", indices.shape());
  Tensor g = dense(grad), idx = dense(indices);
  if (!args.keepdim && rank > 0) {
    g = g.unsqueeze(dim);
    idx = idx.unsqueeze(dim);
  }
  bool fits = idx.dim() == rank;
  for (int64_t d = 0; fits && d < rank; ++d) fits = d == dim || idx.size(d) == args.sizes[d];
  TL_CHECK(fits, op, ": indices of size ", indices.shape(), " do not select along dim ", dim, " of size ", args.sizes);
  const int64_t n = rank > 0 ? args.sizes[dim] : 1;
  const int64_t* ip = idx.numel() > 0 ? idx.data<int64_t>() : nullptr;
  for (int64_t i = 0; i < idx.numel(); ++i)
    TL_CHECK(ip[i] >= 0 && ip[i] < n, op, ": index ", ip[i], " is out of bounds for dimension ", dim, " with size ", n);
  Tensor out = tl::zeros(args.sizes, grad.dtype());
  const Lanes l = lanes_of(idx, dim, op);
  TL_DISPATCH_ALL_TYPES(grad.dtype(), op, [&] {
    const scalar_t* gp = g.numel() > 0 ? g.data<scalar_t>() : nullptr;
    scalar_t* dst = out.numel() > 0 ? out.data<scalar_t>() : nullptr;
    detail::for_each_lane(idx, l.dim, l.n, [&](int64_t o, int64_t) {
      for (int64_t j = 0; j < l.n; ++j) {
        const int64_t at = l.out_pos(o, l.n, j);
        dst[l.out_pos(o, n, ip[at])] = gp[at];
      }
    });
  });
  return out;
}

// torch.unique without a dim. Values come back sorted even with sorted=False (PyTorch's order is then
// unspecified); every NaN is a value of its own, last, counted once (PyTorch 1.13's CPU kernel, a hash
// set, gives NaN a count of 0 and an inverse of 0).
std::tuple<Tensor, Tensor, Tensor> _unique2(const Tensor& self, const Unique2Args& args) {
  return unique_impl(self, std::nullopt, true, args.return_inverse, args.return_counts, "_unique2");
}

// Along a dim: the inverse and counts come back whether asked for or not, as from ATen's CPU kernel.
std::tuple<Tensor, Tensor, Tensor> unique_dim(const Tensor& self, const UniqueDimArgs& args) {
  check_unique_dim(self, args.dim, "unique_dim");
  if (self.size(args.dim) == 0) return {self.clone(), tl::empty({0}, DType::Int64), tl::empty({0}, DType::Int64)};
  return unique_impl(self, args.dim, true, true, true, "unique_dim");
}

std::tuple<Tensor, Tensor, Tensor> unique_consecutive(const Tensor& self, const UniqueConsecutiveArgs& args) {
  if (args.dim) check_unique_dim(self, *args.dim, "unique_consecutive");
  if (args.dim && self.size(*args.dim) == 0)
    return {self.clone(), tl::empty({0}, DType::Int64), tl::empty({0}, DType::Int64)};
  return unique_impl(self, args.dim, false, args.return_inverse, args.return_counts, "unique_consecutive");
}

}  // namespace tl::kernels
