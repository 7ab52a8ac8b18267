// fx/passes/inference_modules.cpp — the fused inference modules: each kernel's arguments struct built
// from the layer options, weights prepacked once per input signature under a lock, every kernel run
// through the dispatcher.
#include "fx/passes/inference_modules.h"

#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/ops.h"

namespace tl::fx {
namespace {

std::array<int64_t, 2> pair(const nn::IntPair& p) { return {p.h(), p.w()}; }

}  // namespace

MkldnnConv2d::MkldnnConv2d(const nn::Conv2d& conv, bool sum, bool relu, DType dtype, bool winograd)
    : options_(conv.options()), sum_(sum), relu_(relu), dtype_(dtype) {
  const nn::Conv2dOptions& o = options_;
  const std::optional<nn::IntPair> padding = nn::symmetric_zero_padding(o);
  TL_CHECK(padding.has_value(), "MkldnnConv2d: the conv pads its input first (padding=",
           o.padding.mode() ? *o.padding.mode() : o.padding.zeros()->tuple_repr(), ", padding_mode=", o.padding_mode,
           "); only a conv padding symmetrically with zeros folds");
  padding_ = *padding;
  // A NaN or inf weight would become NaN across Winograd's transformed tile: such a conv stays direct.
  winograd_ = winograd && dtype == DType::Float32 && o.kernel_size.all_equal(3) && o.stride.all_equal(1) &&
              o.dilation.all_equal(1) && o.groups == 1 && all_finite(conv.parameter("weight"));
  TL_CHECK(!conv.is_training(), "MkldnnConv2d: the conv is in training mode; call eval() first");
  TL_CHECK(dtype == DType::Float32 || dtype == DType::BFloat16, "MkldnnConv2d: expected float32 or bfloat16, got ", dtype);
  const Tensor& w = conv.parameter("weight");
  TL_CHECK(w.dtype() == DType::Float32, "MkldnnConv2d: expected a float32 conv weight, got ", w.dtype());
  register_parameter("weight", w.contiguous());
  const Tensor& b = conv.parameter("bias");
  register_parameter("bias", b.defined() ? b.contiguous() : Tensor());  // None for bias=False, as Conv2d has it
}

// The packed weights are derived data: a copy packs its own (its weight may be changed independently).
MkldnnConv2d::MkldnnConv2d(const MkldnnConv2d& other)
    : InferenceModule(other),
      options_(other.options_),
      padding_(other.padding_),
      sum_(other.sum_),
      relu_(other.relu_),
      dtype_(other.dtype_),
      winograd_(other.winograd_) {}

nn::ForwardSignature MkldnnConv2d::forward_signature() const {
  nn::ForwardSignature sig;
  if (sum_) sig.arg_names.push_back("other");
  return sig;
}

std::string MkldnnConv2d::extra_repr() const {
  std::string s = nn::conv2d_extra_repr(options_, parameter("bias").defined());
  if (sum_ || relu_) s += std::string(", post_ops=[") + (sum_ ? "sum" : "") + (sum_ && relu_ ? ", " : "") + (relu_ ? "relu" : "") + "]";
  if (dtype_ != DType::Float32) s += std::string(", dtype=") + dtype_name(dtype_);
  if (winograd_) s += ", algorithm=winograd";
  return s;
}

Tensor MkldnnConv2d::packed_weight(const Tensor& x, bool winograd) {
  std::vector<int64_t> key(x.shape().begin(), x.shape().end());
  key.insert(key.end(), x.strides().begin(), x.strides().end());
  key.push_back(static_cast<int64_t>(x.dtype()));
  key.push_back(get_num_threads());  // oneDNN may lay the weight out differently per thread count
  key.push_back(winograd);
  const Tensor& weight = parameter("weight");
  return packed_->get(weight, std::move(key), [&] {
    const nn::Conv2dOptions& o = options_;
    return dispatch::call<OpKind::MkldnnReorderConv2dWeight>(
        {weight}, {.padding = pair(padding_), .stride = pair(o.stride), .dilation = pair(o.dilation),
                   .groups = o.groups, .input_size = x.shape(), .input_stride = x.strides(), .input_dtype = x.dtype(),
                   .bias = parameter("bias").defined(), .sum = sum_, .relu = relu_, .winograd = winograd});
  });
}

Tensor MkldnnConv2d::run(std::span<const Tensor> inputs, const Tensor& out) {
  const size_t expected = sum_ ? 2 : 1;
  TL_CHECK(inputs.size() == expected, "MkldnnConv2d: expected ", expected, sum_ ? " inputs (x, residual)" : " input",
           ", got ", inputs.size());
  const Tensor& x = inputs[0];
  TL_CHECK(x.defined() && (x.dim() == 4 || x.dim() == 5), "MkldnnConv2d: expected a 4-D (N, ", options_.in_channels,
           ", H, W) or blocked 5-D input, got ", x.defined() ? x.shape() : Shape{});
  const nn::Conv2dOptions& o = options_;
  const Tensor& w = parameter("weight");
  const Tensor other = sum_ ? inputs[1] : Tensor();
  auto conv = [&](bool winograd) {
    // The profiler lists weight_size and packed_for; the kernel checks weight_size against the packed weight.
    return dispatch::call<OpKind::MkldnnConvolution>(
        {x, packed_weight(x, winograd), parameter("bias"), other, out},
        {.padding = pair(padding_), .stride = pair(o.stride), .dilation = pair(o.dilation), .groups = o.groups,
         .relu = relu_, .winograd = winograd, .weight_size = w.shape(), .packed_for = x.shape()});
  };
  if (!winograd_) return conv(false);
  try {
    return conv(true);
  } catch (const Error&) {
    // The kernel refuses (before writing anything) NaN or inf input for Winograd, whose transforms
    // would turn ±inf into NaN: such input takes the direct kernel. Scanning only here keeps the scan
    // off the common path; any other failure is rethrown.
    if (all_finite(x) && (!other.defined() || all_finite(other))) throw;
    return conv(false);
  }
}

std::string MkldnnMaxPool2d::extra_repr() const { return nn::MaxPool2d(options_).extra_repr(); }

Tensor MkldnnMaxPool2d::run(std::span<const Tensor> inputs, const Tensor& out) {
  TL_CHECK(inputs.size() == 1, "MkldnnMaxPool2d: expected 1 input, got ", inputs.size());
  const nn::MaxPool2dOptions& o = options_;
  return dispatch::call<OpKind::MkldnnMaxPool2d>(
      {inputs[0], out}, {.kernel_size = pair(o.kernel_size),
                         .stride = o.stride ? std::optional(pair(*o.stride)) : std::nullopt, .padding = pair(o.padding),
                         .dilation = pair(o.dilation), .ceil_mode = o.ceil_mode});
}

Tensor MkldnnAdaptiveAvgPool2d::run(std::span<const Tensor> inputs, const Tensor& out) {
  TL_CHECK(inputs.size() == 1, "MkldnnAdaptiveAvgPool2d: expected 1 input, got ", inputs.size());
  return dispatch::call<OpKind::MkldnnAdaptiveAvgPool2d>({inputs[0], out}, {.output_size = pair(output_size_)});
}

}  // namespace tl::fx
