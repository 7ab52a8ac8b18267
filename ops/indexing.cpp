// ops/indexing.cpp — LibTorch's Tensor::index / index_put_ / operator[] for basic indices: each index
// is one view op (select, slice, unsqueeze) applied left to right, as ATen's applySlicing records them.
#include <vector>

#include "ops/ops.h"

namespace tl {
namespace {

using indexing::TensorIndex;
using Kind = TensorIndex::Kind;

}  // namespace

Tensor Tensor::operator[](int64_t index) const {
  TL_CHECK(dim() > 0, "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ ",
           "to convert a 0-dim tensor to a number");
  return select(0, index);
}

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(std::span<const TensorIndex>(indices.begin(), indices.size()));
}

// Checks every index against the shape first (a proxy's too), then builds the view.
Tensor Tensor::index(std::span<const TensorIndex> indices) const {
  int64_t consumed = 0, ellipses = 0;
  for (const TensorIndex& i : indices) {
    consumed += i.kind() == Kind::Integer || i.kind() == Kind::Slice;
    ellipses += i.kind() == Kind::Ellipsis;
    if (i.kind() == Kind::Slice) TL_CHECK(i.slice().step.value_or(1) > 0, "step must be greater than zero");
  }
  TL_CHECK(ellipses <= 1, "An index can only have a single ellipsis ('...')");
  TL_CHECK(consumed <= dim(), "too many indices for tensor of dimension ", dim());
  Tensor out = *this;
  int64_t d = 0, source_dim = 0;  // the dim of `out` and of this tensor the next index applies to
  for (const TensorIndex& i : indices) {
    switch (i.kind()) {
      case Kind::Integer: {
        const int64_t size = out.size(d), k = i.integer();
        TL_CHECK(k >= -size && k < size, "index ", k, " is out of bounds for dimension ", source_dim, " with size ", size);
        out = out.select(d, k);
        ++source_dim;
        break;
      }
      case Kind::Slice: {
        const indexing::Slice& s = i.slice();
        out = out.slice(d++, s.start, s.stop, s.step.value_or(1));
        ++source_dim;
        break;
      }
      case Kind::None: out = out.unsqueeze(d++); break;
      case Kind::Ellipsis:
        d += dim() - consumed;
        source_dim += dim() - consumed;
        break;
    }
  }
  return out;
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) {
  index(indices).copy_(value);
  return *this;
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value) {
  index(indices).copy_(scalar_tensor(value, dtype()));
  return *this;
}

}  // namespace tl
