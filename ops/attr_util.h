// ops/attr_util.h — turning C++ argument types into op attributes and back (internal to ops/).
#pragma once

#include <algorithm>
#include <array>
#include <optional>

#include "core/dispatch.h"

namespace tl::detail {

inline AttrValue scalar_attr(const Scalar& s) {
  if (s.is_bool()) return s.to<bool>();
  if (s.is_integral()) return s.to<int64_t>();
  return s.to<double>();
}

inline AttrValue optional_scalar_attr(const std::optional<Scalar>& s) {
  return s ? scalar_attr(*s) : AttrValue{};
}

inline AttrValue optional_int_attr(const std::optional<int64_t>& v) { return v ? AttrValue{*v} : AttrValue{}; }

/// A bool[3] argument (a backward op's output_mask) as the schema carries it: a Shape of 1 / 0.
inline AttrValue bool3_attr(const std::array<bool, 3>& mask) { return Shape{mask[0], mask[1], mask[2]}; }

/// Reads a bool[3] attribute back; throws unless it holds exactly three 0 / 1 values:
/// "convolution_backward: expected output_mask to have 3 values (0 or 1), got [1, 1]".
inline std::array<bool, 3> bool3_from_attr(const Attrs& attrs, std::string_view name, const char* op) {
  const Shape& s = attrs.get<Shape>(name);
  const bool ok = s.size() == 3 && std::all_of(s.begin(), s.end(), [](int64_t v) { return v == 0 || v == 1; });
  TL_CHECK(ok, op, ": expected ", name, " to have 3 values (0 or 1), got ", s);
  return {s[0] == 1, s[1] == 1, s[2] == 1};
}

}  // namespace tl::detail
