// core/tensor_index.h — the indices of LibTorch's Tensor::index (torch::indexing): integers, Slice,
// None, Ellipsis / "..." (each a view step: select, slice, unsqueeze) and tensors (int64 indices or a bool
// mask: advanced indexing, aten::index).
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include "core/error.h"
#include "core/tensor_base.h"

namespace tl::indexing {

/// `None` in an index list: a new dimension of size 1 there (unsqueeze), as torch::indexing::None.
inline constexpr std::nullopt_t None = std::nullopt;

struct EllipsisIndexType {
  explicit constexpr EllipsisIndexType() = default;
  friend bool operator==(EllipsisIndexType, EllipsisIndexType) { return true; }
};
/// `Ellipsis` (or "..."): as many full slices as the other indices leave dimensions, as Python's `...`.
inline constexpr EllipsisIndexType Ellipsis{};

/// Python's start:stop:step; a missing bound is the dimension's end (None), a missing step 1.
struct Slice {
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : start(start), stop(stop), step(step) {}
  std::optional<int64_t> start, stop, step;
  friend bool operator==(const Slice&, const Slice&) = default;
};

/// One entry of an index list: an integer (select), a Slice, None (unsqueeze), Ellipsis, a bool (a new
/// dimension of size 1, kept by true and emptied by false, as Python's x[True]) or a tensor.
class TensorIndex {
 public:
  enum class Kind { None, Ellipsis, Integer, Boolean, Slice, Tensor };

  TensorIndex(std::nullopt_t) : kind_(Kind::None) {}  // NOLINT: implicit, as LibTorch's
  TensorIndex(EllipsisIndexType) : kind_(Kind::Ellipsis) {}  // NOLINT
  /// "..." is Ellipsis; any other string throws tl::Error.
  TensorIndex(const char* text) : kind_(Kind::Ellipsis) {  // NOLINT
    TL_CHECK(text != nullptr && std::strcmp(text, "...") == 0,
             "Expected \"...\" to represent an ellipsis index, but got \"", text ? text : "", "\"");
  }
  template <typename T, std::enable_if_t<std::is_integral_v<T> && !std::is_same_v<T, bool>, int> = 0>
  TensorIndex(T integer) : kind_(Kind::Integer), integer_(static_cast<int64_t>(integer)) {}  // NOLINT
  TensorIndex(bool boolean) : kind_(Kind::Boolean), integer_(boolean) {}  // NOLINT
  TensorIndex(Slice slice) : kind_(Kind::Slice), slice_(slice) {}  // NOLINT
  /// An int64 index tensor or a bool mask (a Tensor converts to its TensorBase). Throws tl::Error for an
  /// undefined one.
  TensorIndex(const TensorBase& tensor) : kind_(Kind::Tensor), tensor_(tensor) {  // NOLINT
    TL_CHECK(tensor.defined(), "index: an undefined tensor cannot index; use None for a new dimension");
  }

  Kind kind() const { return kind_; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return integer_ != 0; }
  const Slice& slice() const { return slice_; }
  const TensorBase& tensor() const { return tensor_; }

 private:
  Kind kind_;
  int64_t integer_ = 0;
  Slice slice_;
  TensorBase tensor_;
};

}  // namespace tl::indexing
