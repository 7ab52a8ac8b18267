// autograd/formulas.h — the helpers the op rows' derivative formulas call (core/native_functions.toml),
// as PyTorch's FunctionsManual: each takes the gradient, the saved values and the call's fields, and
// returns the gradient of the inputs its formula names. They run with grad mode off.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "autograd/derivatives.h"
#include "core/op_args.h"

namespace tl::autograd {

/// grad * alpha, or grad itself for alpha 1 (ATen's maybe_multiply).
Tensor maybe_multiply(const Tensor& grad, const Scalar& alpha);

// ---- views ----
/// grad permuted back by the inverse of `dims`.
Tensor permute_backward(const Tensor& grad, const Shape& dims);
/// grad written into zeros of the input's shape where slice / select took it.
Tensor slice_backward(const Tensor& grad, const TensorInfo& self, int64_t dim, std::optional<int64_t> start,
                      std::optional<int64_t> end, int64_t step);
Tensor select_backward(const Tensor& grad, const TensorInfo& self, int64_t dim, int64_t index);
/// grad rolled back: the shifts negated.
Tensor roll_backward(const Tensor& grad, const IntList& shifts, const IntList& dims);
/// grad (the repeated shape) summed over its copies back to the input's shape.
Tensor repeat_backward(const Tensor& grad, const Shape& repeats, const TensorInfo& self);

// ---- elementwise ----
/// grad * sign(self), 0 at 0.
Tensor abs_backward(const Tensor& grad, const Tensor& self);
Tensor sigmoid_backward(const Tensor& grad, const Tensor& result);
Tensor tanh_backward(const Tensor& grad, const Tensor& result);
/// d/dx x^e = e x^(e-1), taken as 0 where e == 0 (x^0 is constant, also at x = 0).
Tensor pow_backward_self(const Tensor& grad, const Tensor& self, const Tensor& exponent);
/// d/de x^e = x^e log x, taken as 0 where x == 0 and e >= 0, as PyTorch does.
Tensor pow_backward_exponent(const Tensor& grad, const Tensor& self, const Tensor& exponent, const Tensor& result);
/// pow.Scalar's (a number base): grad * (result * log(base)), zero where base is 0 and the exponent >= 0.
Tensor pow_backward_exponent(const Tensor& grad, const Scalar& self, const Tensor& exponent, const Tensor& result);
/// masked_fill.Tensor's gradient to its 0-dim value: the sum of grad where mask is true.
Tensor masked_fill_value_backward(const Tensor& grad, const Tensor& mask);
/// grad where self lies within [min, max] (each bound optional), 0 elsewhere.
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max);
/// clamp.Tensor's: grad where self lies within [min, max] (either bound undefined), 0 elsewhere.
Tensor clamp_backward(const Tensor& grad, const Tensor& self, const Tensor& min, const Tensor& max);
/// clamp.Tensor's bounds': min's gradient where self < min (and min < max when both are given), max's where
/// self > max (or max < min), as PyTorch's clamp_backward_min_max.
std::tuple<Tensor, Tensor> clamp_backward_min_max(const Tensor& grad, const Tensor& self, const Tensor& min,
                                                  const Tensor& max, const std::array<bool, 2>& grad_input_mask);
/// native_dropout's scale: 1 / (1 - p) in training, 1 outside it (where it is the identity).
double dropout_scale(double p, const std::optional<bool>& train);

// ---- reductions and indexing ----
/// sum's gradient expanded back over the reduced dims, in the input's dtype. The dimless sum() is its
/// own overload (SumBackward0): the 0-d gradient expands as it is.
Tensor sum_backward(const Tensor& grad, const TensorInfo& self, const std::optional<IntList>& dim, bool keepdim);
Tensor mean_backward(const Tensor& grad, const TensorInfo& self, const std::optional<IntList>& dim, bool keepdim);
/// max / min: a whole reduction shares the gradient evenly among the extreme elements (NaN where the
/// result is NaN); along a dim it goes to the element `indices` names.
Tensor extreme_backward(const Tensor& grad, const Tensor& self, const Tensor& values, const Tensor& indices,
                        const std::optional<int64_t>& dim, bool keepdim);
/// amax / amin over `dim` ([]: all): the gradient shared evenly among the elements equal to the result, as
/// ATen's scale_grad_by_count (NaN for a NaN result, which no element equals).
Tensor amax_amin_backward(const Tensor& grad, const Tensor& self, const Tensor& result, const IntList& dim,
                          bool keepdim);
/// prod of every element, as ATen's: result / self without zeros; with one zero, the product of the others there
/// (exclusive cumprods); with several, zeros.
Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result);
/// prod along `dim`: result / self where the input has no zero, else the exclusive cumprods along dim.
Tensor prod_backward(const Tensor& grad, const Tensor& self, const Tensor& result, int64_t dim, bool keepdim);
/// logsumexp: grad * exp(self - result), the result unsqueezed back where `dim` ([]: all) reduced.
Tensor logsumexp_backward(const Tensor& grad, const Tensor& self, const Tensor& result, const IntList& dim,
                          bool keepdim);
