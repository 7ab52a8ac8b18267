// nn/utils.h — torch.nn.utils' gradient clipping and parameter/vector conversion (clip_grad.py and
// convert_parameters.py of PyTorch 1.13), on the tensors of a parameter list, gradients changed in place.
#pragma once

#include <limits>

#include "core/tensor.h"

namespace tl::nn::utils {

/// Scales the gradients of `parameters` in place so that their joint norm (as if concatenated into one
/// vector) is at most `max_norm`, as PyTorch 1.13 computes it: total = norm of the per-gradient norms
/// (max of them for norm_type = inf), clip_coef = max_norm / (total + 1e-6) clamped to 1, every gradient
/// multiplied by it (also when the coefficient is 1). Parameters without .grad are skipped. Returns the
/// total norm as a 0-dim tensor of the gradients' dtype (float32 0 when none has a gradient).
/// `norm_type` may be any p: inf, -inf and 0 (the count of non-zeros) included. Throws tl::Error, with
/// no gradient changed, when error_if_nonfinite is set and the total norm is nan or ±inf.
Tensor clip_grad_norm_(TensorListRef parameters, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);
Tensor clip_grad_norm_(const Tensor& parameter, double max_norm, double norm_type = 2.0,
                       bool error_if_nonfinite = false);

/// Clamps every gradient of `parameters` to [-clip_value, clip_value] in place (a negative clip_value
/// gives every element clip_value, as PyTorch's clamp with min > max does).
void clip_grad_value_(TensorListRef parameters, double clip_value);
void clip_grad_value_(const Tensor& parameter, double clip_value);

/// The parameters flattened and concatenated into one 1-D tensor (differentiable; a copy). Throws
/// tl::Error for an empty list and, as view(-1), for a parameter whose strides cannot be flattened.
Tensor parameters_to_vector(TensorListRef parameters);

/// Makes each parameter a view of its slice of `vec` (PyTorch's `param.data = vec[a:b].view_as(param)`):
/// the parameters then share vec's memory, keeping their identity, requires_grad and .grad. Throws
/// tl::Error, with no parameter changed, unless vec is 1-D with at least as many elements as the
/// parameters together (extra elements are ignored, as in PyTorch).
void vector_to_parameters(const Tensor& vec, TensorListRef parameters);

}  // namespace tl::nn::utils
