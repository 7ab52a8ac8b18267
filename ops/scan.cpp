// ops/scan.cpp — cumsum and cumprod along one dim: each lane is scanned in order, accumulating as ATen's
// CPU kernel does (double for float32/float64, float for bfloat16, int64 for integers) and rounding
// every partial result to the output dtype.
#include <type_traits>

#include "core/dispatch.h"
#include "core/op_args.h"
#include "ops/elementwise.h"
#include "ops/reduce_plan.h"

namespace tl::kernels {
namespace {

template <typename T>
using scan_acc_t = std::conditional_t<std::is_same_v<T, BFloat16>, float,
                                      std::conditional_t<std::is_floating_point_v<T>, double, int64_t>>;

template <typename T, bool kProduct>
void scan_lanes(const Tensor& x, const detail::Lanes& l, Tensor& out) {
  using Acc = scan_acc_t<T>;
  const T* src = x.numel() > 0 ? x.data<T>() : nullptr;
  T* dst = out.numel() > 0 ? out.data<T>() : nullptr;
  detail::for_each_lane(x, l.dim, l.n, [&](int64_t o, int64_t offset) {
    Acc acc = kProduct ? Acc(1) : Acc(0);
    for (int64_t j = 0; j < l.n; ++j) {
      const Acc v = static_cast<Acc>(static_cast<detail::acc_type<T>>(src[offset + j * l.stride]));
      acc = kProduct ? acc * v : acc + v;
      dst[l.out_pos(o, l.n, j)] = static_cast<T>(acc);
    }
  });
}

// ATen's integer_upcast: the input converted to `dtype`, or integers and bool to int64.
template <bool kProduct>
Tensor scan(const Tensor& self, int64_t dim, std::optional<DType> dtype, const char* op) {
  const int64_t d = wrap_dim(dim, self.dim(), op);
  const DType out_dtype = dtype ? *dtype : is_floating_point(self.dtype()) ? self.dtype() : DType::Int64;
  const Tensor x = out_dtype == self.dtype() ? self : detail::to_dtype(self, out_dtype);
  const detail::Lanes l = detail::lanes_of(x, d, op);  // x's strides: a conversion makes it contiguous
  Tensor out = Tensor::allocate(x.shape(), out_dtype);
  TL_DISPATCH_ALL_TYPES(out_dtype, op, [&] { scan_lanes<scalar_t, kProduct>(x, l, out); });
  return out;
}

}  // namespace

Tensor cumsum(const Tensor& self, const CumsumArgs& args) { return scan<false>(self, args.dim, args.dtype, "cumsum"); }

Tensor cumprod(const Tensor& self, const CumprodArgs& args) {
  return scan<true>(self, args.dim, args.dtype, "cumprod");
}

}  // namespace tl::kernels
