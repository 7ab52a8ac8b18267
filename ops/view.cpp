// ops/view.cpp — view, reshape, flatten, permute, transpose, t, slice, select, diagonal, expand, squeeze,
// unsqueeze (and diagonal's backward). Every result shares its input's storage; only reshape copies, when
// no view can express it.
#include <algorithm>
#include <optional>

#include "core/op_args.h"
#include "ops/ops.h"

namespace tl::kernels {
namespace {

// The quantizer of a view of x: x's own. A per-channel one's scales follow its axis, so the view must keep
// the dimensions up to the axis as they are (flatten(1) of a weight, a slice of a later dimension).
std::shared_ptr<const Quantizer> view_quantizer(const Tensor& x, const Shape& sizes, const Strides& strides) {
  const std::shared_ptr<const Quantizer>& q = x.quantizer();
  if (!q || q->qscheme() != QScheme::PerChannelAffine) return q;
  const int64_t axis = q->axis();
  bool kept = sizes.size() > axis;
  for (int64_t d = 0; kept && d <= axis; ++d) kept = sizes[d] == x.size(d) && strides[d] == x.stride(d);
  TL_CHECK(kept, "view of a per-channel quantized tensor: the dimensions up to its axis ", axis, " must stay as they are "
           "(size ", x.shape(), ", strides ", x.strides(), "), got size ", sizes, " with strides ", strides);
  return q;
}

Tensor make_view(const Tensor& x, Shape sizes, Strides strides, int64_t offset) {
  std::shared_ptr<const Quantizer> quantizer = view_quantizer(x, sizes, strides);
  return Tensor::make(x.storage(), std::move(sizes), std::move(strides), offset, x.dtype(), std::move(quantizer));
}

Tensor make_view(const Tensor& x, Shape sizes, Strides strides) {
  return make_view(x, std::move(sizes), std::move(strides), x.storage_offset());
}

// Resolves a single -1 in `shape` so that it holds `numel` elements (PyTorch's infer_size).
Shape infer_size(const Shape& shape, int64_t numel, const char* op) {
  Shape out = shape;
  std::optional<int64_t> infer_dim;
  int64_t known = 1;
  bool overflow = false;
  for (int64_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == -1) {
      TL_CHECK(!infer_dim, op, ": only one dimension can be inferred");
      infer_dim = d;
    } else {
      TL_CHECK(shape[d] >= 0, op, ": invalid shape dimension ", shape[d]);
      overflow |= __builtin_mul_overflow(known, shape[d], &known);
    }
  }
  const bool fits = !overflow && (numel == known || (infer_dim && known > 0 && numel % known == 0));
  TL_CHECK(fits, op, ": shape '", shape, "' is invalid for input of size ", numel);
  if (infer_dim) {
    TL_CHECK(known != 0, op, ": cannot reshape tensor of 0 elements into shape ", shape,
             " because the unspecified dimension size -1 can be any value and is ambiguous");
    out[*infer_dim] = numel / known;
  }
  return out;
}

// Strides that let `new_shape` view memory laid out as (old_shape, old_strides), or nullopt when a
// new dimension would span two separately strided chunks (PyTorch's computeStride).
std::optional<Strides> view_strides(const Shape& old_shape, const Strides& old_strides, const Shape& new_shape) {
  if (old_shape.empty()) return Strides(static_cast<size_t>(new_shape.size()), 1);
  const int64_t numel = numel_of(old_shape);
  if (numel == 0 && old_shape == new_shape) return old_strides;
  if (numel == 0) return contiguous_strides(new_shape);
  Strides strides(static_cast<size_t>(new_shape.size()), 1);
  int64_t view_d = new_shape.size() - 1;
  int64_t chunk_base_stride = old_strides[old_strides.size() - 1];
  int64_t tensor_numel = 1, view_numel = 1;
  for (int64_t tensor_d = old_shape.size() - 1; tensor_d >= 0; --tensor_d) {
    tensor_numel *= old_shape[tensor_d];
    // A chunk ends where the next-outer dimension does not continue this one's memory.
    const bool chunk_ends = tensor_d == 0 || (old_shape[tensor_d - 1] != 1 &&
                                              old_strides[tensor_d - 1] != tensor_numel * chunk_base_stride);
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel || new_shape[view_d] == 1)) {
      strides[view_d] = view_numel * chunk_base_stride;
      view_numel *= new_shape[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel) return std::nullopt;
    if (tensor_d > 0) {
      chunk_base_stride = old_strides[tensor_d - 1];
      tensor_numel = view_numel = 1;
    }
  }
  if (view_d != -1) return std::nullopt;
  return strides;
}

