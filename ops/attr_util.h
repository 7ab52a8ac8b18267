// ops/attr_util.h — turning C++ argument types into op attributes and back (internal to ops/).
#pragma once

#include <algorithm>
#include <array>
#include <initializer_list>
#include <optional>
#include <span>
#include <tuple>
#include <utility>

#include "core/dispatch.h"

namespace tl::detail {

/// A C++ argument as the attribute its schema type carries (what the generated API passes): a Scalar
/// by its kind, an empty optional as None, a bool[3] as a Shape of 1 / 0, the rest as they are.
inline AttrValue attr(const Scalar& s) {
  if (s.is_bool()) return s.to<bool>();
  if (s.is_integral()) return s.to<int64_t>();
  return s.to<double>();
}
inline AttrValue attr(const std::array<bool, 3>& mask) { return Shape{mask[0], mask[1], mask[2]}; }
template <typename T>
AttrValue attr(const T& value) {
  return AttrValue{value};
}
template <typename T>
AttrValue attr(const std::optional<T>& value) {
  return value ? attr(*value) : AttrValue{};
}

/// The tensors of an initializer list as dispatch::call's span; valid until the end of the full
/// expression that wrote the list, which is the call.
inline std::span<const Tensor> inputs(std::initializer_list<Tensor> tensors) { return {tensors.begin(), tensors.size()}; }

/// A multi-output op's results as the C++ API returns them: std::pair or std::tuple of Tensors.
template <typename Tuple>
Tuple unpack(TensorList&& outputs) {
  constexpr size_t n = std::tuple_size_v<Tuple>;
  TL_CHECK(outputs.size() == n, "expected ", n, " outputs from the kernel, got ", outputs.size());
  return [&]<size_t... I>(std::index_sequence<I...>) { return Tuple{std::move(outputs[I])...}; }(std::make_index_sequence<n>{});
}

/// Reads a bool[3] attribute back; throws unless it holds exactly three 0 / 1 values:
/// "convolution_backward: expected output_mask to have 3 values (0 or 1), got [1, 1]".
inline std::array<bool, 3> bool3_from_attr(const Attrs& attrs, std::string_view name, const char* op) {
  const Shape& s = attrs.get<Shape>(name);
  const bool ok = s.size() == 3 && std::all_of(s.begin(), s.end(), [](int64_t v) { return v == 0 || v == 1; });
  TL_CHECK(ok, op, ": expected ", name, " to have 3 values (0 or 1), got ", s);
  return {s[0] == 1, s[1] == 1, s[2] == 1};
}

}  // namespace tl::detail
