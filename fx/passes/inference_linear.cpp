// fx/passes/inference_linear.cpp — MkldnnLinear: the weight packed once per input shape under a lock
// (mkldnn_reorder_linear_weight), every product run through the dispatcher as mkldnn_linear.
#include "fx/passes/inference_linear.h"

#include "core/op_args.h"
#include "core/parallel.h"
#include "core/py_repr.h"
#include "ops/ops.h"

namespace tl::fx {

MkldnnLinear::MkldnnLinear(const nn::Linear& linear, bool gelu) : options_(linear.options()), gelu_(gelu) {
  TL_CHECK(!linear.is_training(), "MkldnnLinear: the linear is in training mode; call eval() first");
  const Tensor& w = linear.parameter("weight");
  TL_CHECK(w.dtype() == DType::Float32 && w.dim() == 2 && w.size(0) > 0 && w.size(1) > 0,
           "MkldnnLinear: expected a float32 weight of non-empty sizes, got ", w.shape(), " ", w.dtype());
  register_parameter("weight", w);
  const Tensor& b = linear.parameter("bias");
  register_parameter("bias", b.defined() ? b.contiguous() : Tensor());  // None for bias=False, as Linear has it
}

// The packed weights are derived data: a copy packs its own (its weight may be changed independently).
MkldnnLinear::MkldnnLinear(const MkldnnLinear& other)
    : InferenceModule(other), options_(other.options_), gelu_(other.gelu_) {}

std::string MkldnnLinear::extra_repr() const {
  return "in_features=" + std::to_string(options_.in_features) + ", out_features=" +
         std::to_string(options_.out_features) + ", bias=" + py_bool(parameter("bias").defined()) +
         (gelu_ ? ", post_ops=[gelu]" : "");
}

Tensor MkldnnLinear::packed_weight(const Tensor& x) {
  std::vector<int64_t> key(x.shape().begin(), x.shape().end());
  key.push_back(get_num_threads());  // oneDNN may lay the weight out differently per thread count
  const Tensor& weight = parameter("weight");
  return packed_->get(weight, std::move(key), [&] {
    return dispatch::call<OpKind::MkldnnReorderLinearWeight>(
        {weight}, {.input_size = x.shape(), .bias = parameter("bias").defined(), .gelu = gelu_});
  });
}

Tensor MkldnnLinear::run(std::span<const Tensor> inputs, const Tensor& out) {
  TL_CHECK(inputs.size() == 1, "MkldnnLinear: expected 1 input, got ", inputs.size());
  const Tensor& x = inputs[0];
  TL_CHECK(x.defined() && x.dim() >= 1 && x.size(-1) == options_.in_features && x.dtype() == DType::Float32,
           "MkldnnLinear: expected a float32 input (..., ", options_.in_features, "), got ",
           x.defined() ? detail::str_cat(x.shape(), " ", x.dtype()) : std::string("None"));
  // The profiler lists weight_size; the kernel checks it against the packed weight.
  return dispatch::call<OpKind::MkldnnLinear>({x, packed_weight(x), parameter("bias"), out},
                                              {.gelu = gelu_, .weight_size = parameter("weight").shape()});
}

}  // namespace tl::fx
