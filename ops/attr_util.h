// ops/attr_util.h — C++ API arguments into the fields of an op's arguments struct (internal to ops/).
#pragma once

#include <algorithm>
#include <array>
#include <string_view>
#include <type_traits>

#include "core/boxing.h"
#include "core/dispatch.h"

namespace tl::detail {

/// A C++ API argument as its field of the op's arguments struct: as it is where the types agree, else
/// converted as a graph's value is (a Shape for an int[2] field takes 1 or 2 values; an empty one for a
/// pool's stride=[] is none given), with unbox's tl::Error naming the op and the argument.
template <typename Field, typename T>
Field to_field(const T& value, const char* op, std::string_view name) {
  if constexpr (std::is_constructible_v<Field, const T&>) {
    return Field(value);
  } else {
    Field out{};
    unbox(box(value), out, op, name);
    return out;
  }
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
