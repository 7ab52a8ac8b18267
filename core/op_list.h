// core/op_list.h — every tensor op torchless has, declared once. This list generates the OpKind
// enumerators (core/op_kind.h), the kernel declarations and the registry (ops/registry.cpp), the
// profiler's names and (core/gen_op_api.py) the C++ API: free functions, Tensor methods and operators;
// a missing kernel fails to link.
//
// _(Enum, kernel, "aten name", "schema (PyTorch's native_functions form)", "Python operator or empty", "tags",
//   "variants")
// The schema's defaults are what a traced graph omits, as FX does; its name is the torch.* target.
// Its alias marks are PyTorch's: `Tensor(a!)` is written by the op, `Tensor(a)` returned as a view of
// it; `out` is a keyword-only written result. Tags, as in native_functions.yaml: `pointwise` (elementwise;
// a binary one takes a number for its second operand, as Python's operators do) and
// `nondeterministic_seeded` (draws from the generator). Variants, as native_functions.yaml's: "function"
// (tl::add), "method" (x.add), "function, method", "manual" (the C++ API is written by hand in
// ops/manual_api.cpp: its overloads differ from the schema, or, as contiguous(), it returns its input
// without an op when it can) or "" (reached through
// dispatch::call only, e.g. by the inference passes). An op with a Python operator gets the C++
// operator too; a pointwise binary op also takes a Scalar second operand, and an `int? dim=None`
// argument gives two overloads, without it and with it (sum(x), sum(x, {1})), as ATen's C++ API has;
// an `int[1]` dim also takes one int (x.sum(0)), as ATen's IntArrayRef does. A number on the left is
// Python's reflected operator: `2 * x` and `2 + x` are mul and add with the number second, a row
// whose Python operator is `rsub` or `rtruediv` is what `2.0 - x` or `1.0 / x` runs, and `2 < x` is
// `x > 2`. A row without an aten name is Python's, not ATen's: the profiler records only the ops it runs
// (__rtruediv__ is reciprocal, then mul, as Tensor.__rtruediv__ in PyTorch 1.13).
#pragma once