// A view through the strides where they allow one, else a contiguous clone (dispatched) viewed as `shape`.
Tensor reshape_impl(const Tensor& x, const Shape& shape, const char* op) {
  const Shape size = infer_size(shape, x.numel(), op);
  if (std::optional<Strides> strides = view_strides(x.shape(), x.strides(), size)) return make_view(x, size, std::move(*strides));
  return make_view(x.clone(), size, contiguous_strides(size), 0);
}

// Drops the size-1 dims of x, or only dim `only` when it is given and of size 1.
Tensor squeeze_view(const Tensor& x, std::optional<int64_t> only) {
  Shape sizes;
  Strides strides;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (x.shape()[d] == 1 && (!only || *only == d)) continue;
    sizes.push_back(x.shape()[d]);
    strides.push_back(x.strides()[d]);
  }
  return make_view(x, sizes, strides);
}

}  // namespace

Tensor view(const Tensor& x, const ViewArgs& args) {
  const Shape size = infer_size(args.size, x.numel(), "view");
  std::optional<Strides> strides = view_strides(x.shape(), x.strides(), size);
  TL_CHECK(strides.has_value(),
           "view: view size is not compatible with input tensor's size and stride (at least one dimension spans "
           "across two contiguous subspaces). Use .reshape(...) instead.");
  return make_view(x, size, std::move(*strides));
}

Tensor reshape(const Tensor& x, const ReshapeArgs& args) { return reshape_impl(x, args.shape, "reshape"); }

// As ATen's unflatten: dim split into `sizes` (one may be -1), a view of x.
Tensor unflatten(const Tensor& x, const UnflattenArgs& args) {
  const int64_t dim = wrap_dim(args.dim, x.dim(), "unflatten");
  TL_CHECK(!args.sizes.empty(), "unflatten: sizes must be non-empty");
  if (std::find(args.sizes.begin(), args.sizes.end(), -1) == args.sizes.end()) {
    int64_t product = 1;
    for (int64_t s : args.sizes) product *= s;
    TL_CHECK(product == x.size(dim), "unflatten: Provided sizes ", args.sizes, " don't multiply up to the size of dim ",
             dim, " (", x.size(dim), ") in the input tensor");
  }
  const Shape sizes = infer_size(args.sizes, x.size(dim), "unflatten");
  Shape shape;
  for (int64_t d = 0; d < x.dim(); ++d) {
    if (d != dim) shape.push_back(x.size(d));
    else for (int64_t s : sizes) shape.push_back(s);
  }
  return x.view(shape);
}

Tensor flatten(const Tensor& x, const FlattenArgs& args) {
  if (x.dim() == 0) return reshape_impl(x, {1}, "flatten");
  const int64_t start = wrap_dim(args.start_dim, x.dim(), "flatten");
  const int64_t end = wrap_dim(args.end_dim, x.dim(), "flatten");
  TL_CHECK(start <= end, "flatten: start_dim cannot come after end_dim (start_dim ", start, ", end_dim ", end, ")");
  if (start == end) return x;
  Shape shape;
  for (int64_t d = 0; d < start; ++d) shape.push_back(x.shape()[d]);
  int64_t flat = 1;
  for (int64_t d = start; d <= end; ++d) flat *= x.shape()[d];
  shape.push_back(flat);
  for (int64_t d = end + 1; d < x.dim(); ++d) shape.push_back(x.shape()[d]);
  return reshape_impl(x, shape, "flatten");
}

