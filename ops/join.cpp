// ops/join.cpp — cat and stack. The result takes the promoted dtype of all inputs; each input is
// copied (and converted) straight into its slice of the fresh output, whatever its strides.
#include <algorithm>
#include <vector>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "ops/elementwise.h"

namespace tl::kernels {
namespace {

// PyTorch's legacy rule: a 1-D tensor of size [0] joins anything and is skipped.
bool skipped(const Tensor& t) { return t.dim() == 1 && t.size(0) == 0; }

// The slice [start, start + t.size(dim)) of `out` along dim, shaped like t (a view, no dispatch).
Tensor slice_of(const Tensor& out, const Tensor& t, int64_t dim, int64_t start) {
  return Tensor::make(out.storage(), t.shape(), out.strides(), out.storage_offset() + start * out.stride(dim),
                      out.dtype());
}

// Checks `t` (input number i) against the reference input `ref` (number r) for cat along dim.
void check_cat_operand(const Tensor& t, size_t i, const Tensor& ref, size_t r, int64_t dim) {
  TL_CHECK(t.dim() == ref.dim(), "cat: tensors must have the same number of dimensions: got ", ref.dim(),
           " (tensor ", r, ", size ", ref.shape(), ") and ", t.dim(), " (tensor ", i, ", size ", t.shape(), ")");
  for (int64_t d = 0; d < ref.dim(); ++d) {
    TL_CHECK(d == dim || t.size(d) == ref.size(d), "cat: sizes of tensors must match except in dimension ", dim,
             ": expected size ", ref.size(d), " but got size ", t.size(d), " in dimension ", d, " for tensor ", i,
             " in the list (tensor ", r, " has size ", ref.shape(), ", tensor ", i, " has size ", t.shape(), ")");
  }
}

Tensor cat_impl(std::span<const Tensor> tensors, int64_t dim_arg) {
  TL_CHECK(!tensors.empty(), "cat: expected a non-empty list of tensors");
  for (size_t i = 0; i < tensors.size(); ++i) {
    TL_CHECK(tensors[i].defined(), "cat: expected a tensor at position ", i, ", got None");
    TL_CHECK(tensors[i].dim() > 0, "cat: zero-dimensional tensor (at position ", i, ") cannot be concatenated");
  }
  DType dtype = tensors[0].dtype();
  for (const Tensor& t : tensors) dtype = promote_types(dtype, t.dtype());
  size_t r = 0;
  while (r < tensors.size() && skipped(tensors[r])) ++r;
  if (r == tensors.size()) return Tensor::allocate({0}, dtype);
  const Tensor& ref = tensors[r];
  const int64_t dim = wrap_dim(dim_arg, ref.dim(), "cat");
  Shape shape = ref.shape();
  shape[dim] = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (skipped(tensors[i])) continue;
    check_cat_operand(tensors[i], i, ref, r, dim);
    shape[dim] += tensors[i].size(dim);
  }
  Tensor out = Tensor::allocate(shape, dtype);
  int64_t start = 0;
  for (const Tensor& t : tensors) {
    if (skipped(t)) continue;
    detail::copy_elements(slice_of(out, t, dim, start), t);
    start += t.size(dim);
  }
  return out;
}

// t with a size-1 dim inserted at `dim` (a view, no dispatch).
Tensor unsqueezed(const Tensor& t, int64_t dim) {
  Shape sizes = t.shape();
  Strides strides = t.strides();
  sizes.insert(dim, 1);
  strides.insert(dim, dim < t.dim() ? t.stride(dim) * t.size(dim) : 1);
  return Tensor::make(t.storage(), sizes, strides, t.storage_offset(), t.dtype());
}

}  // namespace

// Quantized tensors run quantized_cat with the first one's qparams (it refuses a float one among them), as ATen's
// cat does on QuantizedCPU.
Tensor cat(std::span<const Tensor> tensors, const CatArgs& args) {
  if (std::any_of(tensors.begin(), tensors.end(), [](const Tensor& t) { return t.defined() && t.is_quantized(); }))
    return dispatch::call<OpKind::QuantizedCat>(tensors, {.dim = args.dim});
  return cat_impl(tensors, args.dim);
}

Tensor stack(std::span<const Tensor> inputs, const StackArgs& args) {
  TL_CHECK(!inputs.empty(), "stack: expected a non-empty list of tensors");
  for (size_t i = 0; i < inputs.size(); ++i) {
    TL_CHECK(inputs[i].defined(), "stack: expected a tensor at position ", i, ", got None");
    TL_CHECK(inputs[i].shape() == inputs[0].shape(), "stack: expects each tensor to be equal size, but got ",
             inputs[0].shape(), " at entry 0 and ", inputs[i].shape(), " at entry ", i);
  }
  const int64_t dim = wrap_dim(args.dim, inputs[0].dim() + 1, "stack");
  // The inputs unsqueezed at dim, concatenated along it.
  std::vector<Tensor> views;
  views.reserve(inputs.size());
  for (const Tensor& t : inputs) views.push_back(unsqueezed(t, dim));
  return cat_impl(views, dim);
}

}  // namespace tl::kernels
