// core/generator.cpp — the mt19937 engine, its state bytes and the distributions, each written to round
// as ATen's does (same draws, same operation order, float arithmetic where ATen's is float).
#include "core/generator.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numbers>
#include <numeric>
#include <limits>
#include <mutex>
#include <type_traits>

#include "core/cpu_features.h"
#include "core/error.h"
#include "core/random_kernels.h"
#include "core/storage.h"

namespace tl {
namespace {

constexpr int kStateN = 624, kStateM = 397;

// torch.get_rng_state()'s layout: ATen's legacy generator state (the engine's words widened to 64 bits
// and a double normal cache, normal_x and normal_rho unused) followed by the float normal cache.
struct StateBytes {
  uint64_t the_initial_seed;
  int32_t left;
  int32_t seeded;
  uint64_t next;
  uint64_t state[kStateN];
  double normal_x;
  double normal_y;
  double normal_rho;
  int32_t normal_is_valid;
  float next_float_normal_sample;
  bool is_next_float_normal_sample_valid;
};
static_assert(std::is_standard_layout_v<StateBytes> && sizeof(StateBytes) == 5056);

uint32_t twist_words(uint32_t u, uint32_t v) {
  const uint32_t mixed = (u & 0x80000000u) | (v & 0x7fffffffu);
  return (mixed >> 1) ^ ((v & 1u) ? 0x9908b0dfu : 0u);
}

// The fastest build of the bulk transforms this CPU runs (all give the same bits).
const detail::RandomKernels& kernels() {
  static const detail::RandomKernels& best =
      detail::cpu_has_avx2_fma() ? detail::random_kernels_avx2 : detail::random_kernels_generic;
  return best;
}

// Engine words per call of the bulk fills: drawn into a stack buffer, then transformed.
constexpr int64_t kWordBlock = 2048;

}  // namespace

// One engine's state, shared by the Generator handles that copy one another.
struct Generator::Engine {
  explicit Engine(uint64_t initial) { seed_engine(initial); }
  void seed_engine(uint64_t seed);
  void twist();

