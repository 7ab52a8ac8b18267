// tests/core/test_tensor.cpp — Tensor construction, metadata, bounds checks and element access,
// including the errors for wrong dtypes, multi-element item(), undefined tensors and proxies, and the
// size checks and allocation limit every creation path (factories, views, ops) goes through.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/tensor.h"
#include "ops/ops.h"

namespace tl {
namespace {

constexpr DType kAllDTypes[] = {DType::Float32, DType::Float64, DType::Int64,
                                DType::Int32, DType::Bool, DType::BFloat16};

// Row-major strides written out plainly, the reference for allocate().
Strides reference_strides(const Shape& sizes) {
  std::vector<int64_t> s(static_cast<size_t>(sizes.size()));
  int64_t step = 1;
  for (size_t i = s.size(); i-- > 0;) {
    s[i] = step;
    step *= std::max<int64_t>(sizes[static_cast<int64_t>(i)], 1);
  }
  return Strides(s);
}

// A float32 tensor holding `values` in a fresh storage.
Tensor float_tensor(const std::vector<float>& values, const Shape& sizes) {
  auto storage = Storage::allocate(static_cast<int64_t>(values.size() * sizeof(float)));
  std::copy(values.begin(), values.end(), static_cast<float*>(storage->data()));
  return Tensor::make(storage, sizes, reference_strides(sizes), 0, DType::Float32);
}

template <typename T>
Tensor scalar_of(T value) {
  Tensor t = Tensor::allocate({}, dtype_of<T>);
  *t.data<T>() = value;
  return t;
}

struct TracingTag : ProxyTag {
  std::string describe() const override { return "symbolic tracing: %conv1 is a Proxy, not a tensor"; }
};

TEST_CASE("tensor: allocate gives contiguous metadata for every dtype and shape") {
  const Shape shapes[] = {{}, {0}, {7}, {2, 3}, {4, 0, 5}, {1, 1, 1}, {3, 1, 5, 2}};
  for (DType dtype : kAllDTypes) {
    for (const Shape& sizes : shapes) {
      INFO("dtype ", dtype, " sizes ", sizes);
      const Tensor t = Tensor::allocate(sizes, dtype);
      int64_t numel = 1;
      for (int64_t d : sizes) numel *= d;
      CHECK(t.defined());
      CHECK_FALSE(t.is_proxy());
      CHECK(t.shape() == sizes);
      CHECK(t.strides() == reference_strides(sizes));
      CHECK(t.dim() == sizes.size());
      CHECK(t.numel() == numel);
      CHECK(t.dtype() == dtype);
      CHECK(t.element_size() == element_size(dtype));
      CHECK(t.nbytes() == numel * element_size(dtype));
      CHECK(t.storage()->nbytes() == t.nbytes());
      CHECK(t.storage_offset() == 0);
      CHECK(t.is_contiguous());
      CHECK(reinterpret_cast<uintptr_t>(t.raw_data()) % 64 == 0);
    }
  }
}

TEST_CASE("tensor: size() and stride() wrap negative dims and name the bad one") {
  const Tensor t = Tensor::allocate({2, 3, 4}, DType::Float32);
  CHECK(t.size(0) == 2);
  CHECK(t.size(-1) == 4);
  CHECK(t.stride(-3) == 12);
  CHECK(t.stride(1) == 4);
  CHECK_THROWS_WITH_AS(t.size(3), "size: dimension out of range (expected to be in range of [-3, 2], but got 3)",
                       Error);
  CHECK_THROWS_WITH_AS(t.stride(-4), doctest::Contains("but got -4"), Error);
  // A 0-dim tensor has no dim 0 or -1 to read (the wrap that reductions allow does not apply).
  const Tensor scalar = Tensor::allocate({}, DType::Float32);
  CHECK_THROWS_WITH_AS(scalar.size(0), "size: dimension specified as 0 but tensor has no dimensions", Error);
  CHECK_THROWS_WITH_AS(scalar.stride(-1), "stride: dimension specified as -1 but tensor has no dimensions", Error);
}

TEST_CASE("tensor: copies share the tensor, make() views share the storage") {
  const Tensor a = float_tensor({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor b = a;
  CHECK(b.is_same(a));
  const Tensor view = Tensor::make(a.storage(), {3, 2}, {1, 3}, 0, DType::Float32);
  CHECK_FALSE(view.is_same(a));
  CHECK(view.storage() == a.storage());
  CHECK_FALSE(view.is_contiguous());
  CHECK(view.data<float>() == a.data<float>());
  CHECK(view.data<float>()[1 * view.stride(0) + 1 * view.stride(1)] == 5.0f);  // element (1, 1)
}

TEST_CASE("tensor: make() accepts every view that stays inside its storage") {
  auto storage = Storage::allocate(12 * sizeof(float));
  CHECK(Tensor::make(storage, {3, 4}, {4, 1}, 0, DType::Float32).is_contiguous());
  CHECK(Tensor::make(storage, {4, 3}, {1, 4}, 0, DType::Float32).numel() == 12);
  CHECK(Tensor::make(storage, {5, 12}, {0, 1}, 0, DType::Float32).numel() == 60);  // expanded
  CHECK(Tensor::make(storage, {2, 2}, {4, 2}, 5, DType::Float32).storage_offset() == 5);  // reaches 11
  CHECK(Tensor::make(storage, {12}, {-1}, 11, DType::Float32).numel() == 12);             // reversed
  CHECK(Tensor::make(storage, {0, 7}, {7, 1}, 100, DType::Float32).numel() == 0);         // reaches nothing
  CHECK(Tensor::make(storage, {6}, {1}, 0, DType::Float64).nbytes() == 48);
  // size-1 dims and empty tensors count as contiguous whatever their strides
  CHECK(Tensor::make(storage, {1, 4}, {99, 1}, 0, DType::Float32).is_contiguous());
  CHECK(Tensor::make(storage, {3, 0}, {5, 7}, 0, DType::Float32).is_contiguous());
}

TEST_CASE("tensor: make() refuses views that reach outside the storage") {
  auto storage = Storage::allocate(12 * sizeof(float));
  CHECK_THROWS_WITH_AS(Tensor::make(storage, {3, 5}, {5, 1}, 0, DType::Float32),
                       "tensor: size [3, 5] with strides [5, 1] and offset 0 reaches outside a storage of 12 elements",
                       Error);
  CHECK_THROWS_WITH_AS(Tensor::make(storage, {2, 2}, {4, 2}, 6, DType::Float32),
                       doctest::Contains("and offset 6 reaches outside a storage of 12 elements"), Error);
  CHECK_THROWS_WITH_AS(Tensor::make(storage, {12}, {-1}, 10, DType::Float32),
                       doctest::Contains("reaches outside"), Error);
  CHECK_THROWS_WITH_AS(Tensor::make(storage, {7}, {1}, 0, DType::Float64),
                       doctest::Contains("reaches outside a storage of 6 elements"), Error);
  CHECK_THROWS_WITH_AS(Tensor::make(storage, {2}, {1}, -1, DType::Float32), "tensor: negative storage offset -1",
                       Error);
  CHECK_THROWS_WITH_AS(Tensor::make(storage, {2, -3}, {1, 1}, 0, DType::Float32),
                       "tensor: negative dimension -3 in size [2, -3]", Error);
  constexpr int64_t kHuge = std::numeric_limits<int64_t>::max() / 2;
  CHECK_THROWS_WITH_AS(Tensor::make(storage, {3, 3}, {kHuge, kHuge}, 0, DType::Float32),
                       doctest::Contains("reaches outside"), Error);  // the reach overflows int64
  CHECK_THROWS_WITH_AS(Tensor::make(storage, {3, 1}, {std::numeric_limits<int64_t>::min(), 1}, 11, DType::Float32),
                       doctest::Contains("reaches outside"), Error);
  CHECK_THROWS_WITH_AS(Tensor::make(storage, {3, 4}, {1}, 0, DType::Float32),
                       "tensor: size [3, 4] and strides [1] differ in length", Error);
  CHECK_THROWS_WITH_AS(Tensor::make(nullptr, {1}, {1}, 0, DType::Float32), "tensor: null storage", Error);
}

TEST_CASE("tensor: allocate() rejects negative and uncountable sizes") {
  CHECK_THROWS_WITH_AS(Tensor::allocate({4, -1}, DType::Float32), "tensor: negative dimension -1 in size [4, -1]",
                       Error);
  CHECK_THROWS_WITH_AS(Tensor::allocate({int64_t{1} << 32, int64_t{1} << 32}, DType::Float32),
                       "tensor: size [4294967296, 4294967296] has more elements than int64 can count", Error);
  CHECK_THROWS_WITH_AS(Tensor::allocate({int64_t{1} << 31, int64_t{1} << 31}, DType::Float64),
                       doctest::Contains("of torch.float64 needs more bytes than int64 can count"), Error);
}

using Factory = std::function<Tensor(const Shape&)>;

// Every factory that takes a size, by the name its errors carry.
const std::vector<std::pair<std::string, Factory>>& factories() {
  static const std::vector<std::pair<std::string, Factory>> all = {
      {"empty", [](const Shape& s) { return empty(s); }},
      {"zeros", [](const Shape& s) { return zeros(s); }},
      {"ones", [](const Shape& s) { return ones(s); }},
      {"full", [](const Shape& s) { return full(s, 0.5); }},
      {"rand", [](const Shape& s) { return rand(s); }},
      {"randn", [](const Shape& s) { return randn(s); }},
  };
  return all;
}

// What Tensor::allocate says when `sizes` of `dtype` (`bytes` in all) exceed the allocation limit now.
std::string over_limit(const Shape& sizes, DType dtype, int64_t bytes) {
  return detail::str_cat("tensor of size ", sizes, " and dtype ", dtype, ": allocate: ", bytes,
                         " bytes would exceed the allocation limit of ", allocation_limit(), " bytes (",
                         allocator_stats().bytes_in_use, " bytes in use; see tl::set_allocation_limit)");
}

TEST_CASE("tensor: every factory names itself when refusing negative and uncountable sizes") {
  // Named members, not a structured binding: clang 14 cannot capture one in CAPTURE/INFO.
  for (const auto& entry : factories()) {
    const auto& name = entry.first;
    const auto& make = entry.second;
    INFO("factory ", name);
    CHECK_THROWS_WITH_AS(make({2, -3}), (name + ": negative dimension -3 in size [2, -3]").c_str(), Error);
    CHECK_THROWS_WITH_AS(make({int64_t{1} << 32, int64_t{1} << 32}),
                         (name + ": size [4294967296, 4294967296] has more elements than int64 can count").c_str(),
                         Error);
  }
  CHECK_THROWS_WITH_AS(arange(int64_t{0}, int64_t{1} << 62, int64_t{1}, DType::Float64),
                       doctest::Contains("of torch.float64 needs more bytes than int64 can count"), Error);
}

TEST_CASE("tensor: views refuse negative sizes and sizes their input cannot fill") {
  const Tensor x = zeros({2, 3});
  CHECK_THROWS_WITH_AS(x.reshape({-2, -3}), "reshape: invalid shape dimension -2", Error);
  CHECK_THROWS_WITH_AS(x.view({3, -2}), "view: invalid shape dimension -2", Error);
  CHECK_THROWS_WITH_AS(x.reshape({int64_t{1} << 32, int64_t{1} << 32}),
                       "reshape: shape '[4294967296, 4294967296]' is invalid for input of size 6", Error);
  CHECK_THROWS_WITH_AS(x.expand({2, -2}), "expand: the expanded size of the tensor (-2) is negative; target sizes: [2, -2]",
                       Error);
  CHECK_THROWS_WITH_AS(ones({1}).expand({int64_t{1} << 32, int64_t{1} << 32}),
                       "tensor: size [4294967296, 4294967296] has more elements than int64 can count", Error);
  const Tensor countable = zeros({1}, DType::Float64).expand({int64_t{1} << 61});  // elements fit, bytes do not
  CHECK(countable.numel() == int64_t{1} << 61);
  CHECK_THROWS_WITH_AS(countable.nbytes(),
                       "nbytes: size [2305843009213693952] of torch.float64 has more bytes than int64 can count", Error);
  CHECK(zeros({1}, DType::Float64).expand({int64_t{1} << 59}).nbytes() == int64_t{1} << 62);  // 8 bytes each
}

TEST_CASE("tensor: 2^40 elements are refused by the allocation limit before anything is allocated") {
  constexpr int64_t kElements = int64_t{1} << 40;
  const Shape huge{kElements};
  REQUIRE_MESSAGE(allocation_limit() < kElements * 4, "this machine has more memory than the test assumes");
  const Tensor view = ones({1}).expand(huge);  // a broadcast view of 2^40 elements costs 4 bytes
  CHECK(view.numel() == kElements);
  const AllocatorStats base = allocator_stats();
  for (DType dtype : kAllDTypes) {
    INFO("dtype ", dtype);
    CHECK_THROWS_WITH_AS(Tensor::allocate(huge, dtype),
                         over_limit(huge, dtype, kElements * element_size(dtype)).c_str(), Error);
  }
  const std::string float32 = over_limit(huge, DType::Float32, kElements * 4);
  for (const auto& entry : factories()) {
    const auto& name = entry.first;
    const auto& make = entry.second;
    INFO("factory ", name);
    CHECK_THROWS_WITH_AS(make(huge), float32.c_str(), Error);
  }
  CHECK_THROWS_WITH_AS(arange(kElements), over_limit(huge, DType::Int64, kElements * 8).c_str(), Error);
  CHECK_THROWS_WITH_AS(view.contiguous(), float32.c_str(), Error);
  CHECK_THROWS_WITH_AS(view.clone(), float32.c_str(), Error);
  CHECK(allocator_stats().bytes_in_use == base.bytes_in_use);
  CHECK(allocator_stats().allocations == base.allocations);
  // An op's output is refused the same way (the op holds its scalar operand meanwhile).
  CHECK_THROWS_WITH_AS(view + 1.0, doctest::Contains(float32.substr(0, float32.find(" bytes (") + 6).c_str()), Error);
}

TEST_CASE("tensor: data<T>() honours the offset and names both dtypes on a mismatch") {
  const Tensor a = float_tensor({0, 1, 2, 3, 4, 5}, {6});
  const Tensor tail = Tensor::make(a.storage(), {2}, {1}, 4, DType::Float32);
  CHECK(tail.data<float>()[0] == 4.0f);
  CHECK(tail.raw_data() == static_cast<void*>(a.data<float>() + 4));
  CHECK_THROWS_WITH_AS(a.data<int64_t>(), "data<T>(): tensor has dtype torch.float32 but T is torch.int64", Error);
  CHECK_THROWS_WITH_AS(Tensor::allocate({2}, DType::BFloat16).data<float>(),
                       "data<T>(): tensor has dtype torch.bfloat16 but T is torch.float32", Error);
  CHECK_THROWS_WITH_AS(Tensor::allocate({2}, DType::Bool).data<int32_t>(),
                       "data<T>(): tensor has dtype torch.bool but T is torch.int32", Error);
}

TEST_CASE("tensor: accessor<T, N>() reads and writes through the strides, checking dims, dtype and indices") {
  const Tensor a = float_tensor({0, 1, 2, 3, 4, 5}, {2, 3});
  const Tensor at = Tensor::make(a.storage(), {3, 2}, {1, 3}, 0, DType::Float32);  // a.t()
  auto acc = at.accessor<float, 2>();
  CHECK(acc.size(0) == 3);
  CHECK(acc.size(1) == 2);
  CHECK(acc.stride(0) == 1);
  CHECK(acc.stride(1) == 3);
  CHECK(acc[2][1] == 5.0f);
  CHECK(acc[1][0] == 1.0f);
  acc[0][1] = 30.0f;  // element (1, 0) of a
  CHECK(a.data<float>()[3] == 30.0f);
  const auto row = acc[2];  // a sub-accessor keeps its own sizes and strides
  CHECK(row.size(0) == 2);
  CHECK(row[1] == 5.0f);
  const Tensor tail = Tensor::make(a.storage(), {2}, {1}, 4, DType::Float32);
  CHECK(tail.accessor<float, 1>()[0] == 4.0f);
  const Tensor before = a.clone();
  CHECK_THROWS_WITH_AS((a.accessor<float, 3>()), "TensorAccessor expected 3 dims but tensor has 2", Error);
  CHECK_THROWS_WITH_AS((a.accessor<int64_t, 2>()), "data<T>(): tensor has dtype torch.float32 but T is torch.int64", Error);
  CHECK_THROWS_WITH_AS(acc[3], "index 3 is out of bounds for dimension 0 with size 3", Error);
  CHECK_THROWS_WITH_AS(acc[-1], "index -1 is out of bounds for dimension 0 with size 3", Error);
  CHECK_THROWS_WITH_AS(acc[0][2], "index 2 is out of bounds for dimension 1 with size 2", Error);
  CHECK_THROWS_WITH_AS(acc.size(2), "TensorAccessor: dimension 2 is out of range for an accessor of 2 dims", Error);
  CHECK(equal(a, before));
}

TEST_CASE("tensor: item() needs exactly one element and says how many there are") {
  CHECK_THROWS_WITH_AS(Tensor::allocate({2, 3}, DType::Float32).item(),
                       "item(): a Tensor with 6 elements (size [2, 3]) cannot be converted to Scalar", Error);
  CHECK_THROWS_WITH_AS(Tensor::allocate({0}, DType::Int64).item<int64_t>(),
                       doctest::Contains("a Tensor with 0 elements"), Error);
  const Tensor one = float_tensor({-1.5f}, {1, 1, 1});
  CHECK(one.item<double>() == -1.5);
}

TEST_CASE("tensor: item() keeps the Python kind of the value and converts like c10::Scalar") {
  const Scalar f = scalar_of(2.75f).item();
  CHECK(f.is_floating_point());
  CHECK(f.to<double>() == 2.75);
  CHECK(scalar_of(2.75f).item<int64_t>() == 2);
  CHECK(scalar_of(-2.75f).item<int32_t>() == -2);
  CHECK(scalar_of(0.1).item<double>() == 0.1);           // float64 is exact
  CHECK(scalar_of(0.1f).item<double>() == double(0.1f));  // float32 widens exactly
  CHECK(scalar_of(BFloat16(1.0f / 3.0f)).item<float>() == float(BFloat16(1.0f / 3.0f)));
  CHECK(scalar_of(BFloat16(3.0f)).item().is_floating_point());

  const Scalar big = scalar_of(int64_t{1} << 60).item();
  CHECK(big.is_integral());
  CHECK(big.to<int64_t>() == int64_t{1} << 60);
  CHECK(scalar_of(int32_t{-7}).item().is_integral());
  CHECK(scalar_of(int32_t{-7}).item<double>() == -7.0);

  CHECK(scalar_of(true).item().is_bool());
  CHECK(scalar_of(true).item<int64_t>() == 1);
  CHECK(scalar_of(false).item<double>() == 0.0);
  CHECK(scalar_of(0.5f).item<bool>());

  CHECK_THROWS_WITH_AS(scalar_of(std::nanf("")).item<int64_t>(),
                       "value nan cannot be converted to a 64-bit integer without overflow", Error);
  CHECK_THROWS_WITH_AS(scalar_of(3e9f).item<int32_t>(), doctest::Contains("to a 32-bit integer without overflow"),
                       Error);
  CHECK_THROWS_WITH_AS(scalar_of(int64_t{1} << 40).item<int32_t>(),
                       "value 1099511627776 cannot be converted to a 32-bit integer without overflow", Error);
  CHECK(scalar_of(-2147483648.5).item<int32_t>() == std::numeric_limits<int32_t>::min());
  CHECK(scalar_of(std::ldexp(-1.0, 63)).item<int64_t>() == std::numeric_limits<int64_t>::min());
  CHECK_THROWS_AS(scalar_of(std::ldexp(1.0, 63)).item<int64_t>(), Error);
  CHECK(std::isinf(scalar_of(INFINITY).item<float>()));
}

TEST_CASE("tensor: an undefined tensor (None) says so on any access") {
  const Tensor none;
  CHECK_FALSE(none.defined());
  CHECK_FALSE(none.is_proxy());
  CHECK(none.proxy() == nullptr);
  CHECK(none.is_same(Tensor()));
  CHECK_THROWS_WITH_AS(none.shape(), "tensor is undefined (None)", Error);
  CHECK_THROWS_WITH_AS(none.dtype(), "tensor is undefined (None)", Error);
  CHECK_THROWS_WITH_AS(none.numel(), "tensor is undefined (None)", Error);
  CHECK_THROWS_WITH_AS(none.raw_data(), "tensor is undefined (None)", Error);
  CHECK_THROWS_WITH_AS(none.data<float>(), "tensor is undefined (None)", Error);
  CHECK_THROWS_WITH_AS(none.item(), "tensor is undefined (None)", Error);
}

TEST_CASE("tensor: a proxy has metadata but any data access throws the tag's text") {
  const auto tag = std::make_shared<TracingTag>();
  const Tensor p = Tensor::make_proxy(tag, Shape{5, 3}, DType::Float64);
  CHECK(p.defined());
  CHECK(p.is_proxy());
  CHECK(p.proxy() == tag.get());
  CHECK(p.shape() == Shape{5, 3});
  CHECK(p.dtype() == DType::Float64);
  CHECK(p.is_contiguous());
  const std::string text = tag->describe();
  CHECK_THROWS_WITH_AS(p.data<double>(), text.c_str(), Error);
  CHECK_THROWS_WITH_AS(p.data<float>(), text.c_str(), Error);
  CHECK_THROWS_WITH_AS(p.raw_data(), text.c_str(), Error);
  CHECK_THROWS_WITH_AS(Tensor::make_proxy(tag, Shape{}).item(), text.c_str(), Error);
  const Tensor unknown = Tensor::make_proxy(tag);
  CHECK_THROWS_WITH_AS(unknown.shape(), doctest::Contains(text.c_str()), Error);
}

TEST_CASE("tensor: wrapped external memory is viewed in place and kept alive by the tensor") {
  auto buffer = std::make_shared<std::vector<int32_t>>(std::vector<int32_t>{10, 20, 30, 40});
  std::weak_ptr<std::vector<int32_t>> watch = buffer;
  const AllocatorStats before = allocator_stats();
  {
    auto storage = Storage::wrap(buffer->data(), 16, buffer);
    buffer.reset();
    const Tensor t = Tensor::make(storage, {2, 2}, {1, 2}, 0, DType::Int32);
    CHECK(t.data<int32_t>()[t.stride(1)] == 30);  // element (0, 1) of the transposed view
    CHECK_FALSE(watch.expired());
    CHECK(allocator_stats().bytes_in_use == before.bytes_in_use);
  }
  CHECK(watch.expired());
}

}  // namespace
}  // namespace tl
