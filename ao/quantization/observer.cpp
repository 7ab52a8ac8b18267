// ao/quantization/observer.cpp — the observers' recording and their qparams, in the float32 operations PyTorch
// 1.13's observer.py performs (one tensor op there is one rounded float operation here), so scales agree bitwise.
#include "ao/quantization/observer.h"

#include <algorithm>
#include <cmath>

#include "ao/quantization/observer_math.h"
#include "core/py_repr.h"
#include "core/warning.h"
#include "ops/ops.h"

namespace tl::ao::quantization {

using detail::aminmax;
using detail::float_values;
using detail::format_buffer;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// torch.min / torch.max of two tensors: NaN propagates.
float minimum(float a, float b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::min(a, b); }
float maximum(float a, float b) { return std::isnan(a) || std::isnan(b) ? kNaN : std::max(a, b); }

Tensor scalar_buffer(float value) { return full({}, value); }

}  // namespace

const char* qdtype_name(QDType dtype) {
  switch (dtype) {
    case QDType::QUInt8: return "torch.quint8";
    case QDType::QInt8: return "torch.qint8";
    case QDType::QInt32: return "torch.qint32";
    case QDType::Float16: return "torch.float16";
    case QDType::Float32: return "torch.float32";
  }
  TL_INTERNAL_ASSERT(false, "qdtype_name: unknown QDType");
  return "";
}

// ---- UniformQuantizationObserverBase ----

UniformQuantizationObserverBase::UniformQuantizationObserverBase(const QuantRange& range)
    : ObserverBase(range.dtype), qscheme_(range.qscheme), reduce_range_(range.reduce_range) {
  const QDType dtype = range.dtype;
  TL_CHECK(dtype == QDType::QUInt8 || dtype == QDType::QInt8 || dtype == QDType::QInt32,
           "observer: only works for the torch.qint8, torch.quint8 and torch.qint32 dtypes, got ",
           qdtype_name(dtype));
  TL_CHECK(range.quant_min.has_value() == range.quant_max.has_value(),
           "observer: give both quant_min and quant_max, or neither");
  has_customized_qrange_ = range.quant_min.has_value();
  if (has_customized_qrange_) {
    const int64_t qmin = *range.quant_min, qmax = *range.quant_max;
    TL_CHECK(qmin <= 0 && 0 <= qmax, "observer: user-specified quantization range must include 0, got [", qmin,
             ", ", qmax, "]");
    TL_CHECK(qmin < qmax, "observer: qmin must be strictly less than qmax for user-specified quantization range, got ",
             qmin, " and ", qmax);
    const int64_t len = qmax - qmin + 1;
    TL_CHECK(dtype != QDType::QInt8 || len <= 256,
             "observer: quantization range should be positive and not exceed the maximum bit range (=256), got [",
             qmin, ", ", qmax, "]");
    TL_CHECK(dtype != QDType::QInt32 || len <= (int64_t{1} << 31),
             "observer: quantization range should be positive and not exceed the maximum bit range (=4294967296), "
             "got [", qmin, ", ", qmax, "]");
    // Python's floor division, as calculate_qmin_qmax halves a customized range.
    const auto half = [](int64_t v) { return v >= 0 ? v / 2 : -((-v + 1) / 2); };
    quant_min_ = reduce_range_ ? half(qmin) : qmin;
    quant_max_ = reduce_range_ ? half(qmax) : qmax;
  } else if (dtype == QDType::QInt8) {
    quant_min_ = reduce_range_ ? -64 : -128;
    quant_max_ = reduce_range_ ? 63 : 127;
  } else if (dtype == QDType::QUInt8) {
    quant_min_ = 0;
    quant_max_ = reduce_range_ ? 127 : 255;
  } else {
    quant_min_ = -(int64_t{1} << 31);
    quant_max_ = (int64_t{1} << 31) - 1;
  }
  register_buffer("eps", full({1}, range.eps));
}

void UniformQuantizationObserverBase::check_qscheme(const char* name, bool per_tensor) const {
  TL_CHECK(is_per_tensor(qscheme_) == per_tensor, name, ": qscheme only supports ",
           per_tensor ? "torch.per_tensor_symmetric and torch.per_tensor_affine"
                      : "torch.per_channel_symmetric and torch.per_channel_affine",
           ", got ", qscheme_name(qscheme_));
  const bool symmetric = qscheme_ == QScheme::PerTensorSymmetric || qscheme_ == QScheme::PerChannelSymmetric;
  TL_CHECK(!(symmetric && reduce_range_ && dtype() == QDType::QUInt8), name,
           ": cannot reduce range for symmetric quantization for quint8");
}