Tensor permute(const Tensor& x, const PermuteArgs& args) {
  const Shape& dims = args.dims;
  TL_CHECK(dims.size() == x.dim(),
           "permute: number of dimensions in the tensor input does not match the length of the desired ordering of "
           "dimensions i.e. input.dim() = ", x.dim(), " is not equal to len(dims) = ", dims.size());
  Shape sizes(static_cast<size_t>(x.dim())), strides(static_cast<size_t>(x.dim()));
  std::vector<bool> seen(static_cast<size_t>(x.dim()), false);
  for (int64_t i = 0; i < dims.size(); ++i) {
    const int64_t d = wrap_dim(dims[i], x.dim(), "permute");
    TL_CHECK(!seen[d], "permute: repeated dim ", dims[i], " in dims ", dims);
    seen[d] = true;
    sizes[i] = x.shape()[d];
    strides[i] = x.strides()[d];
  }
  return make_view(x, sizes, strides);
}

Tensor transpose(const Tensor& x, const TransposeArgs& args) {
  Shape sizes = x.shape();
  Strides strides = x.strides();
  if (x.dim() > 0) {
    const int64_t d0 = wrap_dim(args.dim0, x.dim(), "transpose");
    const int64_t d1 = wrap_dim(args.dim1, x.dim(), "transpose");
    std::swap(sizes[d0], sizes[d1]);
    std::swap(strides[d0], strides[d1]);
  } else {
    wrap_dim(args.dim0, 0, "transpose");
    wrap_dim(args.dim1, 0, "transpose");
  }
  return make_view(x, sizes, strides);
}

Tensor t(const Tensor& x) {
  TL_CHECK(x.dim() <= 2, "t: t() expects a tensor with <= 2 dimensions, but self is ", x.dim(), "D");
  Shape sizes = x.shape();
  Strides strides = x.strides();
  std::reverse(sizes.begin(), sizes.end());
  std::reverse(strides.begin(), strides.end());
  return make_view(x, sizes, strides);
}

Tensor slice(const Tensor& x, const SliceArgs& args) {
  TL_CHECK(x.dim() > 0, "slice: slice() cannot be applied to a 0-dim tensor");
  const int64_t dim = wrap_dim(args.dim, x.dim(), "slice");
  const int64_t step = args.step;
  TL_CHECK(step > 0, "slice: slice step must be positive, got ", step);
  const int64_t size = x.shape()[dim];
  // Python's rules: negative bounds count from the end, then everything clamps into [0, size].
  auto bound = [&](const std::optional<int64_t>& given, int64_t fallback) {
    int64_t v = given.value_or(fallback);
    if (v < 0) v += size;
    return std::clamp<int64_t>(v, 0, size);
  };
  const int64_t start = bound(args.start, 0);
  const int64_t end = std::max(start, bound(args.end, size));
  Shape sizes = x.shape();
  Strides strides = x.strides();
  sizes[dim] = (end - start + step - 1) / step;
  strides[dim] *= step;
  return make_view(x, sizes, strides, x.storage_offset() + start * x.strides()[dim]);
}

Tensor select(const Tensor& x, const SelectArgs& args) {
  TL_CHECK(x.dim() > 0, "select: select() cannot be applied to a 0-dim tensor.");
  const int64_t dim = wrap_dim(args.dim, x.dim(), "select");
  const int64_t index = args.index, size = x.shape()[dim];
  TL_CHECK(index >= -size && index < size, "select: index ", index, " out of range for tensor of size ", x.shape(),
           " at dimension ", dim);
  const int64_t i = index < 0 ? index + size : index;
  Shape sizes = x.shape();
  Strides strides = x.strides();
  sizes.erase(dim);
  strides.erase(dim);
  return make_view(x, sizes, strides, x.storage_offset() + i * x.strides()[dim]);
}

