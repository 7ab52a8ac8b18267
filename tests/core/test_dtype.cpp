// tests/core/test_dtype.cpp — dtype properties, PyTorch's promotion table, the dispatch macros and
// bfloat16 rounding (round-to-nearest-even, checked against a plain reference over a float sweep).
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>

#include "core/dtype.h"
#include "core/error.h"

namespace tl {
namespace {

constexpr DType kAll[] = {DType::Float32, DType::Float64, DType::Int64, DType::Int32, DType::Bool, DType::BFloat16};

uint32_t bits_of(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float float_of(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Reference rounding written from the definition: of the two bfloat16 values around |f|, take the
// nearer; on a tie take the one whose last mantissa bit is 0. Above the largest finite bfloat16 the
// next value up is 2^128, which IEEE rounding turns into infinity.
uint16_t reference_round(float f) {
  const uint32_t u = bits_of(f);
  const uint32_t sign = u & 0x80000000u, mag = u & 0x7fffffffu;
  const uint32_t below = mag >> 16;  // truncation toward zero
  if ((mag & 0xffffu) == 0) return static_cast<uint16_t>((sign >> 16) | below);
  const double a = std::fabs(static_cast<double>(f));
  const double lo = static_cast<double>(float_of(below << 16));
  const double hi = below + 1 == 0x7f80u ? std::ldexp(1.0, 128) : static_cast<double>(float_of((below + 1) << 16));
  const bool up = (hi - a < a - lo) || (hi - a == a - lo && (below & 1u));
  return static_cast<uint16_t>((sign >> 16) | (up ? below + 1 : below));
}

std::string text(DType d) {
  std::ostringstream os;
  os << d;
  return os.str();
}

TEST_CASE("dtype: element sizes, names and kinds match PyTorch") {
  // torch.empty(0, dtype=d).element_size() and str(d) in PyTorch 1.13.
  const int64_t sizes[] = {4, 8, 8, 4, 1, 2};
  const char* names[] = {"torch.float32", "torch.float64", "torch.int64", "torch.int32", "torch.bool", "torch.bfloat16"};
  const bool floating[] = {true, true, false, false, false, true};
  for (size_t i = 0; i < std::size(kAll); ++i) {
    CHECK(element_size(kAll[i]) == sizes[i]);
    CHECK(std::string(dtype_name(kAll[i])) == names[i]);
    CHECK(text(kAll[i]) == names[i]);
    CHECK(is_floating_point(kAll[i]) == floating[i]);
  }
}

TEST_CASE("dtype: the byte and quantized dtypes' sizes, names and promotion match PyTorch") {
  // PyTorch 1.13: element_size(), str(d), and [torch.promote_types(a, b) for b in the six] for uint8 and int8.
  using enum DType;
  const DType more[] = {UInt8, Int8, QUInt8, QInt8, QInt32};
  const int64_t sizes[] = {1, 1, 1, 1, 4};
  const char* names[] = {"torch.uint8", "torch.int8", "torch.quint8", "torch.qint8", "torch.qint32"};
  for (size_t i = 0; i < std::size(more); ++i) {
    CHECK(element_size(more[i]) == sizes[i]);
    CHECK(text(more[i]) == names[i]);
    CHECK_FALSE(is_floating_point(more[i]));
    CHECK(is_quantized(more[i]) == (i >= 2));
  }
  CHECK(underlying_dtype(QUInt8) == UInt8);
  CHECK(underlying_dtype(QInt8) == Int8);
  CHECK(underlying_dtype(QInt32) == Int32);
  CHECK(underlying_dtype(Float32) == Float32);
  const DType with_uint8[] = {Float32, Float64, Int64, Int32, UInt8, BFloat16};
  const DType with_int8[] = {Float32, Float64, Int64, Int32, Int8, BFloat16};
  for (size_t b = 0; b < std::size(kAll); ++b) {
    INFO(kAll[b]);
    CHECK(promote_types(UInt8, kAll[b]) == with_uint8[b]);
    CHECK(promote_types(kAll[b], Int8) == with_int8[b]);
  }
  CHECK_THROWS_WITH_AS(promote_types(QUInt8, Float32),
                       "promoteTypes with quantized numbers is not handled yet; figure out what the correct rules "
                       "should be, offending types: QUInt8 Float",
                       Error);
  CHECK_THROWS_WITH_AS(promote_types(Int8, UInt8), doctest::Contains("promote to torch.int16"), Error);
  CHECK(promote_types(QInt8, QInt8) == QInt8);
}

TEST_CASE("dtype: the dispatch macros' sets") {
  using enum DType;
  const auto size_of = [](DType d) { return TL_DISPATCH_ALL_TYPES(d, "probe", [&] { return int64_t{sizeof(scalar_t)}; }); };
  CHECK(size_of(UInt8) == 1);
  CHECK(size_of(Int8) == 1);
  CHECK_THROWS_WITH_AS(size_of(QUInt8), "probe: not implemented for torch.quint8", Error);
  const auto compute = [](DType d) { return TL_DISPATCH_COMPUTE_TYPES(d, "add", [&] { return int64_t{sizeof(scalar_t)}; }); };
  CHECK(compute(Bool) == 1);
  CHECK_THROWS_WITH_AS(compute(UInt8), "add: not implemented for torch.uint8", Error);
  const auto qint = [](DType d) {
    return TL_DISPATCH_QINT_TYPES(d, "int_repr", [&] { return int64_t{sizeof(underlying_t)}; });
  };
  CHECK(qint(QInt32) == 4);
  CHECK(qint(QUInt8) == 1);
  CHECK_THROWS_WITH_AS(qint(Float32), "int_repr: expected a quantized dtype, got torch.float32", Error);
}

TEST_CASE("dtype: promote_types reproduces torch.promote_types for every pair") {
  // Printed by PyTorch 1.13: [[torch.promote_types(a, b) for b in kAll] for a in kAll].
  using enum DType;
  const DType expected[6][6] = {
      {Float32, Float64, Float32, Float32, Float32, Float32},
      {Float64, Float64, Float64, Float64, Float64, Float64},
      {Float32, Float64, Int64, Int64, Int64, BFloat16},
      {Float32, Float64, Int64, Int32, Int32, BFloat16},
      {Float32, Float64, Int64, Int32, Bool, BFloat16},
      {Float32, Float64, BFloat16, BFloat16, BFloat16, BFloat16},
  };
  for (size_t a = 0; a < 6; ++a) {
    for (size_t b = 0; b < 6; ++b) {
      INFO(kAll[a], " with ", kAll[b]);
      CHECK(promote_types(kAll[a], kAll[b]) == expected[a][b]);
    }
  }
}

template <typename T>
int64_t size_of_dispatched() {
  return static_cast<int64_t>(sizeof(T));
}

TEST_CASE("dtype: the dispatch macros bind scalar_t to the dtype's C++ type") {
  for (DType d : kAll) {
    CHECK(TL_DISPATCH_ALL_TYPES(d, "test", [&] { return size_of_dispatched<scalar_t>(); }) == element_size(d));
    CHECK(TL_DISPATCH_ALL_TYPES(d, "test", [&] { return dtype_of<scalar_t>; }) == d);
  }
  CHECK_THROWS_WITH_AS(TL_DISPATCH_NUMERIC_TYPES(DType::Bool, "add", [&] { return sizeof(scalar_t); }),
                       "add: not implemented for torch.bool", Error);
  CHECK_THROWS_WITH_AS(TL_DISPATCH_FLOATING_TYPES(DType::Int64, "exp", [&] { return sizeof(scalar_t); }),
                       "exp: expected a floating point dtype, got torch.int64", Error);
  CHECK(TL_DISPATCH_FLOATING_TYPES(DType::BFloat16, "exp", [&] { return dtype_of<scalar_t>; }) == DType::BFloat16);
}

TEST_CASE("bfloat16: rounds to nearest, ties to even, at the interesting bit patterns") {
  CHECK(BFloat16(1.0f).bits == 0x3f80);
  CHECK(BFloat16(float_of(0x3f808000u)).bits == 0x3f80);  // tie, even stays
  CHECK(BFloat16(float_of(0x3f818000u)).bits == 0x3f82);  // tie, odd rounds up
  CHECK(BFloat16(float_of(0x3f808001u)).bits == 0x3f81);  // just above the tie
  CHECK(BFloat16(float_of(0x3f807fffu)).bits == 0x3f80);  // just below the tie
  CHECK(BFloat16(-1.0f).bits == 0xbf80);
  CHECK(BFloat16(float_of(0xbf818000u)).bits == 0xbf82);  // sign does not change the rule
  CHECK(BFloat16(0.0f).bits == 0x0000);
  CHECK(BFloat16(-0.0f).bits == 0x8000);
  CHECK(BFloat16(std::numeric_limits<float>::denorm_min()).bits == 0x0000);
  CHECK(BFloat16(float_of(0x00018000u)).bits == 0x0002);  // subnormal tie rounds to even
}

TEST_CASE("bfloat16: infinities stay infinite, overflow rounds to infinity, NaN stays NaN") {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  CHECK(BFloat16(kInf).bits == 0x7f80);
  CHECK(BFloat16(-kInf).bits == 0xff80);
  CHECK(BFloat16(std::numeric_limits<float>::max()).bits == 0x7f80);
  CHECK(BFloat16(float_of(0x7f7f7fffu)).bits == 0x7f7f);  // largest value that stays finite
  CHECK(BFloat16(-std::numeric_limits<float>::max()).bits == 0xff80);
  // NaNs whose payload lives only in the low 16 bits must not truncate to infinity.
  for (uint32_t nan : {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u, 0x7f80ffffu, 0x7fffffffu}) {
    INFO("nan bits ", nan);
    const BFloat16 b(float_of(nan));
    CHECK(std::isnan(static_cast<float>(b)));
    CHECK((b.bits & 0x0040u) != 0);  // quiet
  }
}

TEST_CASE("bfloat16: matches the reference rounding over a sweep of floats") {
  int64_t mismatches = 0;
  auto check = [&](uint32_t u) {
    const float f = float_of(u);
    if (std::isnan(f)) return;
    if (BFloat16(f).bits != reference_round(f) && ++mismatches <= 5) {
      FAIL_CHECK("bits 0x", std::hex, u, ": got 0x", BFloat16(f).bits, ", expected 0x", reference_round(f));
    }
  };
  for (uint64_t u = 0; u <= 0xffffffffu; u += 4099) check(static_cast<uint32_t>(u));
  // Every bfloat16 neighbourhood with the low halves that decide rounding: exact, ties, near-ties.
  for (uint32_t hi = 0; hi <= 0xffffu; ++hi) {
    for (uint32_t lo : {0x0000u, 0x0001u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu}) check(hi << 16 | lo);
  }
  CHECK(mismatches == 0);
}

TEST_CASE("bfloat16: every bfloat16 value converts to float and back unchanged") {
  int64_t mismatches = 0;
  for (uint32_t b = 0; b <= 0xffffu; ++b) {
    BFloat16 x;
    x.bits = static_cast<uint16_t>(b);
    const float f = x;
    if (bits_of(f) != b << 16 || (!std::isnan(f) && BFloat16(f).bits != b)) {
      if (++mismatches <= 5) FAIL_CHECK("bfloat16 0x", std::hex, b, " does not round-trip");
    }
  }
  CHECK(mismatches == 0);
}

}  // namespace
}  // namespace tl