QParams UniformQuantizationObserverBase::calculate_from(const Tensor& min_t, const Tensor& max_t) const {
  const int64_t n = min_t.numel();
  const bool unobserved = n == 0 || max_t.numel() == 0;
  const float* mins = min_t.data<float>();
  const float* maxs = max_t.data<float>();
  if (unobserved || (min_t.dim() == 0 && mins[0] == kInf && maxs[0] == -kInf)) {
    warn("must run observer before calling calculate_qparams. Returning default values.");
    return {full({1}, 1.0), zeros({1}, kLong)};
  }
  for (int64_t c = 0; c < n; ++c) {
    TL_CHECK(mins[c] <= maxs[c], type_name(), ": calculate_qparams: min ", format_buffer(min_t),
             " should be less than max ", format_buffer(max_t));
    TL_CHECK(std::isfinite(mins[c]) && std::isfinite(maxs[c]), type_name(),
             ": calculate_qparams: the observed range [", py_float(mins[c]), ", ", py_float(maxs[c]),
             "] is not finite (PyTorch would return an infinite scale)");
  }
  const float eps = *buffer("eps").data<float>();
  const bool symmetric = qscheme_ == QScheme::PerTensorSymmetric || qscheme_ == QScheme::PerChannelSymmetric;
  Tensor scale = empty({n}, kFloat);
  Tensor zero_point = empty({n}, symmetric ? kLong : kInt);
  for (int64_t c = 0; c < n; ++c) {
    const float min_neg = std::min(mins[c], 0.0f);
    float max_pos = std::max(maxs[c], 0.0f);
    float s;
    if (symmetric) {
      max_pos = std::max(-min_neg, max_pos);
      s = maximum(max_pos / static_cast<float>(static_cast<double>(quant_max_ - quant_min_) / 2), eps);
      int64_t zp = 0;
      if (dtype() == QDType::QUInt8) zp = has_customized_qrange_ ? (quant_min_ + quant_max_) / 2 : 128;
      zero_point.data<int64_t>()[c] = zp;
    } else {
      s = maximum((max_pos - min_neg) / static_cast<float>(quant_max_ - quant_min_), eps);
      const auto rounded = static_cast<int32_t>(std::nearbyint(min_neg / s));
      const int64_t zp = static_cast<int64_t>(static_cast<int32_t>(quant_min_) - rounded);
      zero_point.data<int32_t>()[c] = static_cast<int32_t>(std::clamp(zp, quant_min_, quant_max_));
    }
    scale.data<float>()[c] = s;
  }
  return {scale, zero_point};
}

QParams UniformQuantizationObserverBase::calculate_qparams() const {
  return calculate_from(buffer("min_val"), buffer("max_val"));
}

std::string UniformQuantizationObserverBase::extra_repr() const {
  return "min_val=" + format_buffer(buffer("min_val")) + ", max_val=" + format_buffer(buffer("max_val"));
}

// ---- MinMaxObserver and MovingAverageMinMaxObserver ----

MinMaxObserver::MinMaxObserver(const QuantRange& options) : MinMaxObserver(options, "MinMaxObserver") {}

MinMaxObserver::MinMaxObserver(const QuantRange& options, const char* name) : UniformQuantizationObserverBase(options) {
  check_qscheme(name, true);
  register_buffer("min_val", scalar_buffer(kInf));
  register_buffer("max_val", scalar_buffer(-kInf));
}

Tensor MinMaxObserver::forward(const Tensor& x) {
  if (x.numel() == 0) return x;
  const Tensor v = float_values(x);
  const auto [lo, hi] = aminmax(v.data<float>(), v.numel());
  float* min_val = buffer("min_val").data<float>();
  float* max_val = buffer("max_val").data<float>();
  *min_val = minimum(lo, *min_val);
  *max_val = maximum(hi, *max_val);
  return x;
}

bool MinMaxObserver::observed() const {
  return !(*buffer("min_val").data<float>() == kInf && *buffer("max_val").data<float>() == -kInf);
}

MovingAverageMinMaxObserver::MovingAverageMinMaxObserver(const MovingAverageMinMaxObserverOptions& options)
    : MinMaxObserver(options.range, "MovingAverageMinMaxObserver"), averaging_constant_(options.averaging_constant) {}

