// tests/ops/test_copy.cpp — copy_, clone, contiguous and to: layouts of both sides, broadcasting, every
// dtype conversion against plain C++ conversions (bfloat16 against an independent rounding), and errors.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "core/dispatch.h"
#include "ops/ops.h"
#include "tests/ops/elementwise_testing.h"
#include "tests/support/tensor_check.h"

namespace tl {
namespace {

using testing::element_at;
using testing::kAllDTypes;
using testing::kLayouts;
using testing::Layout;

// Round-to-nearest-even onto bfloat16, decided by comparing distances to the two neighbours.
double bf16_reference(float f) {
  if (std::isnan(f)) return f;
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  const uint32_t down_bits = bits & 0xffff0000u, up_bits = down_bits + 0x10000u;
  float down, up;
  std::memcpy(&down, &down_bits, sizeof down);
  std::memcpy(&up, &up_bits, sizeof up);
  const double to_down = std::fabs(static_cast<double>(f) - down), to_up = std::fabs(static_cast<double>(up) - f);
  if (to_down != to_up) return to_down < to_up ? down : up;
  return (down_bits >> 16) & 1u ? up : down;
}

// What converting `v` (already a value of the source dtype) to `to` must give.
double converted(double v, DType to) {
  switch (to) {
    case DType::Bool: return v != 0 ? 1 : 0;
    case DType::Int64:
    case DType::Int32: return std::trunc(v);
    case DType::Float32: return static_cast<float>(v);
    case DType::Float64: return v;
    case DType::BFloat16: return bf16_reference(static_cast<float>(v));
    default: break;  // the byte types' conversions are checked against PyTorch in test_quantized.cpp
  }
  return NAN;
}

// Values that probe truncation, bfloat16 ties (1 + 2^-8, 1 + 3 * 2^-8) and large integers.
Tensor probe_values(DType dtype) {
  const std::vector<double> floats = {-2.75, -1.5, -0.5, 0, 0.375, 1.75, 3.5, 300.75, 1 + 1.0 / 256, 1 + 3.0 / 256, 1e-3, -7};
  const std::vector<double> ints = {-7, -1, 0, 1, 2, 255, 256, 257, 65537, 16777217, -16777219, 3};
  const Tensor source = from_vector<double>(is_floating_point(dtype) ? floats : ints, {3, 4});
  if (dtype != DType::Bool) return source.to(dtype);
  return from_vector<bool>({true, false, true, true, false, false, true, false, true, true, false, true}, {3, 4});
}

TEST_CASE("copy_: every dtype conversion matches plain conversions") {
  for (DType from : kAllDTypes) {
    for (DType to : kAllDTypes) {
      CAPTURE(from);
      CAPTURE(to);
      const Tensor src = probe_values(from);
      const Tensor ref = testing::reference(src.shape(), {src}, [&](const auto& v) { return converted(v[0], to); });
      Tensor dst = empty({3, 4}, to);
      Tensor& r = dst.copy_(src);
      CHECK(&r == &dst);
      CHECK(dst.dtype() == to);
      CHECK_TENSOR_CLOSE(dst, ref, 0, 0);
      CHECK_TENSOR_CLOSE(src.to(to), ref, 0, 0);
      // The same conversion between non-contiguous sides.
      Tensor wide = zeros({4, 3}, to);
      wide.t().copy_(src);
      CHECK_TENSOR_CLOSE(wide.t(), ref, 0, 0);
      CHECK_TENSOR_CLOSE(src.t().to(to), ref.t(), 0, 0);
    }
  }
  // Float32 to bfloat16 over many values, ties included, in a loop large enough to run on threads.
  std::mt19937_64 rng(41);
  const Tensor f = testing::make_input({131, 257}, DType::Float32, Layout::Transposed, rng, -1000, 1000);
  CHECK_TENSOR_CLOSE(f.to(DType::BFloat16), testing::reference(f.shape(), {f}, [](const auto& v) {
                       return bf16_reference(static_cast<float>(v[0]));
                     }),
                     0, 0);
}

TEST_CASE("copy_: floating values an integer dtype cannot hold become its lowest value, as on x86") {
  // Found by fuzzing (UBSan: float-cast-overflow). A plain cast is undefined; PyTorch on x86 gets
  // what cvttss2si/cvttsd2si return, which these are.
  const std::vector<double> values = {NAN, INFINITY, -INFINITY, 1e30, -1e30, 9223372036854775808.0,
                                      -9223372036854775808.0, 2147483648.0, -2147483649.0, -2.75, 2147483647.0};
  for (DType from : {DType::Float32, DType::Float64, DType::BFloat16}) {
    CAPTURE(from);
    const Tensor src = from_vector<double>(values, {11}).to(from);
    const Tensor as_double = src.to(DType::Float64);
    const double* v = as_double.data<double>();
    const Tensor i64 = src.to(DType::Int64), i32 = src.to(DType::Int32);
    for (int64_t i = 0; i < src.numel(); ++i) {
      CAPTURE(v[i]);
      const bool fits64 = v[i] >= -0x1p63 && v[i] < 0x1p63, fits32 = v[i] >= -0x1p31 && v[i] < 0x1p31;
      CHECK(i64.data<int64_t>()[i] == (fits64 ? static_cast<int64_t>(v[i]) : INT64_MIN));
      CHECK(i32.data<int32_t>()[i] == (fits32 ? static_cast<int32_t>(v[i]) : INT32_MIN));
    }
  }
}

TEST_CASE("copy_: layouts of self and src, broadcasting and 0-size shapes") {
  std::mt19937_64 rng(42);
  const std::pair<Shape, Shape> shapes[] = {{{3}, {3}},       {{2, 3, 4}, {4}}, {{3, 4}, {3, 1}}, {{5}, {}},
                                            {{0, 3}, {3}},    {{33, 7}, {33, 7}}, {{1000}, {1000}}};
  for (DType dtype : kAllDTypes) {
    for (Layout self_layout : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
      for (Layout src_layout : kLayouts) {
        // Named members, not a structured binding: clang 14 cannot capture one in CAPTURE/INFO.
        for (const auto& entry : shapes) {
          const auto& self_shape = entry.first;
          const auto& src_shape = entry.second;
          CAPTURE(dtype);
          CAPTURE(testing::layout_name(self_layout));
          CAPTURE(testing::layout_name(src_layout));
          CAPTURE(self_shape);
          CAPTURE(src_shape);
          Tensor self = testing::make_input(self_shape, dtype, self_layout, rng);
          const Tensor src = testing::make_input(src_shape, dtype, src_layout, rng);
          const Strides strides = self.strides();
          self.copy_(src);
          CHECK(self.strides() == strides);
          CHECK_TENSOR_CLOSE(self, testing::reference(self_shape, {src}, [](const auto& v) { return v[0]; }), 0, 0);
        }
      }
    }
  }
}

TEST_CASE("copy_: loops split over threads, every layout pair") {
  std::mt19937_64 rng(45);
  for (Layout self_layout : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
    for (Layout src_layout : kLayouts) {
      for (const Shape& src_shape : {Shape{257}, Shape{131, 257}}) {
        CAPTURE(testing::layout_name(self_layout));
        CAPTURE(testing::layout_name(src_layout));
        CAPTURE(src_shape);
        Tensor self = testing::make_input({131, 257}, DType::Float32, self_layout, rng);
        const Tensor src = testing::make_input(src_shape, DType::Float32, src_layout, rng);
        self.copy_(src);
        CHECK_TENSOR_CLOSE(self, testing::reference(self.shape(), {src}, [](const auto& v) { return v[0]; }), 0, 0);
      }
    }
  }
}

TEST_CASE("copy_: writes only the viewed elements of the base") {
  Tensor base = zeros({4, 6});
  const Tensor src = from_vector<float>({1, 2, 3}, {3});
  base.slice(1, 1, std::nullopt, 2).copy_(src);
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 6; ++j) {
      CAPTURE(i);
      CAPTURE(j);
      CHECK(element_at(base, i * 6 + j) == (j % 2 == 1 ? static_cast<double>(j / 2 + 1) : 0.0));
    }
  }
  Tensor square = zeros({3, 3});
  const Tensor values = arange(0, 9, 1, DType::Float32).view({3, 3});
  square.t().copy_(values);
  CHECK_TENSOR_CLOSE(square, values.t(), 0, 0);
}

