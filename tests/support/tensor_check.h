// tests/support/tensor_check.h — tensor comparison for tests: reports the worst element's index,
// both values and the difference, so a failure says where and by how much; finite-difference gradients.
#pragma once

#include <functional>
#include <string>

#include "core/tensor.h"

namespace tl::testing {

/// Empty when `actual` and `expected` have the same shape and every element satisfies
/// |a - e| <= atol + rtol * |e| (NaN equals NaN); otherwise a description of the worst element.
std::string compare_tensors(const Tensor& actual, const Tensor& expected, double rtol, double atol);

/// torch.equal for tensors that may be quantized: the same dtype, shape and values, and for quantized ones the same
/// scheme, integers and qparams (equal() itself refuses quantized tensors, as aten::equal does).
bool same_tensor(const Tensor& a, const Tensor& b);

/// Element `flat` (row-major over sizes, honouring strides) converted to double.
double element_at(const Tensor& t, int64_t flat);

/// d objective / d x by central differences (step h) at a contiguous float64 `x`: the reference the
/// backward kernels and the gradient check are held to.
Tensor numeric_gradient(const std::function<double(const Tensor&)>& objective, const Tensor& x, double h = 1e-6);

}  // namespace tl::testing

/// CHECK that two tensors are close; prints the worst index and difference when not.
#define CHECK_TENSOR_CLOSE(actual, expected, rtol, atol)                                         \
  do {                                                                                           \
    const std::string tl_check_msg = ::tl::testing::compare_tensors(actual, expected, rtol, atol); \
    CHECK_MESSAGE(tl_check_msg.empty(), tl_check_msg);                                           \
  } while (false)
