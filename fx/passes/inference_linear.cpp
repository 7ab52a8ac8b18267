// fx/passes/inference_linear.cpp — MkldnnLinear: the weight packed once per input shape under a lock
// (mkldnn_reorder_linear_weight), every product run through the dispatcher as mkldnn_linear.
#include "fx/passes/inference_linear.h"

#include "core/op_args.h"
#include "core/parallel.h"
#include "core/py_repr.h"
#include "ops/ops.h"

namespace tl::fx {

namespace {

const nn::Linear& in_eval_mode(const nn::Linear& linear) {
  TL_CHECK(!linear.is_training(), "MkldnnLinear: the linear is in training mode; call eval() first");
  return linear;
}

}  // namespace

MkldnnLinear::MkldnnLinear(const nn::Linear& linear, bool gelu)
    : MkldnnLinear(in_eval_mode(linear).parameter("weight"), linear.parameter("bias"), gelu) {}

MkldnnLinear::MkldnnLinear(const Tensor& weight, const Tensor& bias, bool gelu) : gelu_(gelu) {
  TL_CHECK(weight.defined() && weight.dtype() == DType::Float32 && weight.dim() == 2 && weight.size(0) > 0 &&
               weight.size(1) > 0,
           "MkldnnLinear: expected a float32 weight of non-empty sizes, got ",
           weight.defined() ? detail::str_cat(weight.shape(), " ", weight.dtype()) : std::string("None"));
  TL_CHECK(!bias.defined() || (bias.dtype() == DType::Float32 && bias.dim() == 1 && bias.size(0) == weight.size(0)),
           "MkldnnLinear: expected a float32 bias of shape [", weight.size(0), "] or None, got ", bias.shape(), " ",
           bias.dtype());
  options_ = {.in_features = weight.size(1), .out_features = weight.size(0), .bias = bias.defined()};
  register_parameter("weight", weight);
  register_parameter("bias", bias.defined() ? bias.contiguous() : Tensor());  // None for bias=False, as Linear has it
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
