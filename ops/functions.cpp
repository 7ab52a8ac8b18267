// ops/functions.cpp — the free-function API of ops/ops.h: argument packing, then dispatch::call.
#include "ops/attr_util.h"
#include "ops/ops.h"

namespace tl {
namespace {

using detail::scalar_attr;

Tensor call(OpKind op, std::initializer_list<Tensor> inputs, const Attrs& attrs = {}) {
  return dispatch::call1(op, inputs, attrs);
}

Tensor factory(OpKind op, const Shape& size, DType dtype) {
  return call(op, {}, {{"size", size}, {"dtype", dtype}});
}

std::pair<Tensor, Tensor> values_indices(OpKind op, const Tensor& x, int64_t dim, bool keepdim) {
  const Tensor in[] = {x};
  TensorList out = dispatch::call(op, in, {{"dim", dim}, {"keepdim", keepdim}});
  return {std::move(out.at(0)), std::move(out.at(1))};
}

Attrs whole_reduction() { return {{"dim", AttrValue{}}, {"keepdim", false}}; }

}  // namespace

Tensor empty(const Shape& size, DType dtype) { return factory(OpKind::Empty, size, dtype); }
Tensor zeros(const Shape& size, DType dtype) { return factory(OpKind::Zeros, size, dtype); }
Tensor ones(const Shape& size, DType dtype) { return factory(OpKind::Ones, size, dtype); }
Tensor rand(const Shape& size, DType dtype) { return factory(OpKind::Rand, size, dtype); }
Tensor randn(const Shape& size, DType dtype) { return factory(OpKind::Randn, size, dtype); }
Tensor full(const Shape& size, const Scalar& fill_value, DType dtype) {
  return call(OpKind::Full, {}, {{"size", size}, {"fill_value", scalar_attr(fill_value)}, {"dtype", dtype}});
}

Tensor arange(const Scalar& end) { return arange(0, end, 1); }
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step) {
  const bool floating = start.is_floating_point() || end.is_floating_point() || step.is_floating_point();
  return arange(start, end, step, floating ? DType::Float32 : DType::Int64);
}
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step, DType dtype) {
  return call(OpKind::Arange, {},
              {{"start", scalar_attr(start)}, {"end", scalar_attr(end)}, {"step", scalar_attr(step)}, {"dtype", dtype}});
}

Tensor scalar_tensor(const Scalar& value, DType dtype) { return full({}, value, dtype); }

Tensor neg(const Tensor& x) { return call(OpKind::Neg, {x}); }
Tensor abs(const Tensor& x) { return call(OpKind::Abs, {x}); }
Tensor exp(const Tensor& x) { return call(OpKind::Exp, {x}); }
Tensor log(const Tensor& x) { return call(OpKind::Log, {x}); }
Tensor sqrt(const Tensor& x) { return call(OpKind::Sqrt, {x}); }
Tensor rsqrt(const Tensor& x) { return call(OpKind::Rsqrt, {x}); }
Tensor relu(const Tensor& x) { return call(OpKind::Relu, {x}); }
Tensor sigmoid(const Tensor& x) { return call(OpKind::Sigmoid, {x}); }
Tensor tanh(const Tensor& x) { return call(OpKind::Tanh, {x}); }
Tensor gelu(const Tensor& x, const std::string& approximate) {
  return call(OpKind::Gelu, {x}, {{"approximate", approximate}});
}
Tensor threshold_backward(const Tensor& grad, const Tensor& self, const Scalar& threshold) {
  return call(OpKind::ThresholdBackward, {grad, self}, {{"threshold", scalar_attr(threshold)}});
}
Tensor gelu_backward(const Tensor& grad, const Tensor& self, const std::string& approximate) {
  return call(OpKind::GeluBackward, {grad, self}, {{"approximate", approximate}});
}
Tensor add(const Tensor& a, const Tensor& b) { return call(OpKind::Add, {a, b}); }
Tensor sub(const Tensor& a, const Tensor& b) { return call(OpKind::Sub, {a, b}); }
Tensor mul(const Tensor& a, const Tensor& b) { return call(OpKind::Mul, {a, b}); }
Tensor div(const Tensor& a, const Tensor& b) { return call(OpKind::Div, {a, b}); }
Tensor pow(const Tensor& base, const Tensor& exponent) { return call(OpKind::Pow, {base, exponent}); }
Tensor pow(const Tensor& base, const Scalar& exponent) {
  return call(OpKind::Pow, {base}, {{"exponent", scalar_attr(exponent)}});
}
Tensor clamp(const Tensor& x, std::optional<Scalar> min, std::optional<Scalar> max) {
  return call(OpKind::Clamp, {x}, {{"min", detail::optional_scalar_attr(min)}, {"max", detail::optional_scalar_attr(max)}});
}
Tensor where(const Tensor& condition, const Tensor& a, const Tensor& b) {
  return call(OpKind::Where, {condition, a, b});
}

