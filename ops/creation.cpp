// ops/creation.cpp — factory kernels: empty, zeros, ones, full, arange, rand, randn; and ones_like.
// Random draws happen in row-major order on one thread, so results depend only on the seed. Sizes are
// checked under the factory's own name before Tensor::allocate checks the bytes against the limit.
#include <cmath>

#include "core/dispatch.h"
#include "core/generator.h"
#include "core/parallel.h"
#include "ops/aten_scope.h"
#include "ops/ops.h"

namespace tl::kernels {
namespace {

Tensor filled(const Shape& size, DType dtype, const Scalar& value, const char* op) {
  check_sizes(size, op);
  Tensor out = Tensor::allocate(size, dtype);
  TL_DISPATCH_ALL_TYPES(dtype, "full", [&] {
    scalar_t* p = static_cast<scalar_t*>(out.raw_data());
    const scalar_t v = static_cast<scalar_t>(value.to<double>());
    parallel_for(0, out.numel(), kGrainSize, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) p[i] = v;
    });
  });
  return out;
}

template <typename Draw>
Tensor random(const Attrs& attrs, const char* op, Draw draw) {
  const DType dtype = attrs.get<DType>("dtype");
  TL_CHECK(is_floating_point(dtype), op, ": expected a floating point dtype, got ", dtype);
  const Shape& size = attrs.get<Shape>("size");
  check_sizes(size, op);
  Tensor out = Tensor::allocate(size, dtype);
  Generator& gen = default_generator();
  std::lock_guard lock(gen.mutex());
  TL_DISPATCH_FLOATING_TYPES(dtype, op, [&] {
    scalar_t* p = static_cast<scalar_t*>(out.raw_data());
    for (int64_t i = 0, n = out.numel(); i < n; ++i) p[i] = static_cast<scalar_t>(draw(gen));
  });
  return out;
}

}  // namespace

TensorList empty(std::span<const Tensor>, const Attrs& attrs) {
  const Shape& size = attrs.get<Shape>("size");
  check_sizes(size, "empty");
  return {Tensor::allocate(size, attrs.get<DType>("dtype"))};
}

TensorList zeros(std::span<const Tensor>, const Attrs& attrs) {
  return {filled(attrs.get<Shape>("size"), attrs.get<DType>("dtype"), 0, "zeros")};
}

TensorList ones(std::span<const Tensor>, const Attrs& attrs) {
  return {filled(attrs.get<Shape>("size"), attrs.get<DType>("dtype"), 1, "ones")};
}

TensorList full(std::span<const Tensor>, const Attrs& attrs) {
  return {filled(attrs.get<Shape>("size"), attrs.get<DType>("dtype"), attrs.scalar("fill_value"), "full")};
}

TensorList arange(std::span<const Tensor>, const Attrs& attrs) {
  const double start = attrs.scalar("start").to<double>(), end = attrs.scalar("end").to<double>(),
               step = attrs.scalar("step").to<double>();
  TL_CHECK(step != 0, "arange: step must be nonzero");
  TL_CHECK(std::isfinite(start) && std::isfinite(end), "arange: unsupported range ", start, " -> ", end);
  TL_CHECK((step > 0 && end >= start) || (step < 0 && end <= start), "arange: upper bound and larger bound inconsistent with step sign (start ",
           start, ", end ", end, ", step ", step, ")");
  const double count = std::ceil((end - start) / step);
  TL_CHECK(count < 9.0e18, "arange: range ", start, " -> ", end, " step ", step, " has too many elements");
  const DType dtype = attrs.get<DType>("dtype");
  TL_CHECK(dtype != DType::Bool, "arange: not implemented for ", dtype);
  Tensor out = Tensor::allocate({static_cast<int64_t>(count)}, dtype);
  TL_DISPATCH_ALL_TYPES(dtype, "arange", [&] {
    scalar_t* p = static_cast<scalar_t*>(out.raw_data());
    for (int64_t i = 0, n = out.numel(); i < n; ++i) p[i] = static_cast<scalar_t>(start + static_cast<double>(i) * step);
  });
  return {out};
}

TensorList rand(std::span<const Tensor>, const Attrs& attrs) {
  return {random(attrs, "rand", [](Generator& g) { return g.uniform(); })};
}

TensorList randn(std::span<const Tensor>, const Attrs& attrs) {
  return {random(attrs, "randn", [](Generator& g) { return g.normal(); })};
}

}  // namespace tl::kernels

namespace tl {

// ATen's ones_like is empty_like (a kernel allocation, not recorded here) then fill_.
Tensor ones_like(const Tensor& x) {
  RecordFunction scope("aten::ones_like", [&] { return ScopeArgs{x, AttrValue{}, AttrValue{}, AttrValue{}, AttrValue{},
                                                                  AttrValue{}}; });
  RecordFunction fill("aten::fill_",
                      [&] { return ScopeArgs{TensorType{x.shape(), x.dtype()}, AttrValue(int64_t{1})}; });
  return kernels::filled(x.shape(), x.dtype(), 1, "ones_like");
}

}  // namespace tl
