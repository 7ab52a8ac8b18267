// ops/random.cpp — the seeded ops (rand, randn, randint, randperm, the *_like forms, normal, bernoulli,
// multinomial, uniform_, normal_), each drawing from its generator= argument or the default generator in
// ATen's order with ATen's distributions (core/generator.h), so a seed gives PyTorch's numbers. Arguments
// are validated before the generator is touched: a call that throws draws nothing.
#include <algorithm>
#include <cmath>
#include <limits>
#include <mutex>
#include <numeric>
#include <optional>
#include <vector>

#include "core/generator.h"
#include "core/grad_mode.h"
#include "core/op_args.h"
#include "ops/ops.h"
#include "ops/reduce_plan.h"

namespace tl::kernels {
namespace {

// ATen's uniform_real_distribution for the tensor's type (bfloat16: 8 random bits, computed in float).
template <typename T>
T uniform_value(Generator& gen, double from, double to) {
  if constexpr (std::is_same_v<T, BFloat16>) {
    const float x = static_cast<float>(gen.random() & 0xffu) * (1.0f / 256.0f);
    const float lo = BFloat16(static_cast<float>(from)), hi = BFloat16(static_cast<float>(to));
    return BFloat16(std::fma(x, static_cast<float>(BFloat16(hi - lo)), lo));
  } else {
    return uniform_real(gen, static_cast<T>(from), static_cast<T>(to));
  }
}

// self filled with U[from, to) in memory order (a contiguous float/double tensor in bulk).
void fill_uniform(const Tensor& self, double from, double to, Generator& gen, const char* op) {
  TL_CHECK(from <= to, op, ": expects to return a [from, to) range, but found from=", from, " > to=", to);
  TL_CHECK(is_floating_point(self.dtype()), op, ": expected a floating point dtype, got ", self.dtype());
  std::lock_guard lock(gen.mutex());
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), op, [&] {
    if constexpr (!std::is_same_v<scalar_t, BFloat16>) {
      if (self.is_contiguous()) {
        uniform_fill(gen, self.data<scalar_t>(), self.numel(), static_cast<scalar_t>(from), static_cast<scalar_t>(to));
        return;
      }
    }
    detail::for_each_element<scalar_t>(self, true, [&](scalar_t* p) { *p = uniform_value<scalar_t>(gen, from, to); });
  });
}

// self filled with N(mean, std^2): ATen's block transform for a contiguous float/double tensor of 16 or
// more elements, else one normal at a time in memory order (bfloat16 blocks go through float).
void fill_normal(const Tensor& self, double mean, double std, Generator& gen, const char* op) {
  TL_CHECK(std >= 0.0, op, ": expects std >= 0.0, but found std ", std);
  TL_CHECK(is_floating_point(self.dtype()), op, ": expected a floating point dtype, got ", self.dtype());
  std::lock_guard lock(gen.mutex());
  const int64_t n = self.numel();
  if (self.is_contiguous() && n >= 16 && self.dtype() != DType::BFloat16) {
    TL_DISPATCH_FLOATING_TYPES(self.dtype(), op, [&] {
      if constexpr (!std::is_same_v<scalar_t, BFloat16>) normal_fill(gen, self.data<scalar_t>(), n, mean, std);
    });
    return;
  }
  if (self.is_contiguous() && n >= 16) {
    std::vector<float> values(static_cast<size_t>(n));
    normal_fill(gen, values.data(), n, mean, std);
    std::copy(values.begin(), values.end(), self.data<BFloat16>());
    return;
  }
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), op, [&] {
    detail::for_each_element<scalar_t>(self, true, [&](scalar_t* p) { *p = static_cast<scalar_t>(normal(gen, mean, std)); });
  });
}