bool allclose(const Tensor& a, const Tensor& b, double rtol, double atol, bool equal_nan) {
  return call(OpKind::Allclose, {a, b}, {{"rtol", rtol}, {"atol", atol}, {"equal_nan", equal_nan}}).item<bool>();
}
bool equal(const Tensor& a, const Tensor& b) { return call(OpKind::Equal, {a, b}).item<bool>(); }

Tensor sum(const Tensor& x) { return call(OpKind::Sum, {x}, whole_reduction()); }
Tensor sum(const Tensor& x, const Shape& dims, bool keepdim) {
  return call(OpKind::Sum, {x}, {{"dim", dims}, {"keepdim", keepdim}});
}
Tensor mean(const Tensor& x) { return call(OpKind::Mean, {x}, whole_reduction()); }
Tensor mean(const Tensor& x, const Shape& dims, bool keepdim) {
  return call(OpKind::Mean, {x}, {{"dim", dims}, {"keepdim", keepdim}});
}
Tensor max(const Tensor& x) { return call(OpKind::Max, {x}, whole_reduction()); }
std::pair<Tensor, Tensor> max(const Tensor& x, int64_t dim, bool keepdim) {
  return values_indices(OpKind::Max, x, dim, keepdim);
}
Tensor min(const Tensor& x) { return call(OpKind::Min, {x}, whole_reduction()); }
std::pair<Tensor, Tensor> min(const Tensor& x, int64_t dim, bool keepdim) {
  return values_indices(OpKind::Min, x, dim, keepdim);
}
Tensor argmax(const Tensor& x) { return call(OpKind::Argmax, {x}, whole_reduction()); }
Tensor argmax(const Tensor& x, int64_t dim, bool keepdim) {
  return call(OpKind::Argmax, {x}, {{"dim", dim}, {"keepdim", keepdim}});
}

Tensor flatten(const Tensor& x, int64_t start_dim, int64_t end_dim) {
  return call(OpKind::Flatten, {x}, {{"start_dim", start_dim}, {"end_dim", end_dim}});
}
Tensor reshape(const Tensor& x, const Shape& shape) { return call(OpKind::Reshape, {x}, {{"shape", shape}}); }
Tensor permute(const Tensor& x, const Shape& dims) { return call(OpKind::Permute, {x}, {{"dims", dims}}); }
Tensor transpose(const Tensor& x, int64_t dim0, int64_t dim1) {
  return call(OpKind::Transpose, {x}, {{"dim0", dim0}, {"dim1", dim1}});
}
Tensor squeeze(const Tensor& x) { return call(OpKind::Squeeze, {x}, {{"dim", AttrValue{}}}); }
Tensor squeeze(const Tensor& x, int64_t dim) { return call(OpKind::Squeeze, {x}, {{"dim", dim}}); }
Tensor unsqueeze(const Tensor& x, int64_t dim) { return call(OpKind::Unsqueeze, {x}, {{"dim", dim}}); }

Tensor nonzero(const Tensor& x) { return call(OpKind::Nonzero, {x}, {{"as_tuple", false}}); }
std::vector<Tensor> nonzero_tuple(const Tensor& x) {
  const Tensor in[] = {x};
  return dispatch::call(OpKind::Nonzero, in, {{"as_tuple", true}});
}
Tensor argwhere(const Tensor& x) { return call(OpKind::Argwhere, {x}); }
Tensor index_select(const Tensor& x, int64_t dim, const Tensor& index) {
  return call(OpKind::IndexSelect, {x, index}, {{"dim", dim}});
}
Tensor masked_select(const Tensor& x, const Tensor& mask) { return call(OpKind::MaskedSelect, {x, mask}); }
Tensor cat(std::span<const Tensor> tensors, int64_t dim) {
  return dispatch::call1(OpKind::Cat, tensors, {{"dim", dim}});
}
Tensor stack(std::span<const Tensor> tensors, int64_t dim) {
  return dispatch::call1(OpKind::Stack, tensors, {{"dim", dim}});
}

