// models/my_module.cpp — MyModule's forward. The slow path keeps NumPy's shape on purpose: one
// tensor copy (mask.cpu()) the profiler sees, then a comparison pass into a bool buffer, an argwhere
// pass and their results in memory it does not see (NumPy's), exactly as the tutorial's profile
// attributes them.
#include "models/my_module.h"

#include <memory>
#include <vector>

#include "core/shape.h"
#include "core/storage.h"
#include "nn/linear.h"
#include "ops/ops.h"
#include "profiler/record_function.h"

namespace tl::models {
namespace {

// np.argwhere(buffer > threshold) over a contiguous buffer: a bool array, then the coordinates of
// its true elements in row-major order. Plain loops, like NumPy's, invisible to op hooks.
struct Coordinates {
  int64_t found = 0;
  std::vector<int64_t> values;  // found x rank, row-major
};

template <typename T>
Coordinates argwhere_above(const T* data, const Shape& shape, double threshold) {
  const int64_t n = numel_of(shape), rank = shape.size();
  std::vector<uint8_t> above(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) above[i] = static_cast<double>(data[i]) > threshold;
  Coordinates out;
  std::vector<int64_t> index(static_cast<size_t>(rank), 0);
  for (int64_t i = 0; i < n; ++i) {
    if (above[i]) {
      ++out.found;
      out.values.insert(out.values.end(), index.begin(), index.end());
    }
    for (int64_t d = rank - 1; d >= 0 && ++index[d] == shape[d]; --d) index[d] = 0;
  }
  return out;
}

Tensor numpy_argwhere(const Tensor& mask, double threshold) {
  Tensor host = empty(mask.shape(), mask.dtype());  // mask.cpu(): a new buffer
  host.copy_(mask);
  Coordinates coords = TL_DISPATCH_FLOATING_TYPES(host.dtype(), "MyModule", [&] {
    return argwhere_above(static_cast<const scalar_t*>(host.raw_data()), host.shape(), threshold);
  });
  // torch.from_numpy(hi_idx) wraps NumPy's memory: no allocation the profiler sees, no op. So does this.
  auto values = std::make_shared<std::vector<int64_t>>(std::move(coords.values));
  const Shape shape{coords.found, mask.dim()};
  void* data = values->data();
  return Tensor::make(Storage::wrap(data, coords.found * mask.dim() * 8, std::move(values)), shape,
                      contiguous_strides(shape), 0, DType::Int64);
}

}  // namespace

MyModule::MyModule(const MyModuleOptions& options) : options_(options) {
  register_module("linear", std::make_shared<nn::Linear>(options.in_features, options.out_features, options.bias));
}

std::string MyModule::extra_repr() const { return options_.use_nonzero ? "mask_indices=nonzero" : "mask_indices=numpy"; }

TensorList MyModule::forward(nn::Inputs inputs) {
  TL_CHECK(inputs.size() == 2, "MyModule: expected (input, mask), got ", inputs.size(), " inputs");
  const Tensor& input = inputs[0];
  const Tensor& mask = inputs[1];
  Tensor out;
  {
    profiler::RecordFunction scope("LINEAR PASS");
    out = submodule("linear")(input);
  }
  Tensor hi_idx, threshold;  // as the tutorial's Python locals, they live until forward returns
  {
    profiler::RecordFunction scope("MASK INDICES");
    if (options_.use_nonzero) {
      threshold = out.sum({1}).mean();
      hi_idx = (mask > threshold).nonzero();
    } else {
      hi_idx = numpy_argwhere(mask, out.sum({1}).mean().item<double>());
    }
  }
  return {out, hi_idx};
}

MyModuleInputs my_module_inputs(DType mask_dtype, int64_t side, int64_t batch, int64_t in_features) {
  return {rand({batch, in_features}), rand({side, side, side}, mask_dtype)};
}

}  // namespace tl::models
