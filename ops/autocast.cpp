// ops/autocast.cpp — autocast's op lists and casts (the AutocastCPU kernels of PyTorch 1.13).
#include "ops/autocast.h"

#include "core/autocast.h"
#include "core/op_kind.h"
#include "ops/ops.h"

namespace tl::detail {

CastPolicy autocast_policy(OpKind op) {
  switch (op) {
    // Convolutions and matrix products: bfloat16 is where the speed is.
    case OpKind::Conv2d:
    case OpKind::Mm:
    case OpKind::Bmm:
    case OpKind::Addmm:
    case OpKind::Matmul:
    case OpKind::Linear:
      return CastPolicy::LowerPrecision;
    // Losses sum many terms: float32 keeps their precision.
    case OpKind::CrossEntropyLoss:
    case OpKind::NllLoss:
    case OpKind::MseLoss:
      return CastPolicy::Float32;
    default:
      return CastPolicy::None;
  }
}

TensorList autocast_call(OpKind op, CastPolicy policy, std::span<const Tensor> inputs, const Attrs& attrs,
                         CallStyle style) {
  const DType to = policy == CastPolicy::LowerPrecision ? get_autocast_dtype() : DType::Float32;
  AutocastExcluded excluded;  // the casts and the op's own inner ops run as given
  TensorList cast(inputs.begin(), inputs.end());
  for (Tensor& t : cast)
    if (t.defined() && is_floating_point(t.dtype()) && t.dtype() != DType::Float64 && t.dtype() != to) t = t.to(to);
  return dispatch::call(op, cast, attrs, style);
}

}  // namespace tl::detail
