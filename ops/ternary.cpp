// ops/ternary.cpp — lerp, addcmul and addcdiv: three tensors broadcast together through one elementwise loop
// (ops/elementwise.h), in ATen's order of operations; bfloat16 computes in float.
#include <functional>
#include <initializer_list>

#include "core/op_args.h"
#include "ops/elementwise.h"

namespace tl::kernels {
namespace {

Shape broadcast3(const Tensor& a, const Tensor& b, const Tensor& c, const char* name) {
  return broadcast_shapes(broadcast_shapes(a.shape(), b.shape(), name), c.shape(), name);
}

}  // namespace

// self + weight * (end - self) for weight < 0.5, else end - (end - self) * (1 - weight): exact at both ends
// (a negative weight takes the first form, as in ATen 1.13). The three dtypes must agree (no promotion).
Tensor lerp(const Tensor& self, const Tensor& end, const Tensor& weight) {  // all three broadcast
  TL_CHECK(is_floating_point(self.dtype()), "lerp: expected a floating point dtype, got ", self.dtype());
  TL_CHECK(end.dtype() == self.dtype(), "lerp: expected dtype ", self.dtype(), " for `end` but got dtype ", end.dtype());
  TL_CHECK(weight.dtype() == self.dtype(), "lerp: expected dtype ", self.dtype(), " for `weight` but got dtype ",
           weight.dtype());
  const Tensor out = Tensor::allocate(broadcast3(self, end, weight, "lerp"), self.dtype());
  const detail::ElementwiseLoop loop(out, {self, end, weight});
  TL_DISPATCH_FLOATING_TYPES(self.dtype(), "lerp", [&] {
    using A = detail::acc_type<scalar_t>;
    detail::map_elements<scalar_t, scalar_t, scalar_t, scalar_t>(loop, [](scalar_t sv, scalar_t ev, scalar_t wv) {
      const A s = sv, e = ev, w = wv;
      return static_cast<scalar_t>(w < A(0.5) ? s + w * (e - s) : e - (e - s) * (A(1) - w));
    });
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

}  // namespace tl::kernels
