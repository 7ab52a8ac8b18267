// ops/index.cpp — nonzero / argwhere, index_select and masked_select over any strides. The
// data-dependent outputs are built in two parallel passes (count per chunk, then fill from each
// chunk's prefix offset), so they are exact and in row-major order whatever the thread count.
#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/aten_scope.h"
#include "ops/reduce_plan.h"

namespace tl::kernels {
namespace {

using detail::OffsetCounter;
using detail::ReduceDim;

constexpr int64_t kMaxChunks = 256;
constexpr int64_t kSkip = 32;  // elements a sparse fill tests at once

// [0, numel) cut into chunks that depend on numel only.
struct Chunks {
  explicit Chunks(int64_t n) : numel(n), count(std::clamp<int64_t>(n / kGrainSize, 1, kMaxChunks)) {}
  int64_t begin(int64_t c) const { return numel / count * c + std::min(c, numel % count); }
  int64_t end(int64_t c) const { return begin(c + 1); }
  int64_t numel, count;
};

// A shape (rank >= 1) walked as rows along its last dim. Two operands share the walk, each with its
// own element strides (0 where it is broadcast).
class RowWalk {
 public:
  RowWalk(const Shape& shape, const Strides& a, const Strides& b) : cols_(shape[shape.size() - 1]) {
    for (int64_t d = 0; d + 1 < shape.size(); ++d) {
      lead_a_.push_back({shape[d], a[d]});
      lead_b_.push_back({shape[d], b[d]});
    }
  }

  /// Calls f(row, offset_a, offset_b, first_col, len) for the runs covering flat indices [b, e);
  /// the offsets are those of the row's column 0.
  template <typename F>
  void runs(int64_t b, int64_t e, const F& f) const {
    if (b >= e) return;
    int64_t row = b / cols_;
    OffsetCounter ra(lead_a_, row), rb(lead_b_, row);
    for (int64_t j = b % cols_; b < e; j = 0, ++row, ra.advance(), rb.advance()) {
      const int64_t len = std::min(cols_ - j, e - b);
      f(row, ra.offset(), rb.offset(), j, len);
      b += len;
    }
  }

 private:
  int64_t cols_;
  std::vector<ReduceDim> lead_a_, lead_b_;
};

template <typename T>
bool is_nonzero(T v) {
  if constexpr (std::is_same_v<T, BFloat16>) return static_cast<float>(v) != 0.0f;
  else return v != T(0);
}

// Pass 1: the number of nonzero elements of `data` (operand a of `walk`) before each chunk; the
// last entry is the total.
template <typename T>
std::vector<int64_t> chunk_offsets(const T* data, int64_t stride, const RowWalk& walk, const Chunks& chunks) {
  std::vector<int64_t> first(static_cast<size_t>(chunks.count + 1), 0);
  parallel_for(0, chunks.count, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      int64_t n = 0;
      walk.runs(chunks.begin(c), chunks.end(c), [&](int64_t, int64_t off, int64_t, int64_t j, int64_t len) {
        const T* p = data + off + j * stride;
        if (stride == 1) {
          for (int64_t i = 0; i < len; ++i) n += is_nonzero(p[i]);
        } else {
          for (int64_t i = 0; i < len; ++i) n += is_nonzero(p[i * stride]);
        }
      });
      first[static_cast<size_t>(c + 1)] = n;
    }
  });
  std::partial_sum(first.begin(), first.end(), first.begin());
  return first;
}

// ---- nonzero ----

// Coordinate d of the k-th nonzero element is written to column[d][k * step].
struct Coordinates {
  std::vector<int64_t*> column;
  int64_t step;
};

// x is viewed with `shape` / `strides` (rank >= 1); the hits are counted before the output exists.
template <typename T>
class NonzeroScan {
 public:
  NonzeroScan(const Tensor& x, const Shape& shape, const Strides& strides)
      : data_(x.data<T>()), shape_(shape), stride_(strides[strides.size() - 1]), walk_(shape, strides, strides),
        chunks_(numel_of(shape)), first_(chunk_offsets(data_, stride_, walk_, chunks_)) {}

