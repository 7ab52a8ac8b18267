// ops/creation.cpp — factory kernels: empty, zeros, ones, full (and their *_like forms), arange, eye,
// linspace, logspace (the seeded factories are in ops/random.cpp). Sizes are checked under the factory's
// own name before Tensor::allocate checks the bytes against the limit.
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/elementwise.h"
#include "ops/vector_kernels.h"

namespace tl::kernels {
namespace {

// A new tensor of `size` holding `value` everywhere.
Tensor filled(const Shape& size, DType dtype, const Scalar& value, const char* op) {
  check_sizes(size, op);
  Tensor out = Tensor::allocate(size, dtype);
  TL_DISPATCH_ALL_TYPES(dtype, "full", [&] {
    scalar_t* p = static_cast<scalar_t*>(out.raw_data());
    const scalar_t v = value.to<scalar_t>();  // not through double: int64 keeps every bit, overflow throws
    parallel_for(0, out.numel(), kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) p[i] = v;
    });
  });
  return out;
}

// An integer dtype's arange, as ATen's: the bounds truncated to int64, then counted and stepped exactly
// (through double, 2^53 + 1 would be 2^53). The values lie between the bounds, so only the unsigned
// intermediate sums may wrap.
Tensor integral_arange(const Scalar& start_value, const Scalar& end_value, const Scalar& step_value, DType dtype) {
  const int64_t start = start_value.to<int64_t>(), end = end_value.to<int64_t>(), step = step_value.to<int64_t>();
  TL_CHECK(step != 0, "arange: step must be nonzero");
  TL_CHECK((step > 0 && end >= start) || (step < 0 && end <= start),
           "arange: upper bound and larger bound inconsistent with step sign (start ", start, ", end ", end, ", step ",
           step, ")");
  const uint64_t span = step > 0 ? static_cast<uint64_t>(end) - static_cast<uint64_t>(start)
                                 : static_cast<uint64_t>(start) - static_cast<uint64_t>(end);
  const uint64_t stride = step > 0 ? static_cast<uint64_t>(step) : 0 - static_cast<uint64_t>(step);
  const uint64_t count = span / stride + (span % stride != 0);
  TL_CHECK(count <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()), "arange: range ", start, " -> ", end,
           " step ", step, " has too many elements");
  Tensor out = Tensor::allocate({static_cast<int64_t>(count)}, dtype);
  TL_DISPATCH_ALL_TYPES(dtype, "arange", [&] {
    scalar_t* p = static_cast<scalar_t*>(out.raw_data());
    for (uint64_t i = 0; i < count; ++i)
      p[i] = static_cast<scalar_t>(static_cast<int64_t>(static_cast<uint64_t>(start) + i * static_cast<uint64_t>(step)));
  });
  return out;
}

}  // namespace

Tensor empty(const EmptyArgs& args) {
  check_sizes(args.size, "empty");
  return Tensor::allocate(args.size, args.dtype);
}

Tensor zeros(const ZerosArgs& args) { return filled(args.size, args.dtype, 0, "zeros"); }

Tensor ones(const OnesArgs& args) { return filled(args.size, args.dtype, 1, "ones"); }

Tensor full(const FullArgs& args) { return filled(args.size, args.dtype, args.fill_value, "full"); }

Tensor arange(const ArangeArgs& args) {
  const double start = args.start.to<double>(), end = args.end.to<double>(), step = args.step.to<double>();
  TL_CHECK(step != 0, "arange: step must be nonzero");
  TL_CHECK(std::isfinite(start) && std::isfinite(end), "arange: unsupported range ", start, " -> ", end);
  TL_CHECK((step > 0 && end >= start) || (step < 0 && end <= start), "arange: upper bound and larger bound inconsistent with step sign (start ",
           start, ", end ", end, ", step ", step, ")");
  const DType dtype = args.dtype;
  TL_CHECK(dtype != DType::Bool, "arange: not implemented for ", dtype);
  if (!is_floating_point(dtype)) return integral_arange(args.start, args.end, args.step, dtype);
  const double count = std::ceil((end - start) / step);
  TL_CHECK(count < 9.0e18, "arange: range ", start, " -> ", end, " step ", step, " has too many elements");
  Tensor out = Tensor::allocate({static_cast<int64_t>(count)}, dtype);
  TL_DISPATCH_FLOATING_TYPES(dtype, "arange", [&] {
    scalar_t* p = static_cast<scalar_t*>(out.raw_data());
    for (int64_t i = 0, n = out.numel(); i < n; ++i) p[i] = static_cast<scalar_t>(start + static_cast<double>(i) * step);
  });
  return out;
}

Tensor empty_like(const Tensor& self, const EmptyLikeArgs& args) {
  return Tensor::allocate(self.shape(), args.dtype.value_or(self.dtype()));
}
Tensor zeros_like(const Tensor& self, const ZerosLikeArgs& args) {
  return filled(self.shape(), args.dtype.value_or(self.dtype()), 0, "zeros_like");
}
Tensor ones_like(const Tensor& self, const OnesLikeArgs& args) {
  return filled(self.shape(), args.dtype.value_or(self.dtype()), 1, "ones_like");
}
Tensor full_like(const Tensor& self, const FullLikeArgs& args) {
  return filled(self.shape(), args.dtype.value_or(self.dtype()), args.fill_value, "full_like");
}