// self filled with random_(low, high)'s integers: (bits % (high - low)) + low, 64 bits for a range of 2^32
// or more (int64 and floating types; ATen's uniform_int_from_to_distribution).
void fill_randint(const Tensor& self, int64_t low, int64_t high, Generator& gen, const char* op) {
  TL_CHECK(low < high, op, ": random_ expects 'from' to be less than 'to', but got from=", low, " >= to=", high);
  const uint64_t range = static_cast<uint64_t>(high) - static_cast<uint64_t>(low);
  std::lock_guard lock(gen.mutex());
  TL_DISPATCH_COMPUTE_TYPES(self.dtype(), op, [&] {
    constexpr bool kWide = std::is_same_v<scalar_t, int64_t> || std::is_floating_point_v<scalar_t> ||
                           std::is_same_v<scalar_t, BFloat16>;
    detail::for_each_element<scalar_t>(self, true, [&](scalar_t* p) {
      const uint64_t bits = kWide && range >= (uint64_t{1} << 32) ? gen.random64() : gen.random();
      *p = static_cast<scalar_t>(static_cast<int64_t>(bits % range + static_cast<uint64_t>(low)));
    });
  });
}

// A new tensor of `size` (a floating dtype) filled by fill(out, a, b, gen, op): torch.rand / torch.randn.
Tensor floating_factory(const Shape& size, DType dtype, const std::optional<Generator>& generator, const char* op,
                        void (*fill)(const Tensor&, double, double, Generator&, const char*), double a, double b) {
  check_sizes(size, op);
  TL_CHECK(is_floating_point(dtype), op, ": expected a floating point dtype, got ", dtype);
  Generator gen = generator_or_default(generator, op);
  Tensor out = Tensor::allocate(size, dtype);
  fill(out, a, b, gen, op);
  return out;
}

DType like_dtype(const Tensor& self, const std::optional<DType>& dtype) { return dtype.value_or(self.dtype()); }

}  // namespace

Tensor rand(const RandArgs& args) {
  return floating_factory(args.size, args.dtype, args.generator, "rand", fill_uniform, 0.0, 1.0);
}

Tensor randn(const RandnArgs& args) {
  return floating_factory(args.size, args.dtype, args.generator, "randn", fill_normal, 0.0, 1.0);
}

Tensor rand_like(const Tensor& self, const RandLikeArgs& args) {
  return rand({.size = self.shape(), .dtype = like_dtype(self, args.dtype)});
}

Tensor randn_like(const Tensor& self, const RandnLikeArgs& args) {
  return randn({.size = self.shape(), .dtype = like_dtype(self, args.dtype)});
}

Tensor randint(const RandintArgs& args) {
  check_sizes(args.size, "randint");
  Generator gen = generator_or_default(args.generator, "randint");
  Tensor out = Tensor::allocate(args.size, args.dtype);
  fill_randint(out, args.low, args.high, gen, "randint");
  return out;
}

Tensor randint_like(const Tensor& self, const RandintLikeArgs& args) {
  return randint({.low = args.low, .high = args.high, .size = self.shape(), .dtype = like_dtype(self, args.dtype)});
}

Tensor randperm(const RandpermArgs& args) {
  TL_CHECK(args.n >= 0, "randperm: n must be non-negative, got ", args.n);
  TL_CHECK(args.dtype != DType::Bool, "randperm: not implemented for ", args.dtype);
  if (is_floating_point(args.dtype)) {  // every index exact in the dtype
    const int digits = args.dtype == DType::Float64 ? 53 : args.dtype == DType::Float32 ? 24 : 8;
    TL_CHECK(args.n <= (int64_t{1} << digits) + 1, "randperm: n cannot be greater than 2^", digits, "+1 for ",
             args.dtype, " type, got ", args.n);
  }
  TL_CHECK(args.dtype != DType::Int32 || args.n <= std::numeric_limits<int32_t>::max(),
           "randperm: n cannot be greater than 2^31-1 for Int32 type, got ", args.n);
  Generator gen = generator_or_default(args.generator, "randperm");
  const std::vector<int64_t> order = permutation(gen, args.n);
  Tensor out = Tensor::allocate({args.n}, args.dtype);
  TL_DISPATCH_NUMERIC_TYPES(args.dtype, "randperm", [&] {
    std::transform(order.begin(), order.end(), out.data<scalar_t>(),
                   [](int64_t v) { return static_cast<scalar_t>(v); });
  });
  return out;
}

