// ops/autocast.cpp — autocast's casts (the AutocastCPU kernels of PyTorch 1.13); which ops it casts is
// each row's `autocast` field.
#include "ops/autocast.h"

#include "core/autocast.h"
#include "ops/ops.h"

namespace tl::detail {

TensorList autocast_call(OpKind op, AutocastPolicy policy, std::span<const Tensor> inputs, const void* args,
                         CallStyle style) {
  const DType to = policy == AutocastPolicy::LowerPrecision ? get_autocast_dtype() : DType::Float32;
  AutocastExcluded excluded;  // the casts and the op's own inner ops run as given
  TensorList cast(inputs.begin(), inputs.end());
  for (Tensor& t : cast)
    if (t.defined() && is_floating_point(t.dtype()) && t.dtype() != DType::Float64 && t.dtype() != to) t = t.to(to);
  return dispatch::call_typed(op, cast, args, style);
}

}  // namespace tl::detail
