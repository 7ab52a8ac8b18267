// ops/ops.h — the free-function op API (torch.* in PyTorch). Most functions are generated from the op
// list (core/native_functions.toml, by core/gen_ops.py: one per row whose variants name "function", with the
// schema's parameters and defaults); the few below are written by hand because their C++ overloads
// differ from their schema, or because they are not ops. Each op among them goes through dispatch::call;
// kernels live in the other ops/ files.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/dispatch.h"
#include "core/tensor.h"
#include "ops/op_functions.h"
#include "ops/tensor_data.h"

namespace tl {

/// A loss's reduction argument, as PyTorch's at::Reduction numbers it.
namespace Reduction {
enum : int64_t { None = 0, Mean = 1, Sum = 2 };
}

// ---- written by hand (ops/manual_api.cpp) ----
/// [0, end) with step 1, int64 for an integer end, float32 for a floating one.
Tensor arange(const Scalar& end);
/// int64 when start, end and step are all integers, else float32 (PyTorch's rule).
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step = 1);
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, DType dtype);
/// Integers uniform in [0, high) / [low, high) (torch.randint's two forms); throws tl::Error for high <= low.
/// With a generator, LibTorch's randint(high, size, generator, dtype) (torch.randint(..., generator=g)).
Tensor randint(int64_t high, const Shape& size, DType dtype = DType::Int64);
Tensor randint(int64_t low, int64_t high, const Shape& size, DType dtype = DType::Int64);
Tensor randint(int64_t high, const Shape& size, std::optional<Generator> generator, DType dtype = DType::Int64);
Tensor randint(int64_t low, int64_t high, const Shape& size, std::optional<Generator> generator,
               DType dtype = DType::Int64);
/// randint with self's shape, and its dtype unless one is given (torch.randint_like's two forms).
Tensor randint_like(const Tensor& self, int64_t high, std::optional<DType> dtype = std::nullopt);
Tensor randint_like(const Tensor& self, int64_t low, int64_t high, std::optional<DType> dtype = std::nullopt);
/// A 0-dim tensor holding `value`, with the dtype Python gives that number.
Tensor scalar_tensor(const Scalar& value, DType dtype);
/// Copies a buffer into a new tensor of `size` (numel must match).
template <typename T>
Tensor from_vector(const std::vector<T>& values, const Shape& size);
/// LibTorch's torch::tensor: a new tensor holding `data` (a number, a nested braced list or a std::vector),
/// int64 for integers, float32 for floating numbers, bool for bools, or `dtype` when given:
/// tl::tensor({1.0, 2.0}), tl::tensor({{1, 2}, {3, 4}}), tl::tensor(values, tl::kDouble).reshape({2, 3}).
Tensor tensor(const TensorData& data);
Tensor tensor(const TensorData& data, DType dtype);
/// LibTorch's torch::from_blob: a tensor over `data` (not copied, not owned: it must outlive the tensor
/// and its views), contiguous or with `strides` (in elements). Throws tl::Error for a null `data` with
/// elements, negative sizes or strides.
Tensor from_blob(void* data, const Shape& sizes, DType dtype = kFloat);
Tensor from_blob(void* data, const Shape& sizes, const Strides& strides, DType dtype = kFloat);
Tensor max(const Tensor& x);
/// (values, indices) along `dim`.
return_types::max max(const Tensor& x, int64_t dim, bool keepdim = false);
Tensor min(const Tensor& x);
return_types::min min(const Tensor& x, int64_t dim, bool keepdim = false);
/// at::index: self indexed by one tensor per leading dimension (an undefined one: the whole dimension),
/// int64 indices or bool masks, as x[idx0, :, idx2] (ops/indexing.cpp; Tensor::index takes them too).
Tensor index(const Tensor& self, TensorListRef indices);
/// at::index_put: a copy of self with values, broadcast, written (or with `accumulate` added) at the
/// places `indices` name; index_put_ writes self. Throws tl::Error, changing nothing, for an index out of
/// range, indices that do not broadcast together, values that do not broadcast to the indexed shape or
/// of another dtype.
Tensor index_put(const Tensor& self, TensorListRef indices, const Tensor& values, bool accumulate = false);
Tensor& index_put_(Tensor& self, TensorListRef indices, const Tensor& values, bool accumulate = false);
/// (n, x.dim()) int64 coordinates of the non-zero elements, in row-major order.
Tensor nonzero(const Tensor& x);
/// One int64 index tensor per dimension (torch.nonzero(x, as_tuple=True)).
std::vector<Tensor> nonzero_tuple(const Tensor& x);
/// nll_loss of input (C), (N, C) or (N, C, d1, ...) against its class indices, recorded as ATen's
/// aten::nll_loss_nd around aten::nll_loss (F.nll_loss and cross_entropy call it, as PyTorch's do).
Tensor nll_loss_nd(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                   int64_t reduction = Reduction::Mean, int64_t ignore_index = -100);

// ---- checks (plain scans, not ops: never traced or profiled) ----
/// True when no element of `x` is NaN or ±inf (always true for integer and bool tensors).
bool all_finite(const Tensor& x);
/// True when some element of `x` is NaN (never for integer and bool tensors); ±inf do not count.
bool has_nan(const Tensor& x);
/// True when some element of `x` is NaN or subnormal (never for integer and bool tensors).
bool has_nan_or_subnormal(const Tensor& x);

template <typename T>
Tensor from_vector(const std::vector<T>& values, const Shape& size) {
  Tensor t = empty(size, dtype_of<T>);
  TL_CHECK(static_cast<int64_t>(values.size()) == t.numel(), "from_vector: ", values.size(),
           " values do not fill size ", size, " (", t.numel(), " elements)");
  T* p = t.data<T>();
  for (size_t i = 0; i < values.size(); ++i) p[i] = values[i];
  return t;
}

}  // namespace tl