  uint64_t seed = 0;
  int left = 1;
  uint32_t next = 0;
  std::array<uint32_t, kStateN> state{};
  std::optional<double> next_double_normal;
  std::optional<float> next_float_normal;
  std::mutex mutex;
};

void Generator::Engine::seed_engine(uint64_t s) {
  seed = s;
  state[0] = static_cast<uint32_t>(s);
  for (int j = 1; j < kStateN; ++j)
    state[j] = 1812433253u * (state[j - 1] ^ (state[j - 1] >> 30)) + static_cast<uint32_t>(j);
  left = 1;
  next = 0;
  next_double_normal.reset();
  next_float_normal.reset();
}

void Generator::Engine::twist() {
  left = kStateN;
  next = 0;
  int j = 0;  // the index arithmetic of state[(j + M) % N] and state[(j + 1) % N], without the divisions
  for (; j < kStateN - kStateM; ++j) state[j] = state[j + kStateM] ^ twist_words(state[j], state[j + 1]);
  for (; j < kStateN - 1; ++j) state[j] = state[j + kStateM - kStateN] ^ twist_words(state[j], state[j + 1]);
  state[j] = state[j + kStateM - kStateN] ^ twist_words(state[j], state[0]);
}

Generator::Generator(uint64_t seed) : impl_(std::make_shared<Engine>(seed)) {}

Generator::Engine& Generator::engine() const {
  TL_CHECK(impl_ != nullptr, "Generator: this generator is undefined (it was moved from)");
  return *impl_;
}

void Generator::manual_seed(uint64_t seed) {
  Engine& e = engine();
  std::lock_guard lock(e.mutex);
  e.seed_engine(seed);
}

uint64_t Generator::initial_seed() const { return engine().seed; }

std::optional<double>& Generator::next_double_normal() { return engine().next_double_normal; }
std::optional<float>& Generator::next_float_normal() { return engine().next_float_normal; }
std::mutex& Generator::mutex() { return engine().mutex; }

uint32_t Generator::random() {
  Engine& e = engine();
  if (--e.left == 0) e.twist();
  uint32_t y = e.state[e.next++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  return y ^ (y >> 18);
}

void Generator::random_block(uint32_t* out, int64_t n) {
  Engine& e = engine();
  while (n > 0) {
    if (e.left == 1) {  // what random()'s --left == 0 does, leaving all kStateN words to take
      e.twist();
      e.left = kStateN + 1;
    }
    const int64_t take = std::min<int64_t>(n, e.left - 1);
    const uint32_t* words = e.state.data() + e.next;
    for (int64_t i = 0; i < take; ++i) {
      uint32_t y = words[i];
      y ^= y >> 11;
      y ^= (y << 7) & 0x9d2c5680u;
      y ^= (y << 15) & 0xefc60000u;
      out[i] = y ^ (y >> 18);
    }
    e.next += static_cast<uint32_t>(take);
    e.left -= static_cast<int>(take);
    out += take;
    n -= take;
  }
}

uint64_t Generator::random64() {
  const uint64_t high = random();
  return (high << 32) | random();
}

std::vector<uint8_t> Generator::get_state() const {
  Engine& e = engine();
  std::lock_guard lock(e.mutex);
  StateBytes s{};
  s.the_initial_seed = e.seed;
  s.left = e.left;
  s.seeded = 1;
  s.next = e.next;
  std::copy(e.state.begin(), e.state.end(), s.state);
  s.normal_is_valid = e.next_double_normal.has_value();
  s.normal_y = e.next_double_normal.value_or(0.0);
  s.is_next_float_normal_sample_valid = e.next_float_normal.has_value();
  s.next_float_normal_sample = e.next_float_normal.value_or(0.0f);
  std::vector<uint8_t> bytes(sizeof s);
  std::memcpy(bytes.data(), &s, sizeof s);
  return bytes;
}

void Generator::set_state(std::span<const uint8_t> state) {
  Engine& e = engine();
  TL_CHECK(state.size() == sizeof(StateBytes), "set_state: expected a CPUGeneratorImplState of size ",
           sizeof(StateBytes), " but found the input RNG state size to be ", state.size());
  StateBytes s;
  std::memcpy(&s, state.data(), sizeof s);
  TL_CHECK(s.seeded != 0 && s.left > 0 && s.left <= kStateN && s.next <= kStateN,
           "set_state: invalid mt19937 state (seeded ", s.seeded, ", left ", s.left, ", next ", s.next, ")");
  std::lock_guard lock(e.mutex);
  e.seed = s.the_initial_seed;
  e.left = s.left;
  e.next = static_cast<uint32_t>(s.next);
  std::copy(std::begin(s.state), std::end(s.state), e.state.begin());  // ATen keeps the low 32 bits
  e.next_double_normal = s.normal_is_valid ? std::optional<double>(s.normal_y) : std::nullopt;
  e.next_float_normal =
      s.is_next_float_normal_sample_valid ? std::optional<float>(s.next_float_normal_sample) : std::nullopt;
}

Generator generator_or_default(const std::optional<Generator>& generator, const char* op) {
  if (!generator) return default_generator();
  TL_CHECK(generator->defined(), op, ": the generator is undefined (a moved-from tl::Generator)");
  return *generator;
}

template <typename T>
T uniform_real(Generator& gen, T from, T to) {
  T value;
  uniform_fill(gen, &value, 1, from, to);
  return value;
}
template float uniform_real<float>(Generator&, float, float);
template double uniform_real<double>(Generator&, double, double);

double normal(Generator& gen, double mean, double std) {
  if (std::optional<double>& cached = gen.next_double_normal()) {
    const double value = *cached;
    cached.reset();
    return std::fma(value, std, mean);
  }
  const double u1 = uniform_real(gen, 0.0, 1.0), u2 = uniform_real(gen, 0.0, 1.0);
  const double radius = std::sqrt(-2.0 * std::log(1.0 - u2));
  const double theta = 2.0 * std::numbers::pi * u1;
  gen.next_double_normal() = radius * std::sin(theta);
  return std::fma(radius * std::cos(theta), std, mean);
}

template <typename T>
void uniform_fill(Generator& gen, T* data, int64_t n, T from, T to) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  constexpr int64_t kWordsPerValue = std::is_same_v<T, double> ? 2 : 1;
  uint32_t words[kWordBlock];
  for (int64_t done = 0; done < n;) {
    const int64_t count = std::min(n - done, kWordBlock / kWordsPerValue);
    gen.random_block(words, count * kWordsPerValue);
    if constexpr (std::is_same_v<T, double>) kernels().uniform_f64(words, data + done, count, from, to);
    else kernels().uniform_f32(words, data + done, count, from, to);
    done += count;
  }
}
template void uniform_fill<float>(Generator&, float*, int64_t, float, float);
template void uniform_fill<double>(Generator&, double*, int64_t, double, double);

template <typename T>
void normal_fill(Generator& gen, T* data, int64_t n, double mean, double std) {
  if (n < 16) {
    for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(normal(gen, mean, std));
    return;
  }
  const auto transform = [&](T* values, int64_t count) {
    if constexpr (std::is_same_v<T, double>) kernels().normal_f64(values, count, mean, std);
    else kernels().normal_f32(values, count, static_cast<float>(mean), static_cast<float>(std));
  };
  uniform_fill(gen, data, n, T(0), T(1));
  transform(data, n - n % 16);
  if (n % 16 != 0) {  // the last 16 again, from fresh uniforms
    uniform_fill(gen, data + n - 16, 16, T(0), T(1));
    transform(data + n - 16, 16);
  }
}
template void normal_fill<float>(Generator&, float*, int64_t, double, double);
template void normal_fill<double>(Generator&, double*, int64_t, double, double);

std::vector<int64_t> permutation(Generator& gen, int64_t n) {
  TL_CHECK(fits_allocation_limit(n, sizeof(int64_t)), "randperm: n=", n, " int64 values would exceed the allocation limit of ",
           allocation_limit(), " bytes (see tl::set_allocation_limit)");
  std::vector<int64_t> r(static_cast<size_t>(std::max<int64_t>(n, 0)));
  std::iota(r.begin(), r.end(), int64_t{0});
  std::lock_guard lock(gen.mutex());
  for (int64_t i = 0; i + 1 < n; ++i) {
    const int64_t z = static_cast<int64_t>(gen.random() % static_cast<uint64_t>(n - i));
    std::swap(r[static_cast<size_t>(i)], r[static_cast<size_t>(z + i)]);
  }
  return r;
}

Generator& default_generator() {
  static Generator g;
  return g;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

std::vector<uint8_t> get_rng_state() { return default_generator().get_state(); }

void set_rng_state(std::span<const uint8_t> state) { default_generator().set_state(state); }

}  // namespace tl