/// var / std over `dim` (none or empty: all): 2 (self - mean) / (n - correction) times grad, as ATen's
/// var_backward (all dims with n <= correction: inf, NaN where self equals its mean); std divides by 2 std
/// first (0 where std is 0). `correction`, when given, replaces unbiased's 1 or 0.
Tensor var_backward(const Tensor& grad, const Tensor& self, const std::optional<IntList>& dim, bool unbiased,
                    bool keepdim, const std::optional<int64_t>& correction);
Tensor std_backward(const Tensor& result, const Tensor& grad, const Tensor& self, const std::optional<IntList>& dim,
                    bool unbiased, bool keepdim, const std::optional<int64_t>& correction);
/// The p-norm's gradient, as ATen's norm_backward: 0 for p = 0, sign(self) for 1, self / norm for 2 (0 where the
/// norm is 0), shared among the elements whose |x| is the norm (or NaN) for +-inf.
Tensor norm_backward(const Tensor& grad, const Tensor& self, const Scalar& p, const Tensor& result,
                     const std::optional<IntList>& dim, bool keepdim);
/// cumsum: the gradient summed from the end of `dim` back (a reversed cumsum).
Tensor cumsum_backward(const Tensor& grad, int64_t dim);
/// cumprod, as ATen's: before an element's first zero along dim, reversed_cumsum(result * grad) / self; at the
/// first zero, the sum of grad times the products that skip it; after it, 0.
Tensor cumprod_backward(const Tensor& grad, const Tensor& self, int64_t dim, const Tensor& result);
/// Each gradient slice added where its index points, gathered in rounds so nothing is multiplied (inf stays inf).
Tensor index_select_backward(const Tensor& grad, const TensorInfo& self, int64_t dim, const Tensor& index);
/// The k-th gradient element put at the k-th selected position.
Tensor masked_select_backward(const Tensor& grad, const TensorInfo& self, const Tensor& mask);
/// aten::index's gradient: grad added into zeros of self's shape where the indices read (summed where
/// they repeat), as ATen's index_put_ with accumulate.
Tensor index_backward(const TensorInfo& self, const TensorList& indices, const Tensor& grad);
/// index_put's gradient to self (without accumulate): grad with the written places zeroed.
Tensor index_put_self_backward(const Tensor& grad, const TensorList& indices, const TensorInfo& values);
/// index_put's gradient to values: grad at the written places, summed to values' shape (it broadcast).
Tensor index_put_values_backward(const Tensor& grad, const TensorList& indices, const TensorInfo& values);
/// grad added into zeros of self's shape where gather read it (scatter_add).
Tensor gather_backward(const Tensor& grad, const TensorInfo& self, int64_t dim, const Tensor& index);
/// scatter's and scatter_add's src gradient: grad gathered where index sent src, zero in the part of a
/// larger src that index does not cover (where PyTorch 1.13's grad.gather(dim, index) has the wrong shape).
Tensor scatter_src_backward(const Tensor& grad, const TensorInfo& src, int64_t dim, const Tensor& index);
/// index_add's source gradient: the slices of grad the index picked, times alpha.
Tensor index_add_source_backward(const Tensor& grad, const TensorInfo& source, int64_t dim, const Tensor& index,
                                 const Scalar& alpha);
/// Each input's slice of grad (a legacy empty (0,) input gets zeros).
TensorList cat_backward(const Tensor& grad, const std::vector<TensorInfo>& tensors, int64_t dim);
TensorList stack_backward(const Tensor& grad, size_t count, int64_t dim);

// ---- products ----
/// matmul of any ranks: 1-D operands act as a row (self) or column (other) vector, batch dims broadcast.
Tensor matmul_backward_self(const Tensor& grad, const TensorInfo& self, const Tensor& other);
Tensor matmul_backward_other(const Tensor& grad, const Tensor& self, const TensorInfo& other);
Tensor linear_backward_weight(const Tensor& grad, const Tensor& input, const TensorInfo& weight);
Tensor linear_backward_bias(const Tensor& grad, const TensorInfo& weight);

// ---- neural-network ops: their backward kernels ----
/// A fixed-size int-list argument (int[2] kernel_size, int[4] padding) as the Shape a kernel takes.
template <size_t N>
Shape shape_of(const std::array<int64_t, N>& values) {
  return Shape(std::vector<int64_t>(values.begin(), values.end()));
}
/// convolution_backward for (input, weight, bias) of conv2d, conv1d (as conv2d over (N, C, 1, L)) and
/// the transposed ones; an unbatched input ran as a batch of one.
std::tuple<Tensor, Tensor, Tensor> conv2d_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                   const TensorInfo& bias, const Conv2dArgs& args,
                                                   const std::array<bool, 3>& grad_input_mask);