// The elements (i, i + offset) of dims dim1 and dim2 (i - offset when offset < 0), as the last dim of a
// view without those two dims (ATen's diagonal); an offset past the matrix gives a 0-size diagonal.
Tensor diagonal(const Tensor& x, const DiagonalArgs& args) {
  const int64_t d1 = wrap_dim(args.dim1, x.dim(), "diagonal"), d2 = wrap_dim(args.dim2, x.dim(), "diagonal");
  TL_CHECK(d1 != d2, "diagonal: diagonal dimensions cannot be identical ", args.dim1, ", ", args.dim2);
  const int64_t offset = args.offset, rows = x.shape()[d1], cols = x.shape()[d2];
  const int64_t length = std::max<int64_t>(offset >= 0 ? std::min(rows, cols - offset) : std::min(rows + offset, cols), 0);
  int64_t start = x.storage_offset();
  if (length > 0) start += offset >= 0 ? offset * x.strides()[d2] : -offset * x.strides()[d1];
  Shape sizes = x.shape();
  Strides strides = x.strides();
  const int64_t step = strides[d1] + strides[d2];
  sizes.erase(std::max(d1, d2));
  sizes.erase(std::min(d1, d2));
  strides.erase(std::max(d1, d2));
  strides.erase(std::min(d1, d2));
  sizes.push_back(length);
  strides.push_back(step);
  return make_view(x, sizes, strides, start);
}

// Zeros of input_sizes with grad_output written on their diagonal.
Tensor diagonal_backward(const Tensor& grad_output, const DiagonalBackwardArgs& args) {
  Tensor grad_input = tl::zeros(args.input_sizes, grad_output.dtype());
  Tensor diag = diagonal(grad_input, DiagonalArgs{.offset = args.offset, .dim1 = args.dim1, .dim2 = args.dim2});
  TL_CHECK(diag.shape() == grad_output.shape(), "diagonal_backward: expected grad_output of size ", diag.shape(),
           " (the diagonal of ", args.input_sizes, "), got ", grad_output.shape());
  diag.copy_(grad_output);
  return grad_input;
}

Tensor expand(const Tensor& x, const ExpandArgs& args) {
  const Shape& target = args.size;
  const int64_t rank = target.size(), lead = rank - x.dim();
  TL_CHECK(lead >= 0, "expand: the number of sizes provided (", rank,
           ") must be greater or equal to the number of dimensions in the tensor (", x.dim(), ")");
  Shape sizes(static_cast<size_t>(rank));
  Strides strides(static_cast<size_t>(rank));
  for (int64_t i = rank - 1; i >= 0; --i) {
    const int64_t d = i - lead;
    int64_t size = d >= 0 ? x.shape()[d] : 1;
    // A new leading dimension of size 1 continues the memory of the one inside it.
    int64_t stride = d >= 0 ? x.strides()[d] : (i + 1 < rank ? sizes[i + 1] * strides[i + 1] : 1);
    int64_t want = target[i];
    if (want == -1) {
      TL_CHECK(d >= 0, "expand: the expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
               "dimension ", i);
      want = size;
    }
    TL_CHECK(want >= 0, "expand: the expanded size of the tensor (", want, ") is negative; target sizes: ", target);
    if (size != want) {
      TL_CHECK(size == 1, "expand: the expanded size of the tensor (", want, ") must match the existing size (", size,
               ") at non-singleton dimension ", i, ".  Target sizes: ", target, ".  Tensor sizes: ", x.shape());
      size = want;
      stride = 0;
    }
    sizes[i] = size;
    strides[i] = stride;
  }
  return make_view(x, sizes, strides);
}

Tensor squeeze(const Tensor& x) { return squeeze_view(x, std::nullopt); }

Tensor squeeze_dim(const Tensor& x, const SqueezeDimArgs& args) {
  return squeeze_view(x, wrap_dim(args.dim, x.dim(), "squeeze"));
}

Tensor unsqueeze(const Tensor& x, const UnsqueezeArgs& args) {
  const int64_t dim = wrap_dim(args.dim, x.dim() + 1, "unsqueeze");
  Shape sizes = x.shape();
  Strides strides = x.strides();
  const int64_t stride = dim >= x.dim() ? 1 : sizes[dim] * strides[dim];
  sizes.insert(dim, 1);
  strides.insert(dim, stride);
  return make_view(x, sizes, strides);
}

}  // namespace tl::kernels
