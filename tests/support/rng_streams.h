// tests/support/rng_streams.h — PyTorch 1.13's random streams (tests/reference/rng_streams.txt, written by
// tests/reference/make_rng_references.py) and bit-exact comparison against them; a refused call's check that the
// default stream did not move.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/generator.h"
#include "core/tensor.h"

namespace tl::testing {

/// The values of stream `name`, as written: floats as the hex of their bits, integers in decimal. Throws
/// std::runtime_error for a name the file lacks.
std::vector<std::string> rng_stream(const std::string& name);
/// A tensor's values (row-major) in the file's notation.
std::vector<std::string> stream_values(const Tensor& t);
/// Empty when `values` are stream `name` exactly; else the first difference (index, got, expected).
std::string stream_mismatch(const std::string& name, const std::vector<std::string>& values);
std::string stream_mismatch(const std::string& name, const Tensor& t);
/// Integers (indices, state bytes) in the file's notation.
template <typename Int>
std::vector<std::string> decimal(const std::vector<Int>& values) {
  std::vector<std::string> out;
  for (Int v : values) out.push_back(std::to_string(v));
  return out;
}

/// The seeds every stream is written for: 0, 1 and 2^31 - 1.
inline const std::vector<uint64_t> kStreamSeeds = {0, 1, 2147483647};
/// The floating dtypes streams are written for, as their names spell them ("rand.f32.5").
inline const std::pair<const char*, DType> kStreamDtypes[] = {{"f32", DType::Float32}, {"f64", DType::Float64}};
/// A stream's name for a seed: "s<seed>.<rest>".
inline std::string stream_name(uint64_t seed, const std::string& rest) { return "s" + std::to_string(seed) + "." + rest; }

/// Checks that `call()` throws tl::Error with `message` and leaves the default generator (seeded 8 first) where
/// it was.
template <typename Call>
void refused(Call call, const std::string& message) {
  CAPTURE(message);
  manual_seed(8);
  const std::vector<uint8_t> before = get_rng_state();
  CHECK_THROWS_WITH_AS(call(), message.c_str(), Error);
  CHECK(get_rng_state() == before);
}

}  // namespace tl::testing
