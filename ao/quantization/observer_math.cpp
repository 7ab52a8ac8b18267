// ao/quantization/observer_math.cpp — see observer_math.h: one float32 rounding wherever PyTorch's kernel has one.
#include "ao/quantization/observer_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/py_repr.h"

namespace tl::ao::quantization::detail {

Tensor float_values(const Tensor& x) { return x.detach().to(kFloat).contiguous(); }

std::pair<float, float> aminmax(const float* p, int64_t n) {
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(p[i])) return {p[i], p[i]};
    lo = std::min(lo, p[i]);
    hi = std::max(hi, p[i]);
  }
  return {lo, hi};
}

std::vector<float> histc(const float* p, int64_t n, int64_t bins, double lo, double hi) {
  if (lo == hi && n > 0) {
    const auto [a, b] = aminmax(p, n);
    lo = a;
    hi = b;
  }
  if (lo == hi) {
    lo -= 1;
    hi += 1;
  }
  // histogramdd's linear interpolation without local search: pos = (e - left) * bins / (right - left).
  const auto left = static_cast<float>(lo), right = static_cast<float>(hi);
  std::vector<float> hist(static_cast<size_t>(bins), 0.0f);
  for (int64_t i = 0; i < n; ++i) {
    const float e = p[i];
    if (!(e >= left && e <= right)) continue;
    auto pos = static_cast<int64_t>((e - left) * static_cast<float>(bins) / (right - left));
    if (pos == bins) pos -= 1;  // the last bin includes its right edge
    hist[static_cast<size_t>(pos)] += 1.0f;
  }
  return hist;
}

float div_floor(float a, float b) {
  if (b == 0) return a / b;
  const float mod = std::fmod(a, b);
  float div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0)) div -= 1.0f;
  if (div == 0) return std::copysign(0.0f, a / b);
  float floordiv = std::floor(div);
  if (div - floordiv > 0.5f) floordiv += 1.0f;
  return floordiv;
}

double py_int(float v) { return std::trunc(static_cast<double>(v)); }

double float_sum(const float* p, int64_t n) {
  double acc = 0;
  for (int64_t i = 0; i < n; ++i) acc += p[i];
  return static_cast<float>(acc);
}

std::string format_buffer(const Tensor& t) {
  if (t.dim() == 0) return py_float(*t.data<float>());
  std::ostringstream os;
  os << t;
  return os.str();
}

}  // namespace tl::ao::quantization::detail
