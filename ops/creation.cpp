// ops/creation.cpp — factory kernels: empty, zeros, ones, full, arange, rand, randn; and ones_like.
// Random draws happen in row-major order on one thread, so results depend only on the seed. Sizes are
// checked under the factory's own name before Tensor::allocate checks the bytes against the limit.
#include <cmath>
#include <cstdint>
#include <limits>

#include "core/generator.h"
#include "core/op_args.h"
#include "core/parallel.h"
#include "ops/aten_scope.h"
#include "ops/ops.h"

namespace tl::kernels {
namespace {

// The in-place op ATen's factory fills its `empty` with: zeros' zero_, or fill_ of the value.
enum class FillOp : uint8_t { Zero, Fill };

// ATen's factories fill an `empty` (a kernel allocation, not recorded here) in place with `fill_op`.
Tensor filled(const Shape& size, DType dtype, const Scalar& value, const char* op, FillOp fill_op = FillOp::Fill) {
  check_sizes(size, op);
  Tensor out = Tensor::allocate(size, dtype);
  const bool zero = fill_op == FillOp::Zero;
  RecordFunction fill(zero ? "aten::zero_" : "aten::fill_", [&] {
    ScopeArgs args{TensorType{size, dtype}};
    if (!zero) args.emplace_back(value.is_floating_point() ? AttrValue(value.to<double>()) : AttrValue(value.to<int64_t>()));
    return args;
  });
  TL_DISPATCH_ALL_TYPES(dtype, "full", [&] {
    scalar_t* p = static_cast<scalar_t*>(out.raw_data());
    const scalar_t v = value.to<scalar_t>();  // not through double: int64 keeps every bit, overflow throws
    parallel_for(0, out.numel(), kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) p[i] = v;
    });
  });
  return out;
}

// rand and randn fill an `empty` with uniform_(0, 1) and normal_(0, 1) (`fill_op`) in ATen.
template <typename Draw>
Tensor random(const Shape& size, DType dtype, const char* op, const char* fill_op, Draw draw) {
  TL_CHECK(is_floating_point(dtype), op, ": expected a floating point dtype, got ", dtype);
  check_sizes(size, op);
  Tensor out = Tensor::allocate(size, dtype);
  RecordFunction fill(fill_op, [&] { return ScopeArgs{TensorType{size, dtype}, AttrValue(0.0), AttrValue(1.0), AttrValue{}}; });
  Generator& gen = default_generator();
  std::lock_guard lock(gen.mutex());
  TL_DISPATCH_FLOATING_TYPES(dtype, op, [&] {
    scalar_t* p = static_cast<scalar_t*>(out.raw_data());
    for (int64_t i = 0, n = out.numel(); i < n; ++i) p[i] = static_cast<scalar_t>(draw(gen));
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

Tensor zeros(const ZerosArgs& args) { return filled(args.size, args.dtype, 0, "zeros", FillOp::Zero); }

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
  // ATen's arange runs arange.start_out into an empty result it then resizes (a kernel allocation).
  RecordFunction out_overload("aten::arange", [&] {
    return ScopeArgs{detail::box(args.start), detail::box(args.end), detail::box(args.step), TensorType{Shape{0}, dtype}};
  });
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

Tensor rand(const RandArgs& args) {
  return random(args.size, args.dtype, "rand", "aten::uniform_", [](Generator& g) { return g.uniform(); });
}

Tensor randn(const RandnArgs& args) {
  return random(args.size, args.dtype, "randn", "aten::normal_", [](Generator& g) { return g.normal(); });
}

}  // namespace tl::kernels

namespace tl {

// ATen's ones_like is empty_like (a kernel allocation, not recorded here) then fill_ (filled's).
Tensor ones_like(const Tensor& x) {
  RecordFunction scope("aten::ones_like", [&] { return ScopeArgs{x, AttrValue{}, AttrValue{}, AttrValue{}, AttrValue{},
                                                                  AttrValue{}}; });
  return kernels::filled(x.shape(), x.dtype(), 1, "ones_like");
}

}  // namespace tl
