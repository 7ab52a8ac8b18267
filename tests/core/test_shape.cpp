// tests/core/test_shape.cpp — size validation, broadcasting, dim wrapping and contiguous strides,
// each checked against a plain reference over every small shape.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/shape.h"

namespace tl {
namespace {

// Every shape of rank 0..3 with dims in {0, 1, 2, 3}.
std::vector<Shape> small_shapes() {
  std::vector<Shape> out{Shape{}};
  for (int rank = 1; rank <= 3; ++rank) {
    std::vector<int64_t> dims(static_cast<size_t>(rank), 0);
    while (true) {
      out.emplace_back(dims);
      size_t i = 0;
      while (i < dims.size() && ++dims[i] == 4) dims[i++] = 0;
      if (i == dims.size()) break;
    }
  }
  return out;
}

// NumPy's rule walked from the right: sizes must match or one of them be 1.
std::optional<Shape> reference_broadcast(const Shape& a, const Shape& b) {
  std::vector<int64_t> out;
  for (int64_t i = 1; i <= std::max(a.size(), b.size()); ++i) {
    const int64_t da = i <= a.size() ? a[a.size() - i] : 1;
    const int64_t db = i <= b.size() ? b[b.size() - i] : 1;
    if (da != db && da != 1 && db != 1) return std::nullopt;
    out.insert(out.begin(), da == 1 ? db : da);
  }
  return Shape(out);
}

std::string text(const Shape& s) {
  std::ostringstream os;
  os << s;
  return os.str();
}

TEST_CASE("shape: prints like PyTorch prints sizes") {
  CHECK(text(Shape{5, 3, 224, 224}) == "[5, 3, 224, 224]");
  CHECK(text(Shape{7}) == "[7]");
  CHECK(text(Shape{}) == "[]");
}

TEST_CASE("shape: check_sizes rejects negative sizes and uncountable element counts") {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  CHECK_NOTHROW(check_sizes({}, "op"));
  CHECK_NOTHROW(check_sizes({kMax}, "op"));
  CHECK_NOTHROW(check_sizes({int64_t{1} << 31, int64_t{1} << 31}, "op"));
  CHECK_NOTHROW(check_sizes({0, int64_t{1} << 31, int64_t{1} << 31}, "op"));  // no elements, countable strides
  CHECK_THROWS_WITH_AS(check_sizes({2, -1}, "view"), "view: negative dimension -1 in size [2, -1]", Error);
  CHECK_THROWS_WITH_AS(check_sizes({0, -5}, "zeros"), "zeros: negative dimension -5 in size [0, -5]", Error);
  CHECK_THROWS_WITH_AS(check_sizes({int64_t{1} << 32, int64_t{1} << 32}, "empty"),
                       "empty: size [4294967296, 4294967296] has more elements than int64 can count", Error);
  CHECK_THROWS_WITH_AS(check_sizes({kMax, 2}, "empty"), doctest::Contains("more elements than int64"), Error);
  // No elements, but strides past int64: refused wherever the 0 is (found by fuzzing safetensors,
  // where numel_of overflowed on [.., 398077446655380, 46, 0, 87904] before it reached the 0).
  const std::string too_large = " is too large: its nonzero dimensions multiply past int64, so its strides cannot be counted";
  CHECK_THROWS_WITH_AS(check_sizes({kMax, kMax, 0}, "zeros"),
                       ("zeros: size [9223372036854775807, 9223372036854775807, 0]" + too_large).c_str(), Error);
  CHECK_THROWS_WITH_AS(check_sizes({0, int64_t{1} << 40, int64_t{1} << 40}, "zeros"),
                       ("zeros: size [0, 1099511627776, 1099511627776]" + too_large).c_str(), Error);
  CHECK_THROWS_WITH_AS(check_sizes({2, 398077446655380, 46, 0, 87904}, "tensor"),
                       ("tensor: size [2, 398077446655380, 46, 0, 87904]" + too_large).c_str(), Error);
  CHECK(sizes_fit_int64({kMax, 1, 0}));
  CHECK(sizes_fit_int64({0, int64_t{1} << 31, int64_t{1} << 31}));
  CHECK_FALSE(sizes_fit_int64({int64_t{1} << 62, 4, 0}));
  CHECK_FALSE(sizes_fit_int64({int64_t{1} << 32, int64_t{1} << 32}));
}

TEST_CASE("shape: numel_of and contiguous_strides match a plain row-major reference") {
  for (const Shape& s : small_shapes()) {
    INFO("sizes ", s);
    int64_t numel = 1;
    std::vector<int64_t> strides(static_cast<size_t>(s.size()));
    for (int64_t i = s.size() - 1, step = 1; i >= 0; --i) {
      numel *= s[i];
      strides[static_cast<size_t>(i)] = step;
      step *= s[i] == 0 ? 1 : s[i];  // PyTorch treats an empty dim as size 1 for strides
    }
    CHECK(numel_of(s) == numel);
    CHECK(contiguous_strides(s) == Strides(strides));
  }
  CHECK(contiguous_strides({2, 0, 3}) == Strides{3, 3, 1});  // torch.empty(2, 0, 3).stride()
}

TEST_CASE("shape: wrap_dim accepts [-rank, rank) and treats a 0-dim tensor as rank 1") {
  for (int64_t rank = 0; rank <= 4; ++rank) {
    const int64_t r = std::max<int64_t>(rank, 1);
    for (int64_t dim = -r; dim < r; ++dim) CHECK(wrap_dim(dim, rank, "op") == (dim < 0 ? dim + r : dim));
    CHECK_THROWS_AS(wrap_dim(r, rank, "op"), Error);
    CHECK_THROWS_AS(wrap_dim(-r - 1, rank, "op"), Error);
  }
  CHECK_THROWS_WITH_AS(wrap_dim(4, 4, "softmax"),
                       "softmax: dimension out of range (expected to be in range of [-4, 3], but got 4)", Error);
  CHECK_THROWS_WITH_AS(wrap_dim(-2, 0, "sum"),
                       "sum: dimension out of range (expected to be in range of [-1, 0], but got -2)", Error);
}

TEST_CASE("shape: broadcast_shapes follows NumPy's rule for every pair of small shapes") {
  const std::vector<Shape> shapes = small_shapes();
  int failures = 0;
  for (const Shape& a : shapes) {
    for (const Shape& b : shapes) {
      const std::optional<Shape> expected = reference_broadcast(a, b);
      if (expected) {
        const Shape got = broadcast_shapes(a, b, "add");
        if (got != *expected) {
          ++failures;
          FAIL_CHECK("broadcast_shapes(", a, ", ", b, ") = ", got, ", expected ", *expected);
        }
      } else {
        bool threw = false;
        try {
          broadcast_shapes(a, b, "add");
        } catch (const Error&) {
          threw = true;
        }
        if (!threw) {
          ++failures;
          FAIL_CHECK("broadcast_shapes(", a, ", ", b, ") should throw");
        }
      }
    }
  }
  CHECK(failures == 0);
}

TEST_CASE("shape: a broadcast error names the op, both shapes and the clashing sizes") {
  CHECK_THROWS_WITH_AS(broadcast_shapes({2, 3}, {4}, "add"),
                       "add: shapes [2, 3] and [4] cannot be broadcast (size 3 vs 4 at dimension 1)", Error);
  CHECK_THROWS_WITH_AS(broadcast_shapes({5, 4, 3}, {2, 1}, "mul"),
                       "mul: shapes [5, 4, 3] and [2, 1] cannot be broadcast (size 4 vs 2 at dimension 1)",
                       Error);
  CHECK(broadcast_shapes({8, 1, 6, 1}, {7, 1, 5}, "add") == Shape{8, 7, 6, 5});
  CHECK(broadcast_shapes({0}, {1}, "add") == Shape{0});
}

}  // namespace
}  // namespace tl

namespace tl {
namespace {

TEST_CASE("contiguous_strides: sizes whose strides overflow saturate instead") {
  // Found by UBSan. check_sizes refuses [0, 2^40, 2^40], but a view computes strides before checking.
  const int64_t big = int64_t{1} << 40;
  const Strides strides = contiguous_strides(Shape{0, big, big});
  CHECK(strides[2] == 1);
  CHECK(strides[1] == big);
  CHECK(strides[0] == INT64_MAX);
}

}  // namespace
}  // namespace tl