Tensor matmul(const Tensor& a, const Tensor& b) { return call(OpKind::Matmul, {a, b}); }
Tensor mm(const Tensor& a, const Tensor& b) { return call(OpKind::Mm, {a, b}); }
Tensor bmm(const Tensor& a, const Tensor& b) { return call(OpKind::Bmm, {a, b}); }
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  return call(OpKind::Addmm, {self, mat1, mat2}, {{"beta", scalar_attr(beta)}, {"alpha", scalar_attr(alpha)}});
}
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias) {
  return call(OpKind::Linear, {input, weight, bias});
}

Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias, const Shape& stride,
              const Shape& padding, const Shape& dilation, int64_t groups) {
  return call(OpKind::Conv2d, {input, weight, bias},
              {{"stride", stride}, {"padding", padding}, {"dilation", dilation}, {"groups", groups}});
}
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias, const Tensor& running_mean,
                  const Tensor& running_var, bool training, double momentum, double eps) {
  return call(OpKind::BatchNorm, {input, weight, bias, running_mean, running_var},
              {{"training", training}, {"momentum", momentum}, {"eps", eps}});
}
Tensor max_pool2d(const Tensor& input, const Shape& kernel_size, const Shape& stride, const Shape& padding,
                  const Shape& dilation, bool ceil_mode) {
  return call(OpKind::MaxPool2d, {input},
              {{"kernel_size", kernel_size},
               {"stride", stride},
               {"padding", padding},
               {"dilation", dilation},
               {"ceil_mode", ceil_mode}});
}
Tensor avg_pool2d(const Tensor& input, const Shape& kernel_size, const Shape& stride, const Shape& padding,
                  bool ceil_mode, bool count_include_pad) {
  return call(OpKind::AvgPool2d, {input},
              {{"kernel_size", kernel_size},
               {"stride", stride},
               {"padding", padding},
               {"ceil_mode", ceil_mode},
               {"count_include_pad", count_include_pad}});
}
Tensor adaptive_avg_pool2d(const Tensor& input, const Shape& output_size) {
  return call(OpKind::AdaptiveAvgPool2d, {input}, {{"output_size", output_size}});
}
Tensor dropout(const Tensor& input, double p, bool train) {
  return call(OpKind::Dropout, {input}, {{"p", p}, {"train", train}});
}
std::pair<Tensor, Tensor> native_dropout(const Tensor& input, double p, std::optional<bool> train) {
  const Tensor in[] = {input};
  TensorList out = dispatch::call(OpKind::NativeDropout, in, {{"p", p}, {"train", train ? AttrValue{*train} : AttrValue{}}});
  return {std::move(out[0]), std::move(out[1])};
}
Tensor native_dropout_backward(const Tensor& grad, const Tensor& mask, double scale) {
  return call(OpKind::NativeDropoutBackward, {grad, mask}, {{"scale", scale}});
}

std::tuple<Tensor, Tensor, Tensor> convolution_backward(const Tensor& grad_output, const Tensor& input,
                                                        const Tensor& weight, const std::optional<Shape>& bias_sizes,
                                                        const Shape& stride, const Shape& padding,
                                                        const Shape& dilation, bool transposed,
                                                        const Shape& output_padding, int64_t groups,
                                                        std::array<bool, 3> output_mask) {
  const Tensor in[] = {grad_output, input, weight};
  TensorList out = dispatch::call(OpKind::ConvolutionBackward, in,
                                  {{"bias_sizes", bias_sizes ? AttrValue{*bias_sizes} : AttrValue{}},
                                   {"stride", stride},
                                   {"padding", padding},
                                   {"dilation", dilation},
                                   {"transposed", transposed},
                                   {"output_padding", output_padding},
                                   {"groups", groups},
                                   {"output_mask", detail::bool3_attr(output_mask)}});
  return {std::move(out.at(0)), std::move(out.at(1)), std::move(out.at(2))};
}
std::tuple<Tensor, Tensor, Tensor> native_batch_norm_backward(
    const Tensor& grad_out, const Tensor& input, const Tensor& weight, const Tensor& running_mean,
    const Tensor& running_var, const Tensor& save_mean, const Tensor& save_invstd, bool train, double eps,
    std::array<bool, 3> output_mask) {
  const Tensor in[] = {grad_out, input, weight, running_mean, running_var, save_mean, save_invstd};
  TensorList out = dispatch::call(OpKind::NativeBatchNormBackward, in,
                                  {{"train", train}, {"eps", eps}, {"output_mask", detail::bool3_attr(output_mask)}});
  return {std::move(out.at(0)), std::move(out.at(1)), std::move(out.at(2))};
}
std::pair<Tensor, Tensor> max_pool2d_with_indices(const Tensor& input, const Shape& kernel_size, const Shape& stride,
                                                  const Shape& padding, const Shape& dilation, bool ceil_mode) {
  const Tensor in[] = {input};
  TensorList out = dispatch::call(OpKind::MaxPool2dWithIndices, in,
                                  {{"kernel_size", kernel_size},
                                   {"stride", stride},
                                   {"padding", padding},
                                   {"dilation", dilation},
                                   {"ceil_mode", ceil_mode}});
  return {std::move(out.at(0)), std::move(out.at(1))};
}
Tensor max_pool2d_with_indices_backward(const Tensor& grad_output, const Tensor& input, const Shape& kernel_size,
                                        const Shape& stride, const Shape& padding, const Shape& dilation,
                                        bool ceil_mode, const Tensor& indices) {
  return call(OpKind::MaxPool2dWithIndicesBackward, {grad_output, input, indices},
              {{"kernel_size", kernel_size},
               {"stride", stride},
               {"padding", padding},
               {"dilation", dilation},
               {"ceil_mode", ceil_mode}});
}
Tensor avg_pool2d_backward(const Tensor& grad_output, const Tensor& input, const Shape& kernel_size,
                           const Shape& stride, const Shape& padding, bool ceil_mode, bool count_include_pad,
                           std::optional<int64_t> divisor_override) {
  return call(OpKind::AvgPool2dBackward, {grad_output, input},
              {{"kernel_size", kernel_size},
               {"stride", stride},
               {"padding", padding},
               {"ceil_mode", ceil_mode},
               {"count_include_pad", count_include_pad},
               {"divisor_override", detail::optional_int_attr(divisor_override)}});
}
Tensor adaptive_avg_pool2d_backward(const Tensor& grad_output, const Tensor& input) {
  return call(OpKind::AdaptiveAvgPool2dBackward, {grad_output, input});
}

