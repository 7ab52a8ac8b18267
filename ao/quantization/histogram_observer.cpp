// ao/quantization/histogram_observer.cpp — HistogramObserver (observer.h): PyTorch 1.13's histogram recording,
// combining and L2 search, each float32 tensor op of observer.py one rounded float operation here.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "ao/quantization/observer.h"
#include "ao/quantization/observer_math.h"
#include "core/py_repr.h"
#include "core/warning.h"
#include "ops/ops.h"

namespace tl::ao::quantization {
namespace {

// _get_norm: density * (end^3 - begin^3) / 3, the L2 norm of values spread uniformly over [begin, end].
float get_norm(float begin, float end, float density) {
  const float norm = (end * end * end - begin * begin * begin) / 3.0f;
  return density * norm;
}

// _combine_histograms: `new_hist` (over the old range) upsampled by `upsample_rate`, placed at `start_idx` of
// the combined range's fine grid, integrated in double and downsampled by `downsample_rate`, added to `orig`.
std::vector<float> combine_histograms(std::vector<float> orig, const std::vector<float>& new_hist,
                                      int64_t upsample_rate, int64_t downsample_rate, int64_t start_idx) {
  const auto bins = static_cast<int64_t>(orig.size());
  std::vector<double> integral(static_cast<size_t>(bins));
  double running = 0;
  int64_t index = 0;  // position on the fine grid of bins * downsample_rate cells
  for (int64_t k = 0; k < bins; ++k) {
    for (int64_t j = 0; j < downsample_rate; ++j, ++index) {
      const int64_t source = index - start_idx;
      if (source >= 0 && source < bins * upsample_rate) running += new_hist[static_cast<size_t>(source / upsample_rate)];
    }
    integral[static_cast<size_t>(k)] = running;
  }
  for (int64_t k = 0; k < bins; ++k) {
    // shifted_integral_histogram is float32: the previous integral is rounded before the difference.
    const double shifted = k == 0 ? 0.0 : static_cast<float>(integral[static_cast<size_t>(k - 1)]);
    const double interpolated = (integral[static_cast<size_t>(k)] - shifted) / static_cast<double>(upsample_rate);
    orig[static_cast<size_t>(k)] = orig[static_cast<size_t>(k)] + static_cast<float>(interpolated);
  }
  return orig;
}

}  // namespace

HistogramObserver::HistogramObserver(const HistogramObserverOptions& options)
    : UniformQuantizationObserverBase(options.range), bins_(options.bins), upsample_rate_(options.upsample_rate) {
  check_qscheme("HistogramObserver", true);
  TL_CHECK(bins_ > 0, "HistogramObserver: bins must be positive, got ", bins_);
  TL_CHECK(upsample_rate_ > 0, "HistogramObserver: upsample_rate must be positive, got ", upsample_rate_);
  dst_nbins_ = int64_t{1} << (dtype() == QDType::QInt32 ? 32 : 8);
  register_buffer("histogram", zeros({bins_}, kFloat));
  register_buffer("min_val", full({}, std::numeric_limits<float>::infinity()));
  register_buffer("max_val", full({}, -std::numeric_limits<float>::infinity()));
}

Tensor HistogramObserver::forward(const Tensor& x) {
  if (x.numel() == 0) return x;
  const Tensor v = detail::float_values(x);
  const float* p = v.data<float>();
  const int64_t n = v.numel();
  const auto [new_min, new_max] = detail::aminmax(p, n);
  TL_CHECK(std::isfinite(new_min) && std::isfinite(new_max), "HistogramObserver: cannot observe a tensor holding ",
           std::isnan(new_min) ? "NaN" : "an infinite value", " (its range is [", py_float(new_min), ", ",
           py_float(new_max), "])");
  float& min_val = *buffer("min_val").data<float>();
  float& max_val = *buffer("max_val").data<float>();
  const bool uninitialized = min_val == std::numeric_limits<float>::infinity() &&
                             max_val == -std::numeric_limits<float>::infinity();
  if (uninitialized || min_val == max_val) {
    // torch.histc(x, bins, min=int(min_val), max=int(max_val)): the range truncated to integers, as 1.13 does.
    std::vector<float> hist = detail::histc(p, n, bins_, detail::py_int(new_min), detail::py_int(new_max));
    std::copy(hist.begin(), hist.end(), buffer("histogram").data<float>());
    min_val = new_min;
    max_val = new_max;
    return x;
  }
  const float combined_min = std::min(new_min, min_val);
  float combined_max = std::max(new_max, max_val);
  // _adjust_min_max: a common grid of the old histogram's fine resolution; only the max is relaxed.
  const float hist_bin_width = (max_val - min_val) / static_cast<float>(bins_ * upsample_rate_);
  const float combined_width = static_cast<float>(bins_) * hist_bin_width;
  const double downsample = std::ceil((combined_max - combined_min) / combined_width);
  TL_CHECK(downsample * static_cast<double>(bins_) <= static_cast<double>(int64_t{1} << 31),
           "HistogramObserver: combining the histogram over [", py_float(min_val), ", ", py_float(max_val),
           "] with a batch over [", py_float(new_min), ", ", py_float(new_max), "] needs ", downsample,
           " times its bins; the ranges are too far apart");
  const auto downsample_rate = static_cast<int64_t>(downsample);
  const float e = static_cast<float>(downsample_rate) * combined_width - (combined_max - combined_min);
  combined_max = combined_max + e;
  const auto start_idx = static_cast<int64_t>(std::nearbyint((min_val - combined_min) / hist_bin_width));
  TL_CHECK(start_idx + bins_ * upsample_rate_ <= bins_ * downsample_rate,
           "HistogramObserver: the histogram over [", py_float(min_val), ", ", py_float(max_val),
           "] does not fit the combined range [", py_float(combined_min), ", ", py_float(combined_max), "]");
  std::vector<float> combined =
      detail::histc(p, n, bins_, detail::py_int(combined_min), detail::py_int(combined_max));
  float* histogram = buffer("histogram").data<float>();
  if (combined_min == min_val && combined_max == max_val) {
    for (int64_t i = 0; i < bins_; ++i) combined[static_cast<size_t>(i)] += histogram[i];
  } else {
    combined = combine_histograms(std::move(combined), std::vector<float>(histogram, histogram + bins_),
                                  upsample_rate_, downsample_rate, start_idx);
  }
  std::copy(combined.begin(), combined.end(), histogram);
  min_val = combined_min;
  max_val = combined_max;
  return x;
}

float HistogramObserver::quantization_error(int64_t next_start_bin, int64_t next_end_bin) const {
  const double min_val = *buffer("min_val").data<float>(), max_val = *buffer("max_val").data<float>();
  const double bin_width_d = (max_val - min_val) / static_cast<double>(bins_);
  const double dst_bin_width_d =
      bin_width_d * static_cast<double>(next_end_bin - next_start_bin + 1) / static_cast<double>(dst_nbins_);
  if (dst_bin_width_d == 0.0) return 0.0f;
  const auto bin_width = static_cast<float>(bin_width_d);
  const auto dst_bin_width = static_cast<float>(dst_bin_width_d);
  const auto half_dst = static_cast<float>(dst_bin_width_d / 2);
  const auto last_dst = static_cast<float>(dst_nbins_ - 1);
  const float* histogram = buffer("histogram").data<float>();
  std::vector<float> norm(static_cast<size_t>(bins_));
  const auto clamp = [&](float v) { return std::isnan(v) ? v : std::min(std::max(v, 0.0f), last_dst); };
  for (int64_t i = 0; i < bins_; ++i) {
    const float src_bin_begin = static_cast<float>(i - next_start_bin) * bin_width;
    const float src_bin_end = src_bin_begin + bin_width;
    const float dst_bin_of_begin = clamp(detail::div_floor(src_bin_begin, dst_bin_width));
    const float dst_bin_of_begin_center = (dst_bin_of_begin + 0.5f) * dst_bin_width;
    const float dst_bin_of_end = clamp(detail::div_floor(src_bin_end, dst_bin_width));
    const float density = histogram[i] / bin_width;
    float sum = 0.0f + get_norm(src_bin_begin - dst_bin_of_begin_center, half_dst, density);
    sum = sum + (dst_bin_of_end - dst_bin_of_begin - 1.0f) * get_norm(-half_dst, half_dst, density);
    const float dst_bin_of_end_center = dst_bin_of_end * dst_bin_width + half_dst;
    sum = sum + get_norm(-half_dst, src_bin_end - dst_bin_of_end_center, density);
    norm[static_cast<size_t>(i)] = sum;
  }
  return detail::float_sum(norm.data(), bins_);
}

std::pair<float, float> HistogramObserver::non_linear_param_search() const {
  const float min_val = *buffer("min_val").data<float>(), max_val = *buffer("max_val").data<float>();
  const float bin_width = (max_val - min_val) / static_cast<float>(bins_);
  const float* histogram = buffer("histogram").data<float>();
  const double total = detail::float_sum(histogram, bins_);
  std::vector<float> c_sum(static_cast<size_t>(bins_));
  double running = 0;  // torch.cumsum accumulates float32 in double on CPU
  for (int64_t i = 0; i < bins_; ++i) c_sum[static_cast<size_t>(i)] = static_cast<float>(running += histogram[i]);
  const double stepsize = 1e-5;
  double alpha = 0.0, beta = 1.0;
  int64_t start_bin = 0, end_bin = bins_ - 1;
  double norm_min = std::numeric_limits<double>::infinity();
  while (alpha < beta) {
    const double next_alpha = alpha + stepsize, next_beta = beta - stepsize;
    // cSum[l] < next_alpha * total compares in float32 (the Python number joins the tensor's dtype).
    const auto lower = static_cast<float>(next_alpha * total), upper = static_cast<float>(next_beta * total);
    int64_t l = start_bin, r = end_bin;
    while (l < end_bin && c_sum[static_cast<size_t>(l)] < lower) ++l;
    while (r > start_bin && c_sum[static_cast<size_t>(r)] > upper) --r;
    int64_t next_start_bin = start_bin, next_end_bin = end_bin;
    if (l - start_bin > end_bin - r) {
      next_start_bin = l;
      alpha = next_alpha;
    } else {
      next_end_bin = r;
      beta = next_beta;
    }
    if (next_start_bin == start_bin && next_end_bin == end_bin) continue;
    const double norm = quantization_error(next_start_bin, next_end_bin);
    if (norm > norm_min) break;
    norm_min = norm;
    start_bin = next_start_bin;
    end_bin = next_end_bin;
  }
  return {min_val + bin_width * static_cast<float>(start_bin), min_val + bin_width * static_cast<float>(end_bin + 1)};
}

QParams HistogramObserver::calculate_qparams() const {
  const float min_val = *buffer("min_val").data<float>(), max_val = *buffer("max_val").data<float>();
  if (min_val == std::numeric_limits<float>::infinity() && max_val == -std::numeric_limits<float>::infinity()) {
    warn("must run observer before calling calculate_qparams. Returning default scale and zero point");
    return {full({1}, 1.0), zeros({1}, kLong)};
  }
  const auto [new_min, new_max] = non_linear_param_search();
  return calculate_from(full({}, new_min), full({}, new_max));
}

}  // namespace tl::ao::quantization
