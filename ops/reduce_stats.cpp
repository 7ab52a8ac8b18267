// ops/reduce_stats.cpp — var / std (Welford's moments, merged as Chan's), vector norms, any / all: more
// reducers of the one reduction loop (ops/reduction.h), so they share its blocking, threads and determinism.
// var_mean and std_mean give the mean of the same pass.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "ops/elementwise.h"
#include "ops/ops.h"
#include "ops/reduction.h"

namespace tl::kernels {
namespace {

using detail::reduce_into;
using detail::value_t;

// ---- var / std ----

// Count, mean and sum of squared deviations of the values seen, in double (as ATen's WelfordOps on CPU).
struct Moments {
  double mean = 0, m2 = 0;
  int64_t n = 0;
};

template <typename T>
struct WelfordReducer {
  using acc_t = Moments;
  static void add(Moments& a, double x) {
    ++a.n;
    const double delta = x - a.mean;
    a.mean += delta / static_cast<double>(a.n);
    a.m2 += delta * (x - a.mean);
  }
  acc_t identity() const { return {}; }
  acc_t merge(acc_t a, acc_t b) const {
    if (a.n == 0) return b;
    if (b.n == 0) return a;
    const double n = static_cast<double>(a.n + b.n), delta = b.mean - a.mean;
    return {a.mean + delta * static_cast<double>(b.n) / n,
            a.m2 + b.m2 + delta * delta * static_cast<double>(a.n) * static_cast<double>(b.n) / n, a.n + b.n};
  }
  // A run in two passes, mean then squared deviations, each a cascade sum: no division per element, and the
  // lanes vectorise; runs still merge as Chan's. A run with an infinity or NaN takes Welford's steps, whose mean
  // turns NaN after an infinite value (var_mean's mean, as ATen's).
  acc_t run(const T* p, int64_t n, int64_t stride, int64_t) const {
    const auto value = [](T v) { return static_cast<double>(static_cast<value_t<T>>(v)); };
    const double mean = n > 0 ? detail::cascade_sum<double>(p, n, stride, value) / static_cast<double>(n) : 0.0;
    if (!std::isfinite(mean)) {
      Moments m;
      for (int64_t i = 0; i < n; ++i) add(m, value(p[i * stride]));
      return m;
    }
    const double m2 = detail::cascade_sum<double>(p, n, stride, [&](T v) {
      const double d = value(v) - mean;
      return d * d;
    });
    return {mean, m2, n};
  }
  void vertical(acc_t* acc, const T* p, int64_t n, int64_t) const {
    for (int64_t t = 0; t < n; ++t) add(acc[t], static_cast<double>(static_cast<value_t<T>>(p[t])));
  }
};

// var (or std with `root`) over `dim`, dividing by max(0, n - correction) as ATen does (0 gives NaN or inf);
// with `mean`, also the mean of the same pass (Welford's: NaN after an infinite value, as ATen's var_mean).
Tensor var_or_std(const Tensor& x, const std::optional<IntList>& dim, bool unbiased, bool keepdim,
                  std::optional<int64_t> correction, bool root, Tensor* mean = nullptr) {
  const char* op = root ? "std" : "var";
  TL_CHECK(is_floating_point(x.dtype()), "std and var only support floating point and complex dtypes, got ",
           x.dtype());
  const std::vector<bool> reduce = detail::reduced_dims(x, dim, op);
  const double c = correction ? static_cast<double>(*correction) : unbiased ? 1.0 : 0.0;
  const Shape shape = detail::reduced_shape(x.shape(), reduce, keepdim);
  Tensor out = Tensor::allocate(shape, x.dtype());
  if (mean) *mean = Tensor::allocate(shape, x.dtype());
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), op, [&] {
    scalar_t* dst = out.numel() > 0 ? out.data<scalar_t>() : nullptr;
    scalar_t* mean_dst = mean && out.numel() > 0 ? mean->data<scalar_t>() : nullptr;
    reduce_into<WelfordReducer<scalar_t>, scalar_t>(x, reduce, true, WelfordReducer<scalar_t>{}, [&](int64_t o, Moments m) {
      const double v = m.m2 / std::max(0.0, static_cast<double>(m.n) - c);
      dst[o] = static_cast<scalar_t>(root ? std::sqrt(v) : v);
      if (mean_dst) mean_dst[o] = static_cast<scalar_t>(m.n > 0 ? m.mean : std::numeric_limits<double>::quiet_NaN());
    });
  });
  return out;
}