// clang-format off
#define TL_FORALL_OPS(_)                                                                                 \
  /* factories */                                                                                        \
  _(Empty, empty, "aten::empty", "empty(int[] size, *, ScalarType dtype=torch.float32) -> Tensor", "", "", "function") \
  _(Zeros, zeros, "aten::zeros", "zeros(int[] size, *, ScalarType dtype=torch.float32) -> Tensor", "", "", "function") \
  _(Ones, ones, "aten::ones", "ones(int[] size, *, ScalarType dtype=torch.float32) -> Tensor", "", "", "function")  \
  _(Full, full, "aten::full", "full(int[] size, Scalar fill_value, *, ScalarType dtype=torch.float32) -> Tensor", "", "", "function") \
  _(Arange, arange, "aten::arange", "arange(Scalar start, Scalar end, Scalar step=1, *, ScalarType dtype=torch.int64) -> Tensor", "", "", "manual") \
  _(Rand, rand, "aten::rand", "rand(int[] size, *, ScalarType dtype=torch.float32) -> Tensor", "", "nondeterministic_seeded", "function") \
  _(Randn, randn, "aten::randn", "randn(int[] size, *, ScalarType dtype=torch.float32) -> Tensor", "", "nondeterministic_seeded", "function") \
  /* copies and conversion */                                                                            \
  _(Copy_, copy_, "aten::copy_", "copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)", "", "", "method")            \
  _(Clone, clone, "aten::clone", "clone(Tensor self) -> Tensor", "", "", "method")                                \
  _(Contiguous, contiguous, "aten::contiguous", "contiguous(Tensor(a) self) -> Tensor(a)", "", "", "manual")      \
  _(To, to, "aten::to", "to(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False) -> Tensor(a)", "", "", "method")                    \
  /* views: share storage with their input */                                                            \
  _(View, view, "aten::view", "view(Tensor(a) self, int[] size) -> Tensor(a)", "", "", "method")                  \
  _(Reshape, reshape, "aten::reshape", "reshape(Tensor(a) self, int[] shape) -> Tensor(a)", "", "", "function, method")     \
  _(Flatten, flatten, "aten::flatten", "flatten(Tensor(a) self, int start_dim=0, int end_dim=-1) -> Tensor(a)", "", "", "function, method") \
  _(Permute, permute, "aten::permute", "permute(Tensor(a) self, int[] dims) -> Tensor(a)", "", "", "function, method")      \
  _(Transpose, transpose, "aten::transpose", "transpose(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", "", "", "function, method") \
  _(T, t, "aten::t", "t(Tensor(a) self) -> Tensor(a)", "", "", "method")                                          \
  _(Slice, slice, "aten::slice", "slice(Tensor(a) self, int dim=0, int? start=None, int? end=None, int step=1) -> Tensor(a)", "", "", "method") \
  _(Select, select, "aten::select", "select(Tensor(a) self, int dim, int index) -> Tensor(a)", "", "", "method")  \
  _(Expand, expand, "aten::expand", "expand(Tensor(a) self, int[] size) -> Tensor(a)", "", "", "method")          \
  _(Squeeze, squeeze, "aten::squeeze", "squeeze(Tensor(a) self, int? dim=None) -> Tensor(a)", "", "", "function, method")   \
  _(Unsqueeze, unsqueeze, "aten::unsqueeze", "unsqueeze(Tensor(a) self, int dim) -> Tensor(a)", "", "", "function, method") \
  /* unary elementwise (float results for integer input where PyTorch promotes) */                       \
  _(Neg, neg, "aten::neg", "neg(Tensor self) -> Tensor", "neg", "pointwise", "function, method")                            \
  _(Abs, abs, "aten::abs", "abs(Tensor self) -> Tensor", "", "pointwise", "function, method")                               \
  _(Exp, exp, "aten::exp", "exp(Tensor self) -> Tensor", "", "pointwise", "function, method")                               \
  _(Log, log, "aten::log", "log(Tensor self) -> Tensor", "", "pointwise", "function, method")                               \
  _(Sqrt, sqrt, "aten::sqrt", "sqrt(Tensor self) -> Tensor", "", "pointwise", "function, method")                           \
  _(Rsqrt, rsqrt, "aten::rsqrt", "rsqrt(Tensor self) -> Tensor", "", "pointwise", "function, method")                       \
  _(Reciprocal, reciprocal, "aten::reciprocal", "reciprocal(Tensor self) -> Tensor", "", "pointwise", "function, method")     \
  _(Relu, relu, "aten::relu", "relu(Tensor self) -> Tensor", "", "pointwise", "function, method")                           \
  _(Sigmoid, sigmoid, "aten::sigmoid", "sigmoid(Tensor self) -> Tensor", "", "pointwise", "function, method")               \
  _(Tanh, tanh, "aten::tanh", "tanh(Tensor self) -> Tensor", "", "pointwise", "function, method")                           \
  _(Gelu, gelu, "aten::gelu", "gelu(Tensor self, *, str approximate='none') -> Tensor", "", "pointwise", "function, method") \
  _(Hardswish, hardswish, "aten::hardswish", "hardswish(Tensor self) -> Tensor", "", "pointwise", "function, method")        \
  _(Neg_, neg_, "aten::neg_", "neg_(Tensor(a!) self) -> Tensor(a!)", "", "pointwise", "method")                   \
  _(Abs_, abs_, "aten::abs_", "abs_(Tensor(a!) self) -> Tensor(a!)", "", "pointwise", "method")                   \
  _(Exp_, exp_, "aten::exp_", "exp_(Tensor(a!) self) -> Tensor(a!)", "", "pointwise", "method")                   \
  _(Log_, log_, "aten::log_", "log_(Tensor(a!) self) -> Tensor(a!)", "", "pointwise", "method")                   \
  _(Sqrt_, sqrt_, "aten::sqrt_", "sqrt_(Tensor(a!) self) -> Tensor(a!)", "", "pointwise", "method")               \
  _(Rsqrt_, rsqrt_, "aten::rsqrt_", "rsqrt_(Tensor(a!) self) -> Tensor(a!)", "", "pointwise", "method")           \
  _(Relu_, relu_, "aten::relu_", "relu_(Tensor(a!) self) -> Tensor(a!)", "", "pointwise", "method")               \
  _(Sigmoid_, sigmoid_, "aten::sigmoid_", "sigmoid_(Tensor(a!) self) -> Tensor(a!)", "", "pointwise", "method")   \
  _(Tanh_, tanh_, "aten::tanh_", "tanh_(Tensor(a!) self) -> Tensor(a!)", "", "pointwise", "method")               \
  /* binary elementwise with broadcasting; `other` is a tensor input or a Scalar attribute */            \
  _(Add, add, "aten::add", "add(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "add", "pointwise", "function, method")              \
  _(Sub, sub, "aten::sub", "sub(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", "sub", "pointwise", "function, method")              \
  _(Mul, mul, "aten::mul", "mul(Tensor self, Tensor other) -> Tensor", "mul", "pointwise", "function, method")              \
  _(Div, div, "aten::div", "div(Tensor self, Tensor other) -> Tensor", "truediv", "pointwise", "function, method")          \
  _(Pow, pow, "aten::pow", "pow(Tensor self, Tensor exponent) -> Tensor", "pow", "pointwise", "function, method")           \
  _(Rsub, rsub, "aten::rsub", "rsub(Tensor self, Tensor other) -> Tensor", "rsub", "pointwise", "function")             \
  _(Rtruediv, rtruediv, "", "__rtruediv__(Tensor self, Scalar other) -> Tensor", "rtruediv", "pointwise", "")          \
  _(Add_, add_, "aten::add_", "add_(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", "iadd", "pointwise", "method") \
  _(Sub_, sub_, "aten::sub_", "sub_(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", "isub", "pointwise", "method") \
  _(Mul_, mul_, "aten::mul_", "mul_(Tensor(a!) self, Tensor other) -> Tensor(a!)", "imul", "pointwise", "method") \
  _(Div_, div_, "aten::div_", "div_(Tensor(a!) self, Tensor other) -> Tensor(a!)", "itruediv", "pointwise", "method") \
  _(Pow_, pow_, "aten::pow_", "pow_(Tensor(a!) self, Tensor exponent) -> Tensor(a!)", "ipow", "pointwise", "method") \
  _(Clamp, clamp, "aten::clamp", "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", "", "pointwise", "function, method") \
  _(Clamp_, clamp_, "aten::clamp_", "clamp_(Tensor(a!) self, Scalar? min=None, Scalar? max=None) -> Tensor(a!)", "", "pointwise", "method") \
  _(Where, where, "aten::where", "where(Tensor condition, Tensor self, Tensor other) -> Tensor", "", "pointwise", "function") \
  /* backward of elementwise ops (autograd's formulas call them) */                                     \
  _(ThresholdBackward, threshold_backward, "aten::threshold_backward", "threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor", "", "", "function") \
  _(GeluBackward, gelu_backward, "aten::gelu_backward", "gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor", "", "", "function") \
  _(HardswishBackward, hardswish_backward, "aten::hardswish_backward", "hardswish_backward(Tensor grad_output, Tensor self) -> Tensor", "", "", "function") \
  _(NativeDropout, native_dropout, "aten::native_dropout", "native_dropout(Tensor input, float p, bool? train) -> (Tensor, Tensor)", "", "nondeterministic_seeded", "function") \
  _(NativeDropoutBackward, native_dropout_backward, "aten::native_dropout_backward", "native_dropout_backward(Tensor grad_output, Tensor mask, float scale) -> Tensor", "", "", "function") \
  /* comparisons: bool results */                                                                        \
  _(Gt, gt, "aten::gt", "gt(Tensor self, Tensor other) -> Tensor", "gt", "pointwise", "method")                   \
  _(Lt, lt, "aten::lt", "lt(Tensor self, Tensor other) -> Tensor", "lt", "pointwise", "method")                   \
  _(Ge, ge, "aten::ge", "ge(Tensor self, Tensor other) -> Tensor", "ge", "pointwise", "method")                   \
  _(Le, le, "aten::le", "le(Tensor self, Tensor other) -> Tensor", "le", "pointwise", "method")                   \
  _(Eq, eq, "aten::eq", "eq(Tensor self, Tensor other) -> Tensor", "eq", "pointwise", "method")                   \
  _(Ne, ne, "aten::ne", "ne(Tensor self, Tensor other) -> Tensor", "ne", "pointwise", "method")                   \
  _(Allclose, allclose, "aten::allclose", "allclose(Tensor self, Tensor other, float rtol=1e-05, float atol=1e-08, bool equal_nan=False) -> bool", "", "", "function") \
  _(Equal, equal, "aten::equal", "equal(Tensor self, Tensor other) -> bool", "", "", "function")                    \
  /* reductions; max/min with a dim return (values, indices) */                                          \
  _(Sum, sum, "aten::sum", "sum(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", "", "", "function, method")   \
  _(Mean, mean, "aten::mean", "mean(Tensor self, int[1]? dim=None, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", "", "", "function, method") \
  _(Max, max, "aten::max", "max(Tensor self, int? dim=None, bool keepdim=False) -> (Tensor values, Tensor indices)", "", "", "manual") \
  _(Min, min, "aten::min", "min(Tensor self, int? dim=None, bool keepdim=False) -> (Tensor values, Tensor indices)", "", "", "manual") \
  _(Argmax, argmax, "aten::argmax", "argmax(Tensor self, int? dim=None, bool keepdim=False) -> Tensor", "", "", "function, method") \
  /* indexing and joining */                                                                             \
  _(Nonzero, nonzero, "aten::nonzero", "nonzero(Tensor self, *, bool as_tuple=False) -> Tensor[]", "", "", "manual") \
  _(Argwhere, argwhere, "aten::argwhere", "argwhere(Tensor self) -> Tensor", "", "", "function")                    \
  _(IndexSelect, index_select, "aten::index_select", "index_select(Tensor self, int dim, Tensor index) -> Tensor", "", "", "function, method") \
  _(MaskedSelect, masked_select, "aten::masked_select", "masked_select(Tensor self, Tensor mask) -> Tensor", "", "", "function, method") \
  _(Cat, cat, "aten::cat", "cat(Tensor[] tensors, int dim=0) -> Tensor", "", "", "function")                        \
  _(Stack, stack, "aten::stack", "stack(Tensor[] tensors, int dim=0) -> Tensor", "", "", "function")                \
  /* linear algebra (Eigen) */                                                                           \
  _(Matmul, matmul, "aten::matmul", "matmul(Tensor self, Tensor other) -> Tensor", "matmul", "", "function, method")        \
  _(Mm, mm, "aten::mm", "mm(Tensor self, Tensor mat2) -> Tensor", "", "", "function, method")                               \
  _(Bmm, bmm, "aten::bmm", "bmm(Tensor self, Tensor mat2) -> Tensor", "", "", "function, method")                           \
  _(Addmm, addmm, "aten::addmm", "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor", "", "", "function") \
  _(Linear, linear, "aten::linear", "linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor", "", "", "function") \
  /* neural-network kernels (oneDNN) */                                                                  \
  _(Conv2d, conv2d, "aten::conv2d", "conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] dilation=1, int groups=1) -> Tensor", "", "", "function") \
  _(BatchNorm, batch_norm, "aten::batch_norm", "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor", "", "", "function") \
  _(MaxPool2d, max_pool2d, "aten::max_pool2d", "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor", "", "", "function") \
  _(AvgPool2d, avg_pool2d, "aten::avg_pool2d", "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor", "", "", "function") \
  _(AdaptiveAvgPool2d, adaptive_avg_pool2d, "aten::adaptive_avg_pool2d", "adaptive_avg_pool2d(Tensor self, int[2] output_size) -> Tensor", "", "", "function") \
  _(Dropout, dropout, "aten::dropout", "dropout(Tensor input, float p, bool train) -> Tensor", "", "nondeterministic_seeded", "function") \
  /* their backward kernels (autograd's derivative formulas call them); bool[3] output_mask says    */ \
  /* which gradients to compute, the others come back undefined                                      */ \
  _(ConvolutionBackward, convolution_backward, "aten::convolution_backward", "convolution_backward(Tensor grad_output, Tensor input, Tensor weight, int[]? bias_sizes, int[] stride, int[] padding, int[] dilation, bool transposed, int[] output_padding, int groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)", "", "", "function") \
  _(NativeBatchNormBackward, native_batch_norm_backward, "aten::native_batch_norm_backward", "native_batch_norm_backward(Tensor grad_out, Tensor input, Tensor? weight, Tensor? running_mean, Tensor? running_var, Tensor? save_mean, Tensor? save_invstd, bool train, float eps, bool[3] output_mask) -> (Tensor, Tensor, Tensor)", "", "", "function") \
  _(MaxPool2dWithIndices, max_pool2d_with_indices, "aten::max_pool2d_with_indices", "max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)", "", "", "function") \
  _(MaxPool2dWithIndicesBackward, max_pool2d_with_indices_backward, "aten::max_pool2d_with_indices_backward", "max_pool2d_with_indices_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, int[2] dilation, bool ceil_mode, Tensor indices) -> Tensor", "", "", "function") \
  _(AvgPool2dBackward, avg_pool2d_backward, "aten::avg_pool2d_backward", "avg_pool2d_backward(Tensor grad_output, Tensor self, int[2] kernel_size, int[2] stride, int[2] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor", "", "", "function") \
  _(AdaptiveAvgPool2dBackward, adaptive_avg_pool2d_backward, "aten::_adaptive_avg_pool2d_backward", "_adaptive_avg_pool2d_backward(Tensor grad_output, Tensor self) -> Tensor", "", "", "function") \
  /* softmax and losses; the composite rows (softmax, log_softmax, nll_loss, cross_entropy_loss) do     */ \
  /* their work only through other ops, so autograd records the parts. reduction: 0 none, 1 mean, 2 sum */ \
  _(SoftmaxForward, _softmax, "aten::_softmax", "_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", "", "", "function") \
  _(SoftmaxBackwardData, _softmax_backward_data, "aten::_softmax_backward_data", "_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor", "", "", "function") \
  _(LogSoftmaxForward, _log_softmax, "aten::_log_softmax", "_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor", "", "", "function") \
  _(LogSoftmaxBackwardData, _log_softmax_backward_data, "aten::_log_softmax_backward_data", "_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor", "", "", "function") \
  _(Softmax, softmax, "aten::softmax", "softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", "", "", "function") \
  _(LogSoftmax, log_softmax, "aten::log_softmax", "log_softmax(Tensor self, int dim, ScalarType? dtype=None) -> Tensor", "", "", "function") \
  _(NllLossForward, nll_loss_forward, "aten::nll_loss_forward", "nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, int ignore_index) -> (Tensor output, Tensor total_weight)", "", "", "function") \
  _(NllLossBackward, nll_loss_backward, "aten::nll_loss_backward", "nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, int ignore_index, Tensor total_weight) -> Tensor", "", "", "function") \
  _(NllLoss, nll_loss, "aten::nll_loss", "nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, int ignore_index=-100) -> Tensor", "", "", "function") \
  _(CrossEntropyLoss, cross_entropy_loss, "aten::cross_entropy_loss", "cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, int ignore_index=-100, float label_smoothing=0.0) -> Tensor", "", "", "function") \
  _(MseLoss, mse_loss, "aten::mse_loss", "mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor", "", "", "function") \
  _(MseLossBackward, mse_loss_backward, "aten::mse_loss_backward", "mse_loss_backward(Tensor grad_output, Tensor self, Tensor target, int reduction) -> Tensor", "", "", "function") \
  /* inference-optimized kernels (fx::optimize_for_inference): activations are fp32 nChw16c, a       */ \
  /* contiguous (N, ceil(C / 16), H, W, 16) tensor with zero-padded channels, or bf16 NHWC; `out`     */ \
  /* is an optional preallocated result (an activation arena); the logical channel count is an attr */ \
  _(ToMkldnn, to_mkldnn, "aten::to_mkldnn", "to_mkldnn(Tensor self, ScalarType? dtype=None, *, Tensor(a!)? out=None) -> Tensor", "", "", "") \
  _(ToDense, to_dense, "aten::to_dense", "to_dense(Tensor self, int channels=-1, *, Tensor(a!)? out=None) -> Tensor", "", "", "") \
  _(MkldnnConvolution, mkldnn_convolution, "aten::mkldnn_convolution", "mkldnn_convolution(Tensor self, Tensor weight, Tensor? bias, Tensor? other=None, int[2] padding=0, int[2] stride=1, int[2] dilation=1, int groups=1, bool relu=False, bool winograd=False, int[] weight_size=[], int[] packed_for=[], *, Tensor(a!)? out=None) -> Tensor", "", "", "") \
  _(MkldnnReorderConv2dWeight, mkldnn_reorder_conv2d_weight, "aten::mkldnn_reorder_conv2d_weight", "mkldnn_reorder_conv2d_weight(Tensor self, int[2] padding=0, int[2] stride=1, int[2] dilation=1, int groups=1, int[] input_size=[], int[] input_stride=[], ScalarType input_dtype=torch.float32, bool bias=True, bool sum=False, bool relu=False, bool winograd=False) -> Tensor", "", "", "") \
  _(MkldnnMaxPool2d, mkldnn_max_pool2d, "aten::mkldnn_max_pool2d", "mkldnn_max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False, *, Tensor(a!)? out=None) -> Tensor", "", "", "") \
  _(MkldnnAdaptiveAvgPool2d, mkldnn_adaptive_avg_pool2d, "aten::mkldnn_adaptive_avg_pool2d", "mkldnn_adaptive_avg_pool2d(Tensor self, int[2] output_size, *, Tensor(a!)? out=None) -> Tensor", "", "", "")
// clang-format on
