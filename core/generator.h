// core/generator.h — PyTorch's CPU generator: the same mt19937 engine, the same draws (random(),
// random64()) and the same distributions, so tl::manual_seed(s) gives torch.manual_seed(s)'s numbers.
// Every random op draws through a Generator (the default one or the caller's generator=), holding its mutex.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <vector>

namespace tl {

/// torch.Generator on the CPU: a 32-bit Mersenne Twister seeded as ATen's mt19937 (state[0] = the
/// seed's low 32 bits), plus the cached second value of the last Box-Muller pair, as CPUGeneratorImpl.
/// A handle, as torch.Generator and LibTorch's at::Generator are: copies share one engine, so a generator
/// given to an op, a DataLoader or a copy draws from the same stream. A moved-from Generator is undefined:
/// every use of it throws tl::Error.
class Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ull);
  Generator(const Generator&) = default;
  Generator& operator=(const Generator&) = default;
  Generator(Generator&& other) noexcept = default;
  Generator& operator=(Generator&& other) noexcept = default;

  /// False for a moved-from generator.
  bool defined() const { return impl_ != nullptr; }

  /// Reseeds and drops the cached normals, like torch.Generator.manual_seed / torch.manual_seed.
  void manual_seed(uint64_t seed);
  /// The seed last given (torch.Generator.initial_seed).
  uint64_t initial_seed() const;

  /// The next 32 bits of the engine (ATen's CPUGeneratorImpl::random).
  uint32_t random();
  /// Two draws, the first in the high half (ATen's random64).
  uint64_t random64();
  /// n draws at once: out[i] is the i-th next random().
  void random_block(uint32_t* out, int64_t n);

  /// The cached second value of a Box-Muller pair for double (and float) normals, taken by the next draw.
  std::optional<double>& next_double_normal();
  std::optional<float>& next_float_normal();

  /// torch.get_rng_state()'s bytes (taken under the mutex): ATen's CPUGeneratorImplState (5056 bytes on x86-64 and aarch64).
  std::vector<uint8_t> get_state() const;
  /// Restores bytes from get_state (torch.set_rng_state); throws tl::Error for a wrong size or an invalid
  /// engine state, leaving the generator as it was.
  void set_state(std::span<const uint8_t> state);

  /// Held while a kernel draws many numbers, so concurrent users get disjoint sequences.
  std::mutex& mutex();

 private:
  struct Engine;
  /// The shared engine; tl::Error for a moved-from generator.
  Engine& engine() const;

  std::shared_ptr<Engine> impl_;
};

/// The generator of a `Generator? generator` argument: the default generator for none, else the caller's.
/// Throws tl::Error naming `op` for an undefined (moved-from) one, before anything is drawn.
Generator generator_or_default(const std::optional<Generator>& generator, const char* op);

/// ATen's uniform_real_distribution<T>: U[from, to) from 24 bits (float, one random()) or 53 bits (double,
/// one random64()), computed in T as x * (to - from) + from.
template <typename T>
T uniform_real(Generator& gen, T from, T to);
/// data[0, n) filled with uniform_real<T>(gen, from, to) draws in order, in bulk (the caller holds gen.mutex()).
template <typename T>
void uniform_fill(Generator& gen, T* data, int64_t n, T from, T to);
/// ATen's normal_distribution<double>: Box-Muller on two uniforms, the sine kept for the next call.
double normal(Generator& gen, double mean, double std);
/// Exactly n draws of uniform_real<T>(gen, 0, 1), handed out one at a time but drawn in blocks through
/// uniform_fill, for the callers that test each value (ATen's bernoulli_distribution: a draw < p). Takes
/// from gen only the words the n values use, so the stream after it is ATen's. The caller holds gen.mutex().
template <typename T>
class UniformDraws {
 public:
  UniformDraws(Generator& gen, int64_t n) : gen_(gen), left_(n) {}
  /// The next draw; at most n calls.
  T next() {
    if (at_ == count_) {
      count_ = std::min(kBlock, left_);
      left_ -= count_;
      uniform_fill(gen_, block_, count_, T(0), T(1));
      at_ = 0;
    }
    return block_[at_++];
  }

 private:
  static constexpr int64_t kBlock = 256;
  Generator& gen_;
  int64_t left_;
  int64_t at_ = 0, count_ = 0;
  T block_[kBlock];
};

/// Fills data[0, n) with N(mean, std^2) as ATen's normal_ kernel does: n >= 16 (a contiguous tensor)
/// draws n uniforms then transforms them 16 at a time (ATen's normal_fill; float with the AVX2 kernel's
/// arithmetic, the CPUs PyTorch dispatches to), redrawing the last 16 when n is not a multiple of 16;
/// fewer than 16 draw normal(gen, mean, std) one by one (in double). The caller holds gen.mutex().
template <typename T>
void normal_fill(Generator& gen, T* data, int64_t n, double mean, double std);

/// 0..n-1 in ATen's randperm order: swap r[i] with r[i + random() % (n - i)] for i = 0..n-2 (takes the mutex).
/// Throws tl::Error naming n, before drawing, when n int64 values would pass the allocation limit (core/storage.h).
std::vector<int64_t> permutation(Generator& gen, int64_t n);

Generator& default_generator();
/// Seeds the default generator, like torch.manual_seed.
void manual_seed(uint64_t seed);
/// The default generator's state (torch.get_rng_state) and its restoration (torch.set_rng_state).
std::vector<uint8_t> get_rng_state();
void set_rng_state(std::span<const uint8_t> state);

}  // namespace tl
