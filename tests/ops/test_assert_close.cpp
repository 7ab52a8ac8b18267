// tests/ops/test_assert_close.cpp — tl::testing::assert_close against torch.testing.assert_close:
// every expected message is PyTorch 1.13's, printed by tests/ops/gen_assert_close_cases.py (the None
// messages add which side is undefined; the tolerance refusals are torch.isclose's, prefixed).
#include <doctest/doctest.h>

#include <cmath>

#include "ops/ops.h"
#include "ops/testing.h"

using tl::DType;
using tl::Error;
using tl::Tensor;
using tl::from_vector;
using tl::testing::assert_close;
using tl::testing::AssertCloseOptions;

namespace {

Tensor f32(const std::vector<float>& v, const tl::Shape& shape) { return from_vector<float>(v, shape); }
Tensor f32(const std::vector<float>& v) { return f32(v, {static_cast<int64_t>(v.size())}); }

AssertCloseOptions tolerances(double rtol, double atol) {
  AssertCloseOptions o;
  o.rtol = rtol;
  o.atol = atol;
  return o;
}

}  // namespace

TEST_CASE("assert_close: float32 mismatches report count and greatest differences") {
  const Tensor a = tl::arange(0, 12, 1, DType::Float32).reshape({3, 4});
  std::vector<float> bv(12);
  for (int i = 0; i < 12; ++i) bv[i] = static_cast<float>(i);
  bv[1] += 0.5f;
  bv[6] -= 1e-3f;
  bv[11] += 2;
  const Tensor b = f32(bv, {3, 4});
  CHECK_THROWS_WITH_AS(assert_close(b, a),
                       "Tensor-likes are not close!\n\nMismatched elements: 3 / 12 (25.0%)\n"
                       "Greatest absolute difference: 2.0 at index (2, 3) (up to 1e-05 allowed)\n"
                       "Greatest relative difference: 0.5 at index (0, 1) (up to 1.3e-06 allowed)",
                       Error);
  CHECK_THROWS_WITH_AS(assert_close(b, a, tolerances(0.0, 1e-2)),
                       "Tensor-likes are not close!\n\nMismatched elements: 2 / 12 (16.7%)\n"
                       "Greatest absolute difference: 2.0 at index (2, 3) (up to 0.01 allowed)\n"
                       "Greatest relative difference: 0.5 at index (0, 1) (up to 0.0 allowed)",
                       Error);
  CHECK_NOTHROW(assert_close(a, a));
}

TEST_CASE("assert_close: equality, ties, float64 and float32 promoted to float64") {
  CHECK_THROWS_WITH_AS(assert_close(tl::zeros({3}), tl::ones({3}), tolerances(0.0, 0.0)),
                       "Tensor-likes are not equal!\n\nMismatched elements: 3 / 3 (100.0%)\n"
                       "Greatest absolute difference: 1.0 at index (0,)\nGreatest relative difference: 1.0 at index (0,)",
                       Error);
  CHECK_THROWS_WITH_AS(assert_close(tl::zeros({2, 2}), tl::ones({2, 2})),
                       "Tensor-likes are not close!\n\nMismatched elements: 4 / 4 (100.0%)\n"
                       "Greatest absolute difference: 1.0 at index (0, 0) (up to 1e-05 allowed)\n"
                       "Greatest relative difference: 1.0 at index (0, 0) (up to 1.3e-06 allowed)",
                       Error);
  CHECK_THROWS_WITH_AS(assert_close(tl::zeros({3}, DType::Float64), tl::full({3}, 1e-6, DType::Float64)),
                       "Tensor-likes are not close!\n\nMismatched elements: 3 / 3 (100.0%)\n"
                       "Greatest absolute difference: 1e-06 at index (0,) (up to 1e-07 allowed)\n"
                       "Greatest relative difference: 1.0 at index (0,) (up to 1e-07 allowed)",
                       Error);
  CHECK_THROWS_WITH_AS(assert_close(f32({1.0f, 0.0f}), f32({1.0f, 1e-3f})),
                       "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                       "Greatest absolute difference: 0.0010000000474974513 at index (1,) (up to 1e-05 allowed)\n"
                       "Greatest relative difference: 1.0 at index (1,) (up to 1.3e-06 allowed)",
                       Error);
  CHECK_NOTHROW(assert_close(f32({1.0f, 2.0f}), f32({1.0f, 2.0f + 3e-6f})));
}