  int64_t total() const { return first_.back(); }

  // Pass 2: each chunk writes its hits from its own prefix offset; leading coordinates are
  // decoded once per row. Dense chunks (known from pass 1) run branch-free: every element writes
  // the next free slot and only a hit advances it, so a half-full mask costs no mispredictions; the
  // chunk stops once its slots are full, so nothing past them is touched. Sparse chunks branch.
  void fill(const Coordinates& out) const {
    const size_t rank = out.column.size();
    parallel_for(0, chunks_.count, 1, [&](int64_t cb, int64_t ce) {
      std::vector<int64_t> lead(std::max<size_t>(rank, 1));
      for (int64_t c = cb; c < ce; ++c) {
        int64_t k = first_[static_cast<size_t>(c)];
        const int64_t limit = first_[static_cast<size_t>(c + 1)];
        const bool dense = 4 * (limit - k) > chunks_.end(c) - chunks_.begin(c);
        walk_.runs(chunks_.begin(c), chunks_.end(c), [&](int64_t row, int64_t off, int64_t, int64_t j, int64_t len) {
          for (int64_t d = static_cast<int64_t>(rank) - 2, rest = row; d >= 0; --d) {
            lead[static_cast<size_t>(d)] = rest % shape_[d];
            rest /= shape_[d];
          }
          const T* p = data_ + off;
          const auto emit = [&](int64_t i) {
            for (size_t d = 0; d + 1 < rank; ++d) out.column[d][k * out.step] = lead[d];
            if (rank > 0) out.column[rank - 1][k * out.step] = i;
          };
          if (dense) {
            for (int64_t i = j; i < j + len && k < limit; ++i) {
              emit(i);
              k += is_nonzero(p[i * stride_]);
            }
            return;
          }
          int64_t i = j;
          // Sparse and contiguous: skip all-zero blocks with one vectorised test each.
          for (; stride_ == 1 && i + kSkip <= j + len; i += kSkip) {
            bool any = false;
            for (int64_t t = 0; t < kSkip; ++t) any |= is_nonzero(p[i + t]);
            for (int64_t t = 0; any && t < kSkip; ++t) {
              if (is_nonzero(p[i + t])) emit(i + t), ++k;
            }
          }
          for (; i < j + len; ++i) {
            if (is_nonzero(p[i * stride_])) emit(i), ++k;
          }
        });
      }
    });
  }

 private:
  const T* data_;
  Shape shape_;
  int64_t stride_;
  RowWalk walk_;
  Chunks chunks_;
  std::vector<int64_t> first_;
};

// x (any rank): as_tuple gives one (n) tensor per dim (a 0-d x counts as 1-D), else one (n, rank).
TensorList nonzero_impl(const Tensor& x, bool as_tuple) {
  const Shape shape = x.dim() == 0 ? Shape{1} : x.shape();
  const Strides strides = x.dim() == 0 ? Strides{1} : x.strides();
  return TL_DISPATCH_ALL_TYPES(x.dtype(), "nonzero", [&] {
    const NonzeroScan<scalar_t> scan(x, shape, strides);
    const int64_t n = scan.total();
    TensorList outs;
    Coordinates coords;
    if (as_tuple) {
      for (int64_t d = 0; d < shape.size(); ++d) {
        outs.push_back(Tensor::allocate({n}, DType::Int64));
        coords.column.push_back(outs.back().data<int64_t>());
      }
      coords.step = 1;
    } else {
      outs.push_back(Tensor::allocate({n, x.dim()}, DType::Int64));
      for (int64_t d = 0; d < x.dim(); ++d) coords.column.push_back(outs[0].data<int64_t>() + d);
      coords.step = x.dim();
    }
    scan.fill(coords);
    return outs;
  });
}

// ---- element copies by size (dtype does not matter to a gather) ----

template <typename E>
void copy_strided(char* dst, const char* src, int64_t n, int64_t src_stride) {
  E* d = reinterpret_cast<E*>(dst);
  const E* s = reinterpret_cast<const E*>(src);
  for (int64_t i = 0; i < n; ++i) d[i] = s[i * src_stride];
}

