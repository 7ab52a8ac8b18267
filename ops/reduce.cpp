// ops/reduce.cpp — sum, mean, prod, max, min, amax, amin, argmax, argmin and logsumexp over any strides, through
// the one reduction loop (ops/reduction.h): results are deterministic and ties keep the first index.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>

#include "core/boxing.h"
#include "core/dispatch.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/elementwise.h"
#include "ops/quantized/average.h"
#include "ops/reduction.h"
#include "ops/vector_kernels.h"
#include "ops/vector_math.h"

namespace tl {
namespace detail {

std::vector<ReduceDim> coalesce(const std::vector<ReduceDim>& dims) {
  std::vector<ReduceDim> out;
  for (const ReduceDim& d : dims) {
    if (d.size == 1) continue;
    if (!out.empty() && out.back().stride == d.stride * d.size) {
      out.back() = {out.back().size * d.size, d.stride};
    } else {
      out.push_back(d);
    }
  }
  if (out.empty()) out.push_back({1, 0});
  return out;
}

Shape reduced_shape(const Shape& sizes, const std::vector<bool>& reduce, bool keepdim) {
  Shape out;
  for (int64_t d = 0; d < sizes.size(); ++d) {
    if (!reduce[d]) out.push_back(sizes[d]);
    else if (keepdim) out.push_back(1);
  }
  return out;
}

ReducePlan make_reduce_plan(const Tensor& x, const std::vector<bool>& reduce, bool reorder) {
  std::vector<ReduceDim> kept, reduced;
  ReducePlan plan;
  for (int64_t d = 0; d < x.dim(); ++d) {
    const ReduceDim dim{x.size(d), x.stride(d)};
    (reduce[d] ? reduced : kept).push_back(dim);
    (reduce[d] ? plan.red_n : plan.num_out) *= dim.size;
  }
  if (reorder) {
    std::stable_sort(reduced.begin(), reduced.end(),
                     [](const ReduceDim& a, const ReduceDim& b) { return a.stride > b.stride; });
  }
  plan.kept = coalesce(kept);
  plan.reduced = coalesce(reduced);
  return plan;
}

std::vector<bool> reduced_dims(const Tensor& x, const std::optional<IntList>& dim, const char* op) {
  std::vector<bool> reduce(static_cast<size_t>(x.dim()), !dim);
  if (!dim) return reduce;
  const Shape& dims = dim->values;
  if (dims.empty()) return std::vector<bool>(static_cast<size_t>(x.dim()), true);
  for (int64_t d : dims) {
    const int64_t w = wrap_dim(d, x.dim(), op);
    if (x.dim() == 0) continue;
    TL_CHECK(!reduce[w], op, ": dim ", w, " appears multiple times in the list of dims ", dims);
    reduce[w] = true;
  }
  return reduce;
}

}  // namespace detail

namespace kernels {
namespace {

using detail::is_nan;
using detail::cascade_sum;
using detail::extreme_contiguous;
using detail::extreme_of;
using detail::kGroup;
using detail::kLanes;
using detail::reduce_into;
using detail::value_t;

// A reducer folds runs of input into an accumulator: run() reduces n elements spaced by stride
// (the first has reduction index r), vertical() folds one row into n accumulators, merge(a, b)
// joins two partials where a covers earlier indices.
template <typename T, typename Acc>
struct SumReducer {
  using acc_t = Acc;
  acc_t identity() const { return 0; }
  acc_t merge(acc_t a, acc_t b) const { return a + b; }
  acc_t run(const T* p, int64_t n, int64_t stride, int64_t) const {
    const auto value = [](T v) { return static_cast<Acc>(static_cast<value_t<T>>(v)); };
    return cascade_sum<Acc>(p, n, stride, value);
  }
  void vertical(acc_t* acc, const T* p, int64_t n, int64_t) const {
    for (int64_t t = 0; t < n; ++t) acc[t] += static_cast<Acc>(static_cast<value_t<T>>(p[t]));
  }
};

// The product, in Acc (int64 for integers and bool, whose products wrap around as PyTorch's do).
template <typename T, typename Acc>
struct ProdReducer {
  using acc_t = Acc;
  static Acc mul(Acc a, Acc b) {
    if constexpr (std::is_integral_v<Acc>) {
      using U = std::make_unsigned_t<Acc>;
      return static_cast<Acc>(static_cast<U>(a) * static_cast<U>(b));
    } else {
      return a * b;
    }
  }
  static Acc value(T v) { return static_cast<Acc>(static_cast<value_t<T>>(v)); }
  acc_t identity() const { return 1; }
  acc_t merge(acc_t a, acc_t b) const { return mul(a, b); }
  // Contiguous float runs in the running CPU's build of ops/vector_kernels.h (the same lanes, so the same bits).
  acc_t run(const T* p, int64_t n, int64_t stride, int64_t) const {
    if constexpr (std::is_same_v<T, float>)
      if (stride == 1) return detail::vector_kernels().prod(p, n);
    const auto value_of = [](T v) { return value(v); };
    const auto mul_of = [](acc_t a, acc_t b) { return mul(a, b); };
    return stride == 1 ? detail::lane_product<acc_t, true>(p, n, 1, value_of, mul_of)
                       : detail::lane_product<acc_t, false>(p, n, stride, value_of, mul_of);
  }
  void vertical(acc_t* acc, const T* p, int64_t n, int64_t) const {
    for (int64_t t = 0; t < n; ++t) acc[t] = mul(acc[t], value(p[t]));
  }
};

// max (kMax) or min of the values; NaN propagates, as in PyTorch.
template <typename T, bool kMax>
struct ExtremeReducer {
  using acc_t = value_t<T>;
  static bool better(acc_t a, acc_t b) { return kMax ? a > b : a < b; }
  acc_t identity() const {
    if constexpr (std::is_floating_point_v<acc_t>) return kMax ? -INFINITY : INFINITY;
    else return kMax ? std::numeric_limits<acc_t>::lowest() : std::numeric_limits<acc_t>::max();
  }
  acc_t merge(acc_t a, acc_t b) const { return is_nan(a) || !(is_nan(b) || better(b, a)) ? a : b; }
  acc_t run(const T* p, int64_t n, int64_t stride, int64_t) const {
    if constexpr (std::is_same_v<T, BFloat16>) {
      if (stride == 1) return widened(p, n);
    }
    if (stride == 1 && n > 0) return extreme_contiguous<kMax>(p, n);
    acc_t acc = identity();
    for (int64_t i = 0; i < n; ++i) acc = merge(acc, static_cast<acc_t>(p[i * stride]));
    return acc;
  }
  void vertical(acc_t* acc, const T* p, int64_t n, int64_t) const {
    for (int64_t t = 0; t < n; ++t) acc[t] = extreme_of<kMax>(acc[t], static_cast<acc_t>(p[t]));
  }
  // bfloat16 a block at a time widened to float, so that extreme_contiguous's vector lanes take it.
  acc_t widened(const T* p, int64_t n) const {
    constexpr int64_t kBlock = 256;
    float block[kBlock];
    acc_t acc = identity();
    for (int64_t i = 0; i < n; i += kBlock) {
      const int64_t m = std::min(kBlock, n - i);
      for (int64_t k = 0; k < m; ++k) block[k] = detail::bf16_to_float(p[i + k].bits);
      acc = merge(acc, extreme_contiguous<kMax>(block, m));
    }
    return acc;
  }
};

// The extreme value and the index of its first occurrence (index -1: nothing seen yet).
template <typename T, bool kMax>
struct ArgReducer {
  using V = value_t<T>;
  struct acc_t {
    V value;
    int64_t index;
  };
  static acc_t pick(acc_t a, acc_t b) {
    if (b.index < 0) return a;
    if (a.index < 0 || is_nan(a.value)) return a.index < 0 ? b : a;
    return is_nan(b.value) || (kMax ? b.value > a.value : b.value < a.value) ? b : a;
  }
  acc_t identity() const { return {V{}, -1}; }
  acc_t merge(acc_t a, acc_t b) const { return pick(a, b); }
  acc_t run(const T* p, int64_t n, int64_t stride, int64_t r) const {
    if (stride == 1 && n >= kLanes) {
      // Find the extreme with vector lanes (at the CPU's width: acc_t is no floating type, so the reduction's chunk
      // runs in the baseline build, where extreme_contiguous's 64-byte vectors are lowered element by element),
      // then its first occurrence.
      V best;
      detail::at_vector_width([&] { best = extreme_contiguous<kMax>(p, n); });
      for (int64_t i = 0;; ++i) {
        const V v = static_cast<V>(p[i]);
        if (is_nan(best) ? is_nan(v) : v == best) return {v, r + i};
      }
    }
    acc_t acc = identity();
    for (int64_t i = 0; i < n; ++i) acc = pick(acc, {static_cast<V>(p[i * stride]), r + i});
    return acc;
  }
  void vertical(acc_t* acc, const T* p, int64_t n, int64_t r) const {
    for (int64_t t = 0; t < n; ++t) acc[t] = pick(acc[t], {static_cast<V>(p[t]), r});
  }
};


// ---- sum / mean ----

template <typename T>
void sum_typed(const Tensor& x, const std::vector<bool>& reduce, bool mean, Tensor& out) {
  using Acc = std::conditional_t<std::is_floating_point_v<value_t<T>>, value_t<T>, int64_t>;
  using Out = std::conditional_t<std::is_floating_point_v<value_t<T>>, T, int64_t>;
  Out* dst = out.data<Out>();
  const Acc n = static_cast<Acc>(out.numel() > 0 ? x.numel() / out.numel() : 0);
  reduce_into<SumReducer<T, Acc>, T>(x, reduce, true, SumReducer<T, Acc>{}, [&](int64_t o, Acc acc) {
    dst[o] = static_cast<Out>(mean ? static_cast<Acc>(acc / n) : acc);
  });
}

// `input` reduced over `dim`, or, with a `dtype`, `input` converted to it first (the `to` sum_children records).
Tensor sum_or_mean(const Tensor& input, const std::optional<IntList>& dim, bool keep, std::optional<DType> dtype,
                   bool mean) {
  const char* op = mean ? "mean" : "sum";
  if (mean) {
    TL_CHECK(dtype || is_floating_point(input.dtype()), "mean(): could not infer output dtype. Input dtype must be "
             "either a floating point or complex dtype. Got: ", scalar_type_name(input.dtype()));
    TL_CHECK(!dtype || is_floating_point(*dtype), "mean(): could not infer output dtype. Optional dtype must be "
             "either a floating point or complex dtype. Got: ", scalar_type_name(dtype.value_or(DType::Float32)));
  }
  const Tensor x = dtype ? detail::to_dtype(input, *dtype) : input;
  const std::vector<bool> reduce = detail::reduced_dims(x, dim, op);
  // A sum of integers accumulates in int64 (or the given dtype, converted at the end).
  const DType out_dtype = is_floating_point(x.dtype()) ? x.dtype() : DType::Int64;
  Tensor out = Tensor::allocate(detail::reduced_shape(x.shape(), reduce, keep), out_dtype);
  TL_DISPATCH_ALL_TYPES(x.dtype(), op, [&] { sum_typed<scalar_t>(x, reduce, mean, out); });
  return dtype && *dtype != out.dtype() ? detail::to_dtype(out, *dtype) : out;
}

// ---- prod ----

template <typename T>
void prod_typed(const Tensor& x, const std::vector<bool>& reduce, Tensor& out) {
  using Acc = std::conditional_t<std::is_floating_point_v<value_t<T>>, value_t<T>, int64_t>;
  using Out = std::conditional_t<std::is_floating_point_v<value_t<T>>, T, int64_t>;
  Out* dst = out.data<Out>();
  reduce_into<ProdReducer<T, Acc>, T>(x, reduce, true, ProdReducer<T, Acc>{},
                                      [&](int64_t o, Acc acc) { dst[o] = static_cast<Out>(acc); });
}

// `input` (converted to `dtype` first when given) multiplied over `dim` (none: every element).
Tensor prod_impl(const Tensor& input, std::optional<int64_t> dim, bool keepdim, std::optional<DType> dtype) {
  const Tensor x = dtype ? detail::to_dtype(input, *dtype) : input;
  std::vector<bool> reduce(static_cast<size_t>(x.dim()), !dim);
  if (dim) {
    const int64_t d = wrap_dim(*dim, x.dim(), "prod");
    if (x.dim() > 0) reduce[d] = true;
  }
  const DType out_dtype = is_floating_point(x.dtype()) ? x.dtype() : DType::Int64;
  Tensor out = Tensor::allocate(detail::reduced_shape(x.shape(), reduce, keepdim), out_dtype);
  TL_DISPATCH_ALL_TYPES(x.dtype(), "prod", [&] { prod_typed<scalar_t>(x, reduce, out); });
  return dtype && *dtype != out.dtype() ? detail::to_dtype(out, *dtype) : out;
}

// ---- max / min / argmax ----

template <typename T, bool kMax>
void extreme_values(const Tensor& x, Tensor& values) {
  T* dst = values.data<T>();
  const std::vector<bool> all(static_cast<size_t>(x.dim()), true);
  reduce_into<ExtremeReducer<T, kMax>, T>(x, all, true, ExtremeReducer<T, kMax>{},
                                          [&](int64_t o, value_t<T> v) { dst[o] = static_cast<T>(v); });
}

// values may be undefined (argmax wants only the indices).
template <typename T, bool kMax>
void extreme_indices(const Tensor& x, const std::vector<bool>& reduce, Tensor* values, Tensor& indices) {
  using R = ArgReducer<T, kMax>;
  T* dst = values ? values->data<T>() : nullptr;
  int64_t* idx = indices.data<int64_t>();
  reduce_into<R, T>(x, reduce, false, R{}, [&](int64_t o, typename R::acc_t acc) {
    if (dst) dst[o] = static_cast<T>(acc.value);
    idx[o] = acc.index;
  });
}

// The reduced dim of max/min/argmax (as flags), after checking it is not empty.
std::vector<bool> single_dim(const Tensor& x, std::optional<int64_t> dim_arg, const char* op) {
  if (!dim_arg) {
    TL_CHECK(x.numel() > 0, op, ": expected reduction dim to be specified for input.numel() == 0 (input of size ",
             x.shape(), "); specify the reduction dim with the 'dim' argument");
    return std::vector<bool>(static_cast<size_t>(x.dim()), true);
  }
  const int64_t dim = wrap_dim(*dim_arg, x.dim(), op);
  std::vector<bool> reduce(static_cast<size_t>(x.dim()), false);
  if (x.dim() == 0) return reduce;
  TL_CHECK(x.size(dim) > 0, op, ": expected reduction dim ", dim, " to have non-zero size, got input of size ",
           x.shape());
  reduce[dim] = true;
  return reduce;
}

// The dims of amax / amin / logsumexp ([]: every dim), after ATen's checks that none of them is empty.
std::vector<bool> listed_dims(const Tensor& x, const IntList& dim, const char* op) {
  const std::vector<bool> reduce = detail::reduced_dims(x, dim, op);
  if (x.numel() > 0) return reduce;
  TL_CHECK(!dim.values.empty() || x.dim() == 0, op, "(): Expected reduction dim to be specified for input.numel() == 0. "
           "Specify the reduction dim with the 'dim' argument.");
  for (int64_t d = 0; d < x.dim(); ++d)
    TL_CHECK(!reduce[d] || x.size(d) > 0, op, "(): Expected reduction dim ", d, " to have non-zero size.");
  return reduce;
}

template <bool kMax>
Tensor amax_or_amin(const Tensor& x, const IntList& dim, bool keepdim) {
  const char* op = kMax ? "amax" : "amin";
  const std::vector<bool> reduce = listed_dims(x, dim, op);
  Tensor out = Tensor::allocate(detail::reduced_shape(x.shape(), reduce, keepdim), x.dtype());
  TL_DISPATCH_ALL_TYPES(x.dtype(), op, [&] {
    scalar_t* dst = out.data<scalar_t>();
    reduce_into<ExtremeReducer<scalar_t, kMax>, scalar_t>(
        x, reduce, true, ExtremeReducer<scalar_t, kMax>{},
        [&](int64_t o, value_t<scalar_t> v) { dst[o] = static_cast<scalar_t>(v); });
  });
  return out;
}

// sum(exp(x - m)) of each output, m its maximum as logsumexp_typed rounds it (`maxes`, one per output): ATen's
// exp(x - m) (each step rounded to T, as ATen's ops round it) summed as sum() sums, without the tensor of
// exponentials ATen makes.
template <typename T>
struct ShiftedExpSumReducer {
  using A = detail::acc_type<T>;
  using acc_t = A;
  const T* maxes;
  static const uint16_t* bits(const BFloat16* p) {
    static_assert(sizeof(BFloat16) == sizeof(uint16_t));
    return reinterpret_cast<const uint16_t*>(p);
  }
  static A shifted_exp(T v, A max) {
    return static_cast<A>(static_cast<T>(detail::vector_exp(static_cast<A>(static_cast<T>(static_cast<A>(v) - max)))));
  }
  acc_t identity() const { return 0; }
  acc_t merge(acc_t a, acc_t b) const { return a + b; }
  // float and bfloat16: contiguous runs and vertical passes in the running CPU's build of ops/vector_kernels.h
  // (the same operations in the same order, so the same bits).
  acc_t run_for(int64_t o, const T* p, int64_t n, int64_t stride, int64_t) const {
    const A max = static_cast<A>(maxes[o]);
    if constexpr (std::is_same_v<T, float>)
      if (stride == 1) return detail::vector_kernels().shifted_exp_sum(p, n, max);
    if constexpr (std::is_same_v<T, BFloat16>)
      if (stride == 1) return detail::vector_kernels().shifted_exp_sum_bf16(bits(p), n, max);
    return cascade_sum<A>(p, n, stride, [max](T v) { return shifted_exp(v, max); });
  }
  void vertical_for(int64_t first, acc_t* acc, const T* p, int64_t n, int64_t) const {
    const T* max = maxes + first;
    if constexpr (std::is_same_v<T, float>) {
      detail::vector_kernels().shifted_exp_add(acc, p, max, n);
    } else if constexpr (std::is_same_v<T, BFloat16>) {
      detail::vector_kernels().shifted_exp_add_bf16(acc, bits(p), bits(max), n);
    } else {
      for (int64_t t = 0; t < n; ++t) acc[t] += shifted_exp(p[t], static_cast<A>(max[t]));
    }
  }
};

// ATen's logsumexp: m = amax(x) (0 where it is infinite), then log(sum(exp(x - m))) + m, each step rounded to
// x's dtype as ATen's ops round it; two passes over x.
template <typename T>
void logsumexp_typed(const Tensor& x, const std::vector<bool>& reduce, Tensor& out) {
  using A = detail::acc_type<T>;
  Tensor maxes = Tensor::allocate(out.shape(), x.dtype());
  T* m = maxes.data<T>();
  reduce_into<ExtremeReducer<T, true>, T>(x, reduce, true, ExtremeReducer<T, true>{}, [&](int64_t o, value_t<T> v) {
    m[o] = static_cast<T>(std::isinf(v) ? value_t<T>(0) : v);
  });
  T* dst = out.data<T>();
  reduce_into<ShiftedExpSumReducer<T>, T>(x, reduce, true, ShiftedExpSumReducer<T>{m}, [&](int64_t o, A sum) {
    const T log_sum = static_cast<T>(std::log(static_cast<A>(static_cast<T>(sum))));
    dst[o] = static_cast<T>(static_cast<A>(log_sum) + static_cast<A>(m[o]));
  });
}

// Without a dim, the values alone (ATen's max() overload); with one, the values and their indices.
template <bool kMax>
TensorList max_or_min(const Tensor& x, std::optional<int64_t> dim_arg, bool keepdim) {
  const char* op = kMax ? "max" : "min";
  const std::vector<bool> reduce = single_dim(x, dim_arg, op);
  const Shape shape = detail::reduced_shape(x.shape(), reduce, keepdim);
  Tensor values = Tensor::allocate(shape, x.dtype());
  if (!dim_arg) {
    TL_DISPATCH_ALL_TYPES(x.dtype(), op, [&] { extreme_values<scalar_t, kMax>(x, values); });
    return {values};
  }
  Tensor indices = Tensor::allocate(shape, DType::Int64);
  TL_DISPATCH_ALL_TYPES(x.dtype(), op, [&] { extreme_indices<scalar_t, kMax>(x, reduce, &values, indices); });
  return {values, indices};
}

}  // namespace

}  // namespace kernels

Tensor detail::sum_over(const Tensor& x, const std::vector<bool>& reduce) {
  TL_INTERNAL_ASSERT(is_floating_point(x.dtype()), "sum_over: a floating point tensor, got ", x.dtype());
  Tensor out = Tensor::allocate(detail::reduced_shape(x.shape(), reduce, false), x.dtype());
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), "sum", [&] { kernels::sum_typed<scalar_t>(x, reduce, false, out); });
  return out;
}

