// ops/onednn/memory.h — Tensors seen by oneDNN: dtype and dims conversion, strided memory
// descriptors over a tensor's own bytes (no copy), and copies into plain (row-major) layout.
#pragma once

#include <memory>

#include <oneapi/dnnl/dnnl.hpp>

#include "core/storage.h"
#include "core/tensor.h"
#include "ops/onednn/engine.h"

namespace tl::onednn {

/// Throws tl::Error "<op>: expected <what> to be float32 or bfloat16, got torch.float64" unless
/// oneDNN kernels take `dtype`.
void check_dtype(const char* op, const char* what, DType dtype);
/// oneDNN's data type for float32 / bfloat16 (anything else is an internal error: check first).
dnnl::memory::data_type data_type(DType dtype);
dnnl::memory::dims dims(const Shape& shape);

/// The layout of `sizes` with `strides` (in elements). Throws dnnl::error when oneDNN cannot
/// describe it (elements overlapping other than through stride 0).
dnnl::memory::desc strided_desc(const Shape& sizes, const Strides& strides, DType dtype);
/// The tensor's own layout: sizes and strides as they are.
dnnl::memory::desc strided_desc(const Tensor& t);
/// Row-major (contiguous) layout.
dnnl::memory::desc plain_desc(const Shape& sizes, DType dtype);
/// A convolution weight (C_out, C_in / groups, kH, kW) in its own layout, seen as (G, C_out / G, C_in / G, kH, kW)
/// when grouped, as oneDNN's grouped convolutions take it.
dnnl::memory::desc grouped_weights_desc(const Tensor& w, int64_t groups);

/// A memory object over `t`'s bytes (element 0 at its storage offset) described by `desc`.
dnnl::memory memory_of(const Tensor& t, const dnnl::memory::desc& desc);
/// A memory object over raw bytes (a staging buffer, a vector of statistics).
dnnl::memory memory_of(void* data, const dnnl::memory::desc& desc);

/// What a staging buffer holds; each kind has its own per-thread buffer, so one kernel call can
/// hold one of each at once.
enum class Staging { Scratchpad, Src, Weights, Dst };

/// Memory for `desc` that lives only during one kernel call on this thread (an input reordered for
/// a primitive, an output before its reorder back, a scratchpad). It reuses a per-thread, grow-only
/// buffer per kind — sparing an allocation and its page faults on every call — unless larger than
/// kMaxReusedStagingBytes; then it is a fresh allocation owned by `keep`.
dnnl::memory staging_memory(Staging kind, const dnnl::memory::desc& desc, std::shared_ptr<Storage>& keep);
inline constexpr size_t kMaxReusedStagingBytes = size_t{64} << 20;

/// `user` as a primitive wants it (`desc`): itself when `reorder` is empty, otherwise reordered into
/// this thread's `kind` staging buffer (see staging_memory; `keep` owns a fresh allocation).
dnnl::memory staged_input(const dnnl::memory& user, const Primitive& reorder, Staging kind,
                          const dnnl::memory::desc& desc, std::shared_ptr<Storage>& keep);

/// `t` itself when contiguous, otherwise a contiguous copy: made by a cached oneDNN reorder for
/// float32 / bfloat16, by Tensor::contiguous for other dtypes or strides oneDNN cannot describe.
/// A oneDNN failure becomes a tl::Error naming `op`.
Tensor to_contiguous(const Tensor& t, const char* op);

/// A size-1 dim inserted before dim `dim` (0 <= dim <= t.dim()), and a size-1 dim `dim` removed, as views
/// that record no op: a 1-D conv or pool runs as the 2-D one on (N, C, 1, L), as ATen's does on CPU.
Tensor add_unit_dim(const Tensor& t, int64_t dim);
Tensor drop_unit_dim(const Tensor& t, int64_t dim);

/// (C, H, W) -> (1, C, H, W) and back, as views: unbatched input for 2-D ops, like PyTorch.
inline Tensor add_batch_dim(const Tensor& t) { return add_unit_dim(t, 0); }
inline Tensor drop_batch_dim(const Tensor& t) { return drop_unit_dim(t, 0); }

}  // namespace tl::onednn