// ATen's normal(Tensor mean, Tensor std): normal_(0, 1) over the broadcast shape, then * std + mean.
Tensor normal(const Tensor& mean, const Tensor& std, const NormalTensorTensorArgs& args) {
  TL_CHECK(is_floating_point(mean.dtype()) && is_floating_point(std.dtype()),
           "normal: expected floating point mean and std, got ", mean.dtype(), " and ", std.dtype());
  const Shape shape = broadcast_shapes(mean.shape(), std.shape(), "normal");
  NoGradGuard no_grad;  // the draw is not differentiable: its own ops record nothing
  const Tensor smallest = std.min();
  TL_CHECK(std.numel() == 0 || smallest.item<double>() >= 0.0,
           "normal: expects all elements of std >= 0.0, got ", smallest.item<double>());
  Generator gen = generator_or_default(args.generator, "normal");
  Tensor out = Tensor::allocate(shape, promote_types(mean.dtype(), std.dtype()));
  fill_normal(out, 0.0, 1.0, gen, "normal");
  out.mul_(std);
  out.add_(mean);
  return out;
}

// ATen's bernoulli(self): each element 1 with the probability self holds there (float probabilities draw
// 24 bits, double ones 53), in memory order; the result has self's dtype.
Tensor bernoulli(const Tensor& self, const BernoulliArgs& args) {
  TL_CHECK(is_floating_point(self.dtype()), "bernoulli: expected a floating point tensor of probabilities, got ",
           self.dtype());
  Generator gen = generator_or_default(args.generator, "bernoulli");
  NoGradGuard no_grad;  // the draw is not differentiable: its own ops record nothing
  const Tensor p = self.contiguous();
  Tensor out = Tensor::allocate(self.shape(), self.dtype());
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), "bernoulli", [&] {
    const scalar_t* prob = p.data<scalar_t>();
    const int64_t n = p.numel();
    for (int64_t i = 0; i < n; ++i) {
      const double v = static_cast<double>(prob[i]);
      TL_CHECK(v >= 0.0 && v <= 1.0, "bernoulli: expected all probabilities in [0, 1], got ", v, " at index ", i);
    }
    using P = std::conditional_t<std::is_same_v<scalar_t, double>, double, float>;
    std::lock_guard lock(gen.mutex());
    scalar_t* o = out.data<scalar_t>();
    UniformDraws<P> u(gen, n);
    for (int64_t i = 0; i < n; ++i) o[i] = static_cast<scalar_t>(u.next() < static_cast<P>(prob[i]) ? 1.0 : 0.0);
  });
  return out;
}

// ATen's bernoulli_(p): each element 1 with probability p (53-bit uniforms), in memory order.
Tensor bernoulli_(const Tensor& self, const BernoulliFloatArgs& args) {
  TL_CHECK(args.p >= 0.0 && args.p <= 1.0, "bernoulli_: expects p to be in [0, 1], but got p=", args.p);
  Generator gen = generator_or_default(args.generator, "bernoulli_");
  std::lock_guard lock(gen.mutex());
  TL_DISPATCH_COMPUTE_TYPES(self.dtype(), "bernoulli_", [&] {
    UniformDraws<double> u(gen, self.numel());
    detail::for_each_element<scalar_t>(self, true, [&](scalar_t* e) {
      *e = static_cast<scalar_t>(u.next() < args.p ? 1.0 : 0.0);
    });
  });
  return self;
}

namespace {

// Each row's probabilities (weights, not normalised) as double, after ATen's checks of them.
std::vector<double> multinomial_weights(const Tensor& self, bool replacement) {
  NoGradGuard no_grad;  // the draw is not differentiable: its own ops record nothing
  const Tensor w = self.contiguous().to(DType::Float64);
  std::vector<double> weights(w.data<double>(), w.data<double>() + w.numel());
  const int64_t categories = self.size(-1);
  for (size_t row = 0; row * static_cast<size_t>(categories) < weights.size(); ++row) {
    double sum = 0;
    for (int64_t j = 0; j < categories; ++j) {
      const double v = weights[row * static_cast<size_t>(categories) + static_cast<size_t>(j)];
      TL_CHECK(replacement || (std::isfinite(v) && v >= 0),
               "multinomial: probability tensor contains either `inf`, `nan` or element < 0, got ", v);
      TL_CHECK(!replacement || v >= 0, "multinomial: invalid multinomial distribution (encountering probability entry < 0), got ", v);
      TL_CHECK(!replacement || std::isfinite(v),
               "multinomial: invalid multinomial distribution (encountering probability entry = infinity or NaN)");
      sum += v;
    }
    TL_CHECK(sum > 0, "multinomial: invalid multinomial distribution (sum of probabilities <= 0) in row ", row);
  }
  return weights;
}

}  // namespace