TEST_CASE("assert_close: NaN and infinities") {
  const float nan = NAN, inf = INFINITY;
  CHECK_THROWS_WITH_AS(assert_close(f32({1.0f, nan}), f32({1.0f, nan})),
                       "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                       "Greatest absolute difference: nan at index (1,) (up to 1e-05 allowed)\n"
                       "Greatest relative difference: nan at index (1,) (up to 1.3e-06 allowed)",
                       Error);
  AssertCloseOptions equal_nan;
  equal_nan.equal_nan = true;
  CHECK_NOTHROW(assert_close(f32({1.0f, nan}), f32({1.0f, nan}), equal_nan));
  CHECK_NOTHROW(assert_close(f32({inf}), f32({inf})));
  CHECK_THROWS_WITH_AS(assert_close(f32({inf}), f32({-inf})),
                       "Tensor-likes are not close!\n\nMismatched elements: 1 / 1 (100.0%)\n"
                       "Greatest absolute difference: inf at index (0,) (up to 1e-05 allowed)\n"
                       "Greatest relative difference: nan at index (0,) (up to 1.3e-06 allowed)",
                       Error);
}

TEST_CASE("assert_close: integers and bool compare exactly, bfloat16 has its own tolerance") {
  CHECK_THROWS_WITH_AS(assert_close(from_vector<int64_t>({1, 2, 3}, {3}), from_vector<int64_t>({1, 2, 4}, {3})),
                       "Tensor-likes are not equal!\n\nMismatched elements: 1 / 3 (33.3%)\n"
                       "Greatest absolute difference: 1 at index (2,)\nGreatest relative difference: 0.25 at index (2,)",
                       Error);
  CHECK_THROWS_WITH_AS(assert_close(from_vector<bool>({true}, {1}), from_vector<bool>({false}, {1})),
                       "Tensor-likes are not equal!\n\nMismatched elements: 1 / 1 (100.0%)\n"
                       "Greatest absolute difference: 1 at index (0,)\nGreatest relative difference: inf at index (0,)",
                       Error);
  CHECK_THROWS_WITH_AS(assert_close(f32({1.0f, 2.0f}).to(DType::BFloat16), f32({1.0f, 2.5f}).to(DType::BFloat16)),
                       "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                       "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
                       "Greatest relative difference: 0.2 at index (1,) (up to 0.016 allowed)",
                       Error);
}

TEST_CASE("assert_close: 0-dim tensors are Scalars") {
  CHECK_THROWS_WITH_AS(assert_close(tl::scalar_tensor(1.5, DType::Float32), tl::scalar_tensor(1.0, DType::Float32)),
                       "Scalars are not close!\n\nAbsolute difference: 0.5 (up to 1e-05 allowed)\n"
                       "Relative difference: 0.5 (up to 1.3e-06 allowed)",
                       Error);
  CHECK_THROWS_WITH_AS(assert_close(tl::scalar_tensor(1.5, DType::Float32), tl::scalar_tensor(0.0, DType::Float32)),
                       "Scalars are not close!\n\nAbsolute difference: 1.5 (up to 1e-05 allowed)\n"
                       "Relative difference: inf (up to 1.3e-06 allowed)",
                       Error);
}

TEST_CASE("assert_close: shape, dtype and stride mismatches; tolerances both or neither") {
  CHECK_THROWS_WITH_AS(assert_close(tl::zeros({3}), tl::zeros({3, 1})),
                       "The values for attribute 'shape' do not match: torch.Size([3]) != torch.Size([3, 1]).", Error);
  CHECK_THROWS_WITH_AS(assert_close(tl::zeros({3}, DType::Int32), tl::zeros({3})),
                       "The values for attribute 'dtype' do not match: torch.int32 != torch.float32.", Error);
  AssertCloseOptions unchecked_dtype;
  unchecked_dtype.check_dtype = false;
  CHECK_THROWS_WITH_AS(
      assert_close(from_vector<int32_t>({1, 2}, {2}), f32({1.0f, 2.5f}), unchecked_dtype),
      "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
      "Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)\n"
      "Greatest relative difference: 0.2 at index (1,) (up to 1.3e-06 allowed)",
      Error);
  CHECK_NOTHROW(assert_close(tl::zeros({2, 3}).t(), tl::zeros({3, 2})));
  AssertCloseOptions check_stride;
  check_stride.check_stride = true;
  CHECK_THROWS_WITH_AS(assert_close(tl::zeros({2, 3}).t(), tl::zeros({3, 2}), check_stride),
                       "The values for attribute 'stride()' do not match: (1, 3) != (2, 1).", Error);
  AssertCloseOptions rtol_alone;
  rtol_alone.rtol = 0.1;
  CHECK_THROWS_WITH_AS(assert_close(tl::zeros({3}), tl::ones({3}), rtol_alone),
                       "Both 'rtol' and 'atol' must be either specified or omitted, but got no atol.", Error);
}

