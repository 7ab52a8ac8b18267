// nn/upsampling.cpp — Upsample: F.interpolate with the layer's options, repr as PyTorch's.
#include "nn/upsampling.h"

#include "nn/repr.h"

namespace tl::nn {
namespace {

/// Python's repr of a value or tuple as nn.Upsample stores it: one value bare, several as a tuple.
template <typename T, typename F>
std::string value_or_tuple(const std::vector<T>& values, const F& repr) {
  if (values.size() == 1) return repr(values[0]);
  std::string s = "(";
  for (size_t i = 0; i < values.size(); ++i) s += (i ? ", " : "") + repr(values[i]);
  return s + ")";
}

}  // namespace

Upsample::Upsample(const UpsampleOptions& options) : options_(options) {
  const UpsampleOptions& o = options_;
  TL_CHECK(o.size.has_value() != o.scale_factor.has_value(), "Upsample: ",
           o.size ? "only one of size or scale_factor should be defined" : "either size or scale_factor should be defined");
  TL_CHECK(o.mode == "nearest" || o.mode == "bilinear", "Upsample: mode must be 'nearest' or 'bilinear', got '", o.mode,
           "'");
}

Tensor Upsample::forward(const Tensor& input) { return functional::interpolate(input, options_); }

std::string Upsample::extra_repr() const {
  const UpsampleOptions& o = options_;
  std::string info = o.scale_factor
                         ? "scale_factor=" + value_or_tuple(*o.scale_factor, [](double v) { return py_float(v); })
                         : "size=" + value_or_tuple(*o.size, [](int64_t v) { return std::to_string(v); });
  return info + ", mode=" + o.mode;
}

}  // namespace tl::nn
