// ops/dropout.cpp — dropout: in training, zeroes each element with probability p (draws from the
// default generator in row-major order, so tl::manual_seed reproduces the mask) and scales the
// survivors by 1 / (1 - p). Outside training, or with p == 0, it returns the input itself.
#include <algorithm>
#include <mutex>

#include "core/dispatch.h"
#include "core/generator.h"

namespace tl::kernels {
namespace {

template <typename T>
void drop(const T* in, T* out, int64_t n, double p) {
  const double keep = 1.0 - p, scale = 1.0 / keep;
  Generator& gen = default_generator();
  std::lock_guard lock(gen.mutex());
  for (int64_t i = 0; i < n; ++i)
    out[i] = gen.uniform() < keep ? static_cast<T>(static_cast<double>(in[i]) * scale) : static_cast<T>(0.0);
}

}  // namespace

TensorList dropout(std::span<const Tensor> inputs, const Attrs& attrs) {
  const Tensor& x = inputs[0];
  const double p = attrs.get<double>("p");
  TL_CHECK(p >= 0.0 && p <= 1.0, "dropout: probability has to be between 0 and 1, got ", p);
  if (!attrs.get<bool>("train") || p == 0.0 || x.numel() == 0) return {x};
  TL_CHECK(is_floating_point(x.dtype()), "dropout: expected a floating point input, got ", x.dtype());
  Tensor out = Tensor::allocate(x.sizes(), x.dtype());
  TL_DISPATCH_FLOATING_TYPES(x.dtype(), "dropout", [&] {
    if (p == 1.0) {
      std::fill_n(out.data<scalar_t>(), out.numel(), static_cast<scalar_t>(0.0));
      return;
    }
    const Tensor src = x.contiguous();
    drop(src.data<scalar_t>(), out.data<scalar_t>(), x.numel(), p);
  });
  return {out};
}

}  // namespace tl::kernels
