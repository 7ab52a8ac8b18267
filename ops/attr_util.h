// ops/attr_util.h — C++ API arguments into the fields of an op's arguments struct, and a field into the
// type a kernel reads it as (internal to ops/).
#pragma once

#include <string_view>
#include <type_traits>

#include "core/boxing.h"
#include "core/dispatch.h"

namespace tl::detail {

/// A C++ API argument as its field of the op's arguments struct: as it is where the types agree, else
/// converted as a graph's value is (a Shape for an int[2] field takes 1 or 2 values; an empty one for a
/// pool's stride=[] is none given), with unbox's tl::Error naming the op and the argument. A kernel reads
/// an `int[]` field it takes as (H, W) the same way (convolution_backward's stride).
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

}  // namespace tl::detail
