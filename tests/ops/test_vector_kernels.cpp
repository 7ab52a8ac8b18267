// tests/ops/test_vector_kernels.cpp — every ISA build of ops/vector_kernels.h that this CPU runs gives the SSE2
// build's bits, block by block, over sweeps with NaN, infinities, -0.0, denormals and out-of-range values; the
// bfloat16 loops give the scalar formula's bits; and the switch refuses names it does not know.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/dtype.h"
#include "core/generator.h"
#include "ops/lane_loops.h"
#include "ops/ops.h"
#include "ops/vector_kernels.h"
#include "ops/vector_math.h"
#include "tests/ops/vector_isa.h"

namespace tl {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

// Special values, then values from every binade of float (both signs), then the float neighbours of multiples
// of pi / 4, then uniform values in [-100, 100]: 1283 values, an odd count so that blocks have a remainder.
std::vector<float> sweep() {
  std::vector<float> v = {std::numeric_limits<float>::quiet_NaN(), kInf, -kInf, 0.0f, -0.0f, 1e-40f, -1e-40f,
                          std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::max(),
                          -std::numeric_limits<float>::max(), detail::kTrigMax, -detail::kTrigMax,
                          std::nextafter(detail::kTrigMax, kInf), 0x1p23f, -0x1p23f};
  for (int e = -126; e <= 127; e += 2)
    for (float m : {1.0f, 1.37f, -1.0f, -1.73f}) v.push_back(std::ldexp(m, e));
  for (int k = 1; k < 200; k += 3) {
    const auto near = static_cast<float>(k * M_PI_4);
    for (float x : {near, std::nextafter(near, 0.0f), std::nextafter(near, kInf)}) v.push_back(x);
  }
  std::mt19937 rng(0);
  std::uniform_real_distribution<float> uniform(-100.0f, 100.0f);
  while (v.size() < 1283) v.push_back(uniform(rng));
  return v;
}

uint32_t bits(float x) { return std::bit_cast<uint32_t>(x); }

// The outputs of `block` on `in` (one or two inputs of v.size() values) and its out-of-range flag.
struct BlockResult {
  std::vector<float> out;
  unsigned outside;
};
BlockResult run_block(detail::VectorBlock block, const float* const* in, int64_t n) {
  BlockResult r{std::vector<float>(static_cast<size_t>(n)), 0};
  r.outside = block(in, r.out.data(), n);
  return r;
}

// Both blocks agree on the flag and on every element `valid` accepts (elsewhere the value is unspecified).
template <typename Valid>
void check_same_block(detail::VectorBlock got, detail::VectorBlock want, const float* const* in, int64_t n,
                      const Valid& valid) {
  const BlockResult a = run_block(got, in, n), b = run_block(want, in, n);
  CHECK((a.outside != 0) == (b.outside != 0));
  int differ = 0;
  for (int64_t k = 0; k < n; ++k)
    if (valid(k) && bits(a.out[k]) != bits(b.out[k])) ++differ;
  CHECK(differ == 0);
}

TEST_CASE("vector kernels: every ISA build gives the SSE2 build's bits") {
  const std::vector<float> x = sweep();
  std::vector<float> y(x.rbegin(), x.rend());  // a divisor for each dividend, specials included
  const auto n = static_cast<int64_t>(x.size());
  const detail::VectorKernels& base = detail::vector_kernels_sse2;
  testing::for_each_vector_isa([&](const char* isa) {
    const detail::VectorKernels& k = detail::vector_kernels();
    CHECK(std::string(detail::vector_isa()) == isa);
    const float* one[] = {x.data()};
    const float* two[] = {x.data(), y.data()};
    const auto trig_valid = [&](int64_t i) { return detail::trig_in_range(x[i]); };
    check_same_block(k.sin, base.sin, one, n, trig_valid);
    check_same_block(k.cos, base.cos, one, n, trig_valid);
    check_same_block(k.div_floor, base.div_floor, two, n,
                     [&](int64_t i) { return detail::div_floor_in_range(x[i], y[i]); });
    check_same_block(k.fmod, base.fmod, two, n, [&](int64_t i) { return detail::div_floor_in_range(x[i], y[i]); });
    check_same_block(k.remainder, base.remainder, two, n,
                     [&](int64_t i) { return detail::div_floor_in_range(x[i], y[i]); });
    // The rounding blocks, fmod and remainder are exact: <cmath>'s bits wherever the block holds.
    const auto exact = [&](detail::VectorBlock block, const float* const* in, float (*want)(float, float)) {
      const BlockResult r = run_block(block, in, n);
      int differ = 0;
      for (int64_t i = 0; i < n; ++i) {
        if (block == k.fmod || block == k.remainder)
          if (!detail::div_floor_in_range(x[i], y[i])) continue;
        const float w = want(x[i], y[i]);
        if (bits(r.out[i]) != bits(w) && !(std::isnan(r.out[i]) && std::isnan(w))) ++differ;
      }
      CHECK(differ == 0);
      return r.outside;
    };
    CHECK(exact(k.floor, one, [](float v, float) { return std::floor(v); }) == 0);
    CHECK(exact(k.ceil, one, [](float v, float) { return std::ceil(v); }) == 0);
    CHECK(exact(k.round, one, [](float v, float) { return std::nearbyint(v); }) == 0);
    CHECK(exact(k.trunc, one, [](float v, float) { return std::trunc(v); }) == 0);
    CHECK(exact(k.fmod, two, [](float a, float b) { return std::fmod(a, b); }) != 0);  // x / y reaches 2^23
    CHECK(exact(k.remainder, two, [](float a, float b) {
            const float mod = std::fmod(a, b);
            return mod != 0.0f && ((b < 0.0f) != (mod < 0.0f)) ? mod + b : mod;
          }) != 0);
    check_same_block(k.maximum, base.maximum, two, n, [](int64_t) { return true; });
    check_same_block(k.minimum, base.minimum, two, n, [](int64_t) { return true; });
    CHECK(run_block(k.maximum, two, n).outside == 0);
    // The flag is raised by an out-of-range element alone.
    const float in_range[] = {0.5f, -3.0f, 1e6f};
    const float* in_range_ptr[] = {in_range};
    CHECK(run_block(k.sin, in_range_ptr, 3).outside == 0);

    // Sums of exponentials and products over short runs (the lanes' remainders) and over all the (repeated) finite
    // values of the sweep at once (n > kLeaf: the cascade's halves).
    std::vector<float> finite;
    while (finite.size() < 3000)
      for (float v : x)
        if (std::isfinite(v) && std::fabs(v) < 50.0f) finite.push_back(v);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> uniform(0.5f, 1.5f);
    std::vector<float> near_one(finite.size());  // products that stay finite
    for (float& v : near_one) v = uniform(rng);
    const std::vector<int64_t> lengths = {0, 1, 15, 16, 17, 33, 300, static_cast<int64_t>(finite.size())};
    for (const int64_t len : lengths) {
      CAPTURE(len);
      CHECK(bits(k.shifted_exp_sum(finite.data(), len, 3.5f)) == bits(base.shifted_exp_sum(finite.data(), len, 3.5f)));
      const int64_t factors = std::min(len, n - 20);  // x[20] onward: the binades, then the rest
      CHECK(bits(k.prod(x.data() + 20, factors)) == bits(base.prod(x.data() + 20, factors)));
      CHECK(bits(k.prod(near_one.data(), len)) == bits(base.prod(near_one.data(), len)));
    }
    CHECK(std::isnan(k.shifted_exp_sum(x.data(), 16, 0.0f)));  // x[0] is NaN
    std::vector<float> acc_a(x.size(), 1.0f), acc_b(x.size(), 1.0f);
    k.shifted_exp_add(acc_a.data(), x.data(), y.data(), n);
    base.shifted_exp_add(acc_b.data(), x.data(), y.data(), n);
    int differ = 0;
    for (size_t i = 0; i < x.size(); ++i)
      if (bits(acc_a[i]) != bits(acc_b[i]) && !(std::isnan(acc_a[i]) && std::isnan(acc_b[i]))) ++differ;
    CHECK(differ == 0);
  });
}

// The dense elementwise loops (ops/elementwise.h) follow the same switch: each op's result on every build is the
// SSE2 build's, bit for bit (NaN as NaN), in float32 and float64, over the sweep with a broadcast operand too.
TEST_CASE("dense elementwise loops: every ISA build gives the SSE2 build's bits") {
  const std::vector<float> v = sweep();
  const auto n = static_cast<int64_t>(v.size());
  std::vector<float> w(v.rbegin(), v.rend());
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&, const Tensor&)>>> ops = {
      {"add alpha", [](const Tensor& a, const Tensor& b) { return add(a, b, 0.3); }},
      {"sub", [](const Tensor& a, const Tensor& b) { return sub(a, b); }},
      {"mul", [](const Tensor& a, const Tensor& b) { return mul(a, b); }},
      {"div", [](const Tensor& a, const Tensor& b) { return div(a, b); }},
      {"div broadcast", [](const Tensor& a, const Tensor& b) { return div(a, b.narrow(0, 5, 1)); }},
      {"addcmul", [](const Tensor& a, const Tensor& b) { return addcmul(a, b, a, 0.7); }},
      {"addcdiv", [](const Tensor& a, const Tensor& b) { return addcdiv(a, b, a, -1.3); }},
      {"lerp", [](const Tensor& a, const Tensor& b) { return lerp(a, b, 0.25); }},
      {"clamp", [](const Tensor& a, const Tensor&) { return clamp(a, Scalar(-2.5), Scalar(3.0)); }},
      {"hardtanh", [](const Tensor& a, const Tensor&) { return hardtanh(a); }},
      {"leaky_relu", [](const Tensor& a, const Tensor&) { return leaky_relu(a, 0.01); }},
      {"hardsigmoid", [](const Tensor& a, const Tensor&) { return hardsigmoid(a); }},
      {"hardswish", [](const Tensor& a, const Tensor&) { return hardswish(a); }},
      {"elu", [](const Tensor& a, const Tensor&) { return elu(a, 1.5); }},
      {"softplus", [](const Tensor& a, const Tensor&) { return softplus(a, 2.0); }},
      {"mish", [](const Tensor& a, const Tensor&) { return mish(a); }},
      {"silu", [](const Tensor& a, const Tensor&) { return silu(a); }},
      {"gelu", [](const Tensor& a, const Tensor&) { return gelu(a); }},
      {"sigmoid", [](const Tensor& a, const Tensor&) { return sigmoid(a); }},
      {"sign", [](const Tensor& a, const Tensor&) { return sign(a); }},
      {"abs", [](const Tensor& a, const Tensor&) { return abs(a); }},
      {"sqrt", [](const Tensor& a, const Tensor&) { return sqrt(a); }},
      {"log", [](const Tensor& a, const Tensor&) { return log(a); }},
      {"exp", [](const Tensor& a, const Tensor&) { return exp(a); }},
      {"erf", [](const Tensor& a, const Tensor&) { return erf(a); }},
      {"xlogy", [](const Tensor& a, const Tensor& b) { return xlogy(a, b); }},
      {"binary_cross_entropy",  // probabilities: the sweep and its reversal through sigmoid, NaN (refused) to 0.5
       [](const Tensor& a, const Tensor& b) {
         return binary_cross_entropy(sigmoid(a).nan_to_num(0.5), sigmoid(b).nan_to_num(0.5), {}, 0);
       }},
      {"bce_with_logits",
       [](const Tensor& a, const Tensor& b) { return binary_cross_entropy_with_logits(a, b, {}, {}, 0); }},
      {"maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }},
      {"minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); }},
      {"sin", [](const Tensor& a, const Tensor&) { return sin(a); }},
      {"floor", [](const Tensor& a, const Tensor&) { return floor(a); }},
      {"div floor", [](const Tensor& a, const Tensor& b) { return div(a, b, "floor"); }},
  };
  // bfloat16: the blocks' operands are widened and rounded at the CPU's width (ops/elementwise.h's fast_run).
  for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
    CAPTURE(dtype);
    const Tensor a = from_vector<float>(v, {n}).to(dtype), b = from_vector<float>(w, {n}).to(dtype);
    for (const auto& entry : ops) {  // no structured binding: clang 14 cannot capture one in the lambda below
      const std::string op_name = entry.first;
      CAPTURE(op_name);
      const auto& op = entry.second;
      std::map<std::string, Tensor> results;
      testing::for_each_vector_isa([&](const char* isa) { results[isa] = op(a, b).to(DType::Float64); });
      const Tensor& want = results.at("sse2");
      for (const auto& result : results) {
        CAPTURE(result.first);
        int differ = 0;
        for (int64_t i = 0; i < n; ++i) {
          const double g = result.second.data<double>()[i], e = want.data<double>()[i];
          if (std::bit_cast<uint64_t>(g) != std::bit_cast<uint64_t>(e) && !(std::isnan(g) && std::isnan(e))) ++differ;
        }
        CHECK(differ == 0);
      }
    }
  }
}

// The reductions run each chunk of a floating reduction at the CPU's width (ops/reduction.h): whole, along
// contiguous runs and across rows (vertical), over a transposed view, in float32, float64 and bfloat16, each the
// SSE2 build's bits (NaN as NaN). The sweep's NaN is dropped in a second pass, so that the lanes' extremes, and
// which of -0.0 and 0.0 a tie keeps, decide the result.
TEST_CASE("reductions: every ISA build gives the SSE2 build's bits") {
  std::vector<float> v = sweep();
  v.resize(1280);
  std::vector<float> no_nan = v;
  no_nan[0] = -0.0f;  // sweep()'s NaN
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>> ops = {
      {"amax", [](const Tensor& x) { return amax(x); }},
      {"amax rows", [](const Tensor& x) { return amax(x.reshape({40, 32}), 1); }},
      {"amax columns", [](const Tensor& x) { return amax(x.reshape({40, 32}), 0); }},
      {"amin rows", [](const Tensor& x) { return amin(x.reshape({20, 64}), 1); }},
      {"amin transposed", [](const Tensor& x) { return amin(x.reshape({32, 40}).t(), 1); }},
      {"max rows", [](const Tensor& x) { return x.reshape({40, 32}).max(1).values; }},
      {"sum", [](const Tensor& x) { return sum(x); }},
      {"sum middle", [](const Tensor& x) { return sum(x.reshape({8, 10, 16}), 1); }},
      {"mean rows", [](const Tensor& x) { return mean(x.reshape({40, 32}), 1); }},
      {"prod rows", [](const Tensor& x) { return prod(x.reshape({80, 16}) * 0.03, 1); }},
      {"prod columns", [](const Tensor& x) { return prod(x.reshape({16, 80}) * 0.03, 0); }},
      {"logsumexp middle", [](const Tensor& x) { return logsumexp(x.reshape({8, 10, 16}), 1); }},
      {"norm 3 rows", [](const Tensor& x) { return linalg_vector_norm(x.reshape({40, 32}), 3, {1}); }},
      {"norm inf columns", [](const Tensor& x) { return linalg_vector_norm(x.reshape({40, 32}), INFINITY, {0}); }},
  };
  for (const std::vector<float>* values : {&v, &no_nan}) {
    const Tensor base = from_vector<float>(*values, {static_cast<int64_t>(values->size())});
    for (DType dtype : {DType::Float32, DType::Float64, DType::BFloat16}) {
      CAPTURE(dtype);
      const Tensor x = base.to(dtype);
      for (const auto& entry : ops) {  // no structured binding: clang 14 cannot capture one in the lambda below
        const std::string op_name = entry.first;
        CAPTURE(op_name);
        const auto& op = entry.second;
        std::map<std::string, Tensor> results;
        testing::for_each_vector_isa([&](const char* isa) { results[isa] = op(x).to(DType::Float64).contiguous(); });
        const Tensor& want = results.at("sse2");
        for (const auto& result : results) {
          CAPTURE(result.first);
          REQUIRE(result.second.numel() == want.numel());
          int differ = 0;
          for (int64_t i = 0; i < want.numel(); ++i) {
            const double g = result.second.data<double>()[i], e = want.data<double>()[i];
            if (std::bit_cast<uint64_t>(g) != std::bit_cast<uint64_t>(e) && !(std::isnan(g) && std::isnan(e))) ++differ;
          }
          CHECK(differ == 0);
        }
      }
    }
  }
}

// A loss reduced inside its kernel takes a double cascade sum (ops/loss.cpp's reduce_in_kernel): the mean and the
// sum of bce_with_logits and smooth_l1_loss over 1003 elements (a remainder past the lanes) give the SSE2 build's
// bits on every build, in float32 and float64.
TEST_CASE("loss reductions inside a kernel give the SSE2 build's bits on every ISA build") {
  Generator gen(11);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    CAPTURE(dtype);
    const Tensor x = randn({1003}, gen).to(dtype), y = rand({1003}, gen).to(dtype);
    for (int64_t reduction : {1, 2}) {
      CAPTURE(reduction);
      std::map<std::string, double> results;
      testing::for_each_vector_isa([&](const char* isa) {
        const Tensor bce = binary_cross_entropy_with_logits(x, y, {}, {}, reduction);
        const Tensor smooth = smooth_l1_loss(x, y, reduction, 0.5);
        results[std::string(isa) + " bce"] = bce.to(DType::Float64).item<double>();
        results[std::string(isa) + " smooth_l1"] = smooth.to(DType::Float64).item<double>();
      });
      for (const auto& result : results) {
        CAPTURE(result.first);
        const std::string loss = result.first.substr(result.first.find(' '));
        CHECK(std::bit_cast<uint64_t>(result.second) == std::bit_cast<uint64_t>(results.at("sse2" + loss)));
      }
    }
  }
}

