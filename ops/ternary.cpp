// ops/ternary.cpp — lerp, addcmul, addcdiv and clamp with tensor bounds: up to three tensors broadcast
// together through one elementwise loop (ops/elementwise.h), in ATen's order of operations; bfloat16
// computes in float.
#include <functional>
#include <initializer_list>
#include <limits>
#include <vector>

#include "core/op_args.h"
#include "ops/elementwise.h"

namespace tl::kernels {
namespace {

Shape broadcast3(const Tensor& a, const Tensor& b, const Tensor& c, const char* name) {
  return broadcast_shapes(broadcast_shapes(a.shape(), b.shape(), name), c.shape(), name);
}

}  // namespace

namespace {

// self + weight * (end - self) for weight < 0.5, else end - (end - self) * (1 - weight): exact at both ends
// (a negative weight takes the first form, as in ATen 1.13).
template <typename A>
A lerp_value(A s, A e, A w) {
  return w < A(0.5) ? s + w * (e - s) : e - (e - s) * (A(1) - w);
}

// The dtypes of self and end (and a tensor weight) must agree: lerp does not promote.
void check_lerp_dtypes(const Tensor& self, const Tensor& end) {
  TL_CHECK(is_floating_point(self.dtype()), "lerp: expected a floating point dtype, got ", self.dtype());
  TL_CHECK(end.dtype() == self.dtype(), "lerp: expected dtype ", self.dtype(), " for `end` but got dtype ", end.dtype());
}

}  // namespace

Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {  // all three broadcast
  check_lerp_dtypes(self, end);
  TL_CHECK(weight.dtype() == self.dtype(), "lerp: expected dtype ", self.dtype(), " for `weight` but got dtype ",
           weight.dtype());
  const Tensor out = Tensor::allocate(broadcast3(self, end, weight, "lerp"), self.dtype());
  const detail::ElementwiseLoop loop(out, {self, end, weight});
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), "lerp", [&] {
    using A = detail::acc_type<scalar_t>;
    detail::map_elements<scalar_t, scalar_t, scalar_t, scalar_t>(loop, [](scalar_t s, scalar_t e, scalar_t w) {
      return static_cast<scalar_t>(lerp_value<A>(s, e, w));
    });
  });
  return out;
}

// lerp.Scalar: the weight a number, in the computation type.
Tensor lerp_scalar(const Tensor& self, const Tensor& end, const LerpScalarArgs& args) {
  check_lerp_dtypes(self, end);
  const Tensor out = Tensor::allocate(broadcast_shapes(self.shape(), end.shape(), "lerp"), self.dtype());
  const detail::ElementwiseLoop loop(out, {self, end});
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), "lerp", [&] {
    using A = detail::acc_type<scalar_t>;
    const A w = args.weight.to<A>();
    detail::map_elements<scalar_t, scalar_t, scalar_t>(
        loop, [w](scalar_t s, scalar_t e) { return static_cast<scalar_t>(lerp_value<A>(s, e, w)); });
  });
  return out;
}

namespace {

// self + value * tensor1 op tensor2 in the three tensors' result type; `op` is std::multiplies or std::divides.
template <typename Op>
Tensor addc(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const Scalar& value, const char* name) {
  const DType dtype = detail::result_type(std::initializer_list<Tensor>{self, tensor1, tensor2});
  const Shape shape = broadcast3(self, tensor1, tensor2, name);
  const Tensor a = detail::to_dtype(self, dtype), b = detail::to_dtype(tensor1, dtype),
               c = detail::to_dtype(tensor2, dtype);
  const Tensor out = Tensor::allocate(shape, dtype);
  const detail::ElementwiseLoop loop(out, {a, b, c});
  TL_DISPATCH_NUMERIC_TYPES(dtype, name, [&] {
    using A = detail::acc_type<scalar_t>;
    const A v = value.to<A>();
    detail::map_elements<scalar_t, scalar_t, scalar_t, scalar_t>(loop, [v](scalar_t sv, scalar_t t1, scalar_t t2) {
      return static_cast<scalar_t>(static_cast<A>(sv) + Op{}(v * static_cast<A>(t1), static_cast<A>(t2)));
    });
  });
  return out;
}

}  // namespace

Tensor addcmul(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const AddcmulArgs& args) {
  return addc<std::multiplies<>>(self, tensor1, tensor2, args.value, "addcmul");
}

// Integral tensor1 and tensor2 are refused with ATen's message (addcdiv once divided integers).
Tensor addcdiv(const Tensor& self, const Tensor& tensor1, const Tensor& tensor2, const AddcdivArgs& args) {
  TL_CHECK(is_floating_point(tensor1.dtype()) || is_floating_point(tensor2.dtype()),
           "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a "
           "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value "
           "* torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
           "tensor2) for float inputs. The future addcdiv behavior is just the latter implementation: (input + value "
           "* tensor1 / tensor2), for all dtypes.");
  return addc<std::divides<>>(self, tensor1, tensor2, args.value, "addcdiv");
}

