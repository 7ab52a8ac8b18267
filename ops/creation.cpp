// ops/creation.cpp — factory kernels: empty, zeros, ones, full, arange; and ones_like (the seeded
// factories are in ops/random.cpp). Sizes are checked under the factory's own name before
// Tensor::allocate checks the bytes against the limit.
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/aten_tree.h"
#include "ops/ops.h"

namespace tl::kernels {
namespace {

// A new tensor of `size` holding `value` everywhere.
Tensor filled(const Shape& size, DType dtype, const Scalar& value, const char* op) {
  check_sizes(size, op);
  Tensor out = Tensor::allocate(size, dtype);
  TL_DISPATCH_ALL_TYPES(dtype, "full", [&] {
    scalar_t* p = static_cast<scalar_t*>(out.raw_data());
    const scalar_t v = value.to<scalar_t>();  // not through double: int64 keeps every bit, overflow throws
    parallel_for(0, out.numel(), kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) p[i] = v;
    });
  });
  return out;
}

// An integer dtype's arange, as ATen's: the bounds truncated to int64, then counted and stepped exactly
// (through double, 2^53 + 1 would be 2^53). The values lie between the bounds, so only the unsigned
// intermediate sums may wrap.
Tensor integral_arange(const Scalar& start_value, const Scalar& end_value, const Scalar& step_value, DType dtype) {
  const int64_t start = start_value.to<int64_t>(), end = end_value.to<int64_t>(), step = step_value.to<int64_t>();
  TL_CHECK(step != 0, "arange: step must be nonzero");
  TL_CHECK((step > 0 && end >= start) || (step < 0 && end <= start),
           "arange: upper bound and larger bound inconsistent with step sign (start ", start, ", end ", end, ", step ",
           step, ")");
  const uint64_t span = step > 0 ? static_cast<uint64_t>(end) - static_cast<uint64_t>(start)
                                 : static_cast<uint64_t>(start) - static_cast<uint64_t>(end);
  const uint64_t stride = step > 0 ? static_cast<uint64_t>(step) : 0 - static_cast<uint64_t>(step);
  const uint64_t count = span / stride + (span % stride != 0);
  TL_CHECK(count <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()), "arange: range ", start, " -> ", end,
           " step ", step, " has too many elements");
  Tensor out = Tensor::allocate({static_cast<int64_t>(count)}, dtype);
  TL_DISPATCH_ALL_TYPES(dtype, "arange", [&] {
    scalar_t* p = static_cast<scalar_t*>(out.raw_data());
    for (uint64_t i = 0; i < count; ++i)
      p[i] = static_cast<scalar_t>(static_cast<int64_t>(static_cast<uint64_t>(start) + i * static_cast<uint64_t>(step)));
  });
  return out;
}

}  // namespace

Tensor empty(const EmptyArgs& args) {
  check_sizes(args.size, "empty");
  return Tensor::allocate(args.size, args.dtype);
}

Tensor zeros(const ZerosArgs& args) { return filled(args.size, args.dtype, 0, "zeros"); }

Tensor ones(const OnesArgs& args) { return filled(args.size, args.dtype, 1, "ones"); }

Tensor full(const FullArgs& args) { return filled(args.size, args.dtype, args.fill_value, "full"); }

Tensor arange(const ArangeArgs& args) {
  const double start = args.start.to<double>(), end = args.end.to<double>(), step = args.step.to<double>();
  TL_CHECK(step != 0, "arange: step must be nonzero");
  TL_CHECK(std::isfinite(start) && std::isfinite(end), "arange: unsupported range ", start, " -> ", end);
  TL_CHECK((step > 0 && end >= start) || (step < 0 && end <= start), "arange: upper bound and larger bound inconsistent with step sign (start ",
           start, ", end ", end, ", step ", step, ")");
  const DType dtype = args.dtype;
  TL_CHECK(dtype != DType::Bool, "arange: not implemented for ", dtype);
  if (!is_floating_point(dtype)) return integral_arange(args.start, args.end, args.step, dtype);
  const double count = std::ceil((end - start) / step);
  TL_CHECK(count < 9.0e18, "arange: range ", start, " -> ", end, " step ", step, " has too many elements");
  Tensor out = Tensor::allocate({static_cast<int64_t>(count)}, dtype);
  TL_DISPATCH_FLOATING_TYPES(dtype, "arange", [&] {
    scalar_t* p = static_cast<scalar_t*>(out.raw_data());
    for (int64_t i = 0, n = out.numel(); i < n; ++i) p[i] = static_cast<scalar_t>(start + static_cast<double>(i) * step);
  });
  return out;
}

}  // namespace tl::kernels

namespace tl {

// ATen's ones_like is empty_like (a kernel allocation, not recorded here) then fill_. Not a dispatched op,
// so it records its scopes itself (an immediate AtenTree).
Tensor ones_like(const Tensor& x) {
  RecordFunction scope("aten::ones_like", [&] { return ScopeArgs{x, AttrValue{}, AttrValue{}, AttrValue{}, AttrValue{},
                                                                  AttrValue{}}; });
  Tensor out = kernels::filled(x.shape(), x.dtype(), 1, "ones_like");
  if (ScopeObserver* observer = scope_observer()) {
    detail::AtenTree t(*observer);
    detail::fill_leaf(t, {x.shape(), x.dtype()}, Scalar(int64_t{1}));
  }
  return out;
}

}  // namespace tl
