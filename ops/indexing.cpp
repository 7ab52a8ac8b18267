// ops/indexing.cpp — LibTorch's Tensor::index / index_put_ / operator[]: each basic index is one view op
// (select, slice, unsqueeze) applied left to right, as ATen's applySlicing records them; tensor indices
// then go to aten::index / index_put_ (ops/advanced_index.cpp) at the dimensions they index. x[...] is the
// named call operator.getitem(x, key) (core/named_call.h), which symbolic tracing records as one node.
#include <algorithm>
#include <vector>

#include "core/named_call.h"
#include "core/op_args.h"
#include "ops/ops.h"

namespace tl {
namespace {

using indexing::TensorIndex;
using Kind = TensorIndex::Kind;

}  // namespace

Tensor Tensor::operator[](int64_t index) const { return this->index({index}); }

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return index(std::span<const TensorIndex>(indices.begin(), indices.size()));
}

namespace {

Tensor as_tensor(const TensorBase& base) {
  Tensor t;
  static_cast<TensorBase&>(t) = base;
  return t;
}

// How many dimensions of self an index consumes: an integer or Slice one, a mask its own dims (none for a
// 0-dim one, which adds a dimension as a bool does), an integer tensor one.
int64_t consumed_dims(const TensorIndex& i) {
  switch (i.kind()) {
    case Kind::Integer:
    case Kind::Slice: return 1;
    case Kind::Tensor: return i.tensor().dtype() == DType::Bool ? i.tensor().dim() : 1;
    default: return 0;
  }
}

// x.index's basic indices applied as views, and its tensor indices by the dimension of the view they index
// (undefined between them), as ATen's applySlicing leaves them for aten::index.
struct Sliced {
  Tensor view;
  std::vector<Tensor> tensor_indices;
};

// A bool index (True, or a 0-dim bool tensor) as ATen's applySlicing takes it: a new dimension of size 1 at
// `d`, indexed by [0] (kept) or by an empty index (no element).
void index_new_dimension(Sliced& out, int64_t& d, bool keep) {
  out.view = out.view.unsqueeze(d);
  out.tensor_indices.resize(static_cast<size_t>(d));
  out.tensor_indices.push_back(keep ? zeros({1}, DType::Int64) : empty({0}, DType::Int64));
  ++d;
}

// Checks every index against the shape first (a proxy's too), then builds the view.
Sliced apply_slicing(const Tensor& self, std::span<const TensorIndex> indices) {
  int64_t consumed = 0, ellipses = 0;
  for (const TensorIndex& i : indices) {
    consumed += consumed_dims(i);
    ellipses += i.kind() == Kind::Ellipsis;
    if (i.kind() == Kind::Slice) TL_CHECK(i.slice().step.value_or(1) > 0, "step must be greater than zero");
    TL_CHECK(i.kind() != Kind::Integer || self.dim() > 0, "invalid index of a 0-dim tensor. Use `tensor.item()` in ",
             "Python or `tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
  }
  TL_CHECK(ellipses <= 1, "An index can only have a single ellipsis ('...')");
  TL_CHECK(consumed <= self.dim(), "too many indices for tensor of dimension ", self.dim());
  Sliced out{self, {}};
  int64_t d = 0, source_dim = 0;  // the dim of the view and of self the next index applies to
  for (const TensorIndex& i : indices) {
    switch (i.kind()) {
      case Kind::Integer: {
        const int64_t size = out.view.size(d), k = i.integer();
        TL_CHECK(k >= -size && k < size, "index ", k, " is out of bounds for dimension ", source_dim, " with size ", size);
        out.view = out.view.select(d, k);
        ++source_dim;
        break;
      }
      case Kind::Slice: {
        const indexing::Slice& s = i.slice();
        out.view = out.view.slice(d++, s.start, s.stop, s.step.value_or(1));
        ++source_dim;
        break;
      }
      case Kind::Boolean: index_new_dimension(out, d, i.boolean()); break;
      case Kind::Tensor: {
        const Tensor index = as_tensor(i.tensor());
        if (index.dim() == 0 && index.dtype() == DType::Bool) {
          index_new_dimension(out, d, index.item<bool>());
          break;
        }
        if (index.dim() == 0) {  // a 0-dim integer tensor selects, as an integer does (a view)
          const int64_t size = out.view.size(d), k = index.item<int64_t>();
          TL_CHECK(k >= -size && k < size, "index ", k, " is out of bounds for dimension ", source_dim, " with size ", size);
          out.view = out.view.select(d, k);
          ++source_dim;
          break;
        }
        out.tensor_indices.resize(static_cast<size_t>(d));
        out.tensor_indices.push_back(as_tensor(i.tensor()));
        d += consumed_dims(i);
        source_dim += consumed_dims(i);
        break;
      }
      case Kind::None: out.view = out.view.unsqueeze(d++); break;
      case Kind::Ellipsis:
        d += self.dim() - consumed;
        source_dim += self.dim() - consumed;
        break;
    }
  }
  return out;
}

// The inputs of aten::index / index_put_: self, its indices, and the values to put.
TensorList index_inputs(const Tensor& self, TensorListRef indices, const Tensor& values = {}) {
  TensorList inputs{self};
  inputs.insert(inputs.end(), indices.begin(), indices.end());
  if (values.defined()) inputs.push_back(values);
  return inputs;
}

// Python's operator.getitem on a tensor, by name: (x, key) with key an index list.
[[maybe_unused]] const bool g_getitem_registered = [] {
  register_named_function("operator.getitem", [](const NamedCall& call) {
    const BoundArgs a(call, {"a", "b"});
    const auto* key = a.find(1) ? std::get_if<std::vector<TensorIndex>>(a.find(1)) : nullptr;
    TL_CHECK(key != nullptr, "operator.getitem: the key of a tensor must be an index list");
    return TensorList{a.tensor(0).index(std::span<const TensorIndex>(*key))};
  });
  return true;
}();

}  // namespace

Tensor index(const Tensor& self, TensorListRef indices) {
  return dispatch::call<OpKind::Index>(index_inputs(self, indices));
}

Tensor index_put(const Tensor& self, TensorListRef indices, const Tensor& values, bool accumulate) {
  TL_CHECK(values.defined(), "index_put: values must be a tensor, got None");
  return dispatch::call<OpKind::IndexPut>(index_inputs(self, indices, values), IndexPutArgs{.accumulate = accumulate});
}

Tensor& index_put_(Tensor& self, TensorListRef indices, const Tensor& values, bool accumulate) {
  TL_CHECK(values.defined(), "index_put_: values must be a tensor, got None");
  dispatch::call<OpKind::IndexPut_>(index_inputs(self, indices, values), IndexPutArgs{.accumulate = accumulate});
  return self;
}

Tensor Tensor::index(std::span<const TensorIndex> indices) const {
  const bool traced = is_proxy() || std::any_of(indices.begin(), indices.end(), [](const TensorIndex& i) {
                        return i.kind() == Kind::Tensor && i.tensor().is_proxy();
                      });
  if (traced)
    if (std::optional<Tensor> out = intercept_named_call("operator.getitem", [&] {
          return BoxedCall{{*this, std::vector<TensorIndex>(indices.begin(), indices.end())}, {}};
        }))
      return *out;
  Sliced s = apply_slicing(*this, indices);
  return s.tensor_indices.empty() ? s.view : tl::index(s.view, s.tensor_indices);
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& value) {
  Sliced s = apply_slicing(*this, std::span<const TensorIndex>(indices.begin(), indices.size()));
  if (s.tensor_indices.empty()) s.view.copy_(value);
  else tl::index_put_(s.view, s.tensor_indices, value);
  return *this;
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Scalar& value) {
  return index_put_(indices, scalar_tensor(value, dtype()));
}

}  // namespace tl
