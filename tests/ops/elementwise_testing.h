// tests/ops/elementwise_testing.h — inputs in every layout and a naive broadcasting reference for the
// elementwise tests. The reference reads elements one by one through their strides, in double.
#pragma once

#include <cmath>
#include <functional>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "ops/ops.h"

namespace tl::testing {

inline constexpr DType kAllDTypes[] = {DType::Float32, DType::Float64, DType::Int64,
                                       DType::Int32,   DType::Bool,    DType::BFloat16};

/// Values for `dtype`: floats uniform in [lo, hi) (whole numbers in [lo, hi] when `whole`), integers
/// uniform in [lo, hi], bools a fair coin.
inline Tensor random_tensor(const Shape& shape, DType dtype, std::mt19937_64& rng, double lo = -4, double hi = 4,
                            bool whole = false) {
  const int64_t n = numel_of(shape);
  std::uniform_real_distribution<double> real(lo, hi);
  std::uniform_int_distribution<int64_t> integer(static_cast<int64_t>(std::ceil(lo)), static_cast<int64_t>(std::floor(hi)));
  auto fill = [&](auto tag, auto draw) {
    using T = decltype(tag);
    std::vector<T> v(static_cast<size_t>(n));
    for (auto& x : v) x = static_cast<T>(draw());
    return from_vector<T>(v, shape);
  };
  switch (dtype) {
    case DType::Float32: return fill(float{}, [&] { return whole ? integer(rng) : real(rng); });
    case DType::Float64: return fill(double{}, [&] { return whole ? integer(rng) : real(rng); });
    case DType::BFloat16: return fill(BFloat16{}, [&] { return static_cast<float>(whole ? integer(rng) : real(rng)); });
    case DType::Int64: return fill(int64_t{}, [&] { return integer(rng); });
    case DType::Int32: return fill(int32_t{}, [&] { return integer(rng); });
    case DType::Bool: {
      std::vector<bool> bits(static_cast<size_t>(n));
      for (size_t i = 0; i < bits.size(); ++i) bits[i] = (rng() & 1) != 0;
      return from_vector<bool>(bits, shape);
    }
    default: break;  // the byte and quantized dtypes have tests of their own (test_quantized.cpp)
  }
  return {};
}

/// How an input's memory is arranged: the kernels must give the same answer for each.
enum class Layout { Contiguous, Transposed, Strided, Expanded };
inline constexpr Layout kLayouts[] = {Layout::Contiguous, Layout::Transposed, Layout::Strided, Layout::Expanded};

inline std::string layout_name(Layout layout) {
  switch (layout) {
    case Layout::Contiguous: return "contiguous";
    case Layout::Transposed: return "transposed";
    case Layout::Strided: return "strided";
    case Layout::Expanded: return "expanded";
  }
  return "?";
}

/// A random tensor of `shape` whose strides follow `layout`: dims reversed in memory, every other
/// element of a wider buffer, or broadcast (stride 0) along its last non-trivial dimension.
inline Tensor make_input(const Shape& shape, DType dtype, Layout layout, std::mt19937_64& rng, double lo = -4,
                         double hi = 4, bool whole = false) {
  const int64_t rank = shape.size();
  switch (layout) {
    case Layout::Contiguous: break;
    case Layout::Transposed: {
      if (rank < 2) break;
      Shape reversed(std::vector<int64_t>(shape.vec().rbegin(), shape.vec().rend()));
      Shape order;
      for (int64_t d = rank - 1; d >= 0; --d) order.push_back(d);
      return random_tensor(reversed, dtype, rng, lo, hi, whole).permute(order);
    }
    case Layout::Strided: {
      if (rank < 1) break;
      Shape wide = shape;
      wide[rank - 1] = 2 * shape[rank - 1] + 1;
      return random_tensor(wide, dtype, rng, lo, hi, whole).slice(rank - 1, 1, std::nullopt, 2);
    }
    case Layout::Expanded: {
      for (int64_t d = rank - 1; d >= 0; --d) {
        if (shape[d] <= 1) continue;
        Shape narrow = shape;
        narrow[d] = 1;
        return random_tensor(narrow, dtype, rng, lo, hi, whole).expand(shape);
      }
      break;
    }
  }
  return random_tensor(shape, dtype, rng, lo, hi, whole);
}

/// The element of `t` seen at `index` of a broadcast result (t aligned right, size-1 dims repeat).
inline double broadcast_value(const Tensor& t, const std::vector<int64_t>& index) {
  const int64_t lead = static_cast<int64_t>(index.size()) - t.dim();
  int64_t offset = 0;
  for (int64_t d = 0; d < t.dim(); ++d) {
    const int64_t i = t.shape()[d] == 1 ? 0 : index[static_cast<size_t>(lead + d)];
    offset += i * t.strides()[d];
  }
  const char* base = static_cast<const char*>(t.raw_data()) + offset * t.element_size();
  return TL_DISPATCH_ALL_TYPES(t.dtype(), "broadcast_value", [&] {
    return static_cast<double>(*reinterpret_cast<const scalar_t*>(base));
  });
}

/// A float64 tensor of `shape` holding f(inputs' values at each index), computed one element at a time.
inline Tensor reference(const Shape& shape, std::initializer_list<Tensor> inputs,
                        const std::function<double(const std::vector<double>&)>& f) {
  const int64_t n = numel_of(shape), rank = shape.size();
  std::vector<double> out(static_cast<size_t>(n)), args(inputs.size());
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (int64_t flat = 0; flat < n; ++flat) {
    for (int64_t d = rank - 1, rest = flat; d >= 0; --d) {
      index[static_cast<size_t>(d)] = rest % shape[d];
      rest /= shape[d];
    }
    size_t k = 0;
    for (const Tensor& t : inputs) args[k++] = broadcast_value(t, index);
    out[static_cast<size_t>(flat)] = f(args);
  }
  return from_vector<double>(out, shape);
}

/// Row-major multi-index of `flat` in `shape`, and back.
inline std::vector<int64_t> unravel(int64_t flat, const Shape& shape) {
  std::vector<int64_t> index(static_cast<size_t>(shape.size()));
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    index[static_cast<size_t>(d)] = flat % shape[d];
    flat /= shape[d];
  }
  return index;
}

inline int64_t ravel(const std::vector<int64_t>& index, const Shape& shape) {
  int64_t flat = 0;
  for (int64_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[static_cast<size_t>(d)];
  return flat;
}

}  // namespace tl::testing