TEST_CASE("copy_: errors and self-copies") {
  Tensor x = ones({2});
  CHECK_THROWS_WITH_AS(x.copy_(ones({2, 2})), "copy_: output with shape [2] doesn't match the broadcast shape [2, 2]", Error);
  CHECK_THROWS_WITH_AS(x.copy_(ones({3})), doctest::Contains("copy_: shapes [2] and [3] cannot be broadcast"), Error);
  CHECK_THROWS_WITH_AS(x.copy_(Tensor()), "copy_: expected a tensor for 'src', got None", Error);
  Tensor expanded = ones({3}).expand({2, 3});
  CHECK_THROWS_WITH_AS(expanded.copy_(zeros({2, 3})),
                       "copy_: unsupported operation: more than one element of the written-to tensor refers to a single "
                       "memory location. Please clone() the tensor before performing the operation.",
                       Error);
  Tensor seq = arange(0, 6, 1, DType::Float32);
  CHECK_THROWS_WITH_AS(seq.slice(0, 1, std::nullopt).copy_(seq.slice(0, 0, 5)),
                       doctest::Contains("copy_: unsupported operation: some elements of the input tensor"), Error);
  const Tensor before = seq.clone();
  seq.copy_(seq);
  seq.copy_(seq.view({6}));
  CHECK_TENSOR_CLOSE(seq, before, 0, 0);
}

