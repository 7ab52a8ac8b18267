// ops/inference_layout.cpp — to_mkldnn / to_dense: the reorders at the boundary of an optimized graph
// (dense NCHW <-> fp32 nChw16c or bf16 NHWC), each a cached oneDNN reorder except fp32 -> bf16 (copy_'s element
// copy, which keeps denormals); blocked results keep their padded channels zero, as oneDNN requires.
#include "ops/inference_layout.h"

#include "core/dispatch.h"
#include "core/op_args.h"
#include "ops/elementwise.h"
#include "ops/onednn/engine.h"
#include "ops/onednn/errors.h"
#include "ops/onednn/primitive_cache.h"

namespace tl {
namespace inference {

void check_out(const char* op, const Tensor& out, const Shape& sizes, const Strides& strides, DType dtype) {
  TL_CHECK(out.shape() == sizes && out.dtype() == dtype, op, ": expected out of shape ", sizes, " and dtype ", dtype,
           ", got ", out.shape(), " ", out.dtype());
  TL_CHECK(out.strides() == strides, op, ": out ", out.shape(), " has strides ", out.strides(), ", expected ", strides);
}

Tensor activation_out(const char* op, bool blocked, DType dtype, const Shape& nchw, const Tensor& out) {
  const int64_t n = nchw[0], c = nchw[1], h = nchw[2], w = nchw[3];
  const Shape sizes = blocked ? blocked_shape(n, c, h, w) : Shape{n, c, h, w};
  const Strides strides = blocked ? contiguous_strides(sizes) : nhwc_strides(c, h, w);
  if (out.defined()) {
    check_out(op, out, sizes, strides, dtype);
    return out;
  }
  return blocked ? Tensor::allocate(sizes, dtype) : allocate_nhwc(n, c, h, w, dtype);
}

void check_activation(const char* op, const char* what, const Tensor& t) {
  TL_CHECK(t.defined(), op, ": ", what, " is None");
  onednn::check_dtype(op, what, t.dtype());
  if (t.dim() == 5) {
    TL_CHECK(is_blocked(t) && t.is_contiguous(), op, ": expected a blocked ", what,
             " (N, C / 16, H, W, 16) to be contiguous with a last dimension of 16, got ", t.shape(), " with strides ",
             t.strides());
    return;
  }
  TL_CHECK(t.dim() == 4, op, ": expected ", what, " to be 4-D (N, C, H, W) or blocked 5-D (N, C / 16, H, W, 16), got ",
           t.shape());
}

}  // namespace inference

namespace kernels {
namespace {

struct ReorderPlan : onednn::CachedPlan {
  onednn::Primitive reorder;
  dnnl::memory::desc src, dst;
};

/// Runs the cached reorder from `src` (seen as `src_desc`) into `dst` (seen as `dst_desc`).
void reorder(const char* op, const Tensor& src, const dnnl::memory::desc& src_desc, const Tensor& dst,
             const dnnl::memory::desc& dst_desc) {
  auto context = [&] { return detail::str_cat("input ", src.shape(), ", output ", dst.shape()); };
  onednn::guarded(op, context, [&] {
    onednn::PrimitiveKey key("inference_reorder");
    key.add(src).add(dst).add(src_desc.dims()[1]).add(dst_desc.dims()[1]);
    auto plan = onednn::primitive_cache().get_or_create<ReorderPlan>(key, [&] {
      ReorderPlan p;
      p.src = src_desc;
      p.dst = dst_desc;
      p.reorder = onednn::make_reorder(src_desc, dst_desc);
      return p;
    });
    plan->reorder.execute({{DNNL_ARG_FROM, onednn::memory_of(src, plan->src)},
                           {DNNL_ARG_TO, onednn::memory_of(dst, plan->dst)}});
  });
}

}  // namespace

// self (N, C, H, W) dense, any strides -> fp32 nChw16c (dtype None or float32) or bf16 NHWC.
Tensor to_mkldnn(const Tensor& self, const Tensor& out, const ToMkldnnArgs& args) {
  const Tensor& x = self;
  const DType dtype = args.dtype.value_or(DType::Float32);
  TL_CHECK(x.dim() == 4, "to_mkldnn: expected 4-D input (N, C, H, W), got ", x.shape());
  onednn::check_dtype("to_mkldnn", "input", x.dtype());
  TL_CHECK(dtype == DType::Float32 || dtype == DType::BFloat16,
           "to_mkldnn: expected dtype torch.float32 or torch.bfloat16, got ", dtype);
  const int64_t n = x.size(0), c = x.size(1), h = x.size(2), w = x.size(3);
  Tensor y;
  if (dtype == DType::Float32) {
    const Shape sizes = inference::blocked_shape(n, c, h, w);
    if (out.defined()) inference::check_out("to_mkldnn", out, sizes, contiguous_strides(sizes), dtype);
    y = out.defined() ? out : Tensor::allocate(sizes, dtype);
  } else {
    if (out.defined()) inference::check_out("to_mkldnn", out, x.shape(), inference::nhwc_strides(c, h, w), dtype);
    y = out.defined() ? out : inference::allocate_nhwc(n, c, h, w, dtype);
  }
  if (y.numel() == 0) return y;
  // oneDNN's f32 -> bf16 reorder flushes denormals to zero; copy_'s element copy rounds each value as
  // PyTorch does.
  if (dtype == DType::BFloat16 && x.dtype() == DType::Float32) {
    detail::copy_elements(y, x);
    return y;
  }
  reorder("to_mkldnn", x, onednn::strided_desc(x), y, inference::activation_desc(y, c));
  return y;
}

// self blocked (N, C / 16, H, W, 16) or 4-D (N, C, H, W) -> contiguous float32 (N, channels, H, W);
// channels = -1 keeps every (padded) channel.
Tensor to_dense(const Tensor& self, const Tensor& out, const ToDenseArgs& args) {
  const Tensor& x = self;
  inference::check_activation("to_dense", "input", x);
  const Shape logical = inference::logical_shape(x);
  const int64_t channels = args.channels < 0 ? logical[1] : args.channels;
  if (inference::is_blocked(x)) {
    TL_CHECK(inference::blocks_of(channels) == x.size(1), "to_dense: input ", x.shape(), " holds ", x.size(1),
             " blocks of 16 channels, which cannot hold ", channels, " channels");
  } else {
    TL_CHECK(channels == logical[1], "to_dense: input ", x.shape(), " has ", logical[1], " channels, not ", channels);
  }
  const Shape sizes{logical[0], channels, logical[2], logical[3]};
  if (out.defined()) inference::check_out("to_dense", out, sizes, contiguous_strides(sizes), DType::Float32);
  Tensor y = out.defined() ? out : Tensor::allocate(sizes, DType::Float32);
  if (y.numel() == 0) return y;
  reorder("to_dense", x, inference::activation_desc(x, channels), y, onednn::strided_desc(y));
  return y;
}

}  // namespace kernels
}  // namespace tl
