// ops/attr_util.h — turning C++ argument types into op attributes (internal to ops/).
#pragma once

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

}  // namespace tl::detail