TEST_CASE("clone: a fresh contiguous copy for every dtype and layout") {
  std::mt19937_64 rng(43);
  for (DType dtype : kAllDTypes) {
    for (Layout layout : kLayouts) {
      for (const Shape& shape : {Shape{}, Shape{0, 4}, Shape{5, 7}, Shape{2, 3, 33}}) {
        CAPTURE(dtype);
        CAPTURE(testing::layout_name(layout));
        CAPTURE(shape);
        const Tensor x = testing::make_input(shape, dtype, layout, rng);
        const Tensor c = x.clone();
        CHECK(c.dtype() == dtype);
        CHECK(c.is_contiguous());
        CHECK(c.storage() != x.storage());
        CHECK_TENSOR_CLOSE(c, x, 0, 0);
      }
    }
  }
  const Tensor x = ones({3});
  Tensor c = x.clone();
  c.copy_(zeros({3}));
  CHECK(element_at(x, 0) == 1);
}

TEST_CASE("contiguous and to: the input itself when nothing needs doing") {
  std::mt19937_64 rng(44);
  const Tensor x = testing::random_tensor({4, 5}, DType::Float32, rng);
  CHECK(x.contiguous().is_same(x));
  CHECK(x.to(DType::Float32).is_same(x));
  CHECK(x.t().to(DType::Float32).storage() == x.storage());
  const Tensor t = x.t().contiguous();
  CHECK_FALSE(t.is_same(x));
  CHECK(t.is_contiguous());
  CHECK(t.storage() != x.storage());
  CHECK_TENSOR_CLOSE(t, x.t(), 0, 0);
  // A size-1 dimension's stride does not matter for contiguity.
  const Tensor column = x.slice(1, 2, 3);
  CHECK(column.slice(0, 0, 1).contiguous().storage() == x.storage());
  const Tensor d = x.to(DType::Float64);
  CHECK(d.dtype() == DType::Float64);
  CHECK_TENSOR_CLOSE(d, x, 0, 0);
}

TEST_CASE("contiguous: a contiguous tensor comes back with no op run, a copy goes through clone, as in PyTorch") {
  struct Recorder : DispatchHook {
    std::vector<std::string> names;
    void before(const OpCall& c) override { names.push_back(op_info(c.op).aten_name); }
  } recorder;
  const Tensor x = ones({2, 3});
  {
    dispatch::HookGuard guard(&recorder);
    const Tensor same = x.contiguous();
    CHECK(same.is_same(x));
    const Tensor copy = x.t().contiguous();
  }
  CHECK(recorder.names == std::vector<std::string>{"aten::t", "aten::contiguous", "aten::clone"});
}

}  // namespace
}  // namespace tl