std::tuple<Tensor, Tensor, Tensor> conv1d_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                   const TensorInfo& bias, const Conv1dArgs& args,
                                                   const std::array<bool, 3>& grad_input_mask);
std::tuple<Tensor, Tensor, Tensor> conv_transpose2d_backward(const Tensor& grad, const Tensor& input,
                                                             const Tensor& weight, const TensorInfo& bias,
                                                             const ConvTranspose2dArgs& args,
                                                             const std::array<bool, 3>& grad_input_mask);
std::tuple<Tensor, Tensor, Tensor> conv_transpose1d_backward(const Tensor& grad, const Tensor& input,
                                                             const Tensor& weight, const TensorInfo& bias,
                                                             const ConvTranspose1dArgs& args,
                                                             const std::array<bool, 3>& grad_input_mask);
/// native_batch_norm_backward for (input, weight, bias): training differentiates through the batch
/// statistics (recomputed from the saved input), evaluation through the running ones.
std::tuple<Tensor, Tensor, Tensor> batch_norm_backward(const Tensor& grad, const Tensor& input, const Tensor& weight,
                                                       const Tensor& running_mean, const Tensor& running_var,
                                                       const BatchNormArgs& args,
                                                       const std::array<bool, 3>& grad_input_mask);
/// The pools' backward kernels with the forward's window (a stride=[] is the kernel_size).
Tensor max_pool2d_grad(const Tensor& grad, const Tensor& self, const MaxPool2dWithIndicesArgs& args,
                       const Tensor& indices);
Tensor avg_pool2d_grad(const Tensor& grad, const Tensor& self, const AvgPool2dArgs& args);
/// constant_pad_nd's gradient: grad with the padding cut off (a negative pad crops), as ATen's.
Tensor constant_pad_nd_backward(const Tensor& grad, const Shape& pad);
/// im2col's gradient is col2im onto self's (H, W), col2im's is im2col, with the same window.
Tensor im2col_backward(const Tensor& grad, const TensorInfo& self, const Im2colArgs& args);
Tensor col2im_backward(const Tensor& grad, const Col2imArgs& args);
/// mse_loss_backward for (self, target): target's gradient is self's negated.
std::tuple<Tensor, Tensor> mse_loss_grads(const Tensor& grad, const Tensor& self, const Tensor& target,
                                          int64_t reduction, const std::array<bool, 2>& grad_input_mask);
/// binary_cross_entropy's target gradient: -logit(self) grad (* weight) (/ numel for mean), as PyTorch's.
Tensor binary_cross_entropy_target_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                            const Tensor& weight, int64_t reduction);
/// binary_cross_entropy_with_logits' input gradient: (sigmoid(self) - target), with pos_weight p
/// ((p target + 1 - target) sigmoid(self) - p target), times grad (* weight) (/ numel for mean).
Tensor binary_cross_entropy_with_logits_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                 const Tensor& weight, const Tensor& pos_weight, int64_t reduction);
/// Its target gradient: -self, with pos_weight p (log_sigmoid(-self) - p log_sigmoid(self)), times grad
/// (* weight) (/ numel for mean).
Tensor binary_cross_entropy_with_logits_target_backward(const Tensor& grad, const Tensor& self, const Tensor& target,
                                                        const Tensor& weight, const Tensor& pos_weight,
                                                        int64_t reduction);
/// Throws tl::Error: `op`'s `input` gets no gradient, as in PyTorch (`why` says so to the user).
Tensor constant_input_grad(const char* op, const char* input, const char* why);

// ---- composite ops in grad mode ----
/// max_pool1d: max_pool1d_with_indices (ATen's composite over max_pool2d_with_indices) keeps the indices.
TensorList max_pool1d_decomposition(std::span<const Tensor> in, const MaxPool1dArgs& args);
/// max_pool2d: max_pool2d_with_indices keeps the indices its backward needs.
TensorList max_pool2d_decomposition(std::span<const Tensor> in, const MaxPool2dArgs& args);
/// dropout: native_dropout keeps the mask its backward needs.
TensorList dropout_decomposition(std::span<const Tensor> in, const DropoutArgs& args);

/// Puts a joint formula's gradients (a tuple, one per input it names) at those inputs.
template <typename... T>
void set_grads(TensorList& grads, std::initializer_list<size_t> at, const std::tuple<T...>& values) {
  [&]<size_t... I>(std::index_sequence<I...>) {
    ((grads[*(at.begin() + I)] = std::get<I>(values)), ...);
  }(std::index_sequence_for<T...>{});
}

}  // namespace tl::autograd
