// tests/core/test_generator.cpp — the generator gives PyTorch 1.13's streams bit for bit (rng_streams.txt:
// draws, distributions, normal_fill's block transform, the state bytes of torch.get_rng_state); seeded
// generators repeat exactly, different seeds differ, and the distributions have the right moments.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>
#include <cstdint>
#include <utility>
#include <vector>

#include "core/cpu_features.h"
#include "core/error.h"
#include "core/generator.h"
#include "core/random_kernels.h"
#include "tests/support/rng_streams.h"

namespace tl {
namespace {

using testing::decimal;
using testing::kStreamSeeds;
using testing::stream_mismatch;
using testing::stream_name;

double uniform(Generator& g) { return uniform_real(g, 0.0, 1.0); }
double standard_normal(Generator& g) { return normal(g, 0.0, 1.0); }

// Values in the streams' notation: the hex of each value's bits.
template <typename T>
std::vector<std::string> hex_values(const std::vector<T>& values) {
  std::vector<std::string> out;
  for (T v : values) {
    std::ostringstream text;
    text << std::hex << std::setfill('0') << std::setw(2 * sizeof(T));
    if constexpr (sizeof(T) == 4) text << std::bit_cast<uint32_t>(v);
    else text << std::bit_cast<uint64_t>(v);
    out.push_back(text.str());
  }
  return out;
}

constexpr int kDraws = 200000;

struct Moments {
  double mean = 0, var = 0, skew = 0, kurt = 0, min = INFINITY, max = -INFINITY;
};

template <typename Draw>
Moments moments(Draw draw) {
  std::vector<double> x(kDraws);
  Moments m;
  for (double& v : x) {
    v = draw();
    m.mean += v;
    m.min = std::min(m.min, v);
    m.max = std::max(m.max, v);
  }
  m.mean /= kDraws;
  double m2 = 0, m3 = 0, m4 = 0;
  for (double v : x) {
    const double d = v - m.mean;
    m2 += d * d;
    m3 += d * d * d;
    m4 += d * d * d * d;
  }
  m.var = m2 / kDraws;
  m.skew = m3 / kDraws / std::pow(m.var, 1.5);
  m.kurt = m4 / kDraws / (m.var * m.var);
  return m;
}

TEST_CASE("generator: the same seed gives the same sequence, different seeds differ") {
  Generator a(42), b(42), c(43);
  int same_as_c = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t x = a.random64();
    CHECK(x == b.random64());
    same_as_c += x == c.random64();
  }
  CHECK(same_as_c == 0);
  for (int i = 0; i < 1001; ++i) {  // odd count: leaves a spare normal behind
    CHECK(uniform(a) == uniform(b));
    CHECK(standard_normal(a) == standard_normal(b));
  }
}

TEST_CASE("generator: manual_seed restarts the sequence and drops a pending spare normal") {
  Generator g(7);
  std::vector<double> first;
  for (int i = 0; i < 5; ++i) first.push_back(standard_normal(g));
  g.manual_seed(7);
  (void)standard_normal(g);  // leaves the pair's second value pending
  g.manual_seed(7);
  for (double v : first) CHECK(standard_normal(g) == v);
}

TEST_CASE("generator: tl::manual_seed makes the default generator reproducible") {
  manual_seed(2024);
  const double u = uniform(default_generator()), n = standard_normal(default_generator());
  manual_seed(2024);
  CHECK(uniform(default_generator()) == u);
  CHECK(standard_normal(default_generator()) == n);
  manual_seed(2025);
  CHECK(uniform(default_generator()) != u);
}

TEST_CASE("generator: uniform lies in [0, 1) with mean 1/2 and variance 1/12") {
  Generator g(123);
  const Moments m = moments([&] { return uniform(g); });
  CHECK(m.min >= 0.0);
  CHECK(m.max < 1.0);
  CHECK(m.min < 1e-4);
  CHECK(m.max > 1 - 1e-4);
  const double se = std::sqrt(1.0 / 12.0 / kDraws);
  CHECK(std::fabs(m.mean - 0.5) < 5 * se);
  CHECK(std::fabs(m.var - 1.0 / 12.0) < 0.002);
  CHECK(std::fabs(m.skew) < 0.03);
}

TEST_CASE("generator: normal has mean 0, variance 1, no skew and kurtosis 3") {
  Generator g(321);
  const Moments m = moments([&] { return standard_normal(g); });
  const double se = 1.0 / std::sqrt(static_cast<double>(kDraws));
  CHECK(std::fabs(m.mean) < 5 * se);
  CHECK(std::fabs(m.var - 1.0) < 5 * std::sqrt(2.0) * se);
  CHECK(std::fabs(m.skew) < 5 * std::sqrt(6.0) * se);
  CHECK(std::fabs(m.kurt - 3.0) < 5 * std::sqrt(24.0) * se);
  CHECK(m.min < -4.0);  // the tails are reached
  CHECK(m.max > 4.0);
}

TEST_CASE("generator: PyTorch's rand and randn streams, float32 and float64, sizes 1 to 33") {
  for (uint64_t seed : kStreamSeeds) {
    for (int64_t n : {1, 5, 15, 16, 17, 33}) {
      CAPTURE(seed);
      CAPTURE(n);
      const std::string size = "." + std::to_string(n);
      Generator g(seed);
      std::vector<float> f(static_cast<size_t>(n));
      for (float& v : f) v = uniform_real(g, 0.0f, 1.0f);
      CHECK(stream_mismatch(stream_name(seed, "rand.f32" + size), hex_values(f)) == "");
      g.manual_seed(seed);
      std::vector<double> d(static_cast<size_t>(n));
      for (double& v : d) v = uniform_real(g, 0.0, 1.0);
      CHECK(stream_mismatch(stream_name(seed, "rand.f64" + size), hex_values(d)) == "");
      g.manual_seed(seed);
      normal_fill(g, f.data(), n, 0.0, 1.0);  // 16 or more: ATen's block transform (AVX2 arithmetic)
      CHECK(stream_mismatch(stream_name(seed, "randn.f32" + size), hex_values(f)) == "");
      g.manual_seed(seed);
      normal_fill(g, d.data(), n, 0.0, 1.0);
      CHECK(stream_mismatch(stream_name(seed, "randn.f64" + size), hex_values(d)) == "");
    }
  }
}

TEST_CASE("generator: random_block is random() n times, across engine twists") {
  Generator a(5), b(5);
  (void)a.random();  // start off a twist boundary
  (void)b.random();
  std::vector<uint32_t> block(3000);
  a.random_block(block.data(), 700);
  a.random_block(block.data() + 700, 2300);
  for (uint32_t word : block) CHECK(word == b.random());
  CHECK(a.random() == b.random());
}

TEST_CASE("generator: the generic and AVX2 builds of the bulk transforms give the same bits") {
  if (!detail::cpu_has_avx2_fma()) return;  // only one build can run here
  const detail::RandomKernels& generic = detail::random_kernels_generic;
  const detail::RandomKernels& avx2 = detail::random_kernels_avx2;
  Generator g(11);
  constexpr int64_t kValues = 4096;
  std::vector<uint32_t> words(2 * kValues);
  g.random_block(words.data(), 2 * kValues);
  std::vector<float> f1(kValues), f2(kValues);
  std::vector<double> d1(kValues), d2(kValues);
  generic.uniform_f32(words.data(), f1.data(), kValues, -2.0f, 3.0f);
  avx2.uniform_f32(words.data(), f2.data(), kValues, -2.0f, 3.0f);
  CHECK(hex_values(f1) == hex_values(f2));
  generic.uniform_f64(words.data(), d1.data(), kValues, -2.0, 3.0);
  avx2.uniform_f64(words.data(), d2.data(), kValues, -2.0, 3.0);
  CHECK(hex_values(d1) == hex_values(d2));
  generic.uniform_f32(words.data(), f1.data(), kValues, 0.0f, 1.0f);
  f2 = f1;
  generic.normal_f32(f1.data(), kValues, 0.1f, 0.3f);
  avx2.normal_f32(f2.data(), kValues, 0.1f, 0.3f);
  CHECK(hex_values(f1) == hex_values(f2));
  generic.uniform_f64(words.data(), d1.data(), kValues, 0.0, 1.0);
  d2 = d1;
  generic.normal_f64(d1.data(), kValues, 0.1, 0.3);
  avx2.normal_f64(d2.data(), kValues, 0.1, 0.3);
  CHECK(hex_values(d1) == hex_values(d2));
}

TEST_CASE("generator: a Generator of its own draws torch.Generator().manual_seed(s)'s numbers") {
  for (uint64_t seed : kStreamSeeds) {
    CAPTURE(seed);
    manual_seed(seed + 1);  // the default generator is not involved
    Generator g(seed);
    std::vector<float> f(5);
    for (float& v : f) v = uniform_real(g, 0.0f, 1.0f);
    std::vector<double> d(5);
    normal_fill(g, d.data(), 5, 0.0, 1.0);
    CHECK(stream_mismatch(stream_name(seed, "generator.rand.f32.5"), hex_values(f)) == "");
    CHECK(stream_mismatch(stream_name(seed, "generator.randn.f64.5"), hex_values(d)) == "");
  }
}

TEST_CASE("generator: a Generator is a handle: copies share one engine, a moved-from one is undefined") {
  Generator a(9), reference(9);
  Generator b = a;
  CHECK(a.random() == reference.random());
  CHECK(b.random() == reference.random());  // b continues a's stream
  b.manual_seed(9);
  reference.manual_seed(9);
  CHECK(a.random() == reference.random());
  Generator moved = std::move(a);
  CHECK_FALSE(a.defined());  // NOLINT(bugprone-use-after-move): what is tested
  CHECK(moved.defined());
  CHECK(moved.random() == reference.random());
  CHECK_THROWS_WITH_AS((void)a.random(), "Generator: this generator is undefined (it was moved from)", Error);
  CHECK_THROWS_WITH_AS((void)a.initial_seed(), "Generator: this generator is undefined (it was moved from)", Error);
  a = moved;  // assigning makes it a handle of that engine again
  CHECK(a.random() == reference.random());
}

TEST_CASE("generator: permutation is torch.randperm's order") {
  for (uint64_t seed : kStreamSeeds)
    for (int64_t n : {1, 5, 17, 33}) {
      Generator g(seed);
      CHECK(stream_mismatch(stream_name(seed, "randperm." + std::to_string(n)), decimal(permutation(g, n))) == "");
    }
}

TEST_CASE("generator: get_state gives torch.get_rng_state()'s bytes; set_state resumes PyTorch's stream") {
  for (uint64_t seed : kStreamSeeds) {
    CAPTURE(seed);
    Generator g(seed);
    CHECK(stream_mismatch(stream_name(seed, "rng_state.seeded"), decimal(g.get_state())) == "");
    std::vector<double> three(3);
    normal_fill(g, three.data(), 3, 0.0, 1.0);  // leaves a cached normal
    (void)uniform_real(g, 0.0f, 1.0f);
    const std::vector<uint8_t> drawn = g.get_state();
    CHECK(stream_mismatch(stream_name(seed, "rng_state.drawn"), decimal(drawn)) == "");

    Generator resumed(12345);
    resumed.set_state(drawn);
    normal_fill(resumed, three.data(), 3, 0.0, 1.0);  // the cached normal first
    CHECK(stream_mismatch(stream_name(seed, "rng_state.drawn.then_randn.f64.3"), hex_values(three)) == "");
    CHECK(resumed.initial_seed() == seed);
  }
}

TEST_CASE("generator: set_state refuses a wrong size or an invalid engine state and keeps its own") {
  Generator g(5);
  (void)g.random();
  const std::vector<uint8_t> before = g.get_state();
  const std::vector<uint8_t> short_state(100);
  CHECK_THROWS_WITH_AS(g.set_state(short_state),
                       "set_state: expected a CPUGeneratorImplState of size 5056 but found the input RNG state size to be 100",
                       Error);
  std::vector<uint8_t> bad = before;
  std::fill(bad.begin() + 8, bad.begin() + 12, uint8_t{0});  // left = 0
  CHECK_THROWS_WITH_AS(g.set_state(bad), "set_state: invalid mt19937 state (seeded 1, left 0, next 1)", Error);
  CHECK(g.get_state() == before);
  set_rng_state(before);
  CHECK(get_rng_state() == before);
}

}  // namespace
}  // namespace tl
