// core/generator.cpp — the default generator and its distributions.
#include "core/generator.h"

#include <cmath>
#include <numbers>

namespace tl {

void Generator::manual_seed(uint64_t seed) {
  std::lock_guard lock(mutex_);
  engine_.seed(seed);
  has_spare_ = false;
}

uint64_t Generator::next_u64() { return engine_(); }

double Generator::uniform() {
  // 53 random bits -> [0, 1) exactly representable.
  return static_cast<double>(engine_() >> 11) * (1.0 / 9007199254740992.0);
}

double Generator::normal() {
  if (has_spare_) {
    has_spare_ = false;
    return spare_;
  }
  double u1 = uniform();
  while (u1 <= 0.0) u1 = uniform();
  const double u2 = uniform();
  const double r = std::sqrt(-2.0 * std::log(u1));
  spare_ = r * std::sin(2.0 * std::numbers::pi * u2);
  has_spare_ = true;
  return r * std::cos(2.0 * std::numbers::pi * u2);
}

Generator& default_generator() {
  static Generator g;
  return g;
}

void manual_seed(uint64_t seed) { default_generator().manual_seed(seed); }

}  // namespace tl