// layer_norm and group_norm run each chunk of rows at the same width (ops/norm_rows.h): forward and backward, the
// SSE2 build's bits on every build.
// Their moments are double sums in fixed lanes (ops/norm_moments.h), so neither a float64 row nor a float32 one
// whose sum cancels depends on the vector width (an `omp simd reduction` added in 2, 4 or 8 lanes did).
TEST_CASE("norm rows: layer_norm and group_norm give the SSE2 build's bits on every ISA build, forward and backward") {
  manual_seed(5);
  for (DType dtype : {DType::Float32, DType::Float64}) {
    CAPTURE(dtype);
    const Tensor x = (randn({6, 4, 5, 9}) * 3 + 1).to(dtype), w = randn({4}).to(dtype), b = randn({4}).to(dtype);
    const Tensor lw = randn({5, 9}).to(dtype), lb = randn({5, 9}).to(dtype), grad_y = randn({6, 4, 5, 9}).to(dtype);
    const Tensor cancelling = tensor({0.0f, 3.0f, 0.0f, -1.0f, 1.0f, 1.0f, 3.0f, 3.0f, 3.0f, 0.0f, -1.0f, 1e20f, -1e20f,
                                      3.0f, 1.0f, 0.0f, 2.0f}).reshape({1, 17}).to(dtype);
    const auto run = [&] {
      const Tensor xl = x.clone().requires_grad_(), xg = x.clone().requires_grad_();
      const Tensor yl = layer_norm(xl, {5, 9}, lw, lb), yg = group_norm(xg, 2, w, b);
      (yl * grad_y).sum().backward();
      (yg * grad_y).sum().backward();
      const auto saved = native_layer_norm(cancelling, {17}, Tensor(), Tensor(), 1e-5);
      return std::vector<Tensor>{yl.detach(), yg.detach(), xl.grad(), xg.grad(), std::get<1>(saved)};
    };
    std::map<std::string, std::vector<Tensor>> results;
    testing::for_each_vector_isa([&](const char* isa) { results[isa] = run(); });
    for (const auto& result : results) {
      CAPTURE(result.first);
      for (size_t i = 0; i < result.second.size(); ++i) {
        CAPTURE(i);
        CHECK(equal(result.second[i], results.at("sse2")[i]));
      }
    }
  }
}