namespace {

// A value bounded below or above, keeping a NaN of either operand, as ATen's vectorised maximum and
// minimum: on a tie (0.0 against -0.0) the bound wins, as their max/min instructions give it. (ATen's
// scalar loop for a tail shorter than a vector keeps self's zero instead, so its sign depends there on
// the element's position; this follows the vectorised body.)
template <typename A>
A at_least(A value, A bound) {
  if constexpr (std::numeric_limits<A>::has_quiet_NaN)
    if (value != value || bound != bound) return std::numeric_limits<A>::quiet_NaN();
  return value > bound ? value : bound;
}
template <typename A>
A at_most(A value, A bound) {
  if constexpr (std::numeric_limits<A>::has_quiet_NaN)
    if (value != value || bound != bound) return std::numeric_limits<A>::quiet_NaN();
  return value < bound ? value : bound;
}

// min(max(self, lo), hi) with tensor bounds, either one undefined (not both), all broadcast together in
// their result type; a NaN in any operand gives NaN and lo > hi gives hi, as ATen's clamp.Tensor. In place,
// the result is rounded into self, which must hold it (torch.can_cast) and keep its shape.
Tensor clamp_with_tensors(const Tensor& self, const Tensor& lo, const Tensor& hi, const char* name, bool inplace) {
  TL_CHECK(lo.defined() || hi.defined(), name, ": at least one of 'min' or 'max' must not be None");
  std::vector<Tensor> operands{self};
  for (const Tensor& bound : {lo, hi})
    if (bound.defined()) operands.push_back(bound);
  const DType dtype = detail::result_type(operands);
  Shape shape = self.shape();
  for (const Tensor& bound : {lo, hi})
    if (bound.defined()) shape = broadcast_shapes(shape, bound.shape(), name);
  if (inplace) {
    TL_CHECK(detail::can_cast(dtype, self.dtype()), name, ": result type ", dtype,
             " can't be cast to the desired output type ", self.dtype());
    for (const Tensor& bound : {lo, hi})
      if (bound.defined()) detail::check_inplace_broadcast(self, bound.shape(), name);
  }
  const Tensor out = Tensor::allocate(shape, dtype);
  const Tensor x = detail::to_dtype(self, dtype);
  TL_DISPATCH_COMPUTE_TYPES(dtype, name, [&] {
    using A = detail::acc_type<scalar_t>;
    if (lo.defined() && hi.defined()) {
      const detail::ElementwiseLoop loop(out, {x, detail::to_dtype(lo, dtype), detail::to_dtype(hi, dtype)});
      detail::map_elements<scalar_t, scalar_t, scalar_t, scalar_t>(loop, [](scalar_t v, scalar_t l, scalar_t h) {
        return static_cast<scalar_t>(at_most<A>(at_least<A>(v, l), h));
      });
    } else if (lo.defined()) {
      const detail::ElementwiseLoop loop(out, {x, detail::to_dtype(lo, dtype)});
      detail::map_elements<scalar_t, scalar_t, scalar_t>(
          loop, [](scalar_t v, scalar_t l) { return static_cast<scalar_t>(at_least<A>(v, l)); });
    } else {
      const detail::ElementwiseLoop loop(out, {x, detail::to_dtype(hi, dtype)});
      detail::map_elements<scalar_t, scalar_t, scalar_t>(
          loop, [](scalar_t v, scalar_t h) { return static_cast<scalar_t>(at_most<A>(v, h)); });
    }
  });
  if (!inplace) return out;
  detail::copy_elements(self, out);
  return self;
}

}  // namespace

Tensor clamp_tensor(const Tensor& self, const Tensor& min, const Tensor& max) {
  return clamp_with_tensors(self, min, max, "clamp", false);
}
Tensor clamp_tensor_(const Tensor& self, const Tensor& min, const Tensor& max) {
  return clamp_with_tensors(self, min, max, "clamp_", true);
}
Tensor clamp_min_tensor(const Tensor& self, const Tensor& min) { return clamp_with_tensors(self, min, {}, "clamp_min", false); }
Tensor clamp_min_tensor_(const Tensor& self, const Tensor& min) {
  return clamp_with_tensors(self, min, {}, "clamp_min_", true);
}
Tensor clamp_max_tensor(const Tensor& self, const Tensor& max) { return clamp_with_tensors(self, {}, max, "clamp_max", false); }
Tensor clamp_max_tensor_(const Tensor& self, const Tensor& max) {
  return clamp_with_tensors(self, {}, max, "clamp_max_", true);
}

}  // namespace tl::kernels
