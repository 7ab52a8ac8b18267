// core/generator.cpp — the mt19937 engine, its state bytes and the distributions, each written to round
// as ATen's does (same draws, same operation order, float arithmetic where ATen's is float).
#include "core/generator.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numbers>
#include <numeric>
#include <limits>
#include <type_traits>

#include "core/error.h"
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

// The AVX2 kernel's logarithm (Cephes' logf as avx_mathfun.h vectorises it), one lane, for x > 0.
float lane_log(float x) {
  x = std::max(x, std::bit_cast<float>(0x00800000u));
  uint32_t bits = std::bit_cast<uint32_t>(x);
  const int32_t exponent = static_cast<int32_t>(bits >> 23) - 0x7f;
  bits = (bits & ~0x7f800000u) | std::bit_cast<uint32_t>(0.5f);
  x = std::bit_cast<float>(bits);  // in [0.5, 1)
  float e = static_cast<float>(exponent) + 1.0f;
  const bool below = x < static_cast<float>(0.707106781186547524);
  const float tmp = below ? x : 0.0f;
  x = x - 1.0f;
  e = e - (below ? 1.0f : 0.0f);
  x = x + tmp;
  const float z = x * x;
  static constexpr double kP[] = {7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
                                  1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1,  -2.4999993993E-1,
                                  3.3333331174E-1};
  float y = static_cast<float>(kP[0]);
  for (int i = 1; i < 9; ++i) y = std::fma(y, x, static_cast<float>(kP[i]));
  y = y * x;
  y = std::fma(y, z, e * static_cast<float>(-2.12194440e-4));
  y = std::fma(-z, 0.5f, y);
  return std::fma(e, static_cast<float>(0.693359375), x + y);
}

// The AVX2 kernel's sine and cosine (Cephes' sinf/cosf as avx_mathfun.h's sincos256_ps), one lane.
void lane_sincos(float x, float& sine, float& cosine) {
  uint32_t sign_sin = std::bit_cast<uint32_t>(x) & 0x80000000u;
  x = std::fabs(x);
  float y = x * static_cast<float>(1.27323954473516);
  int32_t j = static_cast<int32_t>(y);
  j = (j + 1) & ~1;
  y = static_cast<float>(j);
  sign_sin ^= static_cast<uint32_t>(j & 4) << 29;
  const bool first_poly = (j & 2) == 0;
  const uint32_t sign_cos = static_cast<uint32_t>(~(j - 2) & 4) << 29;
  x = std::fma(y, static_cast<float>(-0.78515625), x);
  x = std::fma(y, static_cast<float>(-2.4187564849853515625e-4), x);
  x = std::fma(y, static_cast<float>(-3.77489497744594108e-8), x);
  const float z = x * x;
  float c = static_cast<float>(2.443315711809948E-005);
  c = std::fma(c, z, static_cast<float>(-1.388731625493765E-003));
  c = std::fma(c, z, static_cast<float>(4.166664568298827E-002));
  c = c * z;
  c = std::fma(c, z, -(z * 0.5f));
  c = c + 1.0f;
  float s = static_cast<float>(-1.9515295891E-4);
  s = std::fma(s, z, static_cast<float>(8.3321608736E-3));
  s = std::fma(s, z, static_cast<float>(-1.6666654611E-1));
  s = std::fma(s * z, x, x);
  const float sin_part_s = first_poly ? s : 0.0f, sin_part_c = first_poly ? 0.0f : c;
  s = s - sin_part_s;
  c = c - sin_part_c;
  sine = std::bit_cast<float>(std::bit_cast<uint32_t>(sin_part_c + sin_part_s) ^ sign_sin);
  cosine = std::bit_cast<float>(std::bit_cast<uint32_t>(c + s) ^ sign_cos);
}

// 16 uniforms in place -> 16 normals: data[j] and data[j + 8] from the pair (data[j], data[j + 8]).
void normal_fill_16(float* data, float mean, float std) {
  const float two_pi = static_cast<float>(2.0 * std::numbers::pi);
  for (int j = 0; j < 8; ++j) {
    const float u1 = 1.0f - data[j], u2 = data[j + 8];
    const float radius = std::sqrt(-2.0f * lane_log(u1));
    float sine, cosine;
    lane_sincos(two_pi * u2, sine, cosine);
    data[j] = std::fma(radius * cosine, std, mean);
    data[j + 8] = std::fma(radius * sine, std, mean);
  }
}

void normal_fill_16(double* data, double mean, double std) {
  for (int j = 0; j < 8; ++j) {
    const double u1 = 1.0 - data[j], u2 = data[j + 8];
    const double radius = std::sqrt(-2.0 * std::log(u1));
    const double theta = 2.0 * std::numbers::pi * u2;
    data[j] = std::fma(radius * std::cos(theta), std, mean);
    data[j + 8] = std::fma(radius * std::sin(theta), std, mean);
  }
}

}  // namespace

