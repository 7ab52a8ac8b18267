// ops/memory_format.h — (internal to ops/) ATen's memory formats as its kernels read them from strides: whether a
// tensor suggests channels-last, and the layout ATen's TensorIterator gives an elementwise op's fresh result. A
// result laid out as ATen's keeps the layouts of what follows (a permute, a contiguous) as ATen's.
#pragma once

#include <initializer_list>

#include "core/tensor.h"

namespace tl::detail {

/// ATen's `x.suggest_memory_format() == torch.channels_last`: x is 4-D and its strides order its dimensions C, W, H,
/// N from the fastest (a size-1 dimension fits either order; the ambiguous cases, such as (N, C, 1, 1) contiguous,
/// are NCHW as ATen resolves them).
bool suggests_channels_last(const Tensor& x);

/// Tensor.is_contiguous(memory_format=torch.channels_last): x is 4-D and dense in the order C, W, H, N (size-1
/// dimensions take any stride).
bool is_channels_last_contiguous(const Tensor& x);

/// A fresh (uninitialised) (N, C, H, W) tensor with channels-last strides, as empty(shape,
/// memory_format=torch.channels_last); records no op.
Tensor allocate_channels_last(const Shape& nchw, DType dtype);

/// `t` itself when channels-last dense (is_channels_last_contiguous), else a channels-last copy of it, as
/// t.contiguous(memory_format=torch.channels_last); records no op. t: 4-D.
Tensor channels_last_dense(const Tensor& t);

/// A fresh (uninitialised) tensor of `shape` laid out as ATen's TensorIterator lays out the result of an
/// elementwise op of `inputs` (each broadcastable to `shape`; a 0-d one, a wrapped number, takes no part):
/// contiguous when the inputs are; when all have `shape` and are channels-last, or dense with one set of strides,
/// in that layout; otherwise dense with its dimensions in the order of the inputs' strides (the first input's
/// order decides, later ones break its ties, broadcast dimensions are ignored), so a channels-last operand
/// broadcast with a per-channel one gives a channels-last result.
Tensor allocate_like_inputs(const Shape& shape, DType dtype, std::initializer_list<Tensor> inputs);

}  // namespace tl::detail