// Copies n elements of `esize` bytes from src (element stride src_stride) to contiguous dst.
void gather_run(char* dst, const char* src, int64_t n, int64_t src_stride, int64_t esize) {
  if (src_stride == 1) {
    std::memcpy(dst, src, static_cast<size_t>(n * esize));
    return;
  }
  switch (esize) {
    case 1: return copy_strided<uint8_t>(dst, src, n, src_stride);
    case 2: return copy_strided<uint16_t>(dst, src, n, src_stride);
    case 4: return copy_strided<uint32_t>(dst, src, n, src_stride);
    default: return copy_strided<uint64_t>(dst, src, n, src_stride);
  }
}

// ---- index_select ----

// The index values as int64, checked against `size`.
std::vector<int64_t> read_index(const Tensor& index, int64_t size, int64_t dim) {
  TL_CHECK(index.dtype() == DType::Int64 || index.dtype() == DType::Int32,
           "index_select: expected an int64 or int32 index, got ", index.dtype());
  TL_CHECK(index.dim() <= 1, "index_select: index is supposed to be a vector, got size ", index.shape());
  const int64_t n = index.numel(), stride = index.dim() == 1 ? index.stride(0) : 1;
  std::vector<int64_t> values(static_cast<size_t>(n));
  for (int64_t k = 0; k < n; ++k) {
    values[static_cast<size_t>(k)] = index.dtype() == DType::Int64 ? index.data<int64_t>()[k * stride]
                                                                   : index.data<int32_t>()[k * stride];
    const int64_t v = values[static_cast<size_t>(k)];
    TL_CHECK(v >= 0 && v < size, "index_select: index ", v, " is out of bounds for dimension ", dim, " with size ",
             size);
  }
  return values;
}

// out (outer, n, inner) gathers self (outer, size, inner) along the middle dim.
Tensor index_select_impl(const Tensor& self, int64_t dim, const std::vector<int64_t>& index) {
  Shape out_shape = self.shape();
  out_shape[dim] = static_cast<int64_t>(index.size());
  Tensor out = Tensor::allocate(out_shape, self.dtype());
  if (out.numel() == 0) return out;
  std::vector<ReduceDim> outer, inner;
  for (int64_t d = 0; d < self.dim(); ++d)
    if (d != dim) (d < dim ? outer : inner).push_back({self.size(d), self.stride(d)});
  int64_t inner_n = 1;
  for (const ReduceDim& d : inner) inner_n *= d.size;
  inner = detail::coalesce(inner);
  const int64_t n = static_cast<int64_t>(index.size()), esize = self.element_size(), step = self.stride(dim);
  const char* src = static_cast<const char*>(self.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  parallel_for(0, out.numel() / inner_n, std::max<int64_t>(1, kGrainSize / inner_n), [&](int64_t b, int64_t e) {
    OffsetCounter rows(outer, b / n);
    for (int64_t r = b; r < e; ++r) {
      if (r > b && r % n == 0) rows.advance();
      const char* from = src + (rows.offset() + index[static_cast<size_t>(r % n)] * step) * esize;
      char* to = dst + r * inner_n * esize;
      // A dense inner block is one run; otherwise one run per row of its innermost dim.
      const ReduceDim last = inner.back();
      OffsetCounter cells(std::span<const ReduceDim>(inner.data(), inner.size() - 1), 0);
      for (int64_t i = 0; i < inner_n; i += last.size, cells.advance())
        gather_run(to + i * esize, from + cells.offset() * esize, last.size, last.stride, esize);
    }
  });
  return out;
}

}  // namespace

TensorList nonzero(const Tensor& self, const NonzeroArgs& args) { return nonzero_impl(self, args.as_tuple); }

Tensor argwhere(const Tensor& self) { return nonzero_impl(self, false)[0]; }

