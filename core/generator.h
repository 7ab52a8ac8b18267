// core/generator.h — seedable random numbers for rand/randn and module initialisation.
// One default generator per process (mutex-protected); results depend only on the seed.
#pragma once

#include <cstdint>
#include <mutex>
#include <random>

namespace tl {

class Generator {
 public:
  explicit Generator(uint64_t seed = 67280421310721ull) : engine_(seed) {}
  void manual_seed(uint64_t seed);
  /// Uniform in [0, 1).
  double uniform();
  /// Standard normal (Box-Muller, both values used).
  double normal();
  uint64_t next_u64();
  /// Held while a kernel draws many numbers, so concurrent users get disjoint sequences.
  std::mutex& mutex() { return mutex_; }

 private:
  std::mt19937_64 engine_;
  bool has_spare_ = false;
  double spare_ = 0.0;
  std::mutex mutex_;
};

Generator& default_generator();
/// Seeds the default generator, like torch.manual_seed.
void manual_seed(uint64_t seed);

}  // namespace tl