// softmax's and log_softmax's contiguous float rows run each chunk of rows at the CPU's width: the max, the exponentials and the eight
// double lanes of the sum give the SSE2 build's bits on every build, for rows of every remainder of the 16- and
// 8-wide steps (a NaN row included).
TEST_CASE("softmax and log_softmax rows give the SSE2 build's bits on every ISA build") {
  manual_seed(6);
  for (int64_t n : {1, 7, 8, 15, 16, 24, 29, 197}) {
    CAPTURE(n);
    Tensor x = randn({9, n}) * 5;
    x.data<float>()[n / 2] = NAN;
    std::map<std::string, Tensor> results;
    testing::for_each_vector_isa([&](const char* isa) { results[isa] = cat({softmax(x, 1), log_softmax(x, 1)}); });
    for (const auto& result : results) {
      CAPTURE(result.first);
      const Tensor& want = results.at("sse2");
      CHECK(std::memcmp(result.second.data<float>(), want.data<float>(), sizeof(float) * want.numel()) == 0);
    }
  }
}

// logsumexp's bfloat16 loops against the scalar formula they replace: BFloat16's own conversions, each step
// rounded to bfloat16, summed in cascade_sum's order; the same bits on every ISA build.
TEST_CASE("vector kernels: bfloat16 exponential sums give the scalar formula's bits on every ISA build") {
  std::vector<BFloat16> p;
  std::vector<uint16_t> p_bits;
  for (float v : sweep()) {
    if (std::isfinite(v) && std::fabs(v) > 60.0f) continue;  // keep the sums finite, except for the specials below
    p.emplace_back(v);
  }
  while (p.size() < 2500) p.push_back(p[10 + p.size() % 600]);
  p[3] = BFloat16(kInf);
  p[9] = BFloat16(-kInf);
  for (const BFloat16& v : p) p_bits.push_back(v.bits);
  const auto shifted = [](BFloat16 v, float max) {
    return static_cast<float>(BFloat16(detail::vector_exp(static_cast<float>(BFloat16(static_cast<float>(v) - max)))));
  };
  const BFloat16 max(3.5f);
  testing::for_each_vector_isa([&](const char*) {
    const detail::VectorKernels& k = detail::vector_kernels();
    // From p[10] on: past the NaN (p[0]) and the infinities, whose runs are checked apart.
    const std::vector<int64_t> lengths = {0, 1, 17, 300, 1100, static_cast<int64_t>(p.size()) - 10};
    for (const int64_t len : lengths) {
      CAPTURE(len);
      const float want = detail::cascade_sum<float, true>(p.data() + 10, len, 1,
                                                          [&](BFloat16 v) { return shifted(v, max); });
      CHECK(std::isfinite(want));
      CHECK(bits(k.shifted_exp_sum_bf16(p_bits.data() + 10, len, max)) == bits(want));
    }
    CHECK(std::isnan(k.shifted_exp_sum_bf16(p_bits.data(), 40, max)));
    CHECK(k.shifted_exp_sum_bf16(p_bits.data() + 1, 40, max) == kInf);
    std::vector<uint16_t> maxes(p_bits.rbegin(), p_bits.rend());
    std::vector<float> acc(p.size(), 0.5f);
    k.shifted_exp_add_bf16(acc.data(), p_bits.data(), maxes.data(), static_cast<int64_t>(p.size()));
    int differ = 0;
    for (size_t i = 0; i < p.size(); ++i) {
      BFloat16 m;
      m.bits = maxes[i];
      const float want = 0.5f + shifted(p[i], static_cast<float>(m));
      if (bits(acc[i]) != bits(want) && !(std::isnan(acc[i]) && std::isnan(want))) ++differ;
    }
    CHECK(differ == 0);
  });
}

TEST_CASE("vector kernels: the ISA switch refuses an unknown name and keeps the build it had") {
  const detail::VectorKernels* before = &detail::vector_kernels();
  const std::string before_isa = detail::vector_isa();
  CHECK(!detail::set_vector_isa("avx1024"));
  CHECK(!detail::set_vector_isa(""));
  CHECK(&detail::vector_kernels() == before);
  CHECK(detail::vector_isa() == before_isa);
  CHECK(detail::set_vector_isa("sse2"));
  CHECK(&detail::vector_kernels() == &detail::vector_kernels_sse2);
  CHECK(std::string(detail::vector_isa()) == "sse2");
  CHECK(detail::set_vector_isa(before_isa.c_str()));
  CHECK(&detail::vector_kernels() == before);
}

}  // namespace
}  // namespace tl