// (n, m) zeros with ones on the diagonal.
Tensor eye(const EyeArgs& args) {
  const int64_t n = args.n, m = args.m.value_or(args.n);
  TL_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  TL_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  Tensor out = filled({n, m}, args.dtype, 0, "eye");
  TL_DISPATCH_ALL_TYPES(args.dtype, "eye", [&] {
    scalar_t* p = out.data<scalar_t>();
    for (int64_t i = 0; i < std::min(n, m); ++i) p[i * m + i] = static_cast<scalar_t>(1);
  });
  return out;
}

// A (steps) result of linspace / logspace, the steps checked.
Tensor range_result(int64_t steps, DType dtype, const char* op) {
  TL_CHECK(steps >= 0, "number of steps must be non-negative");
  TL_CHECK(dtype != DType::Bool, op, ": not implemented for ", dtype);
  return Tensor::allocate({steps}, dtype);
}

namespace {

// The lanes of one of the kernel's 32-byte vectors.
template <typename Out>
inline constexpr int64_t kLinspaceLanes = 32 / static_cast<int64_t>(sizeof(Out));

// Position i counted from the nearer end, with one rounding.
template <typename T>
T linspace_at(int64_t i, int64_t steps, T start, T end, T step) {
  return i < steps / 2 ? std::fma(step, static_cast<T>(i), start) : std::fma(-step, static_cast<T>(steps - i - 1), end);
}

// ATen's linspace kernel as PyTorch's AVX2 build runs it (one thread: up to its grain of 32768 steps), so
// the values match bit for bit: position i counted from the nearer end with one rounding (the build fuses
// a * b + c), except in the vectorised part, where each vector of 32 bytes takes its first position so and
// steps its lanes from there (base + j * step, unfused); the tail past the last pair of vectors is scalar.
// A vector's values depend on its position alone, so the vectors split over threads.
// T is the step's type (double for integers), Out the element's. steps >= 2.
template <typename T, typename Out>
void linspace_fill(Out* p, int64_t steps, T start, T end) {
  const T step = (end - start) / static_cast<T>(steps - 1);
  constexpr int64_t kLanes = kLinspaceLanes<Out>;
  const int64_t vectors = steps / (2 * kLanes) * 2;
  // Every value the loop reads is a local of the chunk: through captured references, each store to p (which could
  // alias them) would reload them, and the lanes' loop would not vectorise. The chunk runs at the CPU's vector width
  // (the lanes' adds are exact IEEE operations and the base's fma rounds once, so every width gives the same bits).
  parallel_for(0, vectors, kGrainSize / kLanes, [p, steps, start, end, step](int64_t b, int64_t e) {
    detail::at_vector_width([=] {
      constexpr int64_t kLanes = kLinspaceLanes<Out>;
      Out* const out = p;
      const int64_t n = steps;
      const T lo = start, hi = end, by = step;
      T lanes[kLanes];  // j * step, the same in every vector
      for (int64_t j = 0; j < kLanes; ++j) {
        T lane = static_cast<T>(j) * by;
        asm("" : "+x"(lane));  // rounded on its own: keeps the compiler (-march=native) from fusing it into the add
        lanes[j] = lane;
      }
      for (int64_t v = b; v < e; ++v) {
        const T base = static_cast<T>(static_cast<Out>(linspace_at<T>(v * kLanes, n, lo, hi, by)));
        for (int64_t j = 0; j < kLanes; ++j) out[v * kLanes + j] = static_cast<Out>(base + lanes[j]);
      }
    });
  });
  for (int64_t i = vectors * kLanes; i < steps; ++i)
    p[i] = static_cast<Out>(linspace_at<T>(i, steps, start, end, step));
}

}  // namespace

// ATen's linspace: the step in the element type (double for integers).
Tensor linspace(const LinspaceArgs& args) {
  Tensor out = range_result(args.steps, args.dtype, "linspace");
  TL_DISPATCH_NUMERIC_TYPES(args.dtype, "linspace", [&] {
    using step_t = std::conditional_t<std::is_integral_v<scalar_t>, double, detail::acc_type<scalar_t>>;
    const scalar_t start = args.start.to<scalar_t>(), end = args.end.to<scalar_t>();
    scalar_t* p = out.data<scalar_t>();
    if (args.steps == 1) p[0] = start;
    if (args.steps > 1) linspace_fill(p, args.steps, static_cast<step_t>(start), static_cast<step_t>(end));
  });
  return out;
}

// ATen's logspace (a plain loop): base ** (start + step * i) for the first half of the steps and
// base ** (end - step * (steps - 1 - i)) for the rest, in double.
Tensor logspace(const LogspaceArgs& args) {
  Tensor out = range_result(args.steps, args.dtype, "logspace");
  const int64_t steps = args.steps;
  TL_DISPATCH_NUMERIC_TYPES(args.dtype, "logspace", [&] {
    scalar_t* p = out.data<scalar_t>();
    if (steps == 1) p[0] = static_cast<scalar_t>(std::pow(args.base, args.start.to<double>()));
    if (steps <= 1) return;
    // Integer results take a float base, as ATen's (so 10 ** 2 may truncate to 99).
    const double base = std::is_integral_v<scalar_t> ? static_cast<double>(static_cast<float>(args.base)) : args.base;
    const double start = static_cast<double>(args.start.to<scalar_t>()), end = static_cast<double>(args.end.to<scalar_t>());
    const double step = (end - start) / static_cast<double>(steps - 1);
    for (int64_t i = 0; i < steps; ++i) {
      const double e = i < steps / 2 ? start + step * static_cast<double>(i) : end - step * static_cast<double>(steps - i - 1);
      p[i] = static_cast<scalar_t>(std::pow(base, e));
    }
  });
  return out;
}

}  // namespace tl::kernels