// ATen's multinomial: without replacement (or one sample) the top num_samples of self / q, q ~ Exp(1) drawn
// per element (Gumbel's trick); with replacement a binary search of each 53-bit uniform in the row's
// normalised cumulative sums (kept in self's dtype). Rows are drawn one after another.
Tensor multinomial(const Tensor& self, const MultinomialArgs& args) {
  TL_CHECK(self.dim() == 1 || self.dim() == 2, "multinomial: prob_dist must be 1 or 2 dim, got ", self.dim(), " dims");
  TL_CHECK(is_floating_point(self.dtype()), "multinomial: only supports floating-point dtypes for input, got ",
           self.dtype());
  const int64_t n = args.num_samples, categories = self.size(-1), rows = self.dim() == 1 ? 1 : self.size(0);
  TL_CHECK(n > 0, "multinomial: cannot sample n_sample <= 0 samples, got ", n);
  TL_CHECK(args.replacement || n <= categories, "multinomial: cannot sample n_sample > prob_dist.size(-1) samples "
           "without replacement, got ", n, " samples of ", categories, " categories");
  TL_CHECK(categories <= (int64_t{1} << 24), "multinomial: number of categories cannot exceed 2^24, got ", categories);
  Generator gen = generator_or_default(args.generator, "multinomial");
  Tensor out = Tensor::allocate(self.dim() == 1 ? Shape{n} : Shape{rows, n}, DType::Int64);
  if (self.numel() == 0) return out;
  const std::vector<double> weights = multinomial_weights(self, args.replacement);
  int64_t* o = out.data<int64_t>();
  std::lock_guard lock(gen.mutex());
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), "multinomial", [&] {
    using A = std::conditional_t<std::is_same_v<scalar_t, BFloat16>, float, scalar_t>;
    std::vector<A> key(static_cast<size_t>(categories));
    if (!args.replacement || n == 1) {
      std::vector<A> ratio(weights.size());
      for (size_t i = 0; i < weights.size(); ++i) {  // q = -log(1 - u), then self / q in self's dtype
        const scalar_t q = static_cast<scalar_t>(-std::log(1.0 - uniform_real(gen, 0.0, 1.0)));
        ratio[i] = static_cast<A>(static_cast<scalar_t>(static_cast<A>(static_cast<scalar_t>(weights[i])) / static_cast<A>(q)));
      }
      std::vector<int64_t> order(static_cast<size_t>(categories));
      for (int64_t r = 0; r < rows; ++r) {
        const A* row = ratio.data() + r * categories;
        std::iota(order.begin(), order.end(), int64_t{0});
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return row[a] > row[b]; });
        std::copy_n(order.begin(), n, o + r * n);
      }
      return;
    }
    for (int64_t r = 0; r < rows; ++r) {
      A sum = 0;
      for (int64_t j = 0; j < categories; ++j) key[j] = sum = sum + static_cast<A>(static_cast<scalar_t>(weights[r * categories + j]));
      for (A& c : key) c = c / sum;
      key.back() = 1;
      for (int64_t s = 0; s < n; ++s) {
        const double u = uniform_real(gen, 0.0, 1.0);
        o[r * n + s] = std::lower_bound(key.begin(), key.end(), u, [](A c, double v) { return c < v; }) - key.begin();
      }
    }
  });
  return out;
}

Tensor uniform_(const Tensor& self, const UniformArgs& args) {
  Generator gen = generator_or_default(args.generator, "uniform_");
  fill_uniform(self, args.from, args.to, gen, "uniform_");
  return self;
}

Tensor normal_(const Tensor& self, const NormalArgs& args) {
  Generator gen = generator_or_default(args.generator, "normal_");
  fill_normal(self, args.mean, args.std, gen, "normal_");
  return self;
}

}  // namespace tl::kernels