Tensor index_select(const Tensor& self, const Tensor& index, const IndexSelectArgs& args) {
  TL_CHECK(index.defined(), "index_select: expected an index tensor, got None");
  const int64_t dim = wrap_dim(args.dim, self.dim(), "index_select");
  if (self.dim() == 0) {
    // PyTorch treats a 0-d self as size [1] and keeps the result 0-d.
    TL_CHECK(index.numel() > 0, "index_select: index of a 0-d tensor must not be empty");
    read_index(index, 1, 0);
    Tensor out = Tensor::allocate({}, self.dtype());
    std::memcpy(out.raw_data(), self.raw_data(), static_cast<size_t>(self.element_size()));
    return out;
  }
  return index_select_impl(self, dim, read_index(index, self.size(dim), dim));
}

Tensor masked_select(const Tensor& self, const Tensor& mask) {
  TL_CHECK(mask.defined() && mask.dtype() == DType::Bool, "masked_select: expected a bool mask, got ",
           mask.defined() ? dtype_name(mask.dtype()) : "None");
  const Shape broadcast = broadcast_shapes(self.shape(), mask.shape(), "masked_select");
  const Shape shape = broadcast.empty() ? Shape{1} : broadcast;
  const auto broadcast_strides = [&](const Tensor& t) {
    Strides s(static_cast<size_t>(shape.size()), 0);
    for (int64_t d = 0; d < t.dim(); ++d) {
      const int64_t sd = shape.size() - t.dim() + d;
      s[sd] = t.size(d) == 1 ? 0 : t.stride(d);
    }
    return s;
  };
  const Strides mask_strides = broadcast_strides(mask), self_strides = broadcast_strides(self);
  const RowWalk walk(shape, mask_strides, self_strides);
  const Chunks chunks(numel_of(shape));
  const bool* m = mask.data<bool>();
  const int64_t ms = mask_strides[shape.size() - 1], ss = self_strides[shape.size() - 1];
  // ATen expands operands of two shapes, counts the mask with sum (of its bools as int64) and item, sizes
  // its result (as_strided) and, when it expanded, copies the mask dense first.
  const bool expand = self.shape() != mask.shape();
  if (expand) {
    for (const Tensor* t : {&self, &mask}) {
      RecordFunction scope("aten::expand", [&] { return ScopeArgs{*t, AttrValue(broadcast), AttrValue(false)}; });
      detail::as_strided_scope(*t);
    }
  }
  const TensorType flags{broadcast, DType::Bool}, count{{}, DType::Int64};
  std::vector<int64_t> first;
  {
    RecordFunction sum("aten::sum", [&] { return ScopeArgs{flags, AttrValue{}}; });
    RecordFunction dim_overload("aten::sum", [&] { return ScopeArgs{flags, AttrValue{}, AttrValue(false), AttrValue{}}; });
    detail::sum_scopes(flags, count, false, Shape(broadcast.size(), 1), [&] { first = chunk_offsets(m, ms, walk, chunks); });
  }
  {
    RecordFunction item("aten::item", [&] { return ScopeArgs{count}; });
    detail::instant_scope("aten::_local_scalar_dense", [&] { return ScopeArgs{count}; });
  }
  Tensor out = Tensor::allocate({first.back()}, self.dtype());
  if (first.back() == 0) return out;
  detail::as_strided_scope(out);
  if (expand) detail::instant_scope("aten::copy_", [&] { return ScopeArgs{flags, flags, AttrValue(false)}; });
  const int64_t esize = self.element_size();
  const char* src = static_cast<const char*>(self.raw_data());
  char* dst = static_cast<char*>(out.raw_data());
  parallel_for(0, chunks.count, 1, [&](int64_t cb, int64_t ce) {
    for (int64_t c = cb; c < ce; ++c) {
      int64_t k = first[static_cast<size_t>(c)];
      walk.runs(chunks.begin(c), chunks.end(c), [&](int64_t, int64_t moff, int64_t soff, int64_t j, int64_t len) {
        for (int64_t i = j; i < j + len; ++i) {
          if (!m[moff + i * ms]) continue;
          std::memcpy(dst + k * esize, src + (soff + i * ss) * esize, static_cast<size_t>(esize));
          ++k;
        }
      });
    }
  });
  return out;
}

}  // namespace tl::kernels