void Generator::seed_engine(uint64_t seed) {
  seed_ = seed;
  state_[0] = static_cast<uint32_t>(seed);
  for (int j = 1; j < kStateN; ++j)
    state_[j] = 1812433253u * (state_[j - 1] ^ (state_[j - 1] >> 30)) + static_cast<uint32_t>(j);
  left_ = 1;
  next_ = 0;
  next_double_normal_.reset();
  next_float_normal_.reset();
}

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard lock(mutex_);
  seed_engine(seed);
}

void Generator::twist() {
  left_ = kStateN;
  next_ = 0;
  for (int j = 0; j < kStateN; ++j)
    state_[j] = state_[(j + kStateM) % kStateN] ^ twist_words(state_[j], state_[(j + 1) % kStateN]);
}

uint32_t Generator::random() {
  if (--left_ == 0) twist();
  uint32_t y = state_[next_++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680u;
  y ^= (y << 15) & 0xefc60000u;
  return y ^ (y >> 18);
}

uint64_t Generator::random64() {
  const uint64_t high = random();
  return (high << 32) | random();
}

std::vector<uint8_t> Generator::get_state() const {
  std::lock_guard lock(mutex_);
  StateBytes s{};
  s.the_initial_seed = seed_;
  s.left = left_;
  s.seeded = 1;
  s.next = next_;
  std::copy(state_.begin(), state_.end(), s.state);
  s.normal_is_valid = next_double_normal_.has_value();
  s.normal_y = next_double_normal_.value_or(0.0);
  s.is_next_float_normal_sample_valid = next_float_normal_.has_value();
  s.next_float_normal_sample = next_float_normal_.value_or(0.0f);
  std::vector<uint8_t> bytes(sizeof s);
  std::memcpy(bytes.data(), &s, sizeof s);
  return bytes;
}

void Generator::set_state(std::span<const uint8_t> state) {
  TL_CHECK(state.size() == sizeof(StateBytes), "set_state: expected a CPUGeneratorImplState of size ",
           sizeof(StateBytes), " but found the input RNG state size to be ", state.size());
  StateBytes s;
  std::memcpy(&s, state.data(), sizeof s);
  TL_CHECK(s.seeded != 0 && s.left > 0 && s.left <= kStateN && s.next <= kStateN,
           "set_state: invalid mt19937 state (seeded ", s.seeded, ", left ", s.left, ", next ", s.next, ")");
  std::lock_guard lock(mutex_);
  seed_ = s.the_initial_seed;
  left_ = s.left;
  next_ = static_cast<uint32_t>(s.next);
  std::copy(std::begin(s.state), std::end(s.state), state_.begin());  // ATen keeps the low 32 bits
  next_double_normal_ = s.normal_is_valid ? std::optional<double>(s.normal_y) : std::nullopt;
  next_float_normal_ =
      s.is_next_float_normal_sample_valid ? std::optional<float>(s.next_float_normal_sample) : std::nullopt;
}

template <typename T>
T uniform_real(Generator& gen, T from, T to) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double>);
  constexpr int kDigits = std::numeric_limits<T>::digits;
  constexpr uint64_t kMask = (uint64_t{1} << kDigits) - 1;
  constexpr T kDivisor = T(1) / static_cast<T>(uint64_t{1} << kDigits);
  const uint64_t bits = std::is_same_v<T, double> ? gen.random64() : gen.random();
  const T x = static_cast<T>(bits & kMask) * kDivisor;
  return std::fma(x, to - from, from);  // ATen's x * (to - from) + from, contracted in its AVX2 build
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
bool bernoulli(Generator& gen, T p) {
  return uniform_real(gen, T(0), T(1)) < p;
}
template bool bernoulli<float>(Generator&, float);
template bool bernoulli<double>(Generator&, double);

template <typename T>
void normal_fill(Generator& gen, T* data, int64_t n, double mean, double std) {
  if (n < 16) {
    for (int64_t i = 0; i < n; ++i) data[i] = static_cast<T>(normal(gen, mean, std));
    return;
  }
  for (int64_t i = 0; i < n; ++i) data[i] = uniform_real(gen, T(0), T(1));
  const T mean_t = static_cast<T>(mean), std_t = static_cast<T>(std);
  for (int64_t i = 0; i + 16 <= n; i += 16) normal_fill_16(data + i, mean_t, std_t);
  if (n % 16 != 0) {  // the last 16 again, from fresh uniforms
    T* last = data + n - 16;
    for (int i = 0; i < 16; ++i) last[i] = uniform_real(gen, T(0), T(1));
    normal_fill_16(last, mean_t, std_t);
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