TEST_CASE("assert_close: integers compare exactly in int64, not through float64") {
  // 2^53 + 1 and 2^53 are one float64; PyTorch compares int64 exactly and so must we.
  const Tensor big = from_vector<int64_t>({9007199254740993}, {1});
  CHECK_THROWS_WITH_AS(assert_close(big, from_vector<int64_t>({9007199254740992}, {1})),
                       "Tensor-likes are not equal!\n\nMismatched elements: 1 / 1 (100.0%)\n"
                       "Greatest absolute difference: 1 at index (0,)\n"
                       "Greatest relative difference: 1.1102230246251565e-16 at index (0,)",
                       Error);
  CHECK_NOTHROW(assert_close(big, from_vector<int64_t>({9007199254740993}, {1})));
  CHECK_THROWS_WITH_AS(assert_close(from_vector<int64_t>({9007199254740993}, {}),
                                    from_vector<int64_t>({9007199254740992}, {})),
                       "Scalars are not equal!\n\nAbsolute difference: 1\nRelative difference: 1.1102230246251565e-16",
                       Error);
  // A tensor's relative difference is PyTorch's int64 / int64, a float32; a scalar's is a Python float.
  CHECK_THROWS_WITH_AS(assert_close(from_vector<int64_t>({0, 1}, {2}), from_vector<int64_t>({0, 3}, {2})),
                       "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                       "Greatest absolute difference: 2 at index (1,)\n"
                       "Greatest relative difference: 0.6666666865348816 at index (1,)",
                       Error);
  CHECK_THROWS_WITH_AS(assert_close(from_vector<int64_t>({1}, {}), from_vector<int64_t>({3}, {})),
                       "Scalars are not equal!\n\nAbsolute difference: 2\nRelative difference: 0.6666666666666666",
                       Error);
  // The widest difference is exact (a Python int), not wrapped.
  CHECK_THROWS_WITH_AS(assert_close(from_vector<int64_t>({INT64_MAX}, {}), from_vector<int64_t>({INT64_MIN}, {})),
                       "Scalars are not equal!\n\nAbsolute difference: 18446744073709551615\nRelative difference: 2.0",
                       Error);
  AssertCloseOptions unchecked_dtype;
  unchecked_dtype.check_dtype = false;
  CHECK_THROWS_WITH_AS(assert_close(from_vector<int32_t>({2147483647}, {1}), from_vector<int64_t>({2147483648}, {1}),
                                    unchecked_dtype),
                       "Tensor-likes are not equal!\n\nMismatched elements: 1 / 1 (100.0%)\n"
                       "Greatest absolute difference: 1 at index (0,)\n"
                       "Greatest relative difference: 4.656612873077393e-10 at index (0,)",
                       Error);
  CHECK_THROWS_WITH_AS(assert_close(from_vector<bool>({true, false}, {2}), from_vector<int64_t>({1, 2}, {2}),
                                    unchecked_dtype),
                       "Tensor-likes are not equal!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                       "Greatest absolute difference: 2 at index (1,)\nGreatest relative difference: 1.0 at index (1,)",
                       Error);
  CHECK_THROWS_WITH_AS(assert_close(from_vector<int64_t>({100, 5}, {2}), from_vector<int64_t>({103, 7}, {2}),
                                    tolerances(0.0, 2.0)),
                       "Tensor-likes are not close!\n\nMismatched elements: 1 / 2 (50.0%)\n"
                       "Greatest absolute difference: 3 at index (0,) (up to 2.0 allowed)\n"
                       "Greatest relative difference: 0.029126213863492012 at index (0,) (up to 0.0 allowed)",
                       Error);
}

TEST_CASE("assert_close: undefined tensors stand for None") {
  CHECK_NOTHROW(assert_close(Tensor(), Tensor()));
  // PyTorch's text, then which side is undefined.
  CHECK_THROWS_WITH_AS(assert_close(Tensor(), tl::zeros({1})),
                       "None mismatch: None is not tensor([0.]) (actual is undefined)", Error);
  CHECK_THROWS_WITH_AS(assert_close(tl::zeros({1}), Tensor()),
                       "None mismatch: tensor([0.]) is not None (expected is undefined)", Error);
}

TEST_CASE("assert_close: a negative or NaN tolerance is refused, named, before any comparison") {
  const Tensor a = tl::zeros({1});
  CHECK_THROWS_WITH_AS(assert_close(a, a, tolerances(-1.0, 0.0)),
                       "assert_close: rtol must be greater than or equal to zero, but got -1.0", Error);
  CHECK_THROWS_WITH_AS(assert_close(a, tl::ones({1}), tolerances(0.0, -1.0)),
                       "assert_close: atol must be greater than or equal to zero, but got -1.0", Error);
  CHECK_THROWS_WITH_AS(assert_close(from_vector<int64_t>({1}, {1}), from_vector<int64_t>({1}, {1}),
                                    tolerances(NAN, 0.0)),
                       "assert_close: rtol must be greater than or equal to zero, but got nan", Error);
}

TEST_CASE("assert_close: empty tensors pass when their shapes match") {
  CHECK_NOTHROW(assert_close(tl::zeros({0, 3}), tl::zeros({0, 3})));
  CHECK_NOTHROW(assert_close(tl::zeros({0}, DType::Int64), tl::zeros({0}, DType::Int64)));
  CHECK_THROWS_WITH_AS(assert_close(tl::zeros({0, 3}), tl::zeros({3, 0})),
                       "The values for attribute 'shape' do not match: torch.Size([0, 3]) != torch.Size([3, 0]).", Error);
}