Tensor _softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  return call(OpKind::SoftmaxForward, {self}, {{"dim", dim}, {"half_to_float", half_to_float}});
}
Tensor _log_softmax(const Tensor& self, int64_t dim, bool half_to_float) {
  return call(OpKind::LogSoftmaxForward, {self}, {{"dim", dim}, {"half_to_float", half_to_float}});
}
Tensor _softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, DType input_dtype) {
  return call(OpKind::SoftmaxBackwardData, {grad_output, output}, {{"dim", dim}, {"input_dtype", input_dtype}});
}
Tensor _log_softmax_backward_data(const Tensor& grad_output, const Tensor& output, int64_t dim, DType input_dtype) {
  return call(OpKind::LogSoftmaxBackwardData, {grad_output, output}, {{"dim", dim}, {"input_dtype", input_dtype}});
}
Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return call(OpKind::Softmax, {self}, {{"dim", dim}, {"dtype", dtype ? AttrValue{*dtype} : AttrValue{}}});
}
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  return call(OpKind::LogSoftmax, {self}, {{"dim", dim}, {"dtype", dtype ? AttrValue{*dtype} : AttrValue{}}});
}
std::pair<Tensor, Tensor> nll_loss_forward(const Tensor& self, const Tensor& target, const Tensor& weight,
                                           int64_t reduction, int64_t ignore_index) {
  const Tensor in[] = {self, target, weight};
  TensorList out = dispatch::call(OpKind::NllLossForward, in, {{"reduction", reduction}, {"ignore_index", ignore_index}});
  return {std::move(out.at(0)), std::move(out.at(1))};
}
Tensor nll_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, const Tensor& weight,
                         int64_t reduction, int64_t ignore_index, const Tensor& total_weight) {
  return call(OpKind::NllLossBackward, {grad_output, self, target, weight, total_weight},
              {{"reduction", reduction}, {"ignore_index", ignore_index}});
}
Tensor nll_loss(const Tensor& self, const Tensor& target, const Tensor& weight, int64_t reduction, int64_t ignore_index) {
  return call(OpKind::NllLoss, {self, target, weight}, {{"reduction", reduction}, {"ignore_index", ignore_index}});
}
Tensor cross_entropy_loss(const Tensor& self, const Tensor& target, const Tensor& weight, int64_t reduction,
                          int64_t ignore_index, double label_smoothing) {
  return call(OpKind::CrossEntropyLoss, {self, target, weight},
              {{"reduction", reduction}, {"ignore_index", ignore_index}, {"label_smoothing", label_smoothing}});
}
Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction) {
  return call(OpKind::MseLoss, {self, target}, {{"reduction", reduction}});
}
Tensor mse_loss_backward(const Tensor& grad_output, const Tensor& self, const Tensor& target, int64_t reduction) {
  return call(OpKind::MseLossBackward, {grad_output, self, target}, {{"reduction", reduction}});
}

}  // namespace tl