Tensor MovingAverageMinMaxObserver::forward(const Tensor& x) {
  if (x.numel() == 0) return x;
  const Tensor v = float_values(x);
  const auto [lo, hi] = aminmax(v.data<float>(), v.numel());
  float* min_val = buffer("min_val").data<float>();
  float* max_val = buffer("max_val").data<float>();
  if (!observed()) {
    *min_val = lo;
    *max_val = hi;
  } else {
    // min_val + c * (cur - min_val): a Python float times a 0-dim float32 tensor is a float32 product.
    const auto c = static_cast<float>(averaging_constant_);
    *min_val = *min_val + c * (lo - *min_val);
    *max_val = *max_val + c * (hi - *max_val);
  }
  return x;
}

// ---- PerChannelMinMaxObserver ----

PerChannelMinMaxObserver::PerChannelMinMaxObserver(const PerChannelMinMaxObserverOptions& options)
    : UniformQuantizationObserverBase(options.range), ch_axis_(options.ch_axis) {
  check_qscheme("PerChannelMinMaxObserver", false);
  register_buffer("min_val", empty({0}, kFloat));
  register_buffer("max_val", empty({0}, kFloat));
}

Tensor PerChannelMinMaxObserver::forward(const Tensor& x) {
  if (x.numel() == 0) return x;
  const int64_t dim = x.dim();
  TL_CHECK(ch_axis_ >= -dim && ch_axis_ < dim, "PerChannelMinMaxObserver: ch_axis ", ch_axis_,
           " is out of range for an input of shape ", x.shape());
  const int64_t axis = ch_axis_ < 0 ? ch_axis_ + dim : ch_axis_;
  Shape order;
  for (int64_t d = 0; d < dim; ++d) order.push_back(d);
  std::swap(order[0], order[static_cast<size_t>(axis)]);
  const Tensor v = float_values(x.permute(order));
  const int64_t channels = x.size(axis), per_channel = v.numel() / channels;
  const Tensor& old_min = buffer("min_val");
  const bool first = old_min.numel() == 0 || buffer("max_val").numel() == 0;
  TL_CHECK(first || old_min.numel() == channels, "PerChannelMinMaxObserver: expected an input with ", old_min.numel(),
           " channels along ch_axis ", ch_axis_, " as observed before, got shape ", x.shape());
  Tensor min_val = first ? empty({channels}, kFloat) : old_min.clone();
  Tensor max_val = first ? empty({channels}, kFloat) : buffer("max_val").clone();
  for (int64_t c = 0; c < channels; ++c) {
    const auto [lo, hi] = aminmax(v.data<float>() + c * per_channel, per_channel);
    float& mn = min_val.data<float>()[c];
    float& mx = max_val.data<float>()[c];
    mn = first ? lo : minimum(lo, mn);
    mx = first ? hi : maximum(hi, mx);
  }
  buffer("min_val") = min_val;
  buffer("max_val") = max_val;
  return x;
}

// ---- PlaceholderObserver ----

PlaceholderObserver::PlaceholderObserver(const PlaceholderObserverOptions& options)
    : ObserverBase(options.dtype), custom_op_(options.custom_op_name), compute_dtype_(options.compute_dtype) {}

QParams PlaceholderObserver::calculate_qparams() const {
  TL_CHECK(false, "calculate_qparams should not be called for PlaceholderObserver");
  return {};
}

// ---- FixedQParamsObserver, ReuseInputObserver, NoopObserver ----

FixedQParamsObserver::FixedQParamsObserver(const FixedQParamsObserverOptions& options)
    : ObserverBase(options.dtype), qscheme_(options.qscheme), quant_min_(options.quant_min),
      quant_max_(options.quant_max) {
  register_buffer("scale", full({1}, options.scale, kFloat));
  register_buffer("zero_point", full({1}, options.zero_point, kInt));
}

QParams FixedQParamsObserver::calculate_qparams() const { return {buffer("scale"), buffer("zero_point")}; }

QParams ReuseInputObserver::calculate_qparams() const {
  TL_CHECK(false, "calculate_qparams should not be called for ReuseInputObserver");
  return {};
}

QParams NoopObserver::calculate_qparams() const {
  TL_CHECK(false, "calculate_qparams should not be called for NoopObserver");
  return {};
}

}  // namespace tl::ao::quantization