// ---- norms ----

enum class NormKind { Zero, One, Two, Inf, NegInf, Power };

template <typename T>
using norm_acc_t = std::conditional_t<std::is_same_v<T, BFloat16>, float, double>;

// sum |x|^p (then ^(1/p)), or the largest / smallest |x| for p = +-inf (NaN propagates).
template <typename T, NormKind K>
struct NormReducer {
  using acc_t = norm_acc_t<T>;
  static constexpr bool kExtreme = K == NormKind::Inf || K == NormKind::NegInf;
  acc_t p;

  acc_t identity() const { return K == NormKind::NegInf ? acc_t(INFINITY) : acc_t(0); }
  acc_t merge(acc_t a, acc_t b) const {
    if constexpr (kExtreme) {
      if (a != a || b != b) return a != a ? a : b;
      return K == NormKind::Inf ? std::max(a, b) : std::min(a, b);
    } else {
      return a + b;
    }
  }
  acc_t map(T v) const {
    const acc_t a = std::abs(static_cast<acc_t>(static_cast<value_t<T>>(v)));
    if constexpr (K == NormKind::Zero) return a != 0 ? 1 : 0;
    else if constexpr (K == NormKind::Two) return a * a;
    else if constexpr (K == NormKind::Power) return std::pow(a, p);
    else return a;
  }
  acc_t finish(acc_t a) const {
    if constexpr (K == NormKind::Two) return std::sqrt(a);
    else if constexpr (K == NormKind::Power) return std::pow(a, acc_t(1) / p);
    else return a;
  }
  acc_t run(const T* x, int64_t n, int64_t stride, int64_t) const {
    if constexpr (!kExtreme) return detail::cascade_sum<acc_t>(x, n, stride, [this](T v) { return map(v); });
    acc_t acc = identity();
    for (int64_t i = 0; i < n; ++i) acc = merge(acc, map(x[i * stride]));
    return acc;
  }
  void vertical(acc_t* acc, const T* x, int64_t n, int64_t) const {
    for (int64_t t = 0; t < n; ++t) acc[t] = merge(acc[t], map(x[t]));
  }
};

template <typename T, NormKind K>
void norm_typed(const Tensor& x, const std::vector<bool>& reduce, double p, Tensor& out) {
  using R = NormReducer<T, K>;
  const R red{static_cast<typename R::acc_t>(p)};
  T* dst = out.numel() > 0 ? out.data<T>() : nullptr;
  reduce_into<R, T>(x, reduce, true, red, [&](int64_t o, typename R::acc_t acc) { dst[o] = static_cast<T>(red.finish(acc)); });
}

// linalg.vector_norm (and norm, which `op` names in its dtype message) of `input`, converted to `dtype` first.
Tensor vector_norm(const Tensor& input, const Scalar& ord, const std::optional<IntList>& dim, bool keepdim,
                   std::optional<DType> dtype, bool is_norm) {
  if (is_norm) {
    TL_CHECK(is_floating_point(input.dtype()), "norm(): input dtype should be either floating point or complex. Got ",
             input.dtype(), " instead");
  } else {
    TL_CHECK(is_floating_point(input.dtype()),
             "linalg.vector_norm: Expected a floating point or complex tensor as input. Got ", input.dtype());
  }
  TL_CHECK(!dtype || is_floating_point(*dtype), "linalg.vector_norm: dtype should be floating point or complex, got ",
           dtype.value_or(DType::Float32));
  const Tensor x = dtype && *dtype != input.dtype() ? detail::to_dtype(input, *dtype) : input;
  const std::vector<bool> reduce = detail::reduced_dims(x, dim, "linalg.vector_norm");
  const double p = ord.to<double>();
  if (std::isinf(p)) {
    const char* name = p > 0 ? "inf" : "-inf";
    TL_CHECK(x.numel() > 0 || (dim && !dim->values.empty()), "linalg.vector_norm cannot compute the ", name,
             " norm on an empty tensor because the operation does not have an identity");
    for (int64_t d = 0; d < x.dim(); ++d) {
      TL_CHECK(!reduce[d] || x.size(d) > 0, "linalg.vector_norm cannot compute the ", name, " norm on the dimension ",
               d, " because this dimension is empty and the operation does not have an identity");
    }
  }
  Tensor out = Tensor::allocate(detail::reduced_shape(x.shape(), reduce, keepdim), x.dtype());
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), "linalg.vector_norm", [&] {
    if (p == 0) norm_typed<scalar_t, NormKind::Zero>(x, reduce, p, out);
    else if (p == 1) norm_typed<scalar_t, NormKind::One>(x, reduce, p, out);
    else if (p == 2) norm_typed<scalar_t, NormKind::Two>(x, reduce, p, out);
    else if (std::isinf(p) && p > 0) norm_typed<scalar_t, NormKind::Inf>(x, reduce, p, out);
    else if (std::isinf(p)) norm_typed<scalar_t, NormKind::NegInf>(x, reduce, p, out);
    else norm_typed<scalar_t, NormKind::Power>(x, reduce, p, out);
  });
  return out;
}