namespace kernels {

Tensor sum(const Tensor& self, const SumArgs& args) {
  return sum_or_mean(self, args.dim, args.keepdim, args.dtype, false);
}

// A quantized input runs ATen's QuantizedCPU mean (ops/quantized/average.h).
Tensor mean(const Tensor& self, const MeanArgs& args) {
  if (self.is_quantized()) return int8::mean(self, args);
  return sum_or_mean(self, args.dim, args.keepdim, args.dtype, true);
}

TensorList max(const Tensor& self, const MaxArgs& args) { return max_or_min<true>(self, args.dim, args.keepdim); }

TensorList min(const Tensor& self, const MinArgs& args) { return max_or_min<false>(self, args.dim, args.keepdim); }

Tensor argmax(const Tensor& x, const ArgmaxArgs& args) {
  const std::vector<bool> reduce = single_dim(x, args.dim, "argmax");
  Tensor indices = Tensor::allocate(detail::reduced_shape(x.shape(), reduce, args.keepdim), DType::Int64);
  TL_DISPATCH_NUMERIC_TYPES(x.dtype(), "argmax", [&] { extreme_indices<scalar_t, true>(x, reduce, nullptr, indices); });
  return indices;
}

Tensor argmin(const Tensor& x, const ArgminArgs& args) {
  const std::vector<bool> reduce = single_dim(x, args.dim, "argmin");
  Tensor indices = Tensor::allocate(detail::reduced_shape(x.shape(), reduce, args.keepdim), DType::Int64);
  TL_DISPATCH_NUMERIC_TYPES(x.dtype(), "argmin", [&] { extreme_indices<scalar_t, false>(x, reduce, nullptr, indices); });
  return indices;
}

Tensor amax(const Tensor& self, const AmaxArgs& args) { return amax_or_amin<true>(self, args.dim, args.keepdim); }

Tensor amin(const Tensor& self, const AminArgs& args) { return amax_or_amin<false>(self, args.dim, args.keepdim); }

Tensor prod(const Tensor& self, const ProdArgs& args) { return prod_impl(self, std::nullopt, false, args.dtype); }

Tensor prod_dim_int(const Tensor& self, const ProdDimIntArgs& args) {
  return prod_impl(self, args.dim, args.keepdim, args.dtype);
}

// An integral or bool input gives float32 (the default dtype), as ATen's logsumexp.
Tensor logsumexp(const Tensor& self, const LogsumexpArgs& args) {
  const std::vector<bool> reduce = detail::reduced_dims(self, args.dim, "logsumexp");
  const Tensor x = is_floating_point(self.dtype()) ? self : detail::to_dtype(self, DType::Float32);
  Tensor out = Tensor::allocate(detail::reduced_shape(x.shape(), reduce, args.keepdim), x.dtype());
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), "logsumexp", [&] { logsumexp_typed<scalar_t>(x, reduce, out); });
  return out;
}

}  // namespace kernels
}  // namespace tl