// ---- any / all ----

template <typename T, bool kAll>
struct LogicalReducer {
  using acc_t = bool;
  static bool truth(T v) { return static_cast<value_t<T>>(v) != value_t<T>(0); }
  acc_t identity() const { return kAll; }
  acc_t merge(acc_t a, acc_t b) const { return kAll ? a && b : a || b; }
  acc_t run(const T* p, int64_t n, int64_t stride, int64_t) const {
    for (int64_t i = 0; i < n; ++i)
      if (truth(p[i * stride]) != kAll) return !kAll;
    return kAll;
  }
  void vertical(acc_t* acc, const T* p, int64_t n, int64_t) const {
    for (int64_t t = 0; t < n; ++t) acc[t] = merge(acc[t], truth(p[t]));
  }
};

template <bool kAll>
Tensor any_or_all(const Tensor& x, std::optional<int64_t> dim, bool keepdim) {
  const char* op = kAll ? "all" : "any";
  std::vector<bool> reduce(static_cast<size_t>(x.dim()), !dim);
  if (dim) {
    const int64_t d = wrap_dim(*dim, x.dim(), op);
    if (x.dim() > 0) reduce[d] = true;
  }
  Tensor out = Tensor::allocate(detail::reduced_shape(x.shape(), reduce, keepdim), DType::Bool);
  bool* dst = out.numel() > 0 ? out.data<bool>() : nullptr;
  TL_DISPATCH_COMPUTE_TYPES(x.dtype(), op, [&] {
    using R = LogicalReducer<scalar_t, kAll>;
    reduce_into<R, scalar_t>(x, reduce, true, R{}, [&](int64_t o, bool v) { dst[o] = v; });
  });
  return out;
}

}  // namespace

Tensor var(const Tensor& self, const VarArgs& args) {
  return var_or_std(self, args.dim, args.unbiased, args.keepdim, args.correction, false);
}

Tensor std(const Tensor& self, const StdArgs& args) {
  return var_or_std(self, args.dim, args.unbiased, args.keepdim, args.correction, true);
}

std::tuple<Tensor, Tensor> var_mean(const Tensor& self, const VarMeanArgs& args) {
  Tensor mean;
  Tensor var = var_or_std(self, args.dim, args.unbiased, args.keepdim, args.correction, false, &mean);
  return {var, mean};
}

std::tuple<Tensor, Tensor> std_mean(const Tensor& self, const StdMeanArgs& args) {
  Tensor mean;
  Tensor std = var_or_std(self, args.dim, args.unbiased, args.keepdim, args.correction, true, &mean);
  return {std, mean};
}

Tensor linalg_vector_norm(const Tensor& self, const LinalgVectorNormArgs& args) {
  return vector_norm(self, args.ord, args.dim, args.keepdim, args.dtype, false);
}

Tensor norm(const Tensor& self, const NormArgs& args) {
  return vector_norm(self, args.p, args.dim, args.keepdim, args.dtype, true);
}

Tensor any(const Tensor& self, const AnyArgs& args) { return any_or_all<false>(self, args.dim, args.keepdim); }

Tensor all(const Tensor& self, const AllArgs& args) { return any_or_all<true>(self, args.dim, args.keepdim); }

}  // namespace tl::kernels
